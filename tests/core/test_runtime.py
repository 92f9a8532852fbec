import pytest

from scenebench.errors import RunMismatchError, ScenebenchError
from scenebench.io.store import SampleStore
from scenebench.metrics.aggregate import Mean
from scenebench.results import Results
from scenebench.runtime.rundir import RunDir
from scenebench.runtime.scoring import SampleScore, load_scores, score_into_run, summarize_scores


class ToyScorer:
    """Scores sample i of scene s as value i % 2; counts how often each sample is scored."""

    benchmark = "toy"
    protocol = "strict"

    def __init__(self, n=10, fail_after=None, drop=None):
        self.ids = [f"s{i % 3}:{i}" for i in range(n)]
        self.calls = []
        self.fail_after = fail_after
        self.drop = drop

    def sample_ids(self):
        return list(self.ids)

    def iter_scores(self, skip):
        by_scene = {}
        for sid in self.ids:
            by_scene.setdefault(sid.split(":")[0], []).append(sid)
        for scene, sids in by_scene.items():
            if self.fail_after is not None and len(self.calls) > self.fail_after:
                raise KeyboardInterrupt("killed")
            batch = []
            for sid in sids:
                if sid in skip or sid == self.drop:
                    continue
                self.calls.append(sid)
                i = int(sid.split(":")[1])
                status = "missing" if i == 9 else ("excluded" if i == 8 else "scored")
                batch.append(SampleScore(sid, scene, status, {"v": float(i % 2)}, {"parity": str(i % 2)}))
            yield batch


def test_store_roundtrip_and_order(tmp_path):
    with SampleStore(tmp_path / "s.sqlite") as st:
        st.put_many("score", [("b", {"x": 1}), ("a", {"x": 2})])
        st.put_many("score", [("b", {"x": 3})])  # replace keeps one row
        assert st.ids("score") == {"a", "b"}
        assert st.get("score", "b") == {"x": 3}
        assert st.count("prediction") == 0


def test_resume_scores_nothing_twice(tmp_path):
    run = RunDir(tmp_path / "run").open({"benchmark": "toy", "protocol": "strict", "fingerprint": "abc"})
    first = ToyScorer(fail_after=3)
    with pytest.raises(KeyboardInterrupt):
        score_into_run(first, run, progress=False)
    saved = len(load_scores(run))
    assert 0 < saved < 10
    second = ToyScorer()
    run = RunDir(tmp_path / "run").open({"benchmark": "toy", "protocol": "strict", "fingerprint": "abc"})
    recs = score_into_run(second, run, progress=False)
    assert len(recs) == 10
    assert len(second.calls) == 10 - saved  # nothing already saved was recomputed
    assert [r.sample_id for r in recs] == second.ids


def test_run_with_other_settings_is_refused(tmp_path):
    RunDir(tmp_path / "r").open({"benchmark": "toy", "protocol": "strict", "fingerprint": "a"})
    with pytest.raises(RunMismatchError, match="protocol"):
        RunDir(tmp_path / "r").open({"benchmark": "toy", "protocol": "official", "fingerprint": "a"})
    RunDir(tmp_path / "r").open({"benchmark": "toy", "protocol": "official", "fingerprint": "a"}, overwrite=True)


def test_lost_sample_is_an_error_not_a_smaller_denominator(tmp_path):
    run = RunDir(tmp_path / "r").open({"benchmark": "toy", "protocol": "strict", "fingerprint": "a"})
    with pytest.raises(ScenebenchError, match="no record"):
        score_into_run(ToyScorer(drop="s1:4"), run, progress=False)


def test_summary_counts_and_groups(tmp_path):
    run = RunDir(tmp_path / "r").open({"benchmark": "toy", "protocol": "strict", "fingerprint": "a"})
    recs = score_into_run(ToyScorer(), run, progress=False)
    s = summarize_scores(recs, [Mean("m", "v", scale=100)], groups=["parity"], n_resamples=50)
    assert s.counts.n_samples == 10 and s.counts.n_missing == 1 and s.counts.n_excluded == 1
    # sample 8 (v=0) excluded; remaining v: 0,1,0,1,0,1,0,1,1 -> 5/9
    assert s.metrics["overall"]["m"] == pytest.approx(500 / 9)
    assert s.metrics["by_parity"]["1"]["m"] == 100.0
    assert s.counts_by_group["by_parity"]["0"].n_excluded == 1
    res = Results(
        benchmark="toy",
        protocol="strict",
        metrics=s.metrics,
        confidence_intervals=s.intervals,
        counts=s.counts,
        counts_by_group=s.counts_by_group,
        metric_info=s.metric_info,
    )
    res.save(run.results_json)
    back = Results.load(run.results_json)
    assert back.metrics["overall"]["m"] == pytest.approx(500 / 9)
    assert back.confidence_intervals.model_dump()["by_parity"]["1"]["m"] == [100.0, 100.0]
    assert back.groups() == ["parity"]


def test_store_encoding_reads_back_as_the_standard_library_text():
    # Records are written by msgspec (several times faster); whatever msgspec writes differently
    # (NaN and infinities as null, lone surrogates, non-string keys, numpy scalars) goes through the
    # standard library, so every stored body reads back to the same values as before.
    import json
    import math

    from scenebench.io.store import _encode, _json_encode

    bodies = [
        {"values": {"r_err": math.inf, "t_err": 0.1}},
        {"values": {"x": math.nan}},
        {"values": {"x": None}, "detail": {"q": "null pointer"}},
        {"detail": {"box": [1e16, -0.0, 5e-324, 1.7976931348623157e308, 0.1 + 0.2], "n": 2**70}},
        {"detail": {"text": 'caf\u00e9 \u2603 \\ " \n \t \x00 \ud800'}},
        {"detail": {1: "a", 2.5: "b", None: "c"}},
        {"detail": {False: "d"}},
        {"sample_id": "s/1", "values": {"iou": 0.25}, "groups": {"t": "x"}, "detail": {"ids": [1, 2], "ok": True}},
    ]
    for b in bodies:
        text = _encode(b)
        assert isinstance(text, str)
        assert repr(json.loads(text)) == repr(json.loads(_json_encode(b)))  # repr: NaN == NaN
    storable = [b for b in bodies if b is not bodies[4]]  # SQLite refuses a lone surrogate either way
    with SampleStore(":memory:") as st:
        st.put_many("score", [(str(i), b) for i, b in enumerate(storable)])
        assert [repr(v) for _, v in st.iter("score")] == [repr(json.loads(_json_encode(b))) for b in storable]
