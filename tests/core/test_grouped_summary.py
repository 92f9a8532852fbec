"""Score records through the store and the driver (resumed runs give the records of a fresh one),
and the grouped summary of one-scene groups against one block per group."""

import json
import math

import numpy as np
import pytest

from scenebench.io.store import SampleStore
from scenebench.metrics.aggregate import Derived, Mean, Median, Ratio, summarize_columns
from scenebench.metrics.records import SampleScore, summarize_scores
from scenebench.runtime.rundir import RunDir
from scenebench.runtime.scoring import load_scores, score_into_run

SPECIALS = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1e-300, 5e-324, 1.7976931348623157e308, 0.1, 1 / 3]


def random_records(rng, n, n_scenes=5, specials=True) -> list[SampleScore]:
    """Records of every shape: excluded (no values), missing, partners, NaN/inf values."""
    status = rng.choice(["scored", "missing", "excluded", "invalid"], size=n, p=[0.6, 0.2, 0.1, 0.1]).tolist()
    vals = {k: rng.normal(size=n) * 10.0 ** rng.integers(-5, 5, size=n) for k in ("r_err", "t_err")}
    vals["hit"] = (rng.random(n) < 0.5).astype(float)
    if specials:
        for v in vals.values():
            pick = rng.random(n) < 0.15
            v[pick] = rng.choice(SPECIALS, size=int(pick.sum()))
    out = []
    for i, st in enumerate(status):
        scene = f"scene{rng.integers(n_scenes)}"
        detail = {"line": i + 1} if st == "scored" else {"reason": f"why {st}"}
        if st == "scored" and rng.random() < 0.2:
            detail["matched_partner"] = int(rng.integers(50))
        groups = {"label": str(rng.choice(["chair", "tä\u00df", 'q"uote', "unknown"])), "scene": scene}
        values = {} if st == "excluded" else {k: float(v[i]) for k, v in vals.items()}
        out.append(SampleScore(f"{scene}/{i}", scene, st, values, groups, detail))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_records_survive_the_store(tmp_path, seed):
    rng = np.random.default_rng(seed)
    recs = random_records(rng, int(rng.integers(1, 300)))
    with SampleStore(tmp_path / "a.sqlite") as a:
        a.put_many("score", [(r.sample_id, r.to_json()) for r in recs])
        got = list(a.iter("score"))
        # Same records, same key order, same values (NaN -> null, infinities, -0.0, every bit).
        assert [(s, json.dumps(x)) for s, x in got] == [(r.sample_id, json.dumps(r.to_json())) for r in recs]
        assert a.ids("score") == {r.sample_id for r in recs} and a.count("score") == len(recs)
        assert a.get("score", recs[-1].sample_id) == got[-1][1] and a.get("score", "absent") is None
    back = [SampleScore.from_json(x) for _, x in got]
    assert all(_same(dataclass_tuple(x), dataclass_tuple(r)) for x, r in zip(back, recs))


def dataclass_tuple(r: SampleScore) -> tuple:
    return (r.sample_id, r.scene_id, r.status, r.values, r.groups, r.detail)


class BatchScorer:
    """Yields batches of a fixed random set of records; can fail part-way (a killed run)."""

    benchmark = "toy"
    protocol = "strict"

    def __init__(self, recs, fail_after=None):
        self.recs, self.fail_after, self.scored = recs, fail_after, []

    def sample_ids(self):
        return [r.sample_id for r in self.recs]

    def iter_scores(self, skip):
        todo = [r for r in self.recs if r.sample_id not in skip]
        for k, a in enumerate(range(0, len(todo), 40)):
            if self.fail_after is not None and k >= self.fail_after:
                raise KeyboardInterrupt("killed")
            part = todo[a : a + 40]
            self.scored += part
            yield part


SPECS = (Mean("hit_rate", "hit", scale=100.0), Median("MRE", "r_err"), Ratio("ratio", "t_err", "hit"))


def test_score_into_run_resumes_to_the_records_of_a_fresh_run(tmp_path):
    rng = np.random.default_rng(3)
    recs = random_records(rng, 200, specials=False)
    run = RunDir(tmp_path / "run").open({"benchmark": "toy", "protocol": "strict", "fingerprint": "abc"})
    with pytest.raises(KeyboardInterrupt):
        score_into_run(BatchScorer(recs, fail_after=2), run, progress=False)
    assert len(load_scores(run)) == 80
    second = BatchScorer(recs)
    resumed = score_into_run(second, run, progress=False)
    assert len(second.scored) == 120  # nothing scored twice
    assert [r.to_json() for r in resumed] == [r.to_json() for r in recs]
    fresh = RunDir(tmp_path / "fresh").open({"benchmark": "toy", "protocol": "strict", "fingerprint": "abc"})
    got = score_into_run(BatchScorer(recs), fresh, progress=False)
    assert [r.to_json() for r in got] == [r.to_json() for r in recs] == [r.to_json() for r in load_scores(fresh)]
    a = summarize_scores(resumed, SPECS, groups=("label", "scene"), n_resamples=50)
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
    recs = random_records(rng, int(rng.integers(1, 400)), n_scenes=int(rng.integers(1, 30)))
    specs = (*SPECS, Mean("t_mean", "t_err"), Median("MTE", "t_err", scale=2.0))
    ref = _reference_summary(recs, specs, ("label", "scene", "absent"), n_resamples)
    with np.errstate(invalid="ignore"):
        s = summarize_scores(recs, specs, groups=("label", "scene", "absent"), n_resamples=n_resamples)
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
    recs = random_records(rng, 100, specials=False)
    specs = (*SPECS, Derived("twice", ("hit_rate",), lambda x: None if x is None else 2 * x))
    ref = _reference_summary(recs, specs, ("scene",), 30)
    s = summarize_scores(recs, specs, groups=("scene",), n_resamples=30)
    assert _same(s.metrics["by_scene"], {v: p for v, (p, _) in ref["by_scene"].items()})
