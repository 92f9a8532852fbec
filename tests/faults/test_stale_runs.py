"""Issue 15, item 1 (and 8's stale report): a run's identity covers every file its scores depend on,
and ``--overwrite`` always starts again. Through the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from fixtures import make_rio, make_surprise3d


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scenebench", *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env={**__import__("os").environ, "COLUMNS": "200"},
    )


def _rio_predictions(path: Path) -> Path:
    rows = [{"rescan": "scan0", "instance": i, "pose": np.eye(4).tolist()} for i in (1, 2, 3)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_rio_semseg_edit_changes_the_run_and_overwrite_rescores(tmp_path):
    data = make_rio(tmp_path / "3rscan")
    pred = _rio_predictions(tmp_path / "pred.jsonl")
    run = tmp_path / "run"
    args = ["score", "rio", "--data", data, "--predictions", pred, "--out", run, "--bootstrap", "0", "--no-progress"]
    p = cli(*args)
    assert p.returncode == 0, p.stderr
    before = json.loads((run / "results.json").read_text())
    assert cli("report", run).returncode == 0  # the report of the old results (its ledger lets --overwrite remove it)
    assert (run / "report.html").is_file()

    semseg = data / "ref0" / "semseg.v2.json"
    doc = json.loads(semseg.read_text())
    moved = 0
    for g in doc["segGroups"]:
        if isinstance(g.get("obb"), dict):
            g["obb"]["centroid"][0] += 50.0  # every reference centroid 50 m away
            moved += 1
    assert moved == 3
    semseg.write_text(json.dumps(doc))

    p = cli(*args)  # same command, edited ground truth: not a resume
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "other inputs or settings" in p.stderr and "--overwrite" in p.stderr
    p = cli(*args, "--overwrite")
    assert p.returncode == 0, p.stderr
    after = json.loads((run / "results.json").read_text())
    assert after["inputs"]["scan_files"]["sha256"] != before["inputs"]["scan_files"]["sha256"]
    assert after["metrics"] != before["metrics"]
    assert not (run / "report.html").exists()  # the old report does not sit beside the new results


def test_rio_ply_edit_changes_the_scan_files_digest(tmp_path):
    from scenebench.benchmarks.rio.loader import ThreeRScan

    data = make_rio(tmp_path / "3rscan")
    d = ThreeRScan(data)
    rescans = d.split_rescans("validation")
    a = d.scan_files_fingerprint(rescans)
    assert a["n_files"] == 4  # semseg + PLY of ref0 and scan0
    ply = data / "scan0" / "labels.instances.annotated.v2.ply"
    raw = bytearray(ply.read_bytes())
    raw[-5] ^= 1  # one byte of the geometry; same size
    st = ply.stat()
    ply.write_bytes(bytes(raw))
    import os

    os.utime(ply, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size and mtime: only the content tells
    assert ThreeRScan(data).scan_files_fingerprint(rescans)["sha256"] != a["sha256"]


def test_overwrite_starts_again_even_with_identical_inputs(tmp_path):
    data = make_rio(tmp_path / "3rscan")
    pred = _rio_predictions(tmp_path / "pred.jsonl")
    run = tmp_path / "run"
    args = ["score", "rio", "--data", data, "--predictions", pred, "--out", run, "--bootstrap", "0", "--no-progress"]
    assert cli(*args).returncode == 0
    before = json.loads((run / "results.json").read_text())["metrics"]
    from scenebench.io.store import SampleStore

    with SampleStore(run / "samples.sqlite") as st:  # stored scores that a resume would reuse (RIO's: one row per batch)
        rows = list(st.iter("score"))
        assert rows
        for _, rec in rows:
            rec["status"], rec["values"] = "scored", {k: 0.0 for k in rec["values"]}
        st.put_many("score", rows)
    with SampleStore(run / "samples.sqlite") as st:
        assert all(set(rec["values"].values()) <= {0.0} for _, rec in st.iter("score"))
    p = cli(*args, "--overwrite")
    assert p.returncode == 0, p.stderr
    assert json.loads((run / "results.json").read_text())["metrics"] == before  # rescored, not resumed


def test_surprise3d_run_scene_file_edit_is_not_a_resume(tmp_path):
    from scenebench.benchmarks.surprise3d.scenes import load_scene
    from scenebench.benchmarks.surprise3d.writer import write_scene

    data = make_surprise3d(tmp_path / "s3d")
    run = tmp_path / "run"
    args = ["run", "surprise3d", "--data", data, "--model", "baseline:cluster", "--out", run, "--no-progress"]
    p = cli(*args)
    assert p.returncode == 0, p.stderr
    before = json.loads((run / "results.json").read_text())
    s = load_scene(data / "scenes", "scene00")
    ids = s.instance_ids.copy()
    ids[ids == 1] = 2  # the chair's points now belong to the table
    write_scene(data / "scenes" / "scene00.npz", s.coords, s.colors, ids)
    p = cli(*args)
    assert p.returncode == 2 and "other inputs or settings" in p.stderr, (p.stdout, p.stderr)
    p = cli(*args, "--overwrite")
    assert p.returncode == 0, p.stderr
    assert "0 reused" in p.stdout
    after = json.loads((run / "results.json").read_text())
    assert after["metrics"]["overall"] != before["metrics"]["overall"]
