"""``score`` takes ``--data`` where ``run`` does, for the same folder (issue 41). Before, ``score
surprise3d`` and ``score scanrefer`` took only ``--annotations/--scenes`` (``--boxes/--labels``):
a user who ran with ``--data`` had to find each file. Inputs given explicitly still win."""

from __future__ import annotations

import json

import pytest
from fixtures import make_surprise3d
from tests.scanrefer.test_scanrefer import data as scanrefer_data  # noqa: F401 - the fixture

import scenebench
from scenebench.cli import main
from scenebench.errors import InputError


def _metrics(folder):
    return json.loads((folder / "results.json").read_text())["metrics"]


def test_score_surprise3d_with_data_equals_the_explicit_inputs(tmp_path):
    data = make_surprise3d(tmp_path / "s3d")
    scenebench.run("surprise3d", "baseline:labels", data=data, out=tmp_path / "run")
    preds = tmp_path / "run" / "surprise3d_predictions.jsonl"
    main(["score", "surprise3d", "--data", str(data), "-p", str(preds), "-o", str(tmp_path / "d"), "--no-progress", "--bootstrap", "0"])
    main(["score", "surprise3d", "-a", str(data / "surprise-3d-val.json"), "-s", str(data / "scenes"), "-p", str(preds)]
         + ["-o", str(tmp_path / "e"), "--no-progress", "--bootstrap", "0"])  # fmt: skip
    assert _metrics(tmp_path / "d") == _metrics(tmp_path / "e") == _metrics(tmp_path / "run")
    api = scenebench.score("surprise3d", data=data, predictions=preds, out=tmp_path / "api", bootstrap=0)
    assert api.model_dump()["metrics"] == _metrics(tmp_path / "d")
    main(["validate", "surprise3d", "--data", str(data), "-p", str(preds)])


def test_score_scanrefer_with_data(scanrefer_data, tmp_path):  # noqa: F811 - the fixture
    main(["run", "scanrefer", "--data", str(scanrefer_data), "--model", "oracle", "--out", str(tmp_path / "run"), "--no-progress"])
    preds = next((tmp_path / "run").glob("scanrefer_predictions*"))
    main(["score", "scanrefer", "--data", str(scanrefer_data), "-p", str(preds), "-o", str(tmp_path / "s"), "--no-progress"])
    assert _metrics(tmp_path / "s")["overall"] == {"Acc@0.25": 100.0, "Acc@0.5": 100.0}


def test_without_data_or_the_input_the_error_names_both(tmp_path):
    with pytest.raises(InputError, match=r"score surprise3d needs --annotations \(or --data FOLDER holding surprise-3d-val.json\)"):
        from scenebench.declarations.catalog import get_spec
        from scenebench.declarations.types import inputs_from_data

        inputs_from_data(get_spec("surprise3d"), "score", {"annotations": None, "scenes": tmp_path, "predictions": tmp_path / "p"})
