"""kill -9 at seeded random moments, then resume: same results, nothing saved is computed again.

Each test runs the real CLI in a subprocess: once uninterrupted (the reference), then in a second
folder several times, each attempt SIGKILLed after a seeded random delay, then once to completion.
Checks:

- results.json equals the reference's (minus ``created``, ``command`` and the folder's own path),
  and so does every per-sample record in samples.sqlite;
- nothing already saved was recomputed: every store row that existed after a kill has the same
  ``seq`` at the end (a recomputed sample is re-inserted with a new ``seq``), and over all attempts
  ``max(seq) + 1 == rows`` (no row was ever replaced);
- ``generate``: the output tree is byte-identical, and every file published before a kill is the
  same inode afterwards (not rewritten);
- judging: the scripted judge server answered each distinct request at most once more than once per
  kill (only requests in flight at the kill are asked again).
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_run import QUIET_ENV, run_cli

pytestmark = pytest.mark.slow
KILLS = 4
ENV = QUIET_ENV  # the Popen runs below kill the CLI mid-run


_cli = run_cli


def _timed(args, env=None) -> float:
    t = time.perf_counter()
    r = _cli(args, env)
    assert r.returncode == 0, r.stderr[-3000:]
    return time.perf_counter() - t


def _rows(run: Path) -> dict[tuple[str, str], tuple[int, str]]:
    """Every stored record: (kind, sample id) -> (seq, JSON body)."""
    db = run / "samples.sqlite"
    if not db.exists():
        return {}
    con = sqlite3.connect(db)
    try:
        return {(k, s): (q, b) for k, s, q, b in con.execute("SELECT kind, sample_id, seq, body FROM records")}
    except sqlite3.OperationalError:  # killed before the table was created
        return {}
    finally:
        con.close()


def kill_loop(args, seed: int, window: tuple[float, float], env=None, snapshot=_rows, folder: Path | None = None) -> list:
    """Start ``args`` and SIGKILL it after a seeded delay, KILLS times; return the snapshots after each kill.

    On a loaded machine start-up can eat the whole window: while no kill has yet landed after some
    progress was saved, up to KILLS more attempts are made with the window moved later, so the
    test always kills mid-work rather than passing (or failing) on timing.
    """
    rng = random.Random(seed)
    snaps: list = []
    lo, hi = window
    for attempt in range(2 * KILLS):
        if attempt >= KILLS and any(snaps):
            break
        p = subprocess.Popen(
            [sys.executable, "-m", "scenebench", *map(str, args)],
            env=env or ENV,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        time.sleep(rng.uniform(lo, hi))
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)  # the CLI and any worker it started
        p.wait()
        snaps.append(snapshot(folder) if folder is not None else None)
        if not any(snaps):
            lo, hi = hi, hi + (hi - lo)
    return snaps


def _normal(path: Path, own: Path) -> object:
    d = json.loads(path.read_text().replace(str(own), "<RUN>"))
    if isinstance(d, dict):
        d.pop("created", None)
        d.pop("command", None)
        # Judge usage sums the counters of every invocation, and a SIGKILLed one cannot save its own: cost accounting, not results.
        (d.get("extra", {}).get("judge") or {}).pop("usage", None)
        # The reference run asks another server (another port): where the judge was, not what it said.
        (d.get("extra", {}).get("judge") or {}).pop("endpoint", None)
        # Seconds per scene are wall-clock measurements of whichever process predicted the scene.
        (d.get("extra", {}).get("model_diagnostics") or {}).pop("seconds_per_scene", None)
    return d


def check_resumed_run(ref: Path, run: Path, snaps: list, kinds: tuple[str, ...]) -> None:
    assert _normal(run / "results.json", run) == _normal(ref / "results.json", ref)
    final, want = _rows(run), _rows(ref)
    for kind in kinds:
        got = {s: json.loads(b) for (k, s), (_, b) in final.items() if k == kind}
        exp = {s: json.loads(b) for (k, s), (_, b) in want.items() if k == kind}
        bad = sorted(sid for sid in set(got) | set(exp) if got.get(sid) != exp.get(sid))
        assert not bad, f"{kind} records differ: {len(bad)}, first {bad[0]}: got {got.get(bad[0])} expected {exp.get(bad[0])}"
        seqs = [q for (k, _), (q, _) in final.items() if k == kind]
        assert max(seqs) + 1 == len(seqs), f"a saved {kind} record was computed again"
    for snap in snaps:
        for key, (seq, body) in snap.items():
            if key[0] in kinds:
                assert final[key] == (seq, body), f"{key} was recomputed after a kill"
    assert any(snap for snap in snaps), "no kill landed after the first record was saved"


@pytest.fixture(scope="module")
def many_scenes(fuzz_ctx, tmp_path_factory) -> Path:
    """SURPRISE3D data with 24 scenes (links to the generated two) so a run has many units to kill in."""
    src = fuzz_ctx.root / "generated" / "surprise3d"
    out = tmp_path_factory.mktemp("s3d_many")
    (out / "scenes").mkdir()
    ann = json.loads((src / "surprise-3d-val.json").read_text())
    recs = []
    for k in range(12):
        for p in (src / "scenes").glob("*.npz"):
            os.symlink(p, out / "scenes" / f"{p.stem}_{k}.npz")
        recs += [dict(a, scene_id=f"{a['scene_id']}_{k}") for a in ann]
    (out / "surprise-3d-val.json").write_text(json.dumps(recs))
    (out / "surprise-3d-train.json").write_text((src / "surprise-3d-train.json").read_text())
    return out


def test_kill_during_run_then_resume(many_scenes, tmp_path):
    args = ["run", "surprise3d", "--data", many_scenes, "--model", "baseline:cluster", "--no-progress"]
    ref, run = tmp_path / "ref", tmp_path / "run"
    took = _timed([*args, "--out", ref])
    snaps = kill_loop([*args, "--out", run], seed=11, window=(0.4 * took, took), folder=run)
    assert _cli([*args, "--out", run]).returncode == 0
    check_resumed_run(ref, run, snaps, ("prediction", "score"))
    written = sorted(p.name for p in ref.glob("*.jsonl"))
    assert written and all((run / n).read_bytes() == (ref / n).read_bytes() for n in written)


def test_kill_during_score_then_resume(many_scenes, tmp_path):
    ann = json.loads((many_scenes / "surprise-3d-val.json").read_text())
    pred = tmp_path / "pred.jsonl"
    pred.write_text("".join(json.dumps({"index": i, "mask_rle": [i, 400]}) + "\n" for i in range(len(ann))))
    args = [
        "score",
        "surprise3d",
        "-a",
        many_scenes / "surprise-3d-val.json",
        "-s",
        many_scenes / "scenes",
        "-p",
        pred,
        "--no-progress",
        "--bootstrap",
        "200",
    ]
    ref, run = tmp_path / "ref", tmp_path / "run"
    took = _timed([*args, "--out", ref])
    snaps = kill_loop([*args, "--out", run], seed=12, window=(0.4 * took, took), folder=run)
    assert _cli([*args, "--out", run]).returncode == 0
    check_resumed_run(ref, run, snaps, ("score",))


def test_kill_during_rio_score_then_resume(tmp_path):
    """RIO's scorer yields columns, stored one row per flush: a kill loses at most the flush in
    flight, and the resumed run ends with the reference's records and results."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    try:
        from bench_e2e import rio_data
    finally:
        sys.path.pop(0)
    (tmp_path / "data").mkdir()
    rio_data(tmp_path / "data", 400, 50)
    args = [
        "score",
        "rio",
        "--data",
        tmp_path / "data" / "rio",
        "-p",
        tmp_path / "data" / "poses.jsonl",
        "--no-progress",
        "--bootstrap",
        "200",
    ]
    ref, run = tmp_path / "ref", tmp_path / "run"
    took = _timed([*args, "--out", ref])
    snaps = kill_loop([*args, "--out", run], seed=13, window=(0.5 * took, took), folder=run)
    assert _cli([*args, "--out", run]).returncode == 0
    check_resumed_run(ref, run, snaps, ("score",))


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _inodes(root: Path) -> dict[str, tuple[int, int]]:
    """Published files (not the hidden staging folders) -> (inode, mtime_ns)."""
    if not root.exists():
        return {}
    out = {}
    for p in root.rglob("*"):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and not any(part.startswith(".") for part in Path(rel).parts):
            st = p.stat()
            out[rel] = (st.st_ino, st.st_mtime_ns)
    return out


def test_kill_during_generate_then_resume(tmp_path):
    args = [
        "generate",
        "--houses",
        "3",
        "--seed",
        "5",
        "--min-rooms",
        "2",
        "--max-rooms",
        "3",
        "--width",
        "48",
        "--height",
        "32",
        "--quiet",
    ]
    ref, out = tmp_path / "ref", tmp_path / "out"
    took = _timed([*args, "--out", ref])
    # kills in the first 30-80 % of an uninterrupted run's time: each attempt resumes, so progress still accumulates
    snaps = kill_loop([*args, "--out", out], seed=13, window=(0.3 * took, 0.8 * took), snapshot=_inodes, folder=out)
    r = _cli([*args, "--out", out])
    assert r.returncode == 0, r.stderr[-2000:]
    assert _tree(out) == _tree(ref)
    final = _inodes(out)
    # Per-house files published before a kill are kept as they were (same inode, same mtime); the
    # aggregated task files at the top level, rewritten as houses are added, are not in that promise.
    kept = 0
    for snap in snaps:
        for rel, ident in snap.items():
            if _is_per_house(rel):
                assert final.get(rel) == ident, f"{rel} was written again after a kill"
                kept += 1
    assert kept > 0, "no kill landed after a house was published"


def _is_per_house(rel: str) -> bool:
    """Files that belong to one house (scene clouds, scans): written once, never again."""
    return any(seg in rel for seg in ("/scenes/", "/scene/", "/Objects/")) or (rel.startswith("3rscan/") and rel.count("/") >= 2)


def test_kill_during_judging_then_resume(fuzz_ctx, tmp_path):
    pytest.importorskip("openai", reason="needs the judge extra")
    from fake_openai import FakeOpenAI

    from scenebench.benchmarks.bench3d.loader import load_bench
    from scenebench.benchmarks.bench3d.predictions import expected_ids

    bench = tmp_path / "b3d"
    import shutil

    shutil.copytree(fuzz_ctx.b3d, bench)
    # More text-task records, so judging takes long enough to be killed in.
    for stem in ("SCaption", "SVQA", "DescriptionObj", "ConversationObj"):
        f = bench / f"{stem}.json"
        recs = json.loads(f.read_text())
        f.write_text(
            json.dumps([dict(r, question_id=f"{r.get('question_id', f'row{j}')}-{k}") for k in range(6) for j, r in enumerate(recs)])
        )
    ids = expected_ids(load_bench(bench), False)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"question_id": q.split(":", 1)[1], "task": t, "text": f"answer number {i} about the sofa"}) + "\n"
            for i, (q, t) in enumerate(ids.items())
        )
    )

    def args(srv, out, cache):
        return [
            "score",
            "3dbench",
            "--data",
            bench,
            "--predictions",
            answers,
            "--judge",
            "openai:judge-2024-01-01",
            "--judge-base-url",
            srv.base_url,
            "--judge-cache",
            cache,
            "--judge-concurrency",
            "1",
            "--out",
            out,
            "--bootstrap",
            "100",
        ]

    ref_srv = FakeOpenAI(default="hang", hang_seconds=0.05)
    try:
        r = _cli(args(ref_srv, tmp_path / "ref", tmp_path / "ref-cache.sqlite"))
        assert r.returncode == 0, r.stderr[-3000:]
        n_distinct = len({json.dumps(b["messages"]) for b in ref_srv.bodies})
    finally:
        ref_srv.httpd.shutdown()
    assert n_distinct >= 20
    srv = FakeOpenAI(default="hang", hang_seconds=0.05)
    try:
        run = tmp_path / "run"
        # Kill on the server's count, not on a clock: rule scoring and the METEOR jar come before
        # judging and their length varies with the machine's load, so a time window often landed
        # before or after judging. Each kill lands once the judge has received a seeded number of
        # requests (cumulative over the kills; verdicts already cached are not asked again).
        rng = random.Random(14)
        targets = sorted(rng.sample(range(2, n_distinct - 3), KILLS - 1))
        asked = []
        for target in targets:
            p = subprocess.Popen(
                [sys.executable, "-m", "scenebench", *map(str, args(srv, run, tmp_path / "cache.sqlite"))],
                env=ENV,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            while p.poll() is None and len(srv.bodies) < target:
                time.sleep(0.005)
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            asked.append(len(srv.bodies))
        r = _cli(args(srv, run, tmp_path / "cache.sqlite"))
        assert r.returncode == 0, r.stderr[-2000:]
    finally:
        srv.httpd.shutdown()
    got, want = _normal(run / "results.json", run), _normal(tmp_path / "ref" / "results.json", tmp_path / "ref")
    import difflib

    diff = "\n".join(
        difflib.unified_diff(
            json.dumps(want, indent=1, sort_keys=True).splitlines(),
            json.dumps(got, indent=1, sort_keys=True).splitlines(),
            lineterm="",
            n=1,
        )
    )
    assert got == want, diff[:3000]
    bodies = [json.dumps(b["messages"]) for b in srv.bodies]
    assert len(set(bodies)) == n_distinct
    assert len(bodies) - n_distinct <= len(asked), "judged requests were asked again after a kill"
    assert all(0 < n < n_distinct for n in asked), f"a kill landed outside judging: requests after each kill {asked}"
