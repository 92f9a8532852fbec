"""Axis-aligned 3D boxes: conversions, point-in-box, IoU (pairwise and batched).

Two parameterisations appear in the benchmarks and are never mixed silently:

- centre-size ``[cx, cy, cz, dx, dy, dz]`` (3DBench objects, LAMM) — *full* extents, not half;
- min-max ``[xmin, ymin, zmin, xmax, ymax, zmax]`` (SURPRISE3D box predictions, ScanRefer corners).

3DBench room boxes come as ``(x, z, y, lx, lz, h)``; :func:`room_box_to_center_size` reorders them.
All functions broadcast over leading axes; the last axis holds the six numbers.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import numpy.typing as npt


def center_size_to_minmax(boxes: npt.ArrayLike) -> np.ndarray:
    """``[..., cx, cy, cz, dx, dy, dz]`` -> ``[..., xmin, ymin, zmin, xmax, ymax, zmax]``."""
    b = np.asarray(boxes, dtype=float)
    c, h = b[..., :3], b[..., 3:6] / 2.0
    return np.concatenate([c - h, c + h], axis=-1)


def minmax_to_center_size(boxes: np.ndarray) -> np.ndarray:
    b = np.asarray(boxes, dtype=float)
    lo, hi = b[..., :3], b[..., 3:6]
    return np.concatenate([(lo + hi) / 2.0, hi - lo], axis=-1)


def room_box_to_center_size(room: np.ndarray) -> np.ndarray:
    """3DBench room box ``(x, z, y, lx, lz, h)`` -> object order ``(x, y, z, lx, h, lz)`` (y up)."""
    r = np.asarray(room, dtype=float)
    return np.stack([r[..., 0], r[..., 2], r[..., 1], r[..., 3], r[..., 5], r[..., 4]], axis=-1)


def points_aabb(points: np.ndarray) -> np.ndarray:
    """Min-max box of an (N, 3) point set; N must be > 0."""
    p = np.asarray(points, dtype=float)
    return np.concatenate([p.min(axis=0), p.max(axis=0)])


def points_in_minmax(points: np.ndarray, box: np.ndarray) -> np.ndarray:
    """(N,) bool: points inside the min-max box, boundaries included."""
    p = np.asarray(points)
    b = np.asarray(box, dtype=float)
    return cast(np.ndarray, np.all((p >= b[:3]) & (p <= b[3:6]), axis=-1))


def volume_minmax(boxes: np.ndarray) -> np.ndarray:
    b = np.asarray(boxes, dtype=float)
    return cast(np.ndarray, np.prod(np.clip(b[..., 3:6] - b[..., :3], 0.0, None), axis=-1))


def iou_minmax(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of min-max boxes, broadcast over leading axes.

    Each axis' overlap is clamped at 0 *before* the product: two negative overlaps must not multiply
    into a positive volume (an older LAMM version made exactly that mistake). Zero union gives 0.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    lo = np.maximum(a[..., :3], b[..., :3])
    hi = np.minimum(a[..., 3:6], b[..., 3:6])
    inter = np.prod(np.clip(hi - lo, 0.0, None), axis=-1)
    union = volume_minmax(a) + volume_minmax(b) - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)


def iou_center_size(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of centre-size boxes (see :func:`iou_minmax`)."""
    return iou_minmax(center_size_to_minmax(a), center_size_to_minmax(b))


def iou_matrix_minmax(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, m) IoU between every box of ``a`` (n, 6) and ``b`` (m, 6)."""
    a = np.asarray(a, dtype=float).reshape(-1, 6)
    b = np.asarray(b, dtype=float).reshape(-1, 6)
    return iou_minmax(a[:, None, :], b[None, :, :])


def iou_matrix_center_size(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return iou_matrix_minmax(
        center_size_to_minmax(np.asarray(a, float).reshape(-1, 6)), center_size_to_minmax(np.asarray(b, float).reshape(-1, 6))
    )
