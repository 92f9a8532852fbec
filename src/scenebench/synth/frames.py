"""Frame conventions: scenebench builds houses with world y up; SURPRISE3D (ScanNet++) and 3RScan
use z up. The conversion is the rotation by +90 degrees about x: ``(x, y, z)_yup -> (x, -z, y)_zup``
(right-handed in both frames)."""

from __future__ import annotations

import numpy as np

YUP_TO_ZUP = np.array([[1.0, 0, 0, 0], [0, 0, -1.0, 0], [0, 1.0, 0, 0], [0, 0, 0, 1.0]])
ZUP_TO_YUP = YUP_TO_ZUP.T.copy()


def points_to_zup(xyz: np.ndarray) -> np.ndarray:
    """(N, 3) y-up points -> z-up points (same dtype)."""
    p = np.asarray(xyz)
    return np.stack([p[:, 0], -p[:, 2], p[:, 1]], 1).astype(p.dtype, copy=False)


def transform_to_zup(m: np.ndarray) -> np.ndarray:
    """A 4x4 rigid transform acting on y-up points -> the same motion acting on z-up points."""
    return YUP_TO_ZUP @ np.asarray(m, float) @ ZUP_TO_YUP
