"""Rigid poses: 4x4 matrices, rotations, quaternions and vertical symmetry groups.

Conventions (used by every caller; change nothing here without the metric cards):

- A pose is a 4x4 matrix ``T`` acting on column vectors, ``x' = R x + t`` with ``R = T[:3, :3]``,
  ``t = T[:3, 3]``, metres. Batched functions take ``(..., 4, 4)`` / ``(..., 3, 3)`` arrays.
- 3RScan stores 4x4 matrices as 16 numbers in **column-major** order
  (:func:`matrix_from_column_major`); prediction files use nested row-major lists.
- Quaternions are ``(w, x, y, z)`` (scalar first, as in scipy's ``scalar_first=True`` and
  Eigen's constructor), unit length within :data:`QUAT_NORM_TOL`.
- Symmetry codes of 3RScan: 0 none, 1 two-fold (180 deg), 2 four-fold (90 deg), about the object's
  vertical axis (+Z of the scan). :func:`symmetry_order` maps a code to the group order ``n``; the
  group is the rotations by ``k * 360/n`` deg, ``k = 0..n-1``, about +Z. scenebench's documented
  extension: code 3 (:data:`CONTINUOUS_CODE`) is continuous symmetry about +Z (round tables, lamps,
  bins), group order :data:`CONTINUOUS` (0, standing for "every angle").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import cast

import numpy as np

# Largest |R^T R - I| entry and |det R - 1| accepted for a rotation. Predictions are often written
# with 6 decimals (error ~1e-6 per entry) or computed in float32 (~1e-7 relative); 1e-4 accepts both
# while refusing anything that would change an angle by more than ~0.01 deg.
ROTATION_TOL = 1e-4
QUAT_NORM_TOL = 1e-4

CONTINUOUS = 0  # group "order" of continuous symmetry about +Z: every rotation about the up axis
CONTINUOUS_CODE = 3  # scenebench's extension of 3RScan's 0/1/2 codes (3RScan never writes 3)
SYMMETRY_ORDERS: dict[int, int] = {0: 1, 1: 2, 2: 4, CONTINUOUS_CODE: CONTINUOUS}
SYMMETRY_NAMES: dict[int, str] = {1: "none", 2: "2-fold", 4: "4-fold", CONTINUOUS: "continuous"}


def symmetry_order(code: int, extra: Mapping[int, int] | None = None) -> int:
    """Group order ``n`` of a 3RScan symmetry code (0 -> 1, 1 -> 2, 2 -> 4, extension 3 -> :data:`CONTINUOUS`);
    other codes need ``extra`` (an order >= 1, or 0 for continuous).

    Raises ``ValueError`` for an unknown code: guessing would silently change the metric.
    """
    if not extra and type(code) is int and code in SYMMETRY_ORDERS:  # the usual case, once per RIO instance
        return SYMMETRY_ORDERS[code]
    table = {**SYMMETRY_ORDERS, **(extra or {})}
    if isinstance(code, bool) or not isinstance(code, (int, np.integer)) or int(code) not in table:
        raise ValueError(f"unknown symmetry code {code!r}; known codes: {sorted(table)}")
    n = int(table[int(code)])
    if n < 0:
        raise ValueError(f"symmetry code {code} maps to group order {n}; orders must be >= 1 (or 0: continuous)")
    return n


def symmetry_class_name(order: int) -> str:
    return SYMMETRY_NAMES.get(int(order), f"{int(order)}-fold")


def rotation_z(angle_rad: np.ndarray | float) -> np.ndarray:
    """Rotations about +Z by ``angle_rad`` (any shape S) -> (S..., 3, 3)."""
    a = np.asarray(angle_rad, dtype=float)
    c, s = np.cos(a), np.sin(a)
    out = np.zeros(a.shape + (3, 3))
    out[..., 0, 0], out[..., 0, 1] = c, -s
    out[..., 1, 0], out[..., 1, 1] = s, c
    out[..., 2, 2] = 1.0
    return out


def symmetry_rotations(order: int) -> np.ndarray:
    """The ``order`` rotations of the vertical symmetry group, (order, 3, 3); index 0 is identity."""
    if int(order) < 1:
        raise ValueError(f"the group of order {order} (continuous) has no finite list of rotations")
    return rotation_z(2.0 * np.pi * np.arange(int(order)) / int(order))


def about_pivot(R: np.ndarray, pivot: np.ndarray) -> np.ndarray:
    """4x4 of the rotation ``R`` (3, 3) about the point ``pivot`` (3,): ``x -> R (x - p) + p``."""
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = np.asarray(pivot, dtype=float) - R @ np.asarray(pivot, dtype=float)
    return T


def compose(R: np.ndarray, t: np.ndarray) -> np.ndarray:
    """(..., 3, 3) rotations and (..., 3) translations -> (..., 4, 4) poses."""
    R = np.asarray(R, dtype=float)
    t = np.asarray(t, dtype=float)
    T = np.zeros(R.shape[:-2] + (4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = t
    T[..., 3, 3] = 1.0
    return T


def invert(T: np.ndarray) -> np.ndarray:
    """Inverse of rigid (..., 4, 4) poses, using ``R^T`` (exact for rotations)."""
    T = np.asarray(T, dtype=float)
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    return compose(Rt, -np.einsum("...ij,...j->...i", Rt, T[..., :3, 3]))


def matrix_from_column_major(values: np.ndarray) -> np.ndarray:
    """16 numbers in column-major order (3RScan) -> the 4x4 matrix; batched over leading axes."""
    v = np.asarray(values, dtype=float)
    return np.swapaxes(v.reshape(v.shape[:-1] + (4, 4)), -1, -2)


def rotation_defect(R: np.ndarray) -> np.ndarray:
    """How far (..., 3, 3) matrices are from rotations: max(|R^T R - I|_max, |det R - 1|), shape (...)."""
    R = np.asarray(R, dtype=float)
    with np.errstate(invalid="ignore"):  # NaN input gives a NaN defect, which is_rotation rejects
        gram = np.swapaxes(R, -1, -2) @ R
        ortho = np.abs(gram - np.eye(3)).max(axis=(-1, -2))
        return cast(np.ndarray, np.maximum(ortho, np.abs(np.linalg.det(R) - 1.0)))


def is_rotation(R: np.ndarray, tol: float = ROTATION_TOL) -> np.ndarray:
    """True where (..., 3, 3) is orthonormal with det +1 within ``tol`` (see :data:`ROTATION_TOL`)."""
    d = rotation_defect(R)
    return cast(np.ndarray, np.isfinite(d) & (d <= tol))


def quaternion_to_matrix(q: np.ndarray) -> np.ndarray:
    """Unit quaternions ``(w, x, y, z)`` (..., 4) -> rotation matrices (..., 3, 3). Normalises first."""
    q = np.asarray(q, dtype=float)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    R = np.empty(q.shape[:-1] + (3, 3))
    R[..., 0, 0] = 1 - 2 * (y * y + z * z)
    R[..., 0, 1] = 2 * (x * y - w * z)
    R[..., 0, 2] = 2 * (x * z + w * y)
    R[..., 1, 0] = 2 * (x * y + w * z)
    R[..., 1, 1] = 1 - 2 * (x * x + z * z)
    R[..., 1, 2] = 2 * (y * z - w * x)
    R[..., 2, 0] = 2 * (x * z - w * y)
    R[..., 2, 1] = 2 * (y * z + w * x)
    R[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return R


def axis_angle_matrix(axis: np.ndarray, angle_rad: float) -> np.ndarray:
    """Rotation (3, 3) by ``angle_rad`` about the unit direction of ``axis`` (Rodrigues)."""
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return cast(np.ndarray, np.eye(3) + np.sin(angle_rad) * K + (1 - np.cos(angle_rad)) * (K @ K))


def is_identity(T: np.ndarray, *, rot_tol_deg: float = 1e-3, trans_tol_m: float = 1e-6) -> np.ndarray:
    """True where (..., 4, 4) poses are the identity within a rotation angle and a translation norm."""
    # The arithmetic of np.trace, np.clip and np.linalg.norm (sums left to right over three terms),
    # written with ufuncs: the same numbers at a fraction of the call overhead (once per RIO instance).
    T = np.asarray(T, dtype=float)
    if T.shape == (4, 4):  # one pose: Python floats (IEEE, same operations), numpy only for arccos
        a = T.tolist()
        c = ((a[0][0] + a[1][1] + a[2][2]) - 1.0) / 2.0
        ang = np.degrees(np.arccos(min(max(c, -1.0), 1.0)))  # max/min keep a NaN, as np.clip does
        x, y, z = a[0][3], a[1][3], a[2][3]
        return cast(np.ndarray, np.bool_(bool(ang <= rot_tol_deg) and math.sqrt(x * x + y * y + z * z) <= trans_tol_m))
    tr = T[..., 0, 0] + T[..., 1, 1] + T[..., 2, 2]
    ang = np.degrees(np.arccos(np.minimum(np.maximum((tr - 1.0) / 2.0, -1.0), 1.0)))
    t = T[..., :3, 3]
    norm = np.sqrt(t[..., 0] * t[..., 0] + t[..., 1] * t[..., 1] + t[..., 2] * t[..., 2])
    return cast(np.ndarray, (ang <= rot_tol_deg) & (norm <= trans_tol_m))
