import numpy as np
import pytest

from scenebench.metrics.aggregate import Derived, Mean, Median, Ratio, bootstrap, compute, f1_from, field_matrix, summarize


def test_compute_hand_worked():
    vals = [{"iou": 0.5, "hit": 1, "tp": 1, "np": 2}, {"iou": 0.25, "hit": 0, "tp": 0, "np": 0}, {"iou": 0.0, "hit": 0}]
    specs = [
        Mean("mIoU", "iou", scale=100),
        Mean("acc", "hit", scale=100),
        Ratio("prec", "tp", "np", scale=100),
        Median("med", "iou"),
        Derived("f1", ("prec", "acc"), f1_from),
    ]
    cols = field_matrix(vals, ["iou", "hit", "tp", "np"])
    out = compute(specs, cols)
    assert out["mIoU"] == pytest.approx(25.0)
    assert out["acc"] == pytest.approx(100 / 3)
    assert out["prec"] == pytest.approx(50.0)  # third sample lacks tp/np: not in the ratio
    assert out["med"] == pytest.approx(0.25)
    assert out["f1"] == pytest.approx(2 * 50 * (100 / 3) / (50 + 100 / 3))


def test_ratio_with_zero_denominator_is_none():
    out = compute([Ratio("p", "a", "b")], field_matrix([{"a": 0, "b": 0}], ["a", "b"]))
    assert out["p"] is None


def test_bootstrap_matches_plain_cluster_resampling():
    rng = np.random.default_rng(1)
    n = 60
    clusters = np.array([f"s{i % 7}" for i in range(n)])
    x = rng.random(n)
    specs = [Mean("m", "x"), Median("md", "x")]
    cols = {"x": x}
    fast = bootstrap(specs, cols, clusters, n_resamples=200, seed=3)
    # plain reference: same draws, explicit concatenation of resampled scenes
    uniq, cid = np.unique(clusters, return_inverse=True)
    r = np.random.default_rng(3)
    draws = r.integers(0, len(uniq), size=(200, len(uniq)))
    means, meds = [], []
    for row in draws:
        idx = np.concatenate([np.flatnonzero(cid == c) for c in row])
        means.append(x[idx].mean())
        meds.append(np.median(x[idx]))
    assert fast["m"] == pytest.approx([np.quantile(means, 0.025), np.quantile(means, 0.975)])
    assert fast["md"] == pytest.approx([np.quantile(meds, 0.025), np.quantile(meds, 0.975)])


def test_summarize_constant_values_have_degenerate_interval():
    point, ci = summarize([Mean("m", "x", scale=100)], [{"x": 1.0}] * 5, ["a", "a", "b", "c", "c"], n_resamples=50)
    assert point["m"] == 100.0
    assert ci["m"] == [100.0, 100.0]


def test_empty_subset_gives_none():
    point, ci = summarize([Mean("m", "x")], [], [], n_resamples=10)
    assert point["m"] is None and ci["m"] is None


@pytest.mark.parametrize("seed", range(6))
def test_vectorised_bootstrap_medians_equal_the_per_resample_loop(seed):
    from scenebench.metrics.aggregate import _weighted_median_sorted, _weighted_medians_sorted, cluster_weights

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    x = np.round(rng.normal(size=n), 1)  # ties
    x[rng.random(n) < 0.1] = np.inf  # unbounded errors (missing at the strict protocol)
    clusters = rng.integers(0, int(rng.integers(1, 12)), n)
    cid, weights = cluster_weights(clusters, n_resamples=300, seed=seed)
    weights[::7] = 0  # rows without any draw give NaN
    order = np.argsort(x, kind="stable")
    xs, sc = x[order], cid[order]
    loop = np.array([_weighted_median_sorted(xs, weights[b, sc]) for b in range(len(weights))])
    got = _weighted_medians_sorted(xs, weights, sc, chunk=max(1, n * 7))  # several chunks
    np.testing.assert_array_equal(got, loop)
    assert np.isnan(got[::7]).all()


@pytest.mark.parametrize("seed", range(8))
def test_blocked_bootstrap_medians_equal_the_per_resample_loop(seed):
    # Many samples over few clusters (RIO: 200,000 poses in 2,000 scenes) take the two-step blocked
    # path; it must pick the same element as the per-resample loop for every resample.
    from scenebench.metrics.aggregate import (
        _use_blocks,
        _weighted_median_sorted,
        _weighted_medians_blocked,
        _weighted_medians_sorted,
        cluster_weights,
    )

    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(5_000, 20_000))
    x = np.round(rng.normal(size=n), int(rng.integers(0, 3)))  # ties
    x[rng.random(n) < 0.15] = np.inf
    n_clusters = int(rng.integers(2, 80))
    clusters = np.sort(rng.integers(0, n_clusters, n)) if seed % 2 else rng.integers(0, n_clusters, n)
    cid, weights = cluster_weights(clusters, n_resamples=60, seed=seed)
    weights[::9] = 0  # rows without any draw give NaN
    order = np.argsort(x, kind="stable")
    xs, sc = x[order], cid[order]
    loop = np.array([_weighted_median_sorted(xs, weights[b, sc]) for b in range(len(weights))])
    for block in (1, 7, 256, 1024, n + 5):
        np.testing.assert_array_equal(_weighted_medians_blocked(xs, weights, sc, block=block), loop)
    assert _use_blocks(n, len(weights), weights.shape[1])
    np.testing.assert_array_equal(_weighted_medians_sorted(xs, weights, sc), loop)


@pytest.mark.parametrize("n_clusters", [1, 2, 5, 300])
def test_cluster_weights_are_the_counts_of_the_draws(n_clusters):
    # the same RNG draws, counted; what np.add.at over the draws gives (the earlier implementation)
    from scenebench.metrics.aggregate import cluster_weights

    clusters = np.array([f"s{i % n_clusters}" for i in range(3 * n_clusters)])
    cid, weights = cluster_weights(clusters, n_resamples=50, seed=3)
    draws = np.random.default_rng(3).integers(0, n_clusters, size=(50, n_clusters))
    ref = np.zeros((50, n_clusters), dtype=np.int64)
    np.add.at(ref, (np.repeat(np.arange(50), n_clusters), draws.ravel()), 1)
    np.testing.assert_array_equal(weights, ref)
    assert weights.dtype == np.int64 and cid.shape == clusters.shape


@pytest.mark.parametrize("seed", range(12))
def test_one_cluster_bootstrap_equals_the_drawn_resamples(seed):
    # A subset of one scene is bootstrapped once and repeated (every resample draws that scene):
    # the replicates must be those of the drawn resamples, for every kind of metric.
    from scenebench.metrics.aggregate import bootstrap_replicates, cluster_weights, fields_of

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 50))
    x = np.round(rng.normal(size=n), 1)
    x[rng.random(n) < 0.2] = np.nan
    x[rng.random(n) < 0.2] = np.inf if seed % 2 else 3.0
    if seed % 3 == 2:
        x[:] = -0.0  # a -0.0 median: the sign of its percentiles depends on numpy's interpolation
    cols = {"v": x, "w": rng.random(n)}
    n_resamples = [1, 2, 7, 200, 999, 1000][seed % 6]
    level = [0.95, 0.9, 0.5][seed % 3]
    specs = [
        Mean("m", "v", scale=100),
        Ratio("r", "v", "w"),
        Median("med", "v"),
        Derived("d", ("m", "med"), lambda a, b: None if a is None or b is None else a - b),
    ]
    clusters = np.array(["scene7"] * n)
    drawn = bootstrap_replicates(specs, cols, *cluster_weights(clusters, n_resamples=n_resamples, seed=seed))
    alpha = (1.0 - level) / 2.0
    with np.errstate(invalid="ignore"):  # quantiles of +inf replicates
        expected = {
            k: (
                [float(np.quantile(v[~np.isnan(v)], alpha)), float(np.quantile(v[~np.isnan(v)], 1 - alpha))]
                if (~np.isnan(v)).any()
                else None
            )
            for k, v in drawn.items()
        }
        got = bootstrap(specs, cols, clusters, n_resamples=n_resamples, seed=seed, level=level)
    assert repr(got) == repr(expected)  # repr: NaN and inf compare as written
    assert fields_of(specs) == ["v", "w"]
