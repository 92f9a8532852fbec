"""3DBench navigation: path loss and success, plus SPL-style and nDTW figures.

Paths are (n, 2) arrays of ``[x, z]`` waypoints in metres (the floor plane of a y-up world).
Metric cards: ``docs/metrics/bench3d_{navigation_success,spl,ndtw}.md``. ``strict`` success
(:func:`strict_success`) needs :func:`strict_path_loss` under the released threshold **and** the answer's
last point within :data:`GOAL_RADIUS_M` of the goal (cannot be passed by staying at the start, nor by a
short blind move); ``official`` the released rule.

References:

- Path loss and success (loss < 1 m per ground-truth waypoint): Zhang et al., "3DBench", IJCAI 2024,
  arXiv 2404.14678 (navigation task).
- Success as ending within a distance d of the goal: Anderson et al., "On Evaluation of Embodied
  Navigation Agents", 2018, arXiv 1807.06757 (the rule of R2R, d = 3 m, and Habitat ObjectNav, d = 1 m).
- SPL (success weighted by path length): Anderson et al., "On Evaluation of Embodied Navigation
  Agents", 2018, arXiv 1807.06757.
- nDTW (normalised dynamic time warping): Ilharco et al., "General Evaluation for Instruction
  Conditioned Navigation using Dynamic Time Warping", NeurIPS ViGIL Workshop 2019, arXiv 1907.05446.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

LOSS_PER_WAYPOINT_M = 1.0
# strict success radius around the goal (the GT path's last point). 1 m as Habitat ObjectNav and the
# released per-waypoint tolerance; the generator starts every path >= 2 m (2 radii) from its goal.
GOAL_RADIUS_M = 1.0
NDTW_DIST_M = 1.0


def _pts(p: np.ndarray | list[Any]) -> np.ndarray:
    return np.asarray(p, dtype=float).reshape(-1, 2)


def path_loss(pred: np.ndarray, gt: np.ndarray) -> float:
    """Σ over the longer list L of the distance to the nearest point of the shorter list S (metres).

    When both lists have the same length, L is the ground truth (the released code's tie rule).
    An empty prediction has infinite loss.
    Reference: Zhang et al., 3DBench, IJCAI 2024, arXiv 2404.14678 (navigation path loss).
    """
    p, g = _pts(pred), _pts(gt)
    if len(p) == 0 or len(g) == 0:
        return math.inf
    long_, short = (p, g) if len(g) < len(p) else (g, p)
    d = np.linalg.norm(long_[:, None, :] - short[None, :, :], axis=-1)
    return float(d.min(axis=1).sum())


def coverage_loss(pred: np.ndarray, gt: np.ndarray) -> float:
    """Σ over the ground-truth waypoints of the distance to the nearest predicted point (metres);
    inf for an empty list. How much of the route the answer misses, whatever its length."""
    p, g = _pts(pred), _pts(gt)
    if len(p) == 0 or len(g) == 0:
        return math.inf
    return float(np.linalg.norm(g[:, None, :] - p[None, :, :], axis=-1).min(axis=1).sum())


def strict_path_loss(pred: np.ndarray, gt: np.ndarray) -> float:
    """The ``strict`` loss: ``max(path_loss, coverage_loss)``.

    The released rule sums over the longer list only, so an answer longer than the route that
    repeats the start point (which is the first GT waypoint) has loss 0 and succeeds without moving.
    Taking the larger of the released loss and the GT-side sum charges every waypoint of the route
    the answer never comes near; a path on the route still scores 0, and where the ground truth is
    the longer list (or ties) both terms are the same sum. NaN propagates (a failure).
    """
    return float(np.maximum(path_loss(pred, gt), coverage_loss(pred, gt)))


def _run_sums(values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``values[o : o + n].sum()`` for consecutive runs of the given ``lengths`` (0 for an empty run).

    numpy adds a 1-D array pairwise, in blocks of eight: a sequential or ``reduceat`` sum differs in
    the last bits. Runs of one length are summed as the C-contiguous rows of one 2-D array, which
    numpy adds row by row with that same loop (tests compare every run with its own ``.sum()``).
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    out = np.zeros(len(lengths))
    starts = np.cumsum(lengths) - lengths
    for n in np.unique(lengths).tolist():
        if n:
            k = np.flatnonzero(lengths == n)
            out[k] = values[starts[k, None] + np.arange(n)].sum(axis=1)
    return out


def _runs(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(run, position in run) of every element of consecutive runs of ``lengths``."""
    total = int(lengths.sum())
    owner = np.repeat(np.arange(len(lengths)), lengths)
    return owner, np.arange(total) - (np.cumsum(lengths) - lengths)[owner]


def path_losses(preds: list[np.ndarray], gts: list[np.ndarray]) -> np.ndarray:
    """:func:`path_loss` of many (prediction, GT) pairs, bit for bit: every (long, short) point pair
    of every answer in one array, the nearest per long point by ``np.minimum.reduceat`` (a minimum
    is exact in any order), the sums by :func:`_run_sums`."""
    ps, gs = [_pts(p) for p in preds], [_pts(g) for g in gts]
    longs = [p if len(g) < len(p) else g for p, g in zip(ps, gs)]
    shorts = [g if len(g) < len(p) else p for p, g in zip(ps, gs)]
    return _directed_sums(longs, shorts)


def strict_path_losses(preds: list[np.ndarray], gts: list[np.ndarray]) -> np.ndarray:
    """:func:`strict_path_loss` of many pairs, bit for bit: the released loss of every pair and its
    GT-side sum (:func:`path_losses` with the GT forced to be the long list), their maximum."""
    ps, gs = [_pts(p) for p in preds], [_pts(g) for g in gts]
    released = path_losses(ps, gs)
    out: np.ndarray = np.maximum(released, _directed_sums(gs, ps))
    return out


def _directed_sums(froms: list[np.ndarray], tos: list[np.ndarray]) -> np.ndarray:
    """Σ over each ``froms[k]`` point of the distance to the nearest ``tos[k]`` point (inf if either
    is empty), every pair in one array as in :func:`path_losses`."""
    out = np.full(len(froms), math.inf)
    ok = [k for k in range(len(froms)) if len(froms[k]) and len(tos[k])]
    if not ok:
        return out
    longs, shorts = [froms[k] for k in ok], [tos[k] for k in ok]
    n_long = np.array([len(x) for x in longs], dtype=np.int64)
    n_short = np.array([len(x) for x in shorts], dtype=np.int64)
    long_owner, _ = _runs(n_long)
    per_long = n_short[long_owner]
    row, col = _runs(per_long)
    short_at = (np.cumsum(n_short) - n_short)[long_owner[row]] + col
    d = np.linalg.norm(np.concatenate(longs)[row] - np.concatenate(shorts)[short_at], axis=-1)
    nearest = np.minimum.reduceat(d, np.cumsum(per_long) - per_long)
    out[ok] = _run_sums(nearest, n_long)
    return out


def path_lengths(paths: list[np.ndarray]) -> np.ndarray:
    """:func:`path_length` of many paths, bit for bit (segment lengths of all paths at once)."""
    ps = [_pts(p) for p in paths]
    n = np.array([len(p) for p in ps], dtype=np.int64)
    if not len(ps):
        return np.zeros(0)
    pts = np.concatenate(ps)
    owner, _ = _runs(n)
    inside = np.flatnonzero(owner[1:] == owner[:-1])  # segments within one path
    seg = np.linalg.norm(pts[inside + 1] - pts[inside], axis=1)
    return _run_sums(seg, np.maximum(n - 1, 0))


def official_path_loss(pred: np.ndarray | list[Any], gt: np.ndarray | list[Any]) -> float | None:
    """The released ``cal_path_3d`` loss in its own arithmetic, or None where the released code crashes.

    Same long/short rule as :func:`path_loss`, but: each distance is
    ``math.sqrt((lx - sx) ** 2 + (lz - sz) ** 2)`` in Python floats (``**`` is the C library's
    ``pow``, which can differ from ``x * x`` in the last bit), the nearest is kept with the builtin
    ``min(m, d)`` starting from ``inf`` (a NaN distance is skipped: ``min(inf, nan)`` is ``inf``),
    and the per-waypoint minima are added one after the other from 0 (not numpy's pairwise sum:
    ten steps of 0.1 add up to 0.9999999999999999). An empty list gives ``inf``. A square beyond the
    float range raises OverflowError in the released code; that answer returns None (a failure).

    Python-level loop on purpose: the result is defined by Python float semantics, and a path has
    tens of waypoints at most.
    """
    p = _pts(pred).tolist()
    g = _pts(gt).tolist()
    long_, short = (p, g) if len(g) < len(p) else (g, p)
    total = 0.0
    try:
        for lx, lz in long_:
            m = math.inf
            for sx, sz in short:
                m = min(m, math.sqrt((lx - sx) ** 2 + (lz - sz) ** 2))
            total += m
    except OverflowError:
        return None
    return total


def path_success(loss: float, n_gt: int, per_waypoint: float = LOSS_PER_WAYPOINT_M) -> bool:
    """Success iff ``loss < per_waypoint * n_gt`` (strictly less, as released)."""
    return bool(loss < per_waypoint * n_gt)


def goal_distance(pred: np.ndarray | list[Any], gt: np.ndarray | list[Any]) -> float:
    """Distance (metres) from the answer's last point to the goal, the GT path's last point; inf if
    either is empty, NaN if the last point is not finite (a failure either way)."""
    return float(goal_distances([pred], [gt])[0])


def goal_distances(preds: list[Any], gts: list[Any]) -> np.ndarray:
    """:func:`goal_distance` of many pairs (one ``norm`` over all last points)."""
    ps, gs = [_pts(p) for p in preds], [_pts(g) for g in gts]
    out = np.full(len(ps), math.inf)
    ok = [k for k in range(len(ps)) if len(ps[k]) and len(gs[k])]
    if ok:
        last_p = np.stack([ps[k][-1] for k in ok])
        last_g = np.stack([gs[k][-1] for k in ok])
        out[ok] = np.linalg.norm(last_p - last_g, axis=-1)
    return out


def strict_success(loss: float, goal_dist: float, n_gt: int, radius: float = GOAL_RADIUS_M) -> bool:
    """``strict`` success: :func:`path_success` of the strict loss **and** ``goal_dist < radius``.

    The released threshold (1 m per GT waypoint, on a 0.25 m grid) is loose for short routes: an
    answer that stays at the start passes any route shorter than about 2 m. Ending within ``radius``
    of the goal is the standard success rule of embodied navigation (Anderson et al. 2018), so an
    answer must both follow the route and arrive. NaN fails (comparisons with NaN are false).
    """
    return bool(path_success(loss, n_gt) and goal_dist < radius)


def path_length(path: np.ndarray) -> float:
    """Sum of segment lengths (metres); 0 for fewer than two points."""
    p = _pts(path)
    return float(np.linalg.norm(np.diff(p, axis=0), axis=1).sum()) if len(p) > 1 else 0.0


def spl(success: bool, pred: np.ndarray, gt: np.ndarray) -> float:
    """SPL-style efficiency: ``success * L_gt / max(L_pred, L_gt)``; 1·success when both lengths are 0.

    Reference: Anderson et al., "On Evaluation of Embodied Navigation Agents", 2018, arXiv 1807.06757.
    """
    if not success:
        return 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        lg, lp = path_length(gt), path_length(pred)
    if math.isnan(lp):  # an official answer with a NaN waypoint can succeed (NaN distances are skipped)
        return 0.0
    m = max(lp, lg)
    return 1.0 if m == 0 else lg / m


def dtw(pred: np.ndarray, gt: np.ndarray) -> float:
    """Dynamic time warping distance (sum of matched Euclidean distances), inf if either is empty."""
    p, g = _pts(pred), _pts(gt)
    n, m = len(p), len(g)
    if n == 0 or m == 0:
        return math.inf
    c = np.linalg.norm(p[:, None, :] - g[None, :, :], axis=-1)
    # Row recursion without a per-cell loop: with a[j] = c[i,j] + min(D[i-1,j], D[i-1,j-1]) and the
    # row's prefix sums S, D[i,j] = min_k<=j (a[k] + S[j] - S[k]) = S[j] + cummin(a - S)[j].
    prev = np.full(m + 1, np.inf)
    prev[0] = 0.0
    for i in range(n):
        a = c[i] + np.minimum(prev[1:], prev[:-1])
        s = np.cumsum(c[i])
        prev = np.concatenate(([np.inf], s + np.minimum.accumulate(a - s)))
    return float(prev[m])


DTW_BATCH = 256  # answers per padded block of :func:`dtw_many`
DTW_BATCH_MAX_CELLS = 4096  # larger (waypoints x GT points) tables go through :func:`dtw` one at a time


def dtw_many(preds: list[np.ndarray], gts: list[np.ndarray]) -> list[float]:
    """:func:`dtw` of many (pred, gt) pairs, the row recursion run on blocks of padded tables.

    Each block holds answers of similar length (sorted by waypoint count), padded with zeros to its
    largest table: every cell of an answer's own table comes from the same elementwise operations
    and left-to-right accumulations as in :func:`dtw` (padding lies below and to the right, and a
    cumulative sum or minimum never looks right), so each distance is bit for bit the one of
    :func:`dtw`. The value of an answer is read after its own last row."""
    ps, gs = [_pts(p) for p in preds], [_pts(g) for g in gts]
    out = [math.inf] * len(ps)
    batch = []
    for k, (p, g) in enumerate(zip(ps, gs)):
        if len(p) == 0 or len(g) == 0:
            continue
        if len(p) * len(g) > DTW_BATCH_MAX_CELLS:
            out[k] = dtw(p, g)
        else:
            batch.append(k)
    batch.sort(key=lambda k: (len(ps[k]), len(gs[k])))
    for at in range(0, len(batch), DTW_BATCH):
        ks = batch[at : at + DTW_BATCH]
        n_max, m_max = max(len(ps[k]) for k in ks), max(len(gs[k]) for k in ks)
        pp, gg = np.zeros((len(ks), n_max, 2)), np.zeros((len(ks), m_max, 2))
        for b, k in enumerate(ks):
            pp[b, : len(ps[k])] = ps[k]
            gg[b, : len(gs[k])] = gs[k]
        c = np.linalg.norm(pp[:, :, None, :] - gg[:, None, :, :], axis=-1)  # (answers, n_max, m_max)
        prev = np.full((len(ks), m_max + 1), np.inf)
        prev[:, 0] = 0.0
        inf_col = np.full((len(ks), 1), np.inf)
        ends: dict[int, list[int]] = {}
        for b, k in enumerate(ks):
            ends.setdefault(len(ps[k]) - 1, []).append(b)
        for i in range(n_max):
            row = c[:, i]
            a = row + np.minimum(prev[:, 1:], prev[:, :-1])
            s = np.cumsum(row, axis=1)
            prev = np.concatenate((inf_col, s + np.minimum.accumulate(a - s, axis=1)), axis=1)
            for b in ends.get(i, ()):
                out[ks[b]] = float(prev[b, len(gs[ks[b]])])
    return out


def ndtw_from_dtw(d: float, n_gt: int, d_th: float = NDTW_DIST_M) -> float:
    """:func:`ndtw` from the DTW distance ``d`` and the number of GT points."""
    if not math.isfinite(d) or n_gt == 0:
        return 0.0
    return float(math.exp(-d / (n_gt * d_th)))


def ndtw(pred: np.ndarray, gt: np.ndarray, d_th: float = NDTW_DIST_M) -> float:
    """Normalised DTW ``exp(-DTW / (len(gt) * d_th))`` in [0, 1]; 0 for an empty prediction.

    Reference: Ilharco et al., 2019, arXiv 1907.05446 (nDTW).
    """
    g = _pts(gt)
    with np.errstate(invalid="ignore", over="ignore"):
        d = dtw(pred, g)
    if not math.isfinite(d) or len(g) == 0:
        return 0.0
    return float(math.exp(-d / (len(g) * d_th)))
