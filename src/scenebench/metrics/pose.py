"""6DoF pose errors for object re-localization (RIO on 3RScan), in the style of bop_toolkit's pose_error.py.

Poses are 4x4 matrices ``T`` (``x' = R x + t``, metres) that move an instance from the reference
scan into the rescan (see :mod:`scenebench.geometry.poses`). Angles are degrees. Every function is
vectorised over a leading instance axis; ``*_reference`` functions are the plain per-instance
versions the vectorised ones are tested (and benchmarked) against.

Two protocols (docs/metrics/rio_recall.md, rio_mre_mte.md):

- ``strict``: rotation error is the exact minimum over the instance's vertical symmetry group,
  ``min_k angle(R_pred^T R_gt R_k)`` where ``R_k`` turns by ``k * 360/n`` deg about +Z. The group acts
  about the vertical axis through the instance centroid ``c`` (reference frame), i.e. the equivalent
  ground truths are ``T_gt @ S_k`` with ``S_k: x -> R_k (x - c) + c``; every ``T_gt @ S_k`` maps ``c``
  to the same point, so the translation error -- the distance between ``c`` mapped by the predicted
  and by the true pose, ``|T_pred c - T_gt c|`` -- is consistent with whichever ``k`` is chosen.
  Continuous symmetry (order 0, round objects): the minimum over every angle, which is exactly the
  angle between the predicted and the true up axis, ``arccos((R_pred e_z) . (R_gt e_z))``.
- ``official``: translation error ``|t_pred - t_gt|`` of the 4x4 translations, and for a symmetric
  instance the angle shortcut of public code, ``min(e, |180 - e|, |90 - e|)`` applied to the plain
  angle ``e`` (also to 2-fold and continuous objects: the shortcut has one formula). It is exact only when the
  residual rotation is about the vertical axis, and the translation is not made consistent.

Ambiguity (interchangeable instances) is handled by giving an instance several ground-truth
*candidates* (its own pose and, for each partner, the pose that lands it on the partner); the
error is that of the best candidate, chosen by (translation error, rotation error) in that order.

References:

- Recall at (0.1 m, 10°) and (0.2 m, 20°), median rotation / translation error (MRE, MTE): Wald et
  al., "RIO: 3D Object Instance Re-Localization in Changing Indoor Environments", ICCV 2019,
  arXiv 1908.06109 (Sec. 5, Table 3).
- Rotation error ``arccos((trace(R_pred^T R_gt) - 1) / 2)`` and the minimum over a symmetry group:
  Hodaň, Matas, Obdržálek, "On Evaluation of 6D Object Pose Estimation", ECCV Workshops 2016;
  Hodaň et al., "BOP: Benchmark for 6D Object Pose Estimation", ECCV 2018, arXiv 1808.08319.
"""

from __future__ import annotations

import numpy as np

from scenebench.protocol import Protocol


def angle_from_trace_deg(trace: np.ndarray) -> np.ndarray:
    """Rotation angle (deg) from ``trace(R)``: ``degrees(arccos(clip((trace - 1) / 2, -1, 1)))``."""
    return np.degrees(np.arccos(np.clip((np.asarray(trace, dtype=float) - 1.0) / 2.0, -1.0, 1.0)))


def rotation_error_deg(R_pred: np.ndarray, R_gt: np.ndarray) -> np.ndarray:
    """Angle of ``R_pred^T R_gt`` in degrees, [0, 180]; (..., 3, 3) x2 -> (...).

    Reference: Hodaň et al., ECCV Workshops 2016 (rotation error e_RE).
    """
    return angle_from_trace_deg(np.einsum("...ij,...ij->...", np.asarray(R_pred, float), np.asarray(R_gt, float)))


def translation_error(t_pred: np.ndarray, t_gt: np.ndarray) -> np.ndarray:
    """``|t_pred - t_gt|_2`` in metres; (..., 3) x2 -> (...)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _norm(np.asarray(t_pred, float) - np.asarray(t_gt, float))


def centroid_translation_error(T_pred: np.ndarray, T_gt: np.ndarray, centroid: np.ndarray) -> np.ndarray:
    """Distance (m) between ``centroid`` (..., 3) mapped by ``T_pred`` and by ``T_gt`` (..., 4, 4)."""
    T_pred = np.asarray(T_pred, float)
    T_gt = np.asarray(T_gt, float)
    c = np.asarray(centroid, float)
    with np.errstate(over="ignore", invalid="ignore"):
        d = np.einsum("...ij,...j->...i", T_pred[..., :3, :3] - T_gt[..., :3, :3], c) + T_pred[..., :3, 3] - T_gt[..., :3, 3]
        return _norm(d)


def _norm(d: np.ndarray) -> np.ndarray:
    """Euclidean norm over the last axis without overflow: a translation of 1e300 m has an error of
    1e300 m (finite, a miss), not inf with a numpy RuntimeWarning; an infinite component gives inf."""
    a = np.abs(d)
    m = a.max(axis=-1)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        scaled = m * np.sqrt(np.sum((a / np.where(m > 0, m, 1.0)[..., None]) ** 2, axis=-1))
    return np.where(np.isinf(m), np.inf, np.where(m > 0, scaled, 0.0))


def symmetric_rotation_error_deg(R_pred: np.ndarray, R_gt: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Exact ``min_k angle(R_pred^T R_gt R_k)`` over the vertical group of ``order`` (N,) -> (N,) deg.

    With ``D = R_pred^T R_gt``, ``trace(D R_k) = cos(a_k)(D00 + D11) + sin(a_k)(D01 - D10) + D22``,
    so each group element costs a few multiply-adds per instance; the largest trace gives the
    smallest angle (arccos is decreasing). Order 0 (continuous) takes the maximum over every angle,
    ``hypot(D00 + D11, D01 - D10) + D22`` = ``1 + 2 D22`` for a rotation: the angle between the up axes.
    Reference: Hodaň et al., BOP, ECCV 2018, arXiv 1808.08319 (minimum over the symmetry group).
    """
    Rp = np.asarray(R_pred, float)
    Rg = np.asarray(R_gt, float)
    order = np.asarray(order, dtype=np.int64)
    # Columns of D needed: D_ij = sum_m Rp[m, i] Rg[m, j].
    d00 = np.einsum("nm,nm->n", Rp[:, :, 0], Rg[:, :, 0])
    d11 = np.einsum("nm,nm->n", Rp[:, :, 1], Rg[:, :, 1])
    d01 = np.einsum("nm,nm->n", Rp[:, :, 0], Rg[:, :, 1])
    d10 = np.einsum("nm,nm->n", Rp[:, :, 1], Rg[:, :, 0])
    d22 = np.einsum("nm,nm->n", Rp[:, :, 2], Rg[:, :, 2])
    a, b = d00 + d11, d01 - d10
    best = a + d22  # k = 0
    n_max = int(order.max()) if order.size else 1
    for k in range(1, n_max):  # loop over group elements (<= n_max), never over instances
        has = order > k
        if not has.any():
            continue
        ang = 2.0 * np.pi * k / np.where(has, order, 1)
        tr = np.cos(ang) * a + np.sin(ang) * b + d22
        best = np.where(has & (tr > best), tr, best)
    cont = order == 0
    if cont.any():
        best = np.where(cont, np.hypot(a, b) + d22, best)
    return angle_from_trace_deg(best)


def official_symmetry_shortcut_deg(err_deg: np.ndarray, symmetric: np.ndarray) -> np.ndarray:
    """Public-code shortcut: ``min(e, |180 - e|, |90 - e|)`` where ``symmetric``, else ``e`` (deg).

    Reference: the public RIO code's angle shortcut (not exact; the ``official`` protocol only).
    """
    e = np.asarray(err_deg, float)
    short = np.minimum(e, np.minimum(np.abs(180.0 - e), np.abs(90.0 - e)))
    return np.where(np.asarray(symmetric, bool), short, e)


def candidate_errors(
    T_pred: np.ndarray,
    T_cand: np.ndarray,
    centroid: np.ndarray,
    order: np.ndarray,
    protocol: Protocol = "strict",
) -> tuple[np.ndarray, np.ndarray]:
    """Rotation (deg) and translation (m) error of each prediction against one ground-truth candidate.

    Args:
        T_pred, T_cand: (M, 4, 4) predicted pose and ground-truth candidate pose, row by row.
        centroid: (M, 3) instance centroid in the reference frame (the symmetry pivot).
        order: (M,) symmetry group order (1 none, 2, 4; 0 continuous).
    """
    T_pred = np.asarray(T_pred, float)
    T_cand = np.asarray(T_cand, float)
    order = np.asarray(order, dtype=np.int64)
    if protocol == "strict":
        r = symmetric_rotation_error_deg(T_pred[:, :3, :3], T_cand[:, :3, :3], order)
        t = centroid_translation_error(T_pred, T_cand, centroid)
    elif protocol == "official":
        r = official_symmetry_shortcut_deg(rotation_error_deg(T_pred[:, :3, :3], T_cand[:, :3, :3]), order != 1)
        t = translation_error(T_pred[:, :3, 3], T_cand[:, :3, 3])
    else:
        raise ValueError(f"unknown protocol {protocol!r}")
    return r, t


def best_candidate_errors(
    T_pred: np.ndarray,
    T_cand: np.ndarray,
    owner: np.ndarray,
    centroid: np.ndarray,
    order: np.ndarray,
    protocol: Protocol = "strict",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-instance errors against the best of its ground-truth candidates.

    Args:
        T_pred: (N, 4, 4) one prediction per instance.
        T_cand: (M, 4, 4) ground-truth candidates, M >= N; ``owner`` (M,) gives each candidate's
            instance index; every instance owns >= 1 candidate, its own pose first.
        centroid: (N, 3) reference-frame centroids; order: (N,) symmetry group orders.

    Returns:
        ``(r_err (N,) deg, t_err (N,) m, chosen (N,) index into T_cand)``; the chosen candidate has the
        smallest translation error, ties broken by rotation error, then by position (own pose first).
    """
    owner = np.asarray(owner, dtype=np.int64)
    n = len(T_pred)
    centroid = np.asarray(centroid, float)
    order = np.asarray(order, dtype=np.int64)
    counts = np.bincount(owner, minlength=n)
    if counts.size != n or (counts == 0).any():
        raise ValueError(f"every instance needs at least one candidate ({int((counts > 0).sum())} of {n} have one)")
    if len(owner) == n:  # one candidate each (no ambiguity): no gather, no selection
        inv = np.empty(n, dtype=np.int64)
        inv[owner] = np.arange(n)
        r, t = candidate_errors(np.asarray(T_pred, float)[owner], T_cand, centroid[owner], order[owner], protocol)
        return r[inv], t[inv], inv
    r, t = candidate_errors(np.asarray(T_pred, float)[owner], T_cand, centroid[owner], order[owner], protocol)
    chosen = np.empty(n, dtype=np.int64)
    single = counts[owner] == 1
    chosen[owner[single]] = np.flatnonzero(single)
    multi = np.flatnonzero(~single)  # only owners with partners need a selection (few)
    sort = multi[np.lexsort((multi, r[multi], t[multi], owner[multi]))]
    first = np.ones(len(sort), dtype=bool)
    first[1:] = owner[sort][1:] != owner[sort][:-1]
    chosen[owner[sort[first]]] = sort[first]
    return r[chosen], t[chosen], chosen


def _assignment_cost(r: np.ndarray, t: np.ndarray, thresholds: tuple[tuple[float, float], ...]) -> np.ndarray:
    """Lexicographic cost: misses at the first threshold, then the second, then a bounded error term."""
    cost = np.zeros_like(np.asarray(t, float))
    weight = 1e6
    for t_thr, r_thr in thresholds:
        cost += weight * (1.0 - recall_hit(r, t, r_thr, t_thr))
        weight /= 1e3
    u = np.where(np.isfinite(t) & np.isfinite(r), t / thresholds[0][0] + r / thresholds[0][1], np.inf)
    return cost + np.where(np.isfinite(u), u / (1.0 + u), 1.0)  # in [0, 1]: only breaks ties


def assign_one_to_one(
    r_err: np.ndarray,
    t_err: np.ndarray,
    owner: np.ndarray,
    location: np.ndarray,
    thresholds: tuple[tuple[float, float], ...] = ((0.1, 10.0), (0.2, 20.0)),
) -> np.ndarray:
    """Choose one candidate per owner so that no location is used twice (strict ambiguity rule).

    Args:
        r_err, t_err: (M,) errors of each (owner, location) candidate.
        owner: (M,) instance index (0..N-1) the prediction belongs to; location: (M,) id of the
            ground-truth place the candidate puts it (its own place or an interchangeable partner's).
        thresholds: ``((t_m, r_deg), ...)``; the assignment maximises hits at the first, then the
            second threshold, then minimises ``u / (1 + u)`` with ``u = t/t_1 + r/r_1``.

    Returns:
        (N,) index into the candidates. Owners whose candidates share no location with another
        owner keep their cheapest candidate; each connected group of several owners (linked through
        shared locations) is solved with the Hungarian algorithm (groups are small: a few
        interchangeable chairs). If a group had more owners than places (impossible when every
        owner's own place is a candidate, as in the RIO scorer), the unassigned ones would keep
        their cheapest candidate.
    """
    owner = np.asarray(owner, dtype=np.int64)
    _, loc = np.unique(np.asarray(location), return_inverse=True)
    n = int(owner.max()) + 1 if owner.size else 0
    cost = _assignment_cost(np.asarray(r_err, float), np.asarray(t_err, float), thresholds)
    chosen = np.full(n, -1, dtype=np.int64)
    # Owners with a single candidate at a location nobody else can take need no assignment.
    involved = (np.bincount(owner, minlength=n)[owner] > 1) | (np.bincount(loc)[loc] > 1)
    plain = np.flatnonzero(~involved)
    chosen[owner[plain]] = plain
    rows_all = np.flatnonzero(involved)
    if rows_all.size == 0:
        return chosen
    # scipy only where owners share places (importing scipy.optimize takes ~0.5 s)
    from scipy.optimize import linear_sum_assignment
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    o_sub, o_idx = np.unique(owner[rows_all], return_inverse=True)
    l_sub, l_idx = np.unique(loc[rows_all], return_inverse=True)
    n_o, n_l = len(o_sub), len(l_sub)
    graph = coo_matrix((np.ones(len(rows_all)), (o_idx, n_o + l_idx)), shape=(n_o + n_l, n_o + n_l))
    _, comp = connected_components(graph, directed=False)
    # Cheapest candidate first (final for owners alone in their group) ...
    sort = rows_all[np.lexsort((rows_all, cost[rows_all], owner[rows_all]))]
    first = np.r_[True, owner[sort][1:] != owner[sort][:-1]]
    chosen[owner[sort[first]]] = sort[first]
    # ... then the Hungarian algorithm where several owners compete for places.
    row_comp = comp[o_idx]
    crowded = np.bincount(comp[:n_o]) > 1
    keep = crowded[row_comp]
    rows_c, comp_c = rows_all[keep], row_comp[keep]
    order = np.argsort(comp_c, kind="stable")
    bounds = np.flatnonzero(np.r_[True, comp_c[order][1:] != comp_c[order][:-1], True]) if rows_c.size else np.array([0])
    big = 1e12
    for a, b in zip(bounds[:-1], bounds[1:]):  # loop over contested ambiguity groups, not instances
        rows = rows_c[order[a:b]]
        oi, o_inv = np.unique(owner[rows], return_inverse=True)
        li, l_inv = np.unique(loc[rows], return_inverse=True)
        mat = np.full((len(oi), len(li)), big)
        idx = np.full((len(oi), len(li)), -1, dtype=np.int64)
        mat[o_inv, l_inv] = cost[rows]
        idx[o_inv, l_inv] = rows
        ri, ci = linear_sum_assignment(mat)
        for x, y in zip(ri, ci):
            if idx[x, y] >= 0 and mat[x, y] < big:
                chosen[oi[x]] = idx[x, y]
    return chosen


def recall_hit(r_err: np.ndarray, t_err: np.ndarray, r_thr_deg: float, t_thr_m: float) -> np.ndarray:
    """1.0 where ``t_err <= t_thr_m and r_err <= r_thr_deg`` (inclusive), else 0.0; NaN/inf fail.

    Reference: Wald et al., RIO, ICCV 2019, arXiv 1908.06109 (Recall at 0.1 m / 10° and 0.2 m / 20°).
    """
    return ((np.asarray(t_err) <= t_thr_m) & (np.asarray(r_err) <= r_thr_deg)).astype(float)
