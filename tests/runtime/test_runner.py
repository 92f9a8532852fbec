import json

import pytest
from toy_source import ToySource

from scenebench.errors import RunMismatchError, ScenebenchError
from scenebench.models.base import ModelSample
from scenebench.models.execution import ModelSpec, WorkUnit, check_unit_predictions
from scenebench.models.predictions import TextPrediction
from scenebench.runtime.rundir import RunDir
from scenebench.runtime.runner import (
    PREDICTION_KIND,
    plan_units,
    predict_into_run,
    run_benchmark,
    select_samples,
)


def _calls(path):
    return [line.split() for line in path.read_text().splitlines()] if path.exists() else []


def test_plan_groups_by_scene_in_ground_truth_order_and_skips_done():
    src = ToySource(n_scenes=3, per_scene=2)
    units = plan_units(src.samples(), done={"s0-0", "s1-0", "s1-1"})
    assert [u.scene_id for u in units] == ["scene0", "scene2"]
    assert [u.sample_ids for u in units] == [["s0-1"], ["s2-0", "s2-1"]]


def test_select_samples_tasks_and_limit():
    samples = ToySource(n_scenes=3, per_scene=2).samples()
    assert [s.sample_id for s in select_samples(samples, ["ground"])] == ["s0-1", "s1-1", "s2-1"]
    assert [s.sample_id for s in select_samples(samples, None, 3)] == ["s0-0", "s0-1", "s1-0"]
    with pytest.raises(ScenebenchError, match="tasks present: choice, ground"):
        select_samples(samples, ["nope"])
    with pytest.raises(ScenebenchError, match="at least 1"):
        select_samples(samples, None, 0)


def test_oracle_scores_full_marks_and_writes_store_and_file(tmp_path):
    out = run_benchmark(ToySource(), "oracle", tmp_path / "run", progress=False)
    assert out.results.metrics["overall"]["accuracy"] == 100.0 and out.results.counts.n_samples == 6
    assert out.predicted_now == 6 and out.reused == 0
    lines = out.predictions_path.read_text().splitlines()
    assert [json.loads(x)["sample_id"] for x in lines] == [s.sample_id for s in ToySource().samples()]
    with out.run.store() as store:
        assert store.count(PREDICTION_KIND) == 6
    meta = out.run.read_meta()
    assert meta["model"] == "oracle" and meta["seed"] == 0 and meta["stage"] == "run"


def test_scene_loaded_once_per_batch(tmp_path):
    log = tmp_path / "loads.txt"
    run_benchmark(ToySource(log=str(log)), "random", tmp_path / "run", progress=False, score=False)
    assert log.read_text().split() == ["scene0", "scene1", "scene2"]


def test_killed_run_resumes_without_recomputing(tmp_path, monkeypatch):
    calls = tmp_path / "calls.txt"
    src = ToySource(n_scenes=4, per_scene=2)
    monkeypatch.setenv("TOY_FAIL_AFTER", "2")
    with pytest.raises(KeyboardInterrupt):
        run_benchmark(src, "plugin:plugins:CountingModel", tmp_path / "run", model_options={"calls_file": str(calls)}, progress=False)
    monkeypatch.delenv("TOY_FAIL_AFTER")
    assert len(_calls(calls)) == 2  # two scenes finished before the "kill"
    with RunDir(tmp_path / "run").store() as store:
        assert store.ids(PREDICTION_KIND) == {"s0-0", "s0-1", "s1-0", "s1-1"}
    out = run_benchmark(src, "plugin:plugins:CountingModel", tmp_path / "run", model_options={"calls_file": str(calls)}, progress=False)
    seen = [sid for call in _calls(calls) for sid in call]
    assert sorted(seen) == sorted(s.sample_id for s in src.samples())  # each sample predicted exactly once
    assert out.predicted_now == 4 and out.reused == 4
    # A third run predicts nothing.
    out = run_benchmark(src, "plugin:plugins:CountingModel", tmp_path / "run", model_options={"calls_file": str(calls)}, progress=False)
    assert out.predicted_now == 0 and len(_calls(calls)) == 4


def test_larger_limit_extends_the_same_run(tmp_path):
    calls = tmp_path / "calls.txt"
    opts = {"calls_file": str(calls)}
    a = run_benchmark(ToySource(), "plugin:plugins:CountingModel", tmp_path / "run", model_options=opts, limit=2, progress=False)
    assert a.results.counts.n_samples == 2
    b = run_benchmark(ToySource(), "plugin:plugins:CountingModel", tmp_path / "run", model_options=opts, progress=False)
    assert b.reused == 2 and b.predicted_now == 4 and b.results.counts.n_samples == 6


def test_other_seed_or_model_is_refused_in_the_same_folder(tmp_path):
    run_benchmark(ToySource(), "random", tmp_path / "run", seed=1, progress=False, score=False)
    with pytest.raises(RunMismatchError):
        run_benchmark(ToySource(), "random", tmp_path / "run", seed=2, progress=False, score=False)
    with pytest.raises(RunMismatchError):
        run_benchmark(ToySource(), "oracle", tmp_path / "run", seed=1, progress=False, score=False)
    out = run_benchmark(ToySource(), "oracle", tmp_path / "run", seed=1, progress=False, overwrite=True)
    assert out.results.metrics["overall"]["accuracy"] == 100.0 and out.reused == 0


def test_random_is_seeded_and_independent_of_batching(tmp_path):
    a = run_benchmark(ToySource(), "random", tmp_path / "a", seed=3, progress=False, score=False).predictions
    b = run_benchmark(ToySource(), "random", tmp_path / "b", seed=3, progress=False, score=False, limit=3).predictions
    c = run_benchmark(ToySource(), "random", tmp_path / "c", seed=4, progress=False, score=False).predictions
    assert all(a[k] == b[k] for k in b)
    assert any(a[k] != c[k] for k in a)


def _unit():
    return WorkUnit("sc", (ModelSample("x", "sc", "t", "option", options=("a", "b")), ModelSample("y", "sc", "t", "box")))


def test_unit_checks_name_the_problem():
    unit = _unit()
    with pytest.raises(ScenebenchError, match="no prediction for 1 sample"):
        check_unit_predictions(unit, [TextPrediction("x")], "m")
    with pytest.raises(ScenebenchError, match="unknown sample 'z'"):
        check_unit_predictions(unit, [TextPrediction("x"), TextPrediction("y"), TextPrediction("z")], "m")
    with pytest.raises(ScenebenchError, match="two predictions"):
        check_unit_predictions(unit, [TextPrediction("x"), TextPrediction("x")], "m")
    from scenebench.models.predictions import MaskPrediction

    with pytest.raises(ScenebenchError, match="expects a 'box'"):
        check_unit_predictions(unit, [TextPrediction("x"), MaskPrediction("y", [1])], "m")
    with pytest.raises(ScenebenchError, match="returned dict"):
        check_unit_predictions(unit, [{"sample_id": "x"}], "m")
    # Free text answers any kind; order follows the unit.
    got = check_unit_predictions(unit, [TextPrediction("y"), TextPrediction("x")], "m")
    assert [p.sample_id for p in got] == ["x", "y"]


def test_model_dropping_a_sample_stops_the_run_and_keeps_nothing_partial(tmp_path):
    run = RunDir(tmp_path / "run").open({"benchmark": "toy", "protocol": "strict", "fingerprint": "f"})
    src = ToySource()
    with pytest.raises(ScenebenchError, match="no prediction"):
        predict_into_run(src, ModelSpec("plugin:plugins:DropsOne"), run, src.samples(), progress=False)
    with run.store() as store:
        assert store.count(PREDICTION_KIND) == 0


def test_other_protocol_rescores_stored_predictions(tmp_path):
    calls = tmp_path / "calls.txt"
    opts = {"calls_file": str(calls)}
    run_benchmark(ToySource(), "plugin:plugins:CountingModel", tmp_path / "run", model_options=opts, progress=False)
    out = run_benchmark(
        ToySource(), "plugin:plugins:CountingModel", tmp_path / "run", model_options=opts, protocol="official", progress=False
    )
    assert out.predicted_now == 0 and len(_calls(calls)) == 3
    assert out.run.read_meta()["protocol"] == "official"


def test_server_address_is_recorded_but_not_part_of_the_identity(tmp_path):
    from scenebench.runtime.runner import run_meta

    src = ToySource()
    a = run_meta(src, ModelSpec("random", {"seed": 0, "base_url": "http://127.0.0.1:1/v1"}), object(), seed=0, protocol="strict")
    b = run_meta(src, ModelSpec("random", {"seed": 0, "base_url": "http://127.0.0.1:2/v1"}), object(), seed=0, protocol="strict")
    c = run_meta(src, ModelSpec("random", {"seed": 0, "temperature": 1}), object(), seed=0, protocol="strict")
    assert a["fingerprint"] == b["fingerprint"] != c["fingerprint"]
    assert a["model_options"]["base_url"] == "http://127.0.0.1:1/v1"


def test_the_models_own_status_and_time_per_scene_reach_results_and_survive_resume(tmp_path):
    from scenebench.runtime.runner import diagnostics_lines

    out = run_benchmark(ToySource(n_scenes=3, per_scene=2), "plugin:plugins:StatusModel", tmp_path / "run", progress=False)
    diag = out.results.extra["model_diagnostics"]
    assert diag == out.diagnostics
    assert diag["status_counts"] == {"gave_up": 3, "ok": 3}
    assert diag["failures"][0] == {"sample_id": "s0-1", "scene_id": "scene0", "status": "gave_up", "tries": 3, "fitness": 0.125}
    secs = diag["seconds_per_scene"]
    assert secs["n_scenes"] == 3 and 0 <= secs["mean"] <= secs["max"] <= secs["total"] and len(secs["slowest"]) == 3
    saved = json.loads(out.run.results_json.read_text())["extra"]["model_diagnostics"]
    assert saved["status_counts"] == {"gave_up": 3, "ok": 3}
    lines = diagnostics_lines(diag, max_failures=2)
    assert lines[0].startswith("model seconds per scene: mean ") and lines[1] == "model status: gave_up 3, ok 3"
    assert lines[2].startswith("3 samples not ok by the model's own account (first 2;") and len(lines) == 5
    assert lines[3] == "  s0-1: gave_up (tries 3, fitness 0.125)"
    # Resumed: nothing predicted again, the same account read back from the store.
    again = run_benchmark(ToySource(n_scenes=3, per_scene=2), "plugin:plugins:StatusModel", tmp_path / "run", progress=False)
    assert again.predicted_now == 0 and again.diagnostics == diag


def test_a_model_without_status_gets_only_times(tmp_path):
    out = run_benchmark(ToySource(), "random", tmp_path / "run", progress=False, score=False)
    assert set(out.diagnostics) == {"seconds_per_scene"}
