"""Frame conventions: scenebench builds houses with world y up; SURPRISE3D (ScanNet++) and 3RScan
use z up. The conversion is the rotation by +90 degrees about x: ``(x, y, z)_yup -> (x, -z, y)_zup``
(right-handed in both frames)."""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class WorldFrame:
    """Where a house sits in the world frame of its written data: ``quarter_turns`` x 90 degrees
    about the y axis, then a shift ``(dx, dz)`` in metres on the floor plane.

    Every house is built in one local frame (plan corner at the origin), so without this the goal
    of a navigation route, or the box of a room type, is guessed from train-split statistics of
    positions alone (issue 42: the train-mean goal of the named category came within 1 m of the
    true goal in 15% of routes). Quarter turns keep axis-aligned boxes exact (their x and z sizes
    swap); shifts are whole navigation cells, so waypoints stay on cell centres.
    """

    quarter_turns: int = 0
    dx: float = 0.0
    dz: float = 0.0

    def xz(self, x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Local floor coordinates -> world (arrays or floats)."""
        k = self.quarter_turns % 4
        # +90 degrees about y (right-handed, y up) maps x -> -z and z -> x
        rx, rz = ((x, z), (z, -x), (-x, -z), (-z, x))[k]
        return rx + self.dx, rz + self.dz

    def to_local(self, x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World floor coordinates -> local (the inverse of :meth:`xz`)."""
        return WorldFrame(-self.quarter_turns).xz(x - self.dx, z - self.dz)

    def turn(self, x: float, z: float) -> tuple[float, float]:
        """A local floor direction -> world (the quarter turns only)."""
        wx, wz = WorldFrame(self.quarter_turns).xz(x, z)
        return float(wx), float(wz)

    def points(self, xyz: np.ndarray) -> np.ndarray:
        """(N, >=3) y-up points (extra columns such as colour kept) -> world, same dtype."""
        p = np.array(xyz, copy=True)
        if self.quarter_turns % 4 == 0 and self.dx == 0 and self.dz == 0:
            return p
        x, z = self.xz(p[:, 0].astype(np.float64), p[:, 2].astype(np.float64))
        p[:, 0], p[:, 2] = x, z
        return p

    def box6(self, box: list[float]) -> list[float]:
        """``[cx, cy, cz, dx, dy, dz]`` -> world (x and z sizes swap on odd turns), 2 decimals."""
        cx, cy, cz, sx, sy, sz = box
        wx, wz = self.xz(cx, cz)
        if self.quarter_turns % 2:
            sx, sz = sz, sx
        return [round(float(v), 2) for v in (wx, cy, wz, sx, sy, sz)]

    def room_box(self, box: list[float]) -> list[float]:
        """3DBench room box ``[x, z, y, lx, lz, h]`` -> world."""
        x, z, y, lx, lz, h = box
        wx, wz = self.xz(x, z)
        if self.quarter_turns % 2:
            lx, lz = lz, lx
        return [round(float(v), 2) for v in (wx, wz, y, lx, lz, h)]


IDENTITY = WorldFrame()
WORLD_SHIFT_CELLS = 200  # shifts drawn from [-200, 200] navigation cells (0.25 m): +-50 m on each axis


def draw_world_frame(rng: np.random.Generator, cell: float) -> WorldFrame:
    """A seeded quarter turn and a shift of whole ``cell``s (see :class:`WorldFrame`)."""
    k = int(rng.integers(4))
    sx, sz = (int(v) for v in rng.integers(-WORLD_SHIFT_CELLS, WORLD_SHIFT_CELLS + 1, 2))
    return WorldFrame(k, sx * cell, sz * cell)
