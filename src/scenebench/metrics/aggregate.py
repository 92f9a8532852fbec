"""Aggregate per-sample values into benchmark metrics, with scene-clustered bootstrap intervals.

A metric declares the per-sample fields it depends on (habitat-lab's measures do the same), so one
routine computes it on any subset of samples (overall, per question type, per task) and on every
bootstrap resample. Kinds:

- :class:`Mean`   -- mean of a per-sample value (IoU, a hit indicator), optionally scaled (x100).
- :class:`Ratio`  -- sum(num) / sum(den) over samples (precision-like rates, micro averages).
- :class:`Median` -- median of a per-sample value (median rotation / translation error).
- :class:`Derived` -- a function of other metrics of the same subset (F1 from precision and recall).

``helper=True`` marks a figure another metric is built from (corpus BLEU's n-gram precisions, METEOR's
summed statistics): it is computed and written to ``results.json`` like any other, and recorded as
``metric_info[name]["helper"] = true``, but console summaries leave it out.

A sample without the field (NaN) does not enter that metric: the scorer decides what a missing or
invalid prediction is worth (usually 0, i.e. wrong) before it gets here, so denominators come from
the ground truth, never from whatever predictions happen to exist.

References:

- Percentile bootstrap intervals: Efron, Tibshirani, "An Introduction to the Bootstrap", Chapman &
  Hall, 1993 (ch. 13).
- Resampling whole clusters (scenes, houses) rather than samples: Field, Welsh, "Bootstrapping
  clustered data", Journal of the Royal Statistical Society B 69(3), 2007.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Mean:
    name: str
    field: str
    scale: float = 1.0
    description: str = ""
    unit: str = ""
    higher_is_better: bool = True
    helper: bool = False

    @property
    def deps(self) -> tuple[str, ...]:
        return (self.field,)


@dataclass(frozen=True)
class Ratio:
    name: str
    num: str
    den: str
    scale: float = 1.0
    description: str = ""
    unit: str = ""
    higher_is_better: bool = True
    helper: bool = False

    @property
    def deps(self) -> tuple[str, ...]:
        return (self.num, self.den)


@dataclass(frozen=True)
class Median:
    name: str
    field: str
    scale: float = 1.0
    description: str = ""
    unit: str = ""
    higher_is_better: bool = False
    helper: bool = False

    @property
    def deps(self) -> tuple[str, ...]:
        return (self.field,)


@dataclass(frozen=True)
class Derived:
    """``fn`` receives the values of ``metrics`` (names of other specs) and returns a float or None."""

    name: str
    metrics: tuple[str, ...]
    fn: Callable[..., float | None] = field(compare=False)
    description: str = ""
    unit: str = ""
    higher_is_better: bool = True
    helper: bool = False

    @property
    def deps(self) -> tuple[str, ...]:
        return ()


MetricSpec = Mean | Ratio | Median | Derived


def f1_from(precision: float | None, recall: float | None) -> float | None:
    """Harmonic mean; 0 when both are 0; None when either is unavailable. Works on scaled values."""
    if precision is None or recall is None:
        return None
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def field_matrix(values: Sequence[Mapping[str, float]], fields: Sequence[str]) -> dict[str, np.ndarray]:
    """Column arrays of the named per-sample fields, NaN where a sample lacks one."""
    out = {}
    for f in fields:
        out[f] = np.array([float(v.get(f, math.nan)) if v.get(f) is not None else math.nan for v in values], dtype=float)
    return out


def fields_of(specs: Sequence[MetricSpec]) -> list[str]:
    seen: dict[str, None] = {}
    for s in specs:
        for d in s.deps:
            seen.setdefault(d, None)
    return list(seen)


def compute(specs: Sequence[MetricSpec], columns: Mapping[str, np.ndarray]) -> dict[str, float | None]:
    """Point estimates of every spec over the given columns (one entry per sample)."""
    out: dict[str, float | None] = {}
    for s in specs:
        if isinstance(s, Mean):
            x = columns[s.field]
            x = x[~np.isnan(x)]
            out[s.name] = float(x.mean() * s.scale) if x.size else None
        elif isinstance(s, Ratio):
            num, den = columns[s.num], columns[s.den]
            ok = ~(np.isnan(num) | np.isnan(den))
            d = den[ok].sum()
            out[s.name] = float(num[ok].sum() / d * s.scale) if d > 0 else None
        elif isinstance(s, Median):
            x = columns[s.field]
            x = x[~np.isnan(x)]
            out[s.name] = float(np.median(x) * s.scale) if x.size else None
        elif isinstance(s, Derived):
            args = [out.get(m) for m in s.metrics]
            out[s.name] = s.fn(*args)
        else:  # pragma: no cover
            raise TypeError(f"unknown metric spec {s!r}")
    return out


def _weighted_median_sorted(xs: np.ndarray, w: np.ndarray) -> float:
    """Median of the multiset where sorted value xs[i] occurs w[i] times (numpy's convention for even counts)."""
    cs = np.cumsum(w)
    total = int(cs[-1]) if cs.size else 0
    if total == 0:
        return math.nan
    lo_pos = (total - 1) // 2
    hi_pos = total // 2
    lo = xs[np.searchsorted(cs, lo_pos, side="right")]
    hi = xs[np.searchsorted(cs, hi_pos, side="right")]
    return float((lo + hi) / 2.0)


def _weighted_medians_sorted(xs: np.ndarray, weights: np.ndarray, sample_cluster: np.ndarray, chunk: int = 1_000_000) -> np.ndarray:
    """:func:`_weighted_median_sorted` for every resample (row of ``weights``, per cluster), the
    same numbers without a Python loop over resamples.

    Identical rows are computed once (a group of one scene draws that scene every time: its 1,000
    resamples are one). Many samples over few clusters go through :func:`_weighted_medians_blocked`
    (cost grows with resamples x clusters x blocks, not resamples x samples); the others in chunks
    of (rows x samples) <= ``chunk`` elements: ``searchsorted(cs, pos, side="right")`` of a
    non-decreasing ``cs`` is the count of ``cs <= pos``.
    """
    n_resamples = weights.shape[0]
    if xs.size == 0:
        return np.full(n_resamples, math.nan)
    rows, inverse = _distinct_rows(weights)
    if _use_blocks(xs.size, rows.shape[0], rows.shape[1]):
        return np.asarray(_weighted_medians_blocked(xs, rows, sample_cluster)[inverse.reshape(-1)])
    vals = np.empty(len(rows))
    step = max(1, chunk // xs.size)
    for a in range(0, len(rows), step):
        cs = np.cumsum(rows[a : a + step][:, sample_cluster], axis=1)
        total = cs[:, -1]
        last = xs.size - 1  # a row of zero weights (total 0) points past the end: NaN below
        lo = xs[np.minimum((cs <= ((total - 1) // 2)[:, None]).sum(axis=1), last)]
        hi = xs[np.minimum((cs <= (total // 2)[:, None]).sum(axis=1), last)]
        vals[a : a + step] = np.where(total > 0, (lo + hi) / 2.0, math.nan)
    return np.asarray(vals[inverse.reshape(-1)])


def _distinct_rows(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(weights, axis=0, return_inverse=True)`` where it can pay: all rows equal (one
    cluster), or few clusters (repeated rows are likely); otherwise the rows as they are (sorting
    1,000 rows of thousands of clusters costs more than it saves). Only speed depends on this."""
    n_rows, n_clusters = weights.shape
    if n_rows == 1:
        return weights, np.zeros(1, dtype=np.intp)
    if (weights == weights[0]).all():
        return weights[:1], np.zeros(n_rows, dtype=np.intp)
    if n_clusters <= 16:
        rows, inverse = np.unique(weights, axis=0, return_inverse=True)
        return np.asarray(rows), np.asarray(inverse)
    return weights, np.arange(n_rows)


MEDIAN_BLOCK = 1024


def _use_blocks(n: int, n_rows: int, n_clusters: int, block: int = MEDIAN_BLOCK) -> bool:
    """Blocks pay when there are many samples per cluster: the (blocks x clusters) count matrix
    stays small and the matrix product (rows x clusters x blocks) is cheaper than the per-sample
    cumulative sums (rows x samples)."""
    n_blocks = -(-n // block)
    return n_rows > 1 and n > 4 * block and n_blocks * n_clusters <= min(4 * n, 1 << 22)


def _weighted_medians_blocked(xs: np.ndarray, rows: np.ndarray, sample_cluster: np.ndarray, block: int = MEDIAN_BLOCK) -> np.ndarray:
    """The weighted medians of :func:`_weighted_medians_sorted`, found in two steps with the same
    integer arithmetic, so the same element is picked for every row (identical numbers):

    1. the weight of every block of ``block`` consecutive sorted samples, for every row, as one
       matrix product ``rows @ counts.T`` (counts[b, c]: samples of cluster c in block b; the sums
       are integers far below 2**53, exact in float64), and their running sums: the block that
       holds each median position;
    2. inside that block only, the running sum of the samples' weights: the position itself.
    """
    n = xs.size
    n_rows, n_clusters = rows.shape
    n_blocks = -(-n // block)
    blk = np.arange(n) // block
    counts = np.bincount(blk * n_clusters + sample_cluster, minlength=n_blocks * n_clusters).reshape(n_blocks, n_clusters)
    ends = np.cumsum(rows.astype(np.float64) @ counts.T.astype(np.float64), axis=1).astype(np.int64)  # (rows, blocks)
    total = ends[:, -1]
    r = np.arange(n_rows)
    picked = []
    for pos in ((total - 1) // 2, total // 2):
        b = np.minimum((ends <= pos[:, None]).sum(axis=1), n_blocks - 1)  # first block ending beyond pos
        rest = pos - np.where(b > 0, ends[r, np.maximum(b - 1, 0)], 0)
        at = np.empty(n_rows, dtype=np.int64)
        for blk_id in np.unique(b).tolist():  # the medians of all rows fall in a few neighbouring blocks
            sel = np.flatnonzero(b == blk_id)
            lo = blk_id * block
            w = np.take(rows[sel], sample_cluster[lo : lo + block], axis=1)
            at[sel] = lo + (np.cumsum(w, axis=1) <= rest[sel][:, None]).sum(axis=1)
        picked.append(xs[np.minimum(at, n - 1)])
    lo, hi = picked
    return np.where(total > 0, (lo + hi) / 2.0, math.nan)


def cluster_weights(clusters: np.ndarray, *, n_resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Cluster index per sample (n,) and how often each cluster is drawn per resample (n_resamples, n_clusters).

    Depends only on the sorted set of cluster names, the seed and ``n_resamples``, so two runs over
    the same samples get the same resamples (what a paired comparison needs).
    """
    _, cid = np.unique(np.asarray(clusters), return_inverse=True)
    return cid, _draw_counts(int(cid.max()) + 1, n_resamples, seed).copy()  # the caller may write to it


@functools.lru_cache(maxsize=4)
def _draw_counts(n_clusters: int, n_resamples: int, seed: int) -> np.ndarray:
    """How often each cluster is drawn per resample: a function of these three numbers only, so the
    subsets of one summary over the same number of scenes (RIO's labels, motions, symmetries) draw
    once. Read-only: it is shared (callers get a copy)."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_clusters, size=(n_resamples, n_clusters))
    # the counts np.add.at gives, ~10x faster
    flat = (np.arange(n_resamples)[:, None] * n_clusters + draws).ravel()
    weights = np.bincount(flat, minlength=n_resamples * n_clusters).astype(np.int64, copy=False).reshape(n_resamples, n_clusters)
    weights.flags.writeable = False
    return weights


def bootstrap_replicates(
    specs: Sequence[MetricSpec], columns: Mapping[str, np.ndarray], cid: np.ndarray, weights: np.ndarray
) -> dict[str, np.ndarray]:
    """Each metric on every resample (NaN where undefined), given :func:`cluster_weights`."""
    n_resamples, n_clusters = weights.shape
    wf = weights.astype(float)

    def csum(x: np.ndarray) -> np.ndarray:
        return np.bincount(cid, weights=x, minlength=n_clusters)

    boot: dict[str, np.ndarray] = {}
    for s in specs:
        if isinstance(s, Mean):
            x = columns[s.field]
            ok = ~np.isnan(x)
            num, cnt = wf @ csum(np.where(ok, x, 0.0)), wf @ csum(ok.astype(float))
            with np.errstate(invalid="ignore", divide="ignore"):
                boot[s.name] = np.where(cnt > 0, num / np.where(cnt > 0, cnt, 1) * s.scale, np.nan)
        elif isinstance(s, Ratio):
            a, b = columns[s.num], columns[s.den]
            ok = ~(np.isnan(a) | np.isnan(b))
            num, den = wf @ csum(np.where(ok, a, 0.0)), wf @ csum(np.where(ok, b, 0.0))
            boot[s.name] = np.where(den > 0, num / np.where(den > 0, den, 1) * s.scale, np.nan)
        elif isinstance(s, Median):
            x = columns[s.field]
            ok = ~np.isnan(x)
            order = np.argsort(x[ok], kind="stable")
            xs = x[ok][order]
            sample_cluster = cid[ok][order]
            boot[s.name] = _weighted_medians_sorted(xs, weights, sample_cluster) * s.scale
        elif isinstance(s, Derived):
            args = [boot.get(m) for m in s.metrics]
            present = [x for x in args if x is not None]
            if len(present) < len(args):
                boot[s.name] = np.full(n_resamples, np.nan)
            else:
                boot[s.name] = np.array(
                    [
                        np.nan if (v := s.fn(*[None if np.isnan(x[r]) else float(x[r]) for x in present])) is None else v
                        for r in range(n_resamples)
                    ]
                )
    return boot


def bootstrap(
    specs: Sequence[MetricSpec],
    columns: Mapping[str, np.ndarray],
    clusters: np.ndarray,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, list[float] | None]:
    """Percentile intervals from resampling whole clusters (scenes) with replacement.

    Samples of one scene are correlated (same geometry, same model failure modes), so resampling
    samples would understate the uncertainty; we resample scenes and keep their samples together.
    Means and ratios use cluster sums and a (resamples x clusters) count matrix, so the cost does not
    grow with the number of samples; medians use a weighted median over the sorted values.
    """
    n = len(clusters)
    if n == 0 or n_resamples <= 0:
        return {s.name: None for s in specs}
    alpha = (1.0 - level) / 2.0
    out: dict[str, list[float] | None] = {}
    if (clusters == clusters[0]).all():
        # One cluster (RIO's per-scene breakdown: thousands of these): every resample draws it once,
        # so every replicate is the one computed with weight 1, computed once. The percentiles of
        # n_resamples equal values are that value (numpy interpolates a + (b - a) * t, exact for
        # a == b finite); -0.0 and infinities, where the sign or a NaN depends on t, take np.quantile.
        one = bootstrap_replicates(specs, columns, np.zeros(n, dtype=np.intp), np.ones((1, 1), dtype=np.int64))
        for name, vals in one.items():
            x = float(vals[0])
            if math.isnan(x):
                out[name] = None
            elif math.isfinite(x) and (x != 0 or math.copysign(1.0, x) > 0):
                out[name] = [x, x]
            else:
                v = np.repeat(vals, n_resamples)
                out[name] = [float(np.quantile(v, alpha)), float(np.quantile(v, 1 - alpha))]
        return out
    boot = bootstrap_replicates(specs, columns, *cluster_weights(clusters, n_resamples=n_resamples, seed=seed))
    for name, vals in boot.items():
        v = vals[~np.isnan(vals)]
        out[name] = [float(np.quantile(v, alpha)), float(np.quantile(v, 1 - alpha))] if v.size else None
    return out


def summarize(
    specs: Sequence[MetricSpec],
    values: Sequence[Mapping[str, float]],
    clusters: Sequence[str],
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[dict[str, float | None], dict[str, list[float] | None]]:
    """Point estimates and clustered bootstrap intervals for one subset of samples."""
    cols = field_matrix(values, fields_of(specs))
    return summarize_columns(specs, cols, np.asarray(clusters, dtype=object).astype(str), n_resamples=n_resamples, seed=seed, level=level)


def summarize_columns(
    specs: Sequence[MetricSpec],
    columns: Mapping[str, np.ndarray],
    clusters: np.ndarray,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[dict[str, float | None], dict[str, list[float] | None]]:
    """:func:`summarize` of columns already built by :func:`field_matrix` (``clusters``: an array of
    str), so many subsets (thousands of scenes) index one matrix instead of each rebuilding its own."""
    # a model's inf (a path loss) makes inf - inf and 0 * inf in the sums: the aggregate is then
    # inf or NaN, written as null with a warning (Results.save), not a RuntimeWarning on the console
    with np.errstate(invalid="ignore", over="ignore"):
        point = compute(specs, columns)
        ci = bootstrap(specs, columns, clusters, n_resamples=n_resamples, seed=seed, level=level)
    return point, ci


def summarize_one_cluster_groups(
    specs: Sequence[MetricSpec],
    columns: Mapping[str, np.ndarray],
    rows: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    *,
    n_resamples: int = 1000,
    level: float = 0.95,
) -> list[tuple[dict[str, float | None], dict[str, list[float] | None]]]:
    """:func:`summarize_columns` of many subsets at once, each of them non-empty and drawn from
    one cluster (RIO's per-scene breakdown: 2,000 subsets): subset k is ``rows[starts[k]:ends[k]]``.

    Every resample of a one-cluster subset draws that cluster once, so its interval is the one
    replicate with weight 1 (:func:`bootstrap`); here those replicates are computed for all
    subsets in one pass with the same arithmetic: cluster sums as per-subset ``np.bincount`` sums
    (each bin adds its values in row order from 0.0, as the one-cluster sum does), medians as the
    middle elements of each subset's stably sorted values. The point estimates are
    :func:`compute` per subset. [] when a spec is :class:`Derived` (the caller goes one by one).
    """
    if any(isinstance(s, Derived) for s in specs) or len(starts) == 0:
        return []
    n_sub = len(starts)
    sizes = ends - starts
    sub = np.repeat(np.arange(n_sub), sizes)  # subset of each position of ``picked``
    picked = np.concatenate([rows[a:b] for a, b in zip(starts.tolist(), ends.tolist())])
    cols = {k: v[picked] for k, v in columns.items()}
    bounds = np.r_[0, np.cumsum(sizes)].tolist()
    points = [compute(specs, {k: v[a:b] for k, v in cols.items()}) for a, b in zip(bounds[:-1], bounds[1:])]
    if n_resamples <= 0:
        return [(p, {s.name: None for s in specs}) for p in points]
    alpha = (1.0 - level) / 2.0
    reps: dict[str, np.ndarray] = {}
    for s in specs:
        with np.errstate(invalid="ignore", divide="ignore"):
            if isinstance(s, Mean):
                x = cols[s.field]
                ok = ~np.isnan(x)
                num = np.bincount(sub, weights=np.where(ok, x, 0.0), minlength=n_sub)
                cnt = np.bincount(sub, weights=ok.astype(float), minlength=n_sub)
                reps[s.name] = np.where(cnt > 0, num / np.where(cnt > 0, cnt, 1) * s.scale, np.nan)
            elif isinstance(s, Ratio):
                a, b = cols[s.num], cols[s.den]
                ok = ~(np.isnan(a) | np.isnan(b))
                num = np.bincount(sub, weights=np.where(ok, a, 0.0), minlength=n_sub)
                den = np.bincount(sub, weights=np.where(ok, b, 0.0), minlength=n_sub)
                reps[s.name] = np.where(den > 0, num / np.where(den > 0, den, 1) * s.scale, np.nan)
            elif isinstance(s, Median):
                x = cols[s.field]
                ok = ~np.isnan(x)
                xv, sv = x[ok], sub[ok]
                xs = xv[np.lexsort((xv, sv))]  # by subset, then value; stable, as argsort(kind="stable")
                m = np.bincount(sv, minlength=n_sub)
                first = np.cumsum(m) - m
                has = m > 0
                lo = xs[np.where(has, first + (m - 1) // 2, 0)] if xs.size else np.zeros(n_sub)
                hi = xs[np.where(has, first + m // 2, 0)] if xs.size else np.zeros(n_sub)
                reps[s.name] = np.where(has, (lo + hi) / 2.0, np.nan) * s.scale
    out = []
    for k, p in enumerate(points):
        ci: dict[str, list[float] | None] = {}
        for s in specs:
            x = float(reps[s.name][k])
            if math.isnan(x):
                ci[s.name] = None
            elif math.isfinite(x) and (x != 0 or math.copysign(1.0, x) > 0):
                ci[s.name] = [x, x]
            else:  # -0.0 and infinities: what bootstrap() gives them
                v = np.repeat(np.array([x]), n_resamples)
                ci[s.name] = [float(np.quantile(v, alpha)), float(np.quantile(v, 1 - alpha))]
        out.append((p, ci))
    return out


def metric_info(specs: Sequence[MetricSpec]) -> dict[str, dict[str, object]]:
    info = {}
    for s in specs:
        info[s.name] = {
            "kind": type(s).__name__.lower(),
            "description": s.description,
            "unit": s.unit,
            "higher_is_better": s.higher_is_better,
        }
        # Enough to rebuild the spec from results.json alone (paired comparison of finished runs).
        if isinstance(s, (Mean, Median)):
            info[s.name].update(field=s.field, scale=s.scale)
        elif isinstance(s, Ratio):
            info[s.name].update(num=s.num, den=s.den, scale=s.scale)
        elif isinstance(s, Derived):
            info[s.name].update(metrics=list(s.metrics), fn=getattr(s.fn, "__name__", ""))
        if s.helper:  # only when set: results of specs without helpers keep their bytes
            info[s.name]["helper"] = True
    return info
