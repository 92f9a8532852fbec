"""3DBench localization: in-box, around-box, clamped AABB IoU and one-to-one box matching.

Boxes are centre-size ``[..., cx, cy, cz, dx, dy, dz]`` in metres (full extents); functions
broadcast over leading axes. Metric cards: ``docs/metrics/bench3d_{around_box,in_box,iou,detection,room_detection}.md``.

References:

- In-box, around-box (1 m), AABB IoU, detection and room detection: Zhang et al., "3DBench: A
  Scalable 3D Benchmark and Instruction-Tuning Dataset", IJCAI 2024, arXiv 2404.14678 (Sec. 4,
  evaluation metrics; the released code's L∞ around-box and precision-like denominators are the
  ``official`` protocol).
- Acc@IoU 0.25 / 0.5: Chen et al., "ScanRefer", ECCV 2020, arXiv 1912.08830.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from scenebench.geometry.boxes import center_size_to_minmax, iou_center_size, iou_matrix_center_size

MIN_SIZE = 0.01  # metres; the released code clamps box values to at least this
AROUND_M = 1.0  # metres


def clamp_sizes(boxes: np.ndarray, min_size: float = MIN_SIZE) -> np.ndarray:
    """Copy of ``boxes`` with each extent raised to at least ``min_size`` (degenerate boxes stay testable)."""
    b = np.array(boxes, dtype=float)
    b[..., 3:6] = np.maximum(b[..., 3:6], min_size)
    return b


def point_in_box(points: np.ndarray, boxes: np.ndarray, min_size: float = MIN_SIZE) -> np.ndarray:
    """``points`` (..., 3) inside centre-size ``boxes`` (..., 6), faces included, sizes clamped to ``min_size``."""
    mm = center_size_to_minmax(clamp_sizes(boxes, min_size))
    p = np.asarray(points, dtype=float)
    return cast(np.ndarray, np.all((p >= mm[..., :3]) & (p <= mm[..., 3:6]), axis=-1))


def around_box(pred: np.ndarray, gt: np.ndarray, protocol: str, radius: float = AROUND_M) -> np.ndarray:
    """Centre of ``pred`` near the centre of ``gt`` (both (..., 6) centre-size).

    ``official``: every one of the six values of both boxes is first clamped to >= 0.01 (so negative
    centre coordinates collapse to 0.01 — reproduced quirk), then each centre axis must satisfy
    ``g - radius <= p <= g + radius`` in floats (L∞). ``strict``: Euclidean centre distance
    ``<= radius``, no clamping.
    """
    p = np.asarray(pred, dtype=float)
    g = np.asarray(gt, dtype=float)
    if protocol == "official":
        # released: ``g - 1 <= p <= g + 1`` per axis in Python floats (not ``|p - g| <= 1``: 1.35 - 1
        # is 0.3500000000000001, so p = 0.35 misses), after ``max(0.01, v)`` (a NaN becomes 0.01)
        pc, gc = py_max_const(p[..., :3], MIN_SIZE), py_max_const(g[..., :3], MIN_SIZE)
        with np.errstate(invalid="ignore", over="ignore"):
            return cast(np.ndarray, np.all((gc - radius <= pc) & (pc <= gc + radius), axis=-1))
    return cast(np.ndarray, np.linalg.norm(p[..., :3] - g[..., :3], axis=-1) <= radius)


def py_max_const(v: np.ndarray, c: float) -> np.ndarray:
    """Python's ``max(c, v)`` elementwise: ``v`` only when ``v > c``, so a NaN gives ``c``."""
    v = np.asarray(v, dtype=float)
    return np.where(v > c, v, c)


def box_iou(pred: np.ndarray, gt: np.ndarray) -> np.ndarray:
    """AABB IoU of centre-size boxes with extents clamped to >= 0.01 and per-axis overlaps clamped at 0."""
    return iou_center_size(clamp_sizes(pred), clamp_sizes(gt))


def box_iou_matrix(pred: np.ndarray, gt: np.ndarray) -> np.ndarray:
    """(n_pred, n_gt) IoU matrix, see :func:`box_iou`."""
    return iou_matrix_center_size(clamp_sizes(np.asarray(pred, float).reshape(-1, 6)), clamp_sizes(np.asarray(gt, float).reshape(-1, 6)))


def center_in_box_matrix(pred: np.ndarray, gt: np.ndarray) -> np.ndarray:
    """(n_pred, n_gt) bool: predicted centre inside the GT box (see :func:`point_in_box`)."""
    p = np.asarray(pred, float).reshape(-1, 6)
    g = np.asarray(gt, float).reshape(-1, 6)
    return point_in_box(p[:, None, :3], g[None, :, :])


def match_count(valid: np.ndarray, cost: np.ndarray | None = None) -> int:
    """Largest number of one-to-one (prediction, GT) pairs allowed by ``valid`` (n_pred, n_gt).

    Defined as the Hungarian assignment (``scipy.optimize.linear_sum_assignment``) on a cost where
    invalid pairs cost more than any set of valid ones, so the number of valid pairs is maximal;
    ``cost`` (in [0, 1], e.g. 1 - IoU) only breaks ties between equally large matchings and so never
    changes the count. That count is the maximum bipartite matching of ``valid``, computed here by
    augmenting paths (:func:`max_matching_size`, no scipy import: ~0.5 s of every 3DBench run); a
    cost scipy would refuse (NaN) and very large matrices still go to scipy.
    """
    v = np.asarray(valid, dtype=bool)
    if v.size == 0 or not v.any():
        return 0
    c = np.zeros(v.shape) if cost is None else np.clip(np.asarray(cost, float), 0.0, 1.0)
    if np.isfinite(c).all() and min(v.shape) <= 500:  # (recursion depth of the augmenting paths)
        return max_matching_size(v)
    from scipy.optimize import linear_sum_assignment

    big = float(min(v.shape)) + 1.0
    rows, cols = linear_sum_assignment(np.where(v, c, big + 1.0))
    return int(v[rows, cols].sum())


def max_matching_size(valid: np.ndarray) -> int:
    """Size of a maximum matching of the bipartite graph ``valid`` (rows x cols), by augmenting
    paths (Kuhn's algorithm: exact, O(rows x edges); detection matrices are small). Rows and
    columns with at most one edge on either side need no search."""
    v = np.asarray(valid, dtype=bool)
    if v.size == 0:
        return 0
    if (v.sum(axis=0) <= 1).all() or (v.sum(axis=1) <= 1).all():
        # every column (row) is wanted by at most one row (column): rows (columns) with an edge
        return int(v.any(axis=1).sum()) if (v.sum(axis=0) <= 1).all() else int(v.any(axis=0).sum())
    adj = [np.flatnonzero(row).tolist() for row in v]
    match_col: dict[int, int] = {}

    def augment(r: int, seen: set[int]) -> bool:
        for c in adj[r]:
            if c not in seen:
                seen.add(c)
                if c not in match_col or augment(match_col[c], seen):
                    match_col[c] = r
                    return True
        return False

    return sum(1 for r in range(len(adj)) if adj[r] and augment(r, set()))


# ---------------------------------------------------------------------------------------------
# official: the released arithmetic (docs/metrics/bench3d_detection.md, bench3d_room_detection.md)


def official_detection_hits(pred: np.ndarray, gt: np.ndarray, named: np.ndarray) -> np.ndarray:
    """(n_gt,) bool: GT objects the released ``grounding3d_eval`` counts as found.

    For each GT object whose label the answer names, the released loop walks the predicted boxes in
    order and, **before** testing each one, rewrites the GT centre in place,
    ``bbox[:3] = (bbox[:3] + bbox[3:]) / 2``; the in-box test (``cal_in_3d``) then raises the GT
    sizes to at least 0.01 in place and checks ``c - |s/2| <= p <= c + |s/2|`` per axis. The first
    box inside stops the walk. Vectorised over GT objects, sequential over predicted boxes (the
    rewrite is cumulative).
    """
    p = np.asarray(pred, dtype=float).reshape(-1, 6)
    g = np.asarray(gt, dtype=float).reshape(-1, 6)
    centre, size = g[:, :3].copy(), g[:, 3:].copy()
    active = np.asarray(named, dtype=bool).copy()
    hit = np.zeros(len(g), dtype=bool)
    with np.errstate(invalid="ignore", over="ignore"):
        for k in range(len(p)):
            if not active.any():
                break
            centre[active] = (centre[active] + size[active]) / 2
            size[active] = py_max_const(size[active], MIN_SIZE)
            half = np.abs(size / 2)
            x = p[k, :3]
            inside = np.all((centre - half <= x) & (x <= centre + half), axis=1) & active
            hit |= inside
            active &= ~inside
    return hit


def _round3(a: np.ndarray) -> np.ndarray:
    # Python's round(x, 3) is correctly rounded (np.round is not): one call per box corner value.
    return np.array([round(v, 3) for v in a.ravel().tolist()], dtype=float).reshape(a.shape)


def official_room_iou(gt: np.ndarray, pred: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(iou, crash), each (n_gt, n_pred): the released ``cal_iou_3d(gt, pred)`` on boxes as written.

    Boxes stay in file order (room boxes ``(x, z, y, lx, lz, h)``): corner ``i`` is
    ``round(b[i] -/+ |b[i+3]| / 2, 3)``; intersections use Python ``max``/``min`` (a NaN in the
    second argument is ignored), ``max(0, d)`` per axis, volumes are multiplied in file order
    ``(d0 * d1) * d2``, ``iou = inter / (area_gt + area_pred - inter)``, and an IoU outside [0, 1]
    becomes 0 (a NaN stays NaN and never passes ``> 0.5``). ``crash`` marks pairs whose union is 0:
    the released code raises ZeroDivisionError there; callers score such pairs as no match.
    """
    g = np.asarray(gt, dtype=float).reshape(-1, 6)
    p = np.asarray(pred, dtype=float).reshape(-1, 6)

    def corners(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        half = np.abs(b[:, 3:] / 2)
        return _round3(b[:, :3] - half), _round3(b[:, :3] + half)

    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        glo, ghi = corners(g)
        plo, phi = corners(p)
        a, b = glo[:, None, :], plo[None, :, :]
        lo = np.where(b > a, b, a)  # max(gt, pred)
        a, b = ghi[:, None, :], phi[None, :, :]
        hi = np.where(b < a, b, a)  # min(gt, pred)
        d = hi - lo
        d = np.where(d > 0, d, 0.0)  # max(0, d)
        inter = d[..., 0] * d[..., 1] * d[..., 2]
        eg, ep = ghi - glo, phi - plo
        area_g = eg[:, 0] * eg[:, 1] * eg[:, 2]
        area_p = ep[:, 0] * ep[:, 1] * ep[:, 2]
        uni = area_g[:, None] + area_p[None, :] - inter
        crash = uni == 0
        iou = inter / np.where(crash, 1.0, uni)
        iou = np.where((iou > 1) | (iou < 0) | crash, 0.0, iou)
    return iou, crash
