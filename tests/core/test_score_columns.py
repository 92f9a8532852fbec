"""Columnar score records (``ScoreColumns``): stored one row per batch, read back as the records
``put_many`` stores, summarised as columns with the numbers of the per-record path."""

import json
import math

import numpy as np
import pytest

from scenebench.metrics.aggregate import Derived, Mean, Median, Ratio, summarize_columns
from scenebench.metrics.records import SampleScore, ScoreColumns, summarize_scores
from scenebench.runtime.rundir import RunDir
from scenebench.runtime.scoring import load_scores, score_into_run
from scenebench.runtime.store import ColumnField, SampleStore, _encode

SPECIALS = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1e-300, 5e-324, 1.7976931348623157e308, 0.1, 1 / 3]


def random_columns(rng, n, n_scenes=5, specials=True) -> ScoreColumns:
    """A batch with every shape a record can take: excluded (no values), missing, partners, NaN/inf values."""
    status = rng.choice(["scored", "missing", "excluded", "invalid"], size=n, p=[0.6, 0.2, 0.1, 0.1]).tolist()
    vals = {k: rng.normal(size=n) * 10.0 ** rng.integers(-5, 5, size=n) for k in ("r_err", "t_err")}
    vals["hit"] = (rng.random(n) < 0.5).astype(float)
    if specials:
        for v in vals.values():
            pick = rng.random(n) < 0.15
            v[pick] = rng.choice(SPECIALS, size=int(pick.sum()))
    scenes = [f"scene{rng.integers(n_scenes)}" for _ in range(n)]
    partner = [int(rng.integers(50)) if st == "scored" and rng.random() < 0.2 else None for st in status]
    return ScoreColumns(
        [f"{scenes[i]}/{i}" for i in range(n)],
        scenes,
        status,
        vals,
        np.array([st != "excluded" for st in status]),
        {"label": [str(rng.choice(["chair", "tä\u00df", 'q"uote', "unknown"])) for _ in range(n)], "scene": list(scenes)},
        {
            "line": [i + 1 if st == "scored" else None for i, st in enumerate(status)],
            "matched_partner": partner,
            "reason": [None if st == "scored" else f"why {st}" for st in status],
        },
    )


def _store_columns(st: SampleStore, kind: str, cols: ScoreColumns) -> None:
    st.put_columns(kind, cols.sample_id, [ColumnField(*f) for f in cols.store_fields()])


@pytest.mark.parametrize("seed", range(5))
def test_records_of_columns_are_what_put_many_stores(tmp_path, seed):
    rng = np.random.default_rng(seed)
    cols = random_columns(rng, int(rng.integers(1, 300)))
    recs = cols.records()
    assert [r.to_json() for r in cols] == [r.to_json() for r in recs]
    with SampleStore(tmp_path / "a.sqlite") as a, SampleStore(tmp_path / "b.sqlite") as b:
        a.put_many("score", [(r.sample_id, r.to_json()) for r in recs])
        _store_columns(b, "score", cols)
        got, want = list(b.iter("score")), list(a.iter("score"))
        # Same records, same key order, same values (NaN -> null, infinities, -0.0, every bit).
        assert [(s, json.dumps(x)) for s, x in got] == [(s, json.dumps(x)) for s, x in want]
        assert [_encode(x) for _, x in got] == [_encode(x) for _, x in want]
        assert b.ids("score") == a.ids("score") and b.count("score") == a.count("score") == len(recs)
        for sid in (recs[0].sample_id, recs[-1].sample_id, "absent"):
            assert b.get("score", sid) == a.get("score", sid)
        assert [SampleScore.from_json(x) for _, x in got] == [SampleScore.from_json(x) for _, x in want]


def test_batches_and_rows_keep_insertion_order_and_replacement(tmp_path):
    rng = np.random.default_rng(7)
    c1, c2 = random_columns(rng, 20), random_columns(rng, 15)
    c2.sample_id = [f"second/{i}" for i in range(15)]
    with SampleStore(tmp_path / "s.sqlite") as st:
        st.put_many("score", [("first", {"x": 1})])
        _store_columns(st, "score", c1)
        st.put_many("score", [("middle", {"x": 2})])
        _store_columns(st, "score", c2)
        st.put_many("prediction", [("p", {"y": 1})])
        order = [s for s, _ in st.iter("score")]
        assert order == ["first", *c1.sample_id, "middle", *c2.sample_id]
        assert st.count("score") == 37 and st.count("prediction") == 1
        # Putting a record of a batch again replaces it, in place (the batch becomes rows, same order).
        st.put_many("score", [(c1.sample_id[3], {"x": 3})])
        got = dict(st.iter("score"))
        assert got[c1.sample_id[3]] == {"x": 3} and len(got) == 37 and st.count("score") == 37
        assert [s for s, _ in st.iter("score")] == [s for s in order if s != c1.sample_id[3]] + [c1.sample_id[3]]
        assert st.get("score", c1.sample_id[4]) == c1[4].to_json()
        st.clear("score")
        assert st.count("score") == 0 and st.ids("prediction") == {"p"}
    with SampleStore(tmp_path / "plain.sqlite") as st:  # stores without batches keep their old layout
        st.put_many("score", [("a", {"x": 1})])
        assert st._db.execute("SELECT name FROM sqlite_master WHERE name='batches'").fetchone() is None


def test_bad_columns_are_refused(tmp_path):
    with SampleStore(tmp_path / "s.sqlite") as st:
        with pytest.raises(ValueError):
            st.put_columns("score", ["a", "b"], [ColumnField(("values", "x"), "float", np.zeros(2))])  # no parent
        with pytest.raises(ValueError):
            st.put_columns("score", ["a", "b"], [ColumnField(("x",), "json", [1])])  # too few values
        assert st.count("score") == 0


class ColumnScorer:
    """Yields ScoreColumns batches of a fixed random set; can fail part-way (a killed run)."""

    benchmark = "toy"
    protocol = "strict"

    def __init__(self, cols, fail_after=None):
        self.cols, self.fail_after, self.scored = cols, fail_after, []

    def sample_ids(self):
        return list(self.cols.sample_id)

    def iter_scores(self, skip):
        todo = [i for i, s in enumerate(self.cols.sample_id) if s not in skip]
        for k, a in enumerate(range(0, len(todo), 40)):
            if self.fail_after is not None and k >= self.fail_after:
                raise KeyboardInterrupt("killed")
            part = todo[a : a + 40]
            self.scored += part
            yield self.cols.take(part)


SPECS = (Mean("hit_rate", "hit", scale=100.0), Median("MRE", "r_err"), Ratio("ratio", "t_err", "hit"))


def test_score_into_run_with_columns_resumes_to_the_same_records(tmp_path):
    rng = np.random.default_rng(3)
    cols = random_columns(rng, 200, specials=False)
    run = RunDir(tmp_path / "run").open({"benchmark": "toy", "protocol": "strict", "fingerprint": "abc"})
    with pytest.raises(KeyboardInterrupt):
        score_into_run(ColumnScorer(cols, fail_after=2), run, progress=False)
    assert len(load_scores(run)) == 80
    second = ColumnScorer(cols)
    recs = score_into_run(second, run, progress=False)
    assert len(second.scored) == 120  # nothing scored twice
    assert [r.to_json() for r in recs] == [r.to_json() for r in cols]
    fresh = RunDir(tmp_path / "fresh").open({"benchmark": "toy", "protocol": "strict", "fingerprint": "abc"})
    got = score_into_run(ColumnScorer(cols), fresh, progress=False)
    assert isinstance(got, ScoreColumns) and [r.to_json() for r in got] == [r.to_json() for r in cols]
    assert [r.to_json() for r in load_scores(fresh)] == [r.to_json() for r in cols]
    a = summarize_scores(recs, SPECS, groups=("label", "scene"), n_resamples=50)
    b = summarize_scores(got, SPECS, groups=("label", "scene"), n_resamples=50)
    assert a == b


def _reference_summary(records, specs, groups, n_resamples, seed=0):
    """The per-record summary as it was: one summarize_columns call per subset."""
    from scenebench.metrics.aggregate import field_matrix, fields_of

    cols = field_matrix([r.values for r in records], fields_of(specs))
    scenes = np.asarray([r.scene_id for r in records], dtype=object).astype(str)

    def block(ix):
        ix = np.asarray(ix, dtype=np.intp)
        return summarize_columns(specs, {k: v[ix] for k, v in cols.items()}, scenes[ix], n_resamples=n_resamples, seed=seed)

    out = {"overall": block([i for i, r in enumerate(records) if r.status != "excluded"])}
    for g in groups:
        vals = sorted({str(r.groups.get(g, "unknown")) for r in records})
        out[f"by_{g}"] = {
            v: block([i for i, r in enumerate(records) if r.status != "excluded" and str(r.groups.get(g, "unknown")) == v]) for v in vals
        }
    return out


def _same(a, b) -> bool:
    """Equal, NaN equal to NaN, -0.0 distinct from 0.0 (bit for bit)."""
    if isinstance(a, float) and isinstance(b, float):
        return np.float64(a).tobytes() == np.float64(b).tobytes() or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("n_resamples", [0, 1, 40])
def test_grouped_summary_equals_one_block_per_group(seed, n_resamples):
    rng = np.random.default_rng(seed)
    cols = random_columns(rng, int(rng.integers(1, 400)), n_scenes=int(rng.integers(1, 30)))
    recs = cols.records()
    specs = (*SPECS, Mean("t_mean", "t_err"), Median("MTE", "t_err", scale=2.0))
    ref = _reference_summary(recs, specs, ("label", "scene", "absent"), n_resamples)
    for records in (recs, cols):
        with np.errstate(invalid="ignore"):
            s = summarize_scores(records, specs, groups=("label", "scene", "absent"), n_resamples=n_resamples)
        got = {k: v for k, v in s.metrics.items()}
        for key, block in ref.items():
            if key == "overall":
                assert _same(got[key], block[0]) and _same(s.intervals.overall, block[1])
                continue
            assert list(got[key]) == list(block)
            cis = getattr(s.intervals, key)
            for v, (point, ci) in block.items():
                assert _same(got[key][v], point), (key, v)
                assert _same(cis[v], ci), (key, v, cis[v], ci)


def test_grouped_summary_of_zero_and_infinite_medians():
    """-0.0 and infinite one-scene replicates take np.quantile, as bootstrap() does."""
    recs = [
        SampleScore(f"s{i}/{k}", f"s{i}", "scored", {"r_err": x, "hit": 1.0, "t_err": 1.0}, {"scene": f"s{i}"})
        for i, x in enumerate([-0.0, math.inf, -math.inf, 0.0, math.nan])
        for k in range(3)
    ]
    ref = _reference_summary(recs, SPECS, ("scene",), 20)
    with np.errstate(invalid="ignore"):
        s = summarize_scores(recs, SPECS, groups=("scene",), n_resamples=20)
    for v, (point, ci) in ref["by_scene"].items():
        assert _same(s.metrics["by_scene"][v], point) and _same(s.intervals.by_scene[v], ci)


def test_derived_specs_take_the_per_group_path():
    rng = np.random.default_rng(1)
    recs = random_columns(rng, 100, specials=False).records()
    specs = (*SPECS, Derived("twice", ("hit_rate",), lambda x: None if x is None else 2 * x))
    ref = _reference_summary(recs, specs, ("scene",), 30)
    s = summarize_scores(recs, specs, groups=("scene",), n_resamples=30)
    assert _same(s.metrics["by_scene"], {v: p for v, (p, _) in ref["by_scene"].items()})
