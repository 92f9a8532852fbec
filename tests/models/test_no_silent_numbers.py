"""No run without a number and no number without its cause (issue 41).

- a model that abstains on every SURPRISE3D sample scores 0 with every sample missing (before: "file
  holds no records", exit 2, no result);
- RIO predictions made for another split are refused, naming the split (before: exit 0, "scored 0,
  missing N", the cause only inside results.json); some of them among the right ones is a warning.
"""

from __future__ import annotations

import json
import shutil

import pytest

import scenebench
from scenebench.errors import InputError
from scenebench.models.predictions import TextPrediction
from scenebench.models.sources.base import make_source
from scenebench.runtime.runner import run_benchmark


class Abstainer:
    name = "abstainer"

    def predict(self, batch):
        return [TextPrediction(s.sample_id, text="") for s in batch.samples]


def test_a_model_that_abstains_on_every_surprise3d_sample_scores_zero_all_missing(s3d_dir, tmp_path):
    src = make_source("surprise3d", data=str(s3d_dir))
    res = run_benchmark(src, "abstainer", tmp_path / "a", model=Abstainer(), progress=False).results
    assert (tmp_path / "a" / "surprise3d_predictions.jsonl").read_text() == ""
    assert res.overall() == {"mIoU": 0.0, "A25": 0.0, "A50": 0.0}
    assert res.counts.n_missing == res.counts.n_samples == len(src.samples()) and res.counts.n_scored == 0


def test_a_run_says_how_many_answers_were_empty_and_warns_when_all_were(s3d_dir, tmp_path, capsys):
    from scenebench.runtime.runner import diagnostics_lines

    src = make_source("surprise3d", data=str(s3d_dir))
    out = run_benchmark(src, "abstainer", tmp_path / "a", model=Abstainer(), progress=False)
    assert out.diagnostics["abstained"] == {"n": 6, "of": 6} and out.results.extra["model_diagnostics"]["abstained"]["n"] == 6
    assert diagnostics_lines(out.diagnostics)[0].startswith("warning: the model answered none of the 6 samples")
    assert "abstained" not in run_benchmark(src, "oracle", tmp_path / "o", progress=False).diagnostics


@pytest.fixture(scope="module")
def rio_two_splits(rio_dir, tmp_path_factory):
    """The RIO fixture plus a copy of its scene in the train split (reference ref1, rescan scan1)."""
    root = tmp_path_factory.mktemp("rio2") / "rio"
    shutil.copytree(rio_dir, root)
    for old, new in (("ref0", "ref1"), ("scan0", "scan1")):
        shutil.copytree(root / old, root / new)
    index = json.loads((root / "3RScan.json").read_text())
    train = json.loads(json.dumps(index[0]).replace('"ref0"', '"ref1"').replace('"scan0"', '"scan1"'))
    train["type"] = "train"
    (root / "3RScan.json").write_text(json.dumps([*index, train]))
    objects = json.loads((root / "objects.json").read_text())
    extra = [{**s, "scan": {"ref0": "ref1", "scan0": "scan1"}[s["scan"]]} for s in objects["scans"]]
    (root / "objects.json").write_text(json.dumps({**objects, "scans": [*objects["scans"], *extra]}))
    return root


def test_rio_predictions_of_another_split_are_refused_naming_the_split(rio_two_splits, tmp_path, capsys):
    from scenebench.cli import main

    train = scenebench.run("rio", "oracle", data=rio_two_splits, split="train", out=tmp_path / "train")
    assert train.overall()["recall_10cm_10deg"] == 100.0
    preds = tmp_path / "train" / "rio_predictions.jsonl"
    assert {json.loads(x)["rescan"] for x in preds.read_text().splitlines()} == {"scan1"}
    with pytest.raises(InputError, match=r"all 2 predictions are for rescans outside the 'validation' split \(none for its 1 rescans\)"):
        scenebench.score("rio", data=rio_two_splits, predictions=preds, out=tmp_path / "v")
    with pytest.raises(SystemExit) as e:
        main(["score", "rio", "--data", str(rio_two_splits), "--predictions", str(preds), "--out", str(tmp_path / "v2"), "--no-progress"])
    assert e.value.code == 2 and "outside the 'validation' split" in capsys.readouterr().err

    both = tmp_path / "both.jsonl"  # the validation answers plus the train ones: scored, with a warning naming the ignored ones
    scenebench.run("rio", "oracle", data=rio_two_splits, out=tmp_path / "val")
    both.write_text((tmp_path / "val" / "rio_predictions.jsonl").read_text() + preds.read_text())
    res = scenebench.score("rio", data=rio_two_splits, predictions=both, out=tmp_path / "mixed")
    assert res.overall()["recall_10cm_10deg"] == 100.0
    assert "2 predictions are for rescans outside the 'validation' split and were ignored" in res.warnings
