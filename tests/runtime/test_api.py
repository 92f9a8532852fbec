"""scenebench.score and scenebench.run give what the commands give (docs/api.md)."""

import json

from fixtures import make_surprise3d

import scenebench
from scenebench.cli import main


def test_run_then_score_through_the_api_match_the_commands(tmp_path, capsys):
    data = make_surprise3d(tmp_path / "s3d")
    res = scenebench.run("surprise3d", "oracle", data=data, out=tmp_path / "run")
    assert res.metrics["overall"]["mIoU"] == 100.0 and res.settings["model"] == "oracle"
    table = res.samples()
    assert table.num_rows == res.counts.n_samples and set(table.column("status").to_pylist()) <= {"scored", "excluded"}
    preds = tmp_path / "run" / "surprise3d_predictions.jsonl"
    for protocol in ("strict", "official"):
        api = scenebench.score(
            "surprise3d",
            annotations=data / "surprise-3d-val.json",
            scenes=data / "scenes",
            predictions=preds,
            protocol=protocol,
            out=tmp_path / f"api-{protocol}",
        )
        main(
            ["score", "surprise3d", "-a", str(data / "surprise-3d-val.json"), "-s", str(data / "scenes"), "-p", str(preds)]
            + ["--protocol", protocol, "-o", str(tmp_path / f"cli-{protocol}"), "--no-progress"]
        )
        cli = json.loads((tmp_path / f"cli-{protocol}" / "results.json").read_text())
        assert api.protocol == protocol and api.model_dump()["metrics"] == cli["metrics"]
        assert api.model_dump()["confidence_intervals"] == cli["confidence_intervals"]


def test_the_model_plug_in_surface_is_importable_from_one_place():
    from scenebench import models
    from scenebench.models.base import Model
    from scenebench.models.predictions import BoxPrediction

    assert models.Model is Model and models.BoxPrediction is BoxPrediction
    assert {"Model", "SceneBatch", "ModelSample", "MaskPrediction", "PosePrediction", "TextPrediction"} <= set(models.__all__)


def test_an_unknown_backend_or_model_option_fails_before_anything_is_written(tmp_path):
    import pytest

    from scenebench.errors import ScenebenchError

    data = make_surprise3d(tmp_path / "s3d")
    with pytest.raises(ScenebenchError, match="local or ray"):
        scenebench.run("surprise3d", "oracle", data=data, out=tmp_path / "a", backend="nope")
    with pytest.raises(ScenebenchError, match="colour"):
        scenebench.run("surprise3d", "oracle", data=data, out=tmp_path / "b", model_options={"colour": 1})
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
