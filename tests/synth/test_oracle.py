"""The evaluators load generated data and score the ground truth as prediction at 100 everywhere."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from scenebench.benchmarks.rio.api import score_rio
from scenebench.benchmarks.rio.loader import ThreeRScan
from scenebench.cli import build_app

app = build_app()


def test_rio_oracle_scores_100(tiny_run, tmp_path):
    out, _ = tiny_run
    data = ThreeRScan(out / "3rscan")
    preds = tmp_path / "poses.jsonl"
    with open(preds, "w") as fh:
        for split in ("train", "validation"):
            for rescan in data.split_rescans(split):
                for g in data.ground_truth(rescan):
                    fh.write(json.dumps({"rescan": g.rescan, "instance": g.instance, "pose": g.pose.tolist()}) + "\n")
    for split in ("train", "validation"):
        res, _ = score_rio(out / "3rscan", preds, split=split, out=tmp_path / split, progress=False, n_resamples=50)
        assert res.metrics["overall"]["recall_10cm_10deg"] == 100.0
        assert res.counts.n_missing == 0 and res.counts.n_scored > 0


@pytest.mark.slow
@pytest.mark.parametrize("bench", ["3dbench", "surprise3d"])
def test_oracle_run_scores_100(tiny_run, tmp_path, bench):
    out, _ = tiny_run
    res = CliRunner().invoke(app, ["run", bench, "--data", str(out / bench), "-m", "oracle", "-o", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    r = json.loads((tmp_path / "run" / "results.json").read_text())
    if bench == "surprise3d":
        assert r["metrics"]["overall"] == {"mIoU": 100.0, "A25": 100.0, "A50": 100.0}
    else:
        for task, m in r["metrics"]["by_task"].items():
            primary = {k: v for k, v in m.items() if k in ("accuracy", "f1", "around_box_l2", "in_box", "success", "rouge_l_py")}
            assert primary and all(v == 100.0 for v in primary.values()), (task, m)
    assert r["counts"]["n_missing"] == 0 and r["counts"]["n_scored"] > 0
