"""Issue 15, item 5 (and 8's SCENE_ID_RE): ids that build paths cannot leave the data folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from fixtures import make_bench3d, make_rio, make_surprise3d

from scenebench.errors import InputError
from scenebench.io.files import check_path_id, inside, path_id_problem


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scenebench", *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "250"},
    )


@pytest.mark.parametrize("bad", ["../../outside/secret", "..", ".", "a/b", "a\\b", "/etc/passwd", "~root", "C:x", "a\nb", "", "..hidden"])
def test_path_id_problems(bad):
    assert path_id_problem(bad) is not None
    with pytest.raises(InputError, match="expected an id without"):
        check_path_id(bad, "file.json", field="id")


@pytest.mark.parametrize("good", ["scene0000_00", "house 12", "a.b-c", "0a5c013435", "754e884c-ea24-2175-8b34-cead19d4198d"])
def test_ordinary_ids_pass(good):
    assert path_id_problem(good) is None and check_path_id(good, None) == good


def test_inside(tmp_path):
    (tmp_path / "data").mkdir()
    assert inside(tmp_path / "data", tmp_path / "data" / "x.json") == (tmp_path / "data" / "x.json").resolve()
    with pytest.raises(InputError, match="outside the data folder"):
        inside(tmp_path / "data", tmp_path / "data" / ".." / "secret.json")
    os.symlink(tmp_path, tmp_path / "data" / "link")
    with pytest.raises(InputError, match="outside the data folder"):
        inside(tmp_path / "data", tmp_path / "data" / "link" / "secret.json")


def test_3dbench_house_id_that_climbs_out_is_refused_before_anything_is_read(tmp_path):
    data = make_bench3d(tmp_path / "b3d", with_train=False)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.json").write_text(json.dumps({"objects": [{"id": 1, "category": "SECRET-CANARY", "bbox": [0, 0, 0, 1, 1, 1]}]}))
    (data / "scene_graph").mkdir()
    f = data / "Counting.json"
    recs = json.loads(f.read_text())
    recs[0]["id"] = "../../outside/secret"
    f.write_text(json.dumps(recs))
    run = tmp_path / "run"
    p = cli("run", "3dbench", "--data", data, "--model", "baseline:prior", "--out", run, "--no-progress")
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Counting.json" in p.stderr and "field 'id'" in p.stderr and "../../outside/secret" in p.stderr, p.stderr
    assert not (run / "run.json").exists()  # refused while loading: no model was asked anything


def test_rio_reference_that_is_an_absolute_path_is_refused(tmp_path):
    data = make_rio(tmp_path / "3rscan")
    index = data / "3RScan.json"
    doc = json.loads(index.read_text())
    doc[0]["reference"] = str(tmp_path / "3rscan" / "ref0")  # an absolute path to a real scan
    index.write_text(json.dumps(doc))
    pred = tmp_path / "pred.jsonl"
    pred.write_text(json.dumps({"rescan": "scan0", "instance": 1, "pose": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]}) + "\n")
    p = cli("score", "rio", "--data", data, "--predictions", pred, "--out", tmp_path / "run", "--no-progress")
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "3RScan.json" in p.stderr and "field 'reference'" in p.stderr and "separator" in p.stderr, p.stderr


def test_rio_rescan_id_with_dotdot_is_refused(tmp_path):
    from scenebench.benchmarks.rio.loader import ThreeRScan

    data = make_rio(tmp_path / "3rscan")
    index = data / "3RScan.json"
    doc = json.loads(index.read_text())
    doc[0]["scans"][0]["reference"] = ".."
    index.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="reference"):
        ThreeRScan(data)


def test_surprise3d_scene_id_with_a_trailing_newline_is_refused(tmp_path):
    from scenebench.benchmarks.surprise3d.annotations import load_annotations

    data = make_surprise3d(tmp_path / "s3d")
    ann = data / "surprise-3d-val.json"
    doc = json.loads(ann.read_text())
    doc[0]["scene_id"] = "scene00\n"
    ann.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="scene_id"):
        load_annotations(ann)
