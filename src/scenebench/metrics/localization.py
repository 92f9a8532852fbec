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
from scipy.optimize import linear_sum_assignment

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
    ``|Δ| <= radius`` (L∞). ``strict``: Euclidean centre distance ``<= radius``, no clamping.
    """
    p = np.asarray(pred, dtype=float)
    g = np.asarray(gt, dtype=float)
    if protocol == "official":
        d = np.abs(np.maximum(p[..., :3], MIN_SIZE) - np.maximum(g[..., :3], MIN_SIZE))
        return cast(np.ndarray, np.all(d <= radius, axis=-1))
    return cast(np.ndarray, np.linalg.norm(p[..., :3] - g[..., :3], axis=-1) <= radius)


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

    Hungarian assignment (``scipy.optimize.linear_sum_assignment``) on a cost where invalid pairs
    cost more than any set of valid ones, so the number of valid pairs is maximal; ``cost`` (in
    [0, 1], e.g. 1 - IoU) only breaks ties between equally large matchings.
    """
    v = np.asarray(valid, dtype=bool)
    if v.size == 0 or not v.any():
        return 0
    c = np.zeros(v.shape) if cost is None else np.clip(np.asarray(cost, float), 0.0, 1.0)
    big = float(min(v.shape)) + 1.0
    rows, cols = linear_sum_assignment(np.where(v, c, big + 1.0))
    return int(v[rows, cols].sum())
