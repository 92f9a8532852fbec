"""Set-to-set box grounding: F1 of a predicted box set against a GT box set at IoU thresholds.

A description may refer to zero, one or several objects; the model answers with a set of
axis-aligned boxes. Per threshold ``k``, ``TP_k`` predicted boxes are matched one-to-one to GT boxes
with IoU >= k and ``F1_k = 2 TP_k / (P + G)`` (``P`` predicted, ``G`` GT boxes); an empty answer to a
zero-target description scores 1, any box there 0.

Two matchings (metric card ``docs/metrics/multi3drefer_f1.md``):

- ``"pairs"``: per threshold, the largest number of pairs with IoU >= k (a maximum bipartite
  matching; :func:`scenebench.metrics.localization.match_count`) -- the definition of a true
  positive count;
- ``"iou_sum"``: one Hungarian assignment maximising the *sum* of IoUs on the zero-padded square
  matrix, thresholded afterwards, the same matching for every k. It can pair a box with the wrong
  GT to gain total IoU: ``[[0.49, 0.50], [0.30, 0.49]]`` has TP@0.5 = 0 under ``"iou_sum"`` and 1
  under ``"pairs"``.

Reference: Zhang, Gong, Chang, "Multi3DRefer: Grounding Text Description to Multiple 3D Objects",
ICCV 2023, arXiv 2309.05251 (Sec. 5.1, F1@kIoU with Hungarian matching).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from scenebench.metrics.localization import match_count

Matching = Literal["pairs", "iou_sum"]
FLOAT32_EPS = float(np.finfo(np.float32).eps)


def iou_matrix_eps(pred: np.ndarray, gt: np.ndarray, eps: float, dtype: type = np.float64) -> np.ndarray:
    """(P, G) IoU of min-max boxes as ``inter / (V_gt + V_pred - inter + eps)`` computed in ``dtype``
    (the float32 arithmetic of a torch evaluator, or float64 with ``eps`` = 1e-8)."""
    p: np.ndarray = np.asarray(pred, dtype=dtype).reshape(-1, 1, 6)
    g: np.ndarray = np.asarray(gt, dtype=dtype).reshape(1, -1, 6)
    d = np.clip(np.minimum(p[..., 3:], g[..., 3:]) - np.maximum(p[..., :3], g[..., :3]), 0, None)
    inter = d[..., 0] * d[..., 1] * d[..., 2]
    vp, vg = (b[..., 3:] - b[..., :3] for b in (p, g))
    vol_p, vol_g = vp[..., 0] * vp[..., 1] * vp[..., 2], vg[..., 0] * vg[..., 1] * vg[..., 2]
    return np.asarray(inter / (vol_g + vol_p - inter + np.asarray(eps, dtype=dtype)), dtype=dtype)


def true_positives(iou: np.ndarray, thresholds: Sequence[float], matching: Matching) -> list[int]:
    """``TP_k`` for each threshold from a (P, G) IoU matrix under ``matching`` (module doc)."""
    m = np.asarray(iou)
    if m.size == 0:
        return [0 for _ in thresholds]
    if matching == "pairs":
        return [match_count(m >= k) for k in thresholds]
    from scipy.optimize import linear_sum_assignment

    n = max(m.shape)
    square = np.zeros((n, n), dtype=m.dtype)
    square[: m.shape[0], : m.shape[1]] = m
    rows, cols = linear_sum_assignment(-square)
    matched = square[rows, cols]
    return [int((matched >= k).sum()) for k in thresholds]


def set_f1(iou: np.ndarray, thresholds: Sequence[float], matching: Matching) -> list[float]:
    """``F1_k`` of a (P, G) IoU matrix; ``P = G = 0`` scores 1 (a correct empty answer)."""
    n_pred, n_gt = np.shape(iou)
    if n_pred + n_gt == 0:
        return [1.0 for _ in thresholds]
    return [2.0 * tp / (n_pred + n_gt) for tp in true_positives(iou, thresholds, matching)]
