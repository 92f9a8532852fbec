"""results.json schema (scenebench.results): what is written reads back the same; what does not fit
is refused with the file and the field named."""

import json

import numpy as np
import pytest

from scenebench.errors import InputError
from scenebench.results import ConfidenceIntervals, Counts, Results


def _results() -> Results:
    ci = ConfidenceIntervals(n_resamples=200, seed=3, cluster_key="house id")
    ci.overall = {"acc": [40.0, 60.0], "mre": None}
    ci.by_task = {"counting": {"acc": [10.0, 30.0]}}
    return Results(
        benchmark="3dbench",
        protocol="official",
        metrics={"overall": {"acc": 50.0, "mre": None}, "by_task": {"counting": {"acc": 20.0}}},
        confidence_intervals=ci,
        counts=Counts(n_samples=4, n_scored=3, n_missing=1),
        counts_by_group={"by_task": {"counting": Counts(n_samples=4, n_scored=3, n_missing=1)}},
        settings={"threshold": 0.5},
        warnings=["w"],
    )


def test_save_load_round_trip_keeps_every_field_and_the_interval_breakdowns(tmp_path):
    res = _results()
    res.save(tmp_path / "results.json")
    on_disk = json.loads((tmp_path / "results.json").read_text())
    assert on_disk["confidence_intervals"] == {
        "method": "cluster_bootstrap_percentile",
        "level": 0.95,
        "n_resamples": 200,
        "seed": 3,
        "cluster_key": "house id",
        "overall": {"acc": [40.0, 60.0], "mre": None},
        "by_task": {"counting": {"acc": [10.0, 30.0]}},
    }
    assert on_disk["counts"] == {"n_samples": 4, "n_scored": 3, "n_missing": 1, "n_invalid": 0, "n_excluded": 0}
    back = Results.load(tmp_path / "results.json")
    assert back.model_dump() == on_disk
    assert back.confidence_intervals.by_task == {"counting": {"acc": [10.0, 30.0]}}
    assert back.counts_by_group["by_task"]["counting"].n_missing == 1
    assert back.protocol == "official" and back.overall() == {"acc": 50.0, "mre": None} and back.groups() == ["task"]


def test_numpy_numbers_are_written_as_json_numbers(tmp_path):
    res = Results(benchmark="rio", protocol="strict", metrics={"overall": {"MRE": np.float64(2.5), "n": np.int64(7)}})
    res.counts = Counts(n_samples=np.int64(7), n_scored=np.int64(7))  # type: ignore[arg-type]
    res.save(tmp_path / "r.json")
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["metrics"]["overall"] == {"MRE": 2.5, "n": 7} and doc["counts"]["n_samples"] == 7


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"bogus": 1}, None, "unknown field `bogus`"),
        ({"protocol": "lenient"}, "protocol", "Expected `str` matching regex"),
        ({"protocol": "strict:leo"}, "protocol", "Expected `str` matching regex"),  # only official has lineages
        ({"counts": {"n_samples": "4"}}, "counts.n_samples", "Expected `int`, got `str`"),
        ({"counts": {"n_sample": 4}}, "counts", "unknown field `n_sample`"),
        ({"confidence_intervals": {"level": "high"}}, "confidence_intervals.level", "Expected `float`, got `str`"),
        ({"warnings": "one"}, "warnings", "Expected `array`, got `str`"),
    ],
)
def test_a_results_file_that_does_not_fit_is_refused_naming_file_and_field(tmp_path, change, field, message):
    doc = _results().model_dump()
    doc.update(change)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError) as e:
        Results.load(path)
    assert e.value.path == str(path) and e.value.field == field
    assert message in str(e.value)


def test_a_missing_required_field_is_named(tmp_path):
    doc = _results().model_dump()
    del doc["benchmark"]
    (tmp_path / "r.json").write_text(json.dumps(doc))
    with pytest.raises(InputError, match="missing required field `benchmark`"):
        Results.load(tmp_path / "r.json")


def test_save_refuses_results_that_do_not_fit_and_writes_nothing(tmp_path):
    bad = Results(benchmark="x", protocol="nope", metrics={})
    with pytest.raises(ValueError, match="matching regex"):
        bad.save(tmp_path / "r.json")
    unjson = Results(benchmark="x", protocol="strict", metrics={"overall": {"m": object()}})
    with pytest.raises(ValueError, match="do not fit the results schema"):
        unjson.save(tmp_path / "r.json")
    assert not (tmp_path / "r.json").exists()
