"""Preview pictures of a generated house, drawn with numpy and written as PNG with zlib.

``top_down``: rooms (tinted by type), walls with door gaps, windows (blue), object footprints in
their colours (furniture outlined), camera spots (small black dots) and a navigation path (red,
start green, goal magenta). ``cloud_views``: the fused point cloud seen from above and obliquely.
No plotting library is needed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scenebench.io.files import atomic_write_bytes
from scenebench.io.png import png_bytes
from scenebench.synth.categories import CATEGORIES, PALETTE

ROOM_TINT = {
    "living room": (0.98, 0.92, 0.80),
    "kitchen": (0.85, 0.95, 0.85),
    "bedroom": (0.86, 0.88, 0.98),
    "bathroom": (0.82, 0.95, 0.97),
    "dining room": (0.98, 0.88, 0.88),
    "office": (0.93, 0.90, 0.97),
    "hallway": (0.92, 0.92, 0.88),
}


def write_png(path: str | Path, img: np.ndarray) -> None:
    atomic_write_bytes(path, png_bytes(img))


class Canvas:
    """World (x, z) metres -> pixels, x to the right and z downwards, ``ppm`` pixels per metre."""

    def __init__(self, width_m: float, depth_m: float, ppm: float = 40.0, margin: float = 0.5):
        self.ppm, self.m = ppm, margin
        self.img = np.ones((int((depth_m + 2 * margin) * ppm), int((width_m + 2 * margin) * ppm), 3), np.float32)

    def px(self, x, z):
        return (np.asarray(x) + self.m) * self.ppm, (np.asarray(z) + self.m) * self.ppm

    def rect(self, x0, z0, x1, z1, color, outline=None):
        (a, b), (c, d) = self.px(x0, z0), self.px(x1, z1)
        i0, i1 = int(max(0, np.floor(b))), int(min(self.img.shape[0], np.ceil(d)))
        j0, j1 = int(max(0, np.floor(a))), int(min(self.img.shape[1], np.ceil(c)))
        if i1 > i0 and j1 > j0:
            self.img[i0:i1, j0:j1] = color
            if outline is not None:
                self.img[i0, j0:j1] = self.img[i1 - 1, j0:j1] = outline
                self.img[i0:i1, j0] = self.img[i0:i1, j1 - 1] = outline

    def line(self, p0, p1, color, width_px=3):
        (x0, y0), (x1, y1) = self.px(*p0), self.px(*p1)
        n = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
        xs, ys = np.linspace(x0, x1, n), np.linspace(y0, y1, n)
        r = width_px // 2
        H, W = self.img.shape[:2]
        for dx in range(-r, r + 1):
            for dy in range(-r, r + 1):
                j = np.clip(np.round(xs).astype(int) + dx, 0, W - 1)
                i = np.clip(np.round(ys).astype(int) + dy, 0, H - 1)
                self.img[i, j] = color

    def dot(self, x, z, color, r_px=4):
        cx, cy = self.px(x, z)
        H, W = self.img.shape[:2]
        yy, xx = np.mgrid[max(0, int(cy) - r_px) : min(H, int(cy) + r_px + 1), max(0, int(cx) - r_px) : min(W, int(cx) + r_px + 1)]
        m = (xx - cx) ** 2 + (yy - cy) ** 2 <= r_px**2
        self.img[yy[m], xx[m]] = color


def top_down(house, path: list[list[float]] | None = None, cameras: list[np.ndarray] | None = None, ppm: float = 40.0) -> np.ndarray:
    from scenebench.synth.floorplan import CELL

    W, D = house.plan.extent
    cv = Canvas(W, D, ppm)
    for room in house.plan.rooms:
        tint = ROOM_TINT.get(room.type, (0.9, 0.9, 0.9))
        for i, j in np.argwhere(room.mask):
            cv.rect(i * CELL, j * CELL, (i + 1) * CELL, (j + 1) * CELL, tint)
    # objects: floor furniture first, then things on top, so small items stay visible
    order = sorted(house.objects, key=lambda o: (o.support != 0, o.aabb[1][1]))
    for o in order:
        if o.category in ("doorway", "window"):
            continue
        x0, z0, x1, z1 = o.footprint
        col = PALETTE[o.color]
        big = CATEGORIES[o.category].placement in ("floor", "wall_floor")
        cv.rect(x0, z0, x1, z1, col, outline=(0.1, 0.1, 0.1) if big else None)
    for run in house.plan.runs:
        cur = run.start
        for s0, s1, _y0, _y1, kind in run.openings:
            cv.line(run.point(cur), run.point(s0), (0.15, 0.15, 0.15), 5)
            if kind == "window":
                cv.line(run.point(s0), run.point(s1), (0.2, 0.45, 0.95), 5)
            cur = s1
        cv.line(run.point(cur), run.point(run.end), (0.15, 0.15, 0.15), 5)
    for pose in cameras or []:
        cv.dot(pose[0, 3], pose[2, 3], (0.0, 0.0, 0.0), 2)
    if path:
        for a, b in zip(path[:-1], path[1:]):
            cv.line(a, b, (0.9, 0.1, 0.1), 3)
        cv.dot(*path[0], (0.1, 0.75, 0.1), 6)
        cv.dot(*path[-1], (0.85, 0.1, 0.85), 6)
    return cv.img


def _splat(uv: np.ndarray, depth: np.ndarray, rgb: np.ndarray, H: int, W: int, r: int = 1) -> np.ndarray:
    """Nearest-wins point splatting: draw far to near so near points overwrite."""
    img = np.ones((H, W, 3), np.float32)
    order = np.argsort(-depth, kind="stable")
    u, v, c = uv[order, 0], uv[order, 1], rgb[order]
    for dx in range(-r + 1, r + 1):
        for dy in range(-r + 1, r + 1):
            j = np.clip(np.round(u).astype(int) + dx, 0, W - 1)
            i = np.clip(np.round(v).astype(int) + dy, 0, H - 1)
            img[i, j] = c
    return img


def cloud_views(xyz: np.ndarray, rgb: np.ndarray, ppm: float = 40.0) -> np.ndarray:
    """Top-down view (left) and an oblique view from the south-west (right) of a y-up cloud."""
    lo, hi = xyz.min(0), xyz.max(0)
    W = int((hi[0] - lo[0] + 1) * ppm)
    D = int((hi[2] - lo[2] + 1) * ppm)
    uv = np.stack([(xyz[:, 0] - lo[0] + 0.5) * ppm, (xyz[:, 2] - lo[2] + 0.5) * ppm], 1)
    top = _splat(uv, -xyz[:, 1], rgb, D, W, r=1)
    # oblique: yaw 35 deg, tilt 50 deg, orthographic
    c = (lo + hi) / 2
    p = xyz - c
    a, t = np.radians(35), np.radians(50)
    x1 = np.cos(a) * p[:, 0] - np.sin(a) * p[:, 2]
    z1 = np.sin(a) * p[:, 0] + np.cos(a) * p[:, 2]
    v = -(np.cos(t) * p[:, 1]) + np.sin(t) * z1
    depth = -(np.sin(t) * p[:, 1] + np.cos(t) * z1)
    ext = max(np.ptp(x1), np.ptp(v)) + 1.0
    S = max(D, W)
    s = S / ext
    uv2 = np.stack([(x1 - x1.min() + 0.5) * s, (v - v.min() + 0.5) * s], 1)
    obl = _splat(uv2, depth, rgb, S, S, r=2)
    H = max(top.shape[0], obl.shape[0])
    pad = lambda im: np.concatenate([im, np.ones((H - im.shape[0], im.shape[1], 3), np.float32)], 0)  # noqa: E731
    return np.concatenate([pad(top), np.ones((H, 10, 3), np.float32), pad(obl)], 1)
