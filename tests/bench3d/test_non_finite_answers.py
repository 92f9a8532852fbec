"""Answers holding NaN, inf or 1e200 never crash scoring (issue 27 item 5).

A sample whose value is not finite is scored (a failure where the rules say so); an aggregate that
is not finite is written to results.json as null with a warning naming it.
"""

import itertools
import json
import math

import pytest
from tests.bench3d.fixtures import make_bench
from tests.bench3d.test_scorer import write_answers

from scenebench.benchmarks.bench3d.api import score_3dbench
from scenebench.results import Results
from scenebench.samples import export_samples

TASKS = ["navigation", "visual_grounding", "visual_grounding_plus", "detection"]
NUMBERS = ["nan", "inf", "-inf", "1e200", "-1e200", "1e999"]


def _strict_json(path):
    """Parse refusing NaN/Infinity: what any JSON reader other than Python's accepts."""

    def refuse(token):
        raise AssertionError(f"{path} holds {token}")

    return json.loads(path.read_text(), parse_constant=refuse)


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return make_bench(tmp_path_factory.mktemp("b") / "bench", TASKS)


def test_inf_waypoint_at_official_writes_results_with_null_loss(bench, tmp_path):
    ans = write_answers(tmp_path / "a.jsonl", ["navigation"], {"navigation": lambda r: "Path: [5.89, inf]"})
    res = score_3dbench(bench, ans, tasks="navigation", protocol="official", out=tmp_path / "run", n_resamples=20)
    doc = _strict_json(tmp_path / "run" / "results.json")
    nav = doc["metrics"]["by_task"]["navigation"]
    # the released loss of [5.89, inf] against a finite path is inf: both samples fail and, like the
    # released OverflowError, are left out of the mean, which has no sample left: null
    assert nav["success"] == 0.0 and nav["mean_path_loss"] is None
    assert doc["confidence_intervals"]["by_task"]["navigation"]["mean_path_loss"] is None
    assert res.metrics["by_task"]["navigation"]["mean_path_loss"] is None  # the returned results are the saved ones
    assert doc["counts"]["n_scored"] == 2 and doc["counts"]["n_invalid"] == 0
    export_samples(tmp_path / "run", tmp_path / "s.jsonl", "jsonl")
    rows = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
    assert [r["success"] for r in rows] == [0.0, 0.0]
    assert all("released path loss is inf" in json.loads(r["detail"])["released_inf"] for r in rows)
    export_samples(tmp_path / "run", tmp_path / "s.csv", "csv")
    assert (tmp_path / "s.csv").read_text().count("\n") == 3


def test_non_finite_aggregate_is_saved_as_null_with_one_warning(bench, tmp_path):
    ans = write_answers(tmp_path / "a.jsonl", ["navigation"], {"navigation": lambda r: "Path: [0.0, 0.0] [1.0, 0.0]"})
    res = score_3dbench(bench, ans, tasks="navigation", protocol="official", out=tmp_path / "run", n_resamples=20)
    # a future rule (or plug-in) yielding inf: the results file must stay JSON, the value named
    res.metrics["by_task"]["navigation"]["mean_path_loss"] = math.inf
    res.confidence_intervals.by_task["navigation"]["mean_path_loss"] = [1.0, math.nan]
    res.save(tmp_path / "r.json")
    doc = _strict_json(tmp_path / "r.json")
    assert doc["metrics"]["by_task"]["navigation"]["mean_path_loss"] is None
    assert doc["confidence_intervals"]["by_task"]["navigation"]["mean_path_loss"] is None
    note = [w for w in doc["warnings"] if "not finite" in w]
    assert len(note) == 1 and note[0].startswith("2 aggregate value(s)")
    assert "metrics.by_task.navigation.mean_path_loss" in note[0]
    assert "confidence_intervals.by_task.navigation.mean_path_loss" in note[0]


@pytest.mark.parametrize("protocol", ["official", "strict"])
def test_fuzzed_numbers_in_box_point_and_path_answers_score_every_batch(bench, tmp_path, protocol):
    for k, (x, y) in enumerate(itertools.product(NUMBERS, ["1", "inf", "nan"])):
        fns = {
            "navigation": lambda r, x=x, y=y, k=k: f"Path: [{x}, {y}]" + ("" if k % 2 else " [1.0, 0.0] [2.0, 0.0]"),
            "visual_grounding": lambda r, x=x, y=y: f"The vase is at [{x}, 1.0, {y}, 0.3, {x}, 0.3].",
            "visual_grounding_plus": lambda r, x=x, y=y: f"Its centre is ({x}, {y}, 2.0).",
            "detection": lambda r, x=x, y=y: f"chair: [{x}, 0.5, 1.0, {y}, 1.0, 0.5]; sofa: [0, 0.4, -2, 2, 0.8, 1]",
        }
        ans = write_answers(tmp_path / f"a{k}.jsonl", TASKS, fns)
        out = tmp_path / f"run{k}"
        score_3dbench(bench, ans, protocol=protocol, out=out, n_resamples=20)
        doc = _strict_json(out / "results.json")
        assert doc["counts"]["n_samples"] == doc["counts"]["n_scored"] + doc["counts"]["n_invalid"]
        for t in TASKS:
            assert all(v is None or math.isfinite(v) for v in doc["metrics"]["by_task"][t].values()), (x, y, t)
        assert not any("not finite" in w for w in doc["warnings"])  # hostile samples are failures, never inf means
        assert Results.load(out).benchmark == "3dbench"
