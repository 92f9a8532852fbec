"""Low-poly meshes built from primitives so each category reads as that object.

Every builder returns a :class:`Mesh` in the object's local frame: metres, y up, bottom centre at
the origin, front facing +z, fitting the requested size ``(w, h, d)``. Faces carry a colour each,
so a table's legs can differ from its top and a mug has a visible handle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Color = tuple[float, float, float]


@dataclass
class Mesh:
    vertices: np.ndarray  # (V, 3) float64
    faces: np.ndarray  # (F, 3) int64
    colors: np.ndarray  # (F, 3) float32 in [0, 1]

    @staticmethod
    def concat(parts: list[Mesh]) -> Mesh:
        offs = np.cumsum([0] + [len(p.vertices) for p in parts[:-1]])
        return Mesh(
            np.concatenate([p.vertices for p in parts]),
            np.concatenate([p.faces + o for p, o in zip(parts, offs)]),
            np.concatenate([p.colors for p in parts]),
        )

    def transformed(self, yaw: float, translation: np.ndarray) -> Mesh:
        c, s = np.cos(yaw), np.sin(yaw)
        # yaw about +y; x' = c x + s z, z' = -s x + c z (right-handed, y up)
        rot = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
        return Mesh(self.vertices @ rot.T + translation, self.faces, self.colors)

    def fit(self, size: tuple[float, float, float]) -> Mesh:
        """Scale so the bounds match ``size`` exactly and the bottom centre is at the origin."""
        lo, hi = self.vertices.min(0), self.vertices.max(0)
        ext = np.maximum(hi - lo, 1e-9)
        centre = np.array([(lo[0] + hi[0]) / 2, lo[1], (lo[2] + hi[2]) / 2])
        v = (self.vertices - centre) * (np.asarray(size) / ext)
        return Mesh(v, self.faces, self.colors)


def _col(color: Color, n: int) -> np.ndarray:
    return np.tile(np.asarray(color, np.float32), (n, 1))


_BOX_F = np.array(
    [
        [0, 2, 1],
        [0, 3, 2],
        [4, 5, 6],
        [4, 6, 7],
        [0, 1, 5],
        [0, 5, 4],
        [2, 3, 7],
        [2, 7, 6],
        [1, 2, 6],
        [1, 6, 5],
        [0, 4, 7],
        [0, 7, 3],
    ]
)


def box(lo, hi, color: Color) -> Mesh:
    x0, y0, z0 = lo
    x1, y1, z1 = hi
    v = np.array(
        [
            [x0, y0, z0],
            [x1, y0, z0],
            [x1, y0, z1],
            [x0, y0, z1],
            [x0, y1, z0],
            [x1, y1, z0],
            [x1, y1, z1],
            [x0, y1, z1],
        ],
        float,
    )
    return Mesh(v, _BOX_F.copy(), _col(color, 12))


def cyl(center, y0: float, y1: float, r0: float, color: Color, r1: float | None = None, n: int = 12, caps: bool = True) -> Mesh:
    """Frustum along +y from y0 (radius r0) to y1 (radius r1)."""
    r1 = r0 if r1 is None else r1
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ca, sa = np.cos(a), np.sin(a)
    bot = np.stack([center[0] + r0 * ca, np.full(n, y0), center[1] + r0 * sa], 1)
    top = np.stack([center[0] + r1 * ca, np.full(n, y1), center[1] + r1 * sa], 1)
    v = np.concatenate([bot, top, [[center[0], y0, center[1]], [center[0], y1, center[1]]]])
    i = np.arange(n)
    j = (i + 1) % n
    f = [np.stack([i, n + j, j], 1), np.stack([i, n + i, n + j], 1)]
    if caps:
        f += [np.stack([np.full(n, 2 * n), i, j], 1), np.stack([np.full(n, 2 * n + 1), n + j, n + i], 1)]
    f = np.concatenate(f)
    return Mesh(v, f, _col(color, len(f)))


def ellipsoid(center, radii, color: Color, nlat: int = 6, nlon: int = 10) -> Mesh:
    th = np.linspace(0, np.pi, nlat + 1)[1:-1]
    ph = np.linspace(0, 2 * np.pi, nlon, endpoint=False)
    T, P = np.meshgrid(th, ph, indexing="ij")
    ring = np.stack([np.sin(T) * np.cos(P), np.cos(T), np.sin(T) * np.sin(P)], -1).reshape(-1, 3)
    v = np.concatenate([[[0, 1, 0]], ring, [[0, -1, 0]]]) * np.asarray(radii) + np.asarray(center)
    nr = nlat - 1
    faces = []
    j = (np.arange(nlon) + 1) % nlon
    i = np.arange(nlon)
    faces.append(np.stack([np.zeros(nlon, int), 1 + j, 1 + i], 1))
    for r in range(nr - 1):
        a, b = 1 + r * nlon, 1 + (r + 1) * nlon
        faces.append(np.stack([a + i, a + j, b + j], 1))
        faces.append(np.stack([a + i, b + j, b + i], 1))
    last = len(v) - 1
    base = 1 + (nr - 1) * nlon
    faces.append(np.stack([np.full(nlon, last), base + i, base + j], 1))
    f = np.concatenate(faces)
    return Mesh(v, f, _col(color, len(f)))


def rotate_x(m: Mesh, angle: float, pivot=(0.0, 0.0, 0.0)) -> Mesh:
    c, s = np.cos(angle), np.sin(angle)
    r = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    p = np.asarray(pivot)
    return Mesh((m.vertices - p) @ r.T + p, m.faces, m.colors)


def _shade(c: Color, k: float) -> Color:
    return tuple(float(np.clip(x * k, 0, 1)) for x in c)  # type: ignore[return-value]


# --- archetypes: (w, h, d, colour, rng) -> Mesh (fitted to the size afterwards) ---------------

DARK: Color = (0.15, 0.15, 0.16)
METAL: Color = (0.72, 0.73, 0.75)
WOOD: Color = (0.50, 0.34, 0.20)


def _table(w, h, d, c, rng):
    t = 0.04 * max(h, 0.5)
    leg = min(w, d) * 0.08
    legs = [
        box(
            (sx * (w / 2 - leg) - leg / 2, 0, sz * (d / 2 - leg) - leg / 2),
            (sx * (w / 2 - leg) + leg / 2, h - t, sz * (d / 2 - leg) + leg / 2),
            _shade(c, 0.8),
        )
        for sx in (-1, 1)
        for sz in (-1, 1)
    ]
    return Mesh.concat([box((-w / 2, h - t, -d / 2), (w / 2, h, d / 2), c)] + legs)


def _desk(w, h, d, c, rng):
    t = 0.04
    side = 0.05
    parts = [
        box((-w / 2, h - t, -d / 2), (w / 2, h, d / 2), c),
        box((-w / 2, 0, -d / 2), (-w / 2 + side, h - t, d / 2), _shade(c, 0.85)),
        box((w / 2 - side, 0, -d / 2), (w / 2, h - t, d / 2), _shade(c, 0.85)),
        box((w / 2 - 0.4, h - 0.2, -d / 2 + 0.02), (w / 2 - side, h - t, d / 2 - 0.02), _shade(c, 0.7)),
    ]
    return Mesh.concat(parts)


def _chair(w, h, d, c, rng):
    seat = 0.45 * h / 0.9
    leg = 0.04
    parts = [
        box((-w / 2, seat - 0.05, -d / 2), (w / 2, seat, d / 2), c),
        box((-w / 2, seat, -d / 2), (w / 2, h, -d / 2 + 0.05), _shade(c, 0.9)),
    ]
    parts += [
        box(
            (sx * (w / 2 - leg) - leg / 2, 0, sz * (d / 2 - leg) - leg / 2),
            (sx * (w / 2 - leg) + leg / 2, seat - 0.05, sz * (d / 2 - leg) + leg / 2),
            _shade(c, 0.7),
        )
        for sx in (-1, 1)
        for sz in (-1, 1)
    ]
    return Mesh.concat(parts)


def _stool(w, h, d, c, rng):
    r = w / 2
    parts = [cyl((0, 0), h - 0.05, h, r, c)]
    for a in (0, 2.1, 4.2):
        x, z = 0.7 * r * np.cos(a), 0.7 * r * np.sin(a)
        parts.append(cyl((x, z), 0, h - 0.05, 0.02, _shade(c, 0.7), n=6))
    return Mesh.concat(parts)


def _sofa(w, h, d, c, rng, arms=0.18):
    seat = 0.45 * h / 0.85
    parts = [
        box((-w / 2, 0, -d / 2), (w / 2, seat, d / 2), c),
        box((-w / 2, seat, -d / 2), (w / 2, h, -d / 2 + 0.2), _shade(c, 0.9)),
        box((-w / 2, seat, -d / 2), (-w / 2 + arms, seat + 0.22, d / 2), _shade(c, 0.85)),
        box((w / 2 - arms, seat, -d / 2), (w / 2, seat + 0.22, d / 2), _shade(c, 0.85)),
    ]
    cushions = 3 if w > 1.4 else 1
    cw = (w - 2 * arms) / cushions
    for k in range(cushions):
        x0 = -w / 2 + arms + k * cw
        parts.append(box((x0 + 0.01, seat, -d / 2 + 0.2), (x0 + cw - 0.01, seat + 0.08, d / 2), _shade(c, 1.08)))
    return Mesh.concat(parts)


def _armchair(w, h, d, c, rng):
    return _sofa(w, h, d, c, rng, arms=0.16)


def _bed(w, h, d, c, rng):
    frame = WOOD
    parts = [
        box((-w / 2, 0.1, -d / 2), (w / 2, 0.3, d / 2), frame),
        box((-w / 2 + 0.03, 0.3, -d / 2 + 0.03), (w / 2 - 0.03, h, d / 2 - 0.03), (0.93, 0.93, 0.9)),
        box((-w / 2 + 0.03, h - 0.02, -d / 2 + 0.55), (w / 2 - 0.03, h + 0.03, d / 2 - 0.03), c),
        box((-w / 2, 0, -d / 2 - 0.06), (w / 2, h + 0.5, -d / 2), _shade(frame, 0.9)),
    ]
    parts += [
        box(
            (sx * w / 2 - 0.04 * (sx > 0), 0, sz * d / 2 - 0.04 * (sz > 0)),
            (sx * w / 2 + 0.04 * (sx < 0), 0.1, sz * d / 2 + 0.04 * (sz < 0)),
            frame,
        )
        for sx in (-1, 1)
        for sz in (-1, 1)
    ]
    return Mesh.concat(parts)


def _cabinet(w, h, d, c, rng, drawers=3, top=None):
    parts = [
        box((-w / 2, 0.05, -d / 2), (w / 2, h, d / 2), c),
        box((-w / 2 + 0.03, 0, -d / 2 + 0.03), (w / 2 - 0.03, 0.05, d / 2 - 0.03), DARK),
    ]
    if top is not None:
        parts.append(box((-w / 2 - 0.01, h - 0.04, -d / 2), (w / 2 + 0.01, h, d / 2 + 0.02), top))
    dh = (h - 0.1) / drawers
    for k in range(drawers):
        y = 0.05 + (k + 0.5) * dh
        parts.append(box((-0.08, y - 0.015, d / 2), (0.08, y + 0.015, d / 2 + 0.02), METAL))
        parts.append(
            box((-w / 2 + 0.02, 0.05 + k * dh + 0.005, d / 2), (w / 2 - 0.02, 0.05 + k * dh + 0.01, d / 2 + 0.005), _shade(c, 0.7))
        )
    return Mesh.concat(parts)


def _dresser(w, h, d, c, rng):
    return _cabinet(w, h, d, c, rng, drawers=4)


def _counter(w, h, d, c, rng):
    return _cabinet(w, h, d, WOOD if c == (0.92, 0.92, 0.90) else (0.85, 0.85, 0.82), rng, drawers=2, top=c)


def _tvstand(w, h, d, c, rng):
    parts = [
        box((-w / 2, 0, -d / 2), (w / 2, 0.05, d / 2), c),
        box((-w / 2, h - 0.05, -d / 2), (w / 2, h, d / 2), c),
        box((-w / 2, 0, -d / 2), (-w / 2 + 0.04, h, d / 2), c),
        box((w / 2 - 0.04, 0, -d / 2), (w / 2, h, d / 2), c),
        box((-w / 2, 0, -d / 2), (w / 2, h, -d / 2 + 0.03), _shade(c, 0.8)),
        box((-0.02, 0.05, -d / 2), (0.02, h - 0.05, d / 2), c),
    ]
    return Mesh.concat(parts)


def _shelves(w, h, d, c, rng, levels=4):
    t = 0.03
    parts = [
        box((-w / 2, 0, -d / 2), (-w / 2 + t, h, d / 2), c),
        box((w / 2 - t, 0, -d / 2), (w / 2, h, d / 2), c),
        box((-w / 2, 0, -d / 2), (w / 2, h, -d / 2 + 0.015), _shade(c, 0.8)),
    ]
    for k in range(levels + 1):
        y = k * (h - t) / levels
        parts.append(box((-w / 2, y, -d / 2), (w / 2, y + t, d / 2), c))
    return Mesh.concat(parts)


SHELF_LEVELS = 4


def shelf_heights(h: float) -> list[float]:
    """Heights of the shelf boards a shelving unit of height ``h`` can hold things on (not the top)."""
    t = 0.03
    return [k * (h - t) / SHELF_LEVELS + t for k in range(SHELF_LEVELS)]


def _fridge(w, h, d, c, rng):
    parts = [
        box((-w / 2, 0, -d / 2), (w / 2, h, d / 2), c),
        box((-w / 2 + 0.01, 0.62 * h, d / 2), (w / 2 - 0.01, 0.625 * h, d / 2 + 0.01), DARK),
        box((w / 2 - 0.09, 0.7 * h, d / 2), (w / 2 - 0.06, 0.9 * h, d / 2 + 0.05), METAL),
        box((w / 2 - 0.09, 0.35 * h, d / 2), (w / 2 - 0.06, 0.55 * h, d / 2 + 0.05), METAL),
    ]
    return Mesh.concat(parts)


def _appliance_round(w, h, d, c, rng):
    door = _disc_front(0.45 * h, 0.32 * w, d / 2, DARK)
    return Mesh.concat(
        [
            box((-w / 2, 0, -d / 2), (w / 2, h, d / 2), c),
            door,
            box((-w / 2 + 0.04, 0.85 * h, d / 2), (-w / 2 + 0.2, 0.92 * h, d / 2 + 0.01), METAL),
        ]
    )


def _disc_front(yc, r, z, color, depth=0.03, x=0.0):
    m = cyl((0.0, 0.0), 0.0, depth, r, color, n=16)
    v = m.vertices[:, [0, 2, 1]] + np.array([x, yc, z])
    return Mesh(v, m.faces[:, ::-1].copy(), m.colors)


def _microwave(w, h, d, c, rng):
    return Mesh.concat(
        [
            box((-w / 2, 0, -d / 2), (w / 2, h, d / 2), c),
            box((-w / 2 + 0.03, 0.04, d / 2), (w / 2 - 0.14, h - 0.04, d / 2 + 0.01), DARK),
            box((w / 2 - 0.11, 0.08, d / 2), (w / 2 - 0.04, h - 0.08, d / 2 + 0.015), METAL),
        ]
    )


def _toaster(w, h, d, c, rng):
    return Mesh.concat(
        [
            box((-w / 2, 0, -d / 2), (w / 2, h * 0.9, d / 2), c),
            box((-w / 2 + 0.03, h * 0.9, -0.04), (w / 2 - 0.03, h, -0.02), DARK),
            box((-w / 2 + 0.03, h * 0.9, 0.02), (w / 2 - 0.03, h, 0.04), DARK),
            box((w / 2, h * 0.5, -0.01), (w / 2 + 0.02, h * 0.6, 0.01), DARK),
        ]
    )


def _coffeemachine(w, h, d, c, rng):
    return Mesh.concat(
        [
            box((-w / 2, 0, -d / 2), (w / 2, 0.04, d / 2), DARK),
            box((-w / 2, 0, -d / 2), (w / 2, h, -d / 2 + 0.12), c),
            box((-w / 2, h - 0.1, -d / 2), (w / 2, h, d / 2), c),
            cyl((0, 0.05), 0.04, 0.13, 0.04, (0.9, 0.9, 0.9)),
        ]
    )


def _safe(w, h, d, c, rng):
    return Mesh.concat(
        [
            box((-w / 2, 0, -d / 2), (w / 2, h, d / 2), c),
            _disc_front(h * 0.55, 0.05, d / 2, METAL, 0.02),
            box((w / 2 - 0.1, h * 0.3, d / 2), (w / 2 - 0.07, h * 0.7, d / 2 + 0.03), METAL),
        ]
    )


def _sink(w, h, d, c, rng):
    rim = 0.05
    parts = [
        box((-w / 2 + 0.05, 0, -d / 2 + 0.05), (w / 2 - 0.05, h - 0.2, d / 2 - 0.05), _shade(c, 0.9)),
        box((-w / 2, h - 0.2, -d / 2), (w / 2, h - 0.17, d / 2), c),
        box((-w / 2, h - 0.17, -d / 2), (-w / 2 + rim, h, d / 2), c),
        box((w / 2 - rim, h - 0.17, -d / 2), (w / 2, h, d / 2), c),
        box((-w / 2, h - 0.17, -d / 2), (w / 2, h, -d / 2 + rim), c),
        box((-w / 2, h - 0.17, d / 2 - rim), (w / 2, h, d / 2), c),
    ]
    return Mesh.concat(parts)


def _toilet(w, h, d, c, rng):
    return Mesh.concat(
        [
            cyl((0, 0.05), 0, 0.38, 0.14, c, r1=0.2),
            cyl((0, 0.05), 0.38, 0.42, 0.2, (0.95, 0.95, 0.95)),
            box((-w / 2, 0.38, -d / 2), (w / 2, h, -d / 2 + 0.18), c),
        ]
    )


def _bin(w, h, d, c, rng):
    return Mesh.concat(
        [
            cyl((0, 0), 0, h, w / 2 * 0.85, c, r1=w / 2, caps=False),
            cyl((0, 0), 0, 0.01, w / 2 * 0.85, c),
            cyl((0, 0), h - 0.02, h, w / 2 + 0.01, _shade(c, 0.8), caps=False),
        ]
    )


def _plant(w, h, d, c, rng):
    pot = (0.72, 0.38, 0.22)
    return Mesh.concat(
        [
            cyl((0, 0), 0, 0.3 * h, 0.3 * w, pot, r1=0.4 * w),
            ellipsoid((0, 0.62 * h, 0), (w / 2, 0.35 * h, d / 2), c),
            ellipsoid((0.12 * w, 0.85 * h, 0.05), (0.3 * w, 0.15 * h, 0.3 * d), _shade(c, 1.2)),
        ]
    )


def _floorlamp(w, h, d, c, rng):
    return Mesh.concat(
        [
            cyl((0, 0), 0, 0.03, w * 0.4, c),
            cyl((0, 0), 0.03, h - 0.3, 0.015, c, n=6),
            cyl((0, 0), h - 0.3, h, w / 2, (0.96, 0.93, 0.8), r1=w * 0.3),
        ]
    )


def _desklamp(w, h, d, c, rng):
    arm = box((-0.01, 0.02, -0.01), (0.01, h * 0.8, 0.01), c)
    return Mesh.concat([cyl((0, 0), 0, 0.02, w * 0.45, c), arm, cyl((0, 0.03), h * 0.7, h, w * 0.15, (0.95, 0.9, 0.7), r1=w * 0.45 / 2.5)])


def _cylinder(w, h, d, c, rng):
    return cyl((0, 0), 0, h, w / 2, c, n=14)


def _bottle(w, h, d, c, rng, neck=0.35):
    r = w / 2
    return Mesh.concat(
        [
            cyl((0, 0), 0, h * (1 - neck), r, c, n=12),
            cyl((0, 0), h * (1 - neck), h * (1 - neck * 0.6), r, c, r1=r * 0.35, n=12),
            cyl((0, 0), h * (1 - neck * 0.6), h, r * 0.35, _shade(c, 0.8), n=8),
        ]
    )


def _winebottle(w, h, d, c, rng):
    return _bottle(w, h, d, c, rng, neck=0.42)


def _soapbottle(w, h, d, c, rng):
    return Mesh.concat(
        [
            cyl((0, 0), 0, 0.75 * h, w / 2, c),
            cyl((0, 0), 0.75 * h, 0.92 * h, w * 0.12, (0.9, 0.9, 0.9), n=6),
            box((-0.005, 0.9 * h, -0.005), (0.01, h, d / 2), (0.9, 0.9, 0.9)),
        ]
    )


def _spraybottle(w, h, d, c, rng):
    return Mesh.concat(
        [
            cyl((0, 0), 0, 0.7 * h, w / 2 * 0.9, c),
            box((-0.02, 0.7 * h, -0.02), (0.02, h, d / 2), (0.95, 0.95, 0.95)),
            box((-0.01, 0.55 * h, 0.01), (0.01, 0.85 * h, 0.025), (0.95, 0.95, 0.95)),
        ]
    )


def _mug(w, h, d, c, rng):
    r = d / 2
    hx = r
    parts = [
        cyl((0, 0), 0, h, r, c, n=14),
        box((hx, 0.2 * h, -0.008), (w / 2, 0.3 * h, 0.008), c),
        box((hx, 0.7 * h, -0.008), (w / 2, 0.8 * h, 0.008), c),
        box((w / 2 - 0.012, 0.2 * h, -0.008), (w / 2, 0.8 * h, 0.008), c),
    ]
    return Mesh.concat(parts)


def _cup(w, h, d, c, rng):
    return cyl((0, 0), 0, h, w / 2 * 0.8, c, r1=w / 2, n=14)


def _bowl(w, h, d, c, rng):
    return Mesh.concat(
        [
            cyl((0, 0), 0, 0.15 * h, w * 0.25, c),
            cyl((0, 0), 0.15 * h, h, w * 0.3, c, r1=w / 2, n=16, caps=False),
            cyl((0, 0), 0.1 * h, 0.15 * h, w * 0.3, _shade(c, 0.85)),
        ]
    )


def _plate(w, h, d, c, rng):
    return Mesh.concat(
        [cyl((0, 0), 0, h * 0.6, w * 0.32, c, r1=w / 2, n=18), cyl((0, 0), h * 0.6, h, w / 2, _shade(c, 0.95), n=18, caps=False)]
    )


def _pot(w, h, d, c, rng):
    r = d / 2
    return Mesh.concat(
        [
            cyl((0, 0), 0, h, r, c, n=16),
            box((-w / 2, 0.75 * h, -0.015), (-r, 0.85 * h, 0.015), DARK),
            box((r, 0.75 * h, -0.015), (w / 2, 0.85 * h, 0.015), DARK),
        ]
    )


def _pan(w, h, d, c, rng):
    r = d / 2
    return Mesh.concat([cyl((-w / 2 + r, 0), 0, h, r, c, n=16), box((-w / 2 + 2 * r, 0.6 * h, -0.015), (w / 2, h, 0.015), DARK)])


def _kettle(w, h, d, c, rng):
    r = d / 2
    return Mesh.concat(
        [
            cyl((0, 0), 0, 0.8 * h, r, c, r1=r * 0.8, n=14),
            box((-0.03, 0.8 * h, -0.015), (0.03, h, 0.015), DARK),
            box((-w / 2, 0.45 * h, -0.01), (-r * 0.9, 0.7 * h, 0.01), c),  # spout
            box((r * 0.7, 0.3 * h, -0.012), (w / 2, 0.85 * h, 0.012), DARK),
        ]
    )


def _ellipsoid(w, h, d, c, rng):
    return ellipsoid((0, h / 2, 0), (w / 2, h / 2, d / 2), c)


def _egg(w, h, d, c, rng):
    return Mesh.concat(
        [ellipsoid((0, 0.4 * h, 0), (w / 2, 0.4 * h, d / 2), c), ellipsoid((0, 0.55 * h, 0), (w * 0.42, 0.45 * h, d * 0.42), c)]
    )


def _bread(w, h, d, c, rng):
    return Mesh.concat(
        [box((-w / 2, 0, -d / 2), (w / 2, 0.6 * h, d / 2), c), ellipsoid((0, 0.6 * h, 0), (w / 2, 0.4 * h, d / 2), _shade(c, 0.8))]
    )


def _ball(w, h, d, c, rng):
    return Mesh.concat(
        [
            ellipsoid((0, h / 2, 0), (w / 2, h / 2, d / 2), c, nlat=8, nlon=14),
            cyl((0, 0), h / 2 - 0.004, h / 2 + 0.004, w / 2 + 0.002, DARK, n=14, caps=False),
        ]
    )


def _book(w, h, d, c, rng):
    return Mesh.concat(
        [
            box((-w / 2, 0, -d / 2), (w / 2, h, d / 2), c),
            box((-w / 2 + 0.01, 0.1 * h, -d / 2 + 0.005), (w / 2 + 0.001, 0.9 * h, d / 2 - 0.005), (0.96, 0.95, 0.9)),
        ]
    )


def _box(w, h, d, c, rng):
    return Mesh.concat([box((-w / 2, 0, -d / 2), (w / 2, h, d / 2), c), box((-w / 2, h, -0.01), (w / 2, h + 0.002, 0.01), _shade(c, 0.7))])


def _phone(w, h, d, c, rng):
    return Mesh.concat(
        [
            box((-w / 2, 0, -d / 2), (w / 2, h, d / 2), c),
            box((-w / 2 + 0.004, h, -d / 2 + 0.01), (w / 2 - 0.004, h + 0.001, d / 2 - 0.01), DARK),
        ]
    )


def _remote(w, h, d, c, rng):
    parts = [
        box((-w / 2, 0, -d / 2), (w / 2, h, d / 2), c),
        box((-0.01, h, d / 2 - 0.04), (0.01, h + 0.004, d / 2 - 0.02), (0.8, 0.1, 0.1)),
    ]
    parts += [
        box((-0.015 + 0.02 * k, h, -0.05 + 0.03 * j), (-0.005 + 0.02 * k, h + 0.003, -0.04 + 0.03 * j), (0.6, 0.6, 0.6))
        for k in (0, 1)
        for j in (0, 1, 2)
    ]
    return Mesh.concat(parts)


def _card(w, h, d, c, rng):
    return Mesh.concat(
        [
            box((-w / 2, 0, -d / 2), (w / 2, h, d / 2), c),
            box((-w / 2 + 0.01, h, -0.005), (-w / 2 + 0.022, h + 0.0005, 0.005), (0.85, 0.75, 0.3)),
        ]
    )


def _cloth(w, h, d, c, rng):
    return Mesh.concat(
        [box((-w / 2, 0, -d / 2), (w / 2, h, d / 2), c), box((-w / 2, h, d / 2 - 0.05), (w / 2, h * 2, d / 2), _shade(c, 0.85))]
    )


def _pillow(w, h, d, c, rng):
    return Mesh.concat(
        [box((-w / 2, 0.1 * h, -d / 2), (w / 2, 0.9 * h, d / 2), c), ellipsoid((0, h / 2, 0), (w * 0.45, h / 2, d * 0.45), c)]
    )


def _utensil(w, h, d, c, rng, head: str = "fork"):
    handle = box((-0.006, 0, -d / 2), (0.006, h * 0.6, d * 0.05), c)
    if head == "spoon":
        tip = ellipsoid((0, h * 0.4, d * 0.3), (w / 2, h * 0.4, d * 0.2), c)
    elif head == "ladle":
        tip = cyl((0, d / 2 - w / 2), 0, h, w / 2, c, r1=w / 2, n=12)
    elif head == "knife":
        tip = box((-w / 2, 0, d * 0.05), (w / 2, h * 0.3, d / 2), METAL)
    elif head == "spatula":
        tip = box((-w / 2, 0, d * 0.15), (w / 2, h * 0.3, d / 2), c)
    else:  # fork: four tines
        tip = Mesh.concat(
            [box((-w / 2 + k * w / 4, 0, d * 0.15), (-w / 2 + k * w / 4 + w / 8, h * 0.5, d / 2), c) for k in range(4)]
            + [box((-w / 2, 0, d * 0.05), (w / 2, h * 0.5, d * 0.17), c)]
        )
    return Mesh.concat([handle, tip])


def _knife(w, h, d, c, rng):
    return _utensil(w, h, d, DARK if c != (0.75, 0.76, 0.78) else c, rng, "knife")


def _shaker(w, h, d, c, rng):
    return Mesh.concat([cyl((0, 0), 0, 0.75 * h, w / 2, (0.9, 0.9, 0.92), n=10), cyl((0, 0), 0.75 * h, h, w / 2, c, r1=w * 0.3, n=10)])


def _roll(w, h, d, c, rng):
    return Mesh.concat([cyl((0, 0), 0, h, w / 2, c, n=14), cyl((0, 0), h, h + 0.001, w * 0.15, (0.6, 0.45, 0.3), n=8)])


def _candle(w, h, d, c, rng):
    return Mesh.concat([cyl((0, 0), 0, 0.9 * h, w / 2, c, n=12), cyl((0, 0), 0.9 * h, h, 0.004, DARK, n=4)])


def _vase(w, h, d, c, rng):
    r = w / 2
    return Mesh.concat(
        [
            cyl((0, 0), 0, 0.4 * h, 0.6 * r, c, r1=r),
            cyl((0, 0), 0.4 * h, 0.8 * h, r, c, r1=0.45 * r, caps=False),
            cyl((0, 0), 0.8 * h, h, 0.45 * r, c, r1=0.6 * r, caps=False),
        ]
    )


def _laptop(w, h, d, c, rng):
    base = box((-w / 2, 0, -d / 2), (w / 2, 0.02, d / 2), c)
    screen = box((-w / 2, 0.02, -d / 2), (w / 2, h, -d / 2 + 0.015), c)
    panel = box((-w / 2 + 0.015, 0.035, -d / 2 + 0.015), (w / 2 - 0.015, h - 0.015, -d / 2 + 0.017), DARK)
    keys = box((-w / 2 + 0.03, 0.02, -d / 2 + 0.04), (w / 2 - 0.03, 0.022, 0.0), _shade(c, 0.6))
    return Mesh.concat([base, screen, panel, keys])


def _monitor(w, h, d, c, rng):
    return Mesh.concat(
        [
            box((-0.12, 0, -d / 2), (0.12, 0.015, d / 2), c),
            box((-0.02, 0, -0.03), (0.02, 0.2, 0.0), c),
            box((-w / 2, 0.12, -0.03), (w / 2, h, 0.0), c),
            box((-w / 2 + 0.02, 0.14, 0.0), (w / 2 - 0.02, h - 0.02, 0.003), (0.1, 0.15, 0.25)),
        ]
    )


def _television(w, h, d, c, rng):
    return Mesh.concat(
        [
            box((-0.2, 0, -d / 2), (0.2, 0.02, d / 2), c),
            box((-0.03, 0, -0.03), (0.03, 0.12, 0.0), c),
            box((-w / 2, 0.08, -0.04), (w / 2, h, 0.0), c),
            box((-w / 2 + 0.02, 0.1, 0.0), (w / 2 - 0.02, h - 0.02, 0.003), (0.08, 0.1, 0.18)),
        ]
    )


def _painting(w, h, d, c, rng):
    frame = WOOD if rng.random() < 0.6 else DARK
    canvas = box((-w / 2 + 0.04, 0.04, -d / 2), (w / 2 - 0.04, h - 0.04, d / 2 + 0.003), c)
    blob = box((-w / 4, h * 0.3, -d / 2), (w / 6, h * 0.7, d / 2 + 0.006), _shade(c, 0.55))
    return Mesh.concat([box((-w / 2, 0, -d / 2), (w / 2, h, d / 2), frame), canvas, blob])


def _window(w, h, d, c, rng):
    f = 0.05
    glass = (0.55, 0.7, 0.85)
    return Mesh.concat(
        [
            box((-w / 2, 0, -d / 2), (w / 2, f, d / 2), c),
            box((-w / 2, h - f, -d / 2), (w / 2, h, d / 2), c),
            box((-w / 2, 0, -d / 2), (-w / 2 + f, h, d / 2), c),
            box((w / 2 - f, 0, -d / 2), (w / 2, h, d / 2), c),
            box((-0.015, 0, -d / 4), (0.015, h, d / 4), c),
            box((-w / 2, h / 2 - 0.015, -d / 4), (w / 2, h / 2 + 0.015, d / 4), c),
            box((-w / 2, 0, -0.005), (w / 2, h, 0.005), glass),
        ]
    )


def _doorway(w, h, d, c, rng):
    f = 0.06
    return Mesh.concat(
        [
            box((-w / 2, 0, -d / 2), (-w / 2 + f, h, d / 2), c),
            box((w / 2 - f, 0, -d / 2), (w / 2, h, d / 2), c),
            box((-w / 2, h - f, -d / 2), (w / 2, h, d / 2), c),
        ]
    )


def _dogbed(w, h, d, c, rng):
    m = cyl((0, 0), 0, h * 0.35, w / 2, _shade(c, 1.1), n=16)
    rim = cyl((0, 0), h * 0.35, h, w / 2, c, r1=w / 2 * 0.95, n=16, caps=False)
    return Mesh(
        np.concatenate([m.vertices, rim.vertices]) * np.array([1, 1, d / w]),
        np.concatenate([m.faces, rim.faces + len(m.vertices)]),
        np.concatenate([m.colors, rim.colors]),
    )


def _dumbbell(w, h, d, c, rng):
    bar = _hcyl(-w / 2, w / 2, h / 2, 0.015, METAL)
    return Mesh.concat([bar, _hcyl(-w / 2, -w / 2 + 0.06, h / 2, h / 2, c), _hcyl(w / 2 - 0.06, w / 2, h / 2, h / 2, c)])


def _hcyl(x0, x1, yc, r, color, n=12):
    """Cylinder along x from x0 to x1 with its axis at height yc."""
    m = cyl((0.0, 0.0), x0, x1, r, color, n=n)
    v = m.vertices[:, [1, 0, 2]] + np.array([0.0, yc, 0.0])
    return Mesh(v, m.faces[:, ::-1].copy(), m.colors)


def _bat(w, h, d, c, rng):
    m = cyl((0.0, 0.0), -d / 2, d / 2, w * 0.2, c, r1=w / 2, n=10)
    v = m.vertices[:, [0, 2, 1]] + np.array([0.0, h / 2, 0.0])
    return Mesh(v, m.faces[:, ::-1].copy(), m.colors)


def _pen(w, h, d, c, rng):
    m = cyl((0.0, 0.0), -d / 2, d / 2, w / 2, c, n=6)
    v = m.vertices[:, [0, 2, 1]] + np.array([0.0, h / 2, 0.0])
    return Mesh.concat([Mesh(v, m.faces[:, ::-1].copy(), m.colors), box((-w / 2, 0, d / 2 - 0.02), (w / 2, h, d / 2), (0.9, 0.85, 0.7))])


def _racket(w, h, d, c, rng):
    head = ellipsoid((0, h / 2, d / 2 - w / 2), (w / 2, h / 2, w * 0.65), c)
    strings = box((-w * 0.4, h / 2 - 0.002, d / 2 - w), (w * 0.4, h / 2 + 0.002, d / 2 - 0.03), (0.95, 0.95, 0.95))
    return Mesh.concat([head, strings, box((-0.015, 0, -d / 2), (0.015, h, d / 2 - w), DARK)])


def _boots(w, h, d, c, rng):
    parts = []
    for x in (-w / 4, w / 4):
        parts += [
            box((x - w / 5, 0, -d / 2), (x + w / 5, 0.1, d / 2), c),
            box((x - w / 5, 0.1, -d / 2), (x + w / 5, h, -d / 2 + 0.12), c),
            box((x - w / 5, 0, -d / 2), (x + w / 5, 0.02, d / 2), DARK),
        ]
    return Mesh.concat(parts)


def _sack(w, h, d, c, rng):
    return Mesh.concat([ellipsoid((0, 0.4 * h, 0), (w / 2, 0.4 * h, d / 2), c), cyl((0, 0), 0.75 * h, h, 0.06, c, r1=0.02, n=6)])


def _plunger(w, h, d, c, rng):
    return Mesh.concat([cyl((0, 0), 0, 0.15 * h, w / 2, c, r1=w * 0.3), cyl((0, 0), 0.15 * h, h, 0.013, (0.7, 0.5, 0.3), n=6)])


def _vacuum(w, h, d, c, rng):
    return Mesh.concat(
        [
            box((-w / 2, 0, -d / 2), (w / 2, 0.3, d / 2), c),
            box((-0.02, 0.3, -0.05), (0.02, h, -0.01), DARK),
            box((-0.08, h - 0.05, -0.05), (0.08, h, -0.01), DARK),
            box((-w / 2, 0, d / 2 - 0.05), (w / 2, 0.05, d / 2), DARK),
        ]
    )


def _cart(w, h, d, c, rng):
    parts = [box((-w / 2, 0.15 + k * (h - 0.15) / 2 - 0.02, -d / 2), (w / 2, 0.15 + k * (h - 0.15) / 2, d / 2), c) for k in (0, 1, 2)]
    parts += [
        box(
            (sx * w / 2 - 0.015 * (sx > 0), 0.08, sz * d / 2 - 0.015 * (sz > 0)),
            (sx * w / 2 + 0.015 * (sx < 0), h, sz * d / 2 + 0.015 * (sz < 0)),
            METAL,
        )
        for sx in (-1, 1)
        for sz in (-1, 1)
    ]
    parts += [
        _hcyl(sx * w / 2 - 0.02, sx * w / 2 + 0.02, 0.04, 0.04, DARK, n=8).transformed(0.0, np.array([0, 0, sz * (d / 2 - 0.05)]))
        for sx in (-1, 1)
        for sz in (-1, 1)
    ]
    return Mesh.concat(parts)


def _ottoman(w, h, d, c, rng):
    return Mesh.concat(
        [
            box((-w / 2, 0.05, -d / 2), (w / 2, h - 0.06, d / 2), c),
            box((-w / 2 + 0.02, h - 0.06, -d / 2 + 0.02), (w / 2 - 0.02, h, d / 2 - 0.02), _shade(c, 1.1)),
            box((-w / 2 + 0.05, 0, -d / 2 + 0.05), (w / 2 - 0.05, 0.05, d / 2 - 0.05), DARK),
        ]
    )


def _statue(w, h, d, c, rng):
    return Mesh.concat(
        [
            box((-w / 2, 0, -d / 2), (w / 2, 0.12 * h, d / 2), _shade(c, 0.8)),
            cyl((0, 0), 0.12 * h, 0.7 * h, w * 0.3, c, r1=w * 0.2, n=10),
            ellipsoid((0, 0.82 * h, 0), (w * 0.22, 0.14 * h, d * 0.22), c),
        ]
    )


def _decor(w, h, d, c, rng):
    return Mesh.concat(
        [
            box((-w / 2, 0, -d / 2), (w / 2, 0.05, d / 2), _shade(c, 0.7)),
            ellipsoid((0, 0.45 * h, 0), (w * 0.3, 0.4 * h, d * 0.3), c),
            ellipsoid((0.3 * w, 0.2 * h, 0.3 * d), (w * 0.15, 0.15 * h, d * 0.15), _shade(c, 1.2)),
        ]
    )


def _teddy(w, h, d, c, rng):
    return Mesh.concat(
        [
            ellipsoid((0, 0.3 * h, 0), (w * 0.35, 0.3 * h, d * 0.4), c),
            ellipsoid((0, 0.75 * h, 0), (w * 0.27, 0.22 * h, d * 0.35), c),
            ellipsoid((-w * 0.2, 0.95 * h, 0), (w * 0.1, 0.06 * h, d * 0.1), c),
            ellipsoid((w * 0.2, 0.95 * h, 0), (w * 0.1, 0.06 * h, d * 0.1), c),
            ellipsoid((0, 0.72 * h, d * 0.3), (w * 0.08, 0.06 * h, d * 0.12), _shade(c, 0.6)),
            ellipsoid((-w * 0.38, 0.35 * h, 0), (w * 0.12, 0.15 * h, d * 0.2), c),
            ellipsoid((w * 0.38, 0.35 * h, 0), (w * 0.12, 0.15 * h, d * 0.2), c),
        ]
    )


def _alarmclock(w, h, d, c, rng):
    face = _disc_front(0.45 * h, 0.35 * h, 0.0, (0.95, 0.95, 0.95), depth=d / 2)
    body = _disc_front(0.45 * h, 0.45 * h, -d / 2, c, depth=d * 0.8)
    return Mesh.concat(
        [
            body,
            face,
            ellipsoid((-w * 0.3, 0.9 * h, 0), (w * 0.16, 0.1 * h, d * 0.3), METAL),
            ellipsoid((w * 0.3, 0.9 * h, 0), (w * 0.16, 0.1 * h, d * 0.3), METAL),
            box((-w * 0.3, 0, -0.01), (-w * 0.25, 0.1 * h, 0.01), DARK),
            box((w * 0.25, 0, -0.01), (w * 0.3, 0.1 * h, 0.01), DARK),
        ]
    )


def _watch(w, h, d, c, rng):
    return Mesh.concat(
        [
            cyl((0, 0), 0, h, w * 0.3, METAL, n=12),
            cyl((0, 0), h, h + 0.001, w * 0.25, (0.95, 0.95, 0.95), n=12),
            box((-w * 0.12, 0, -d / 2), (w * 0.12, h * 0.5, d / 2), c),
        ]
    )


def _keychain(w, h, d, c, rng):
    return Mesh.concat([cyl((0, -d / 4), 0, h, w / 2, c, n=10, caps=True), box((-0.006, 0, 0), (0.006, h, d / 2), (0.8, 0.7, 0.3))])


def _faucet(w, h, d, c, rng):
    return Mesh.concat(
        [
            cyl((0, -d / 2 + w / 2), 0, 0.1 * h, w / 2, c, n=10),
            cyl((0, -d / 2 + w / 2), 0.1 * h, h, 0.015, c, n=8),
            box((-0.015, h - 0.03, -d / 2 + w / 2), (0.015, h, d / 2), c),
            box((-0.015, 0.7 * h, d / 2 - 0.03), (0.015, h, d / 2), c),
        ]
    )


_BUILDERS: dict[str, Callable] = {
    "faucet": _faucet,
    "table": _table,
    "desk": _desk,
    "chair": _chair,
    "stool": _stool,
    "sofa": _sofa,
    "armchair": _armchair,
    "bed": _bed,
    "dresser": _dresser,
    "counter": _counter,
    "tvstand": _tvstand,
    "shelves": _shelves,
    "fridge": _fridge,
    "appliance_round": _appliance_round,
    "microwave": _microwave,
    "toaster": _toaster,
    "coffeemachine": _coffeemachine,
    "safe": _safe,
    "sink": _sink,
    "toilet": _toilet,
    "bin": _bin,
    "plant": _plant,
    "floorlamp": _floorlamp,
    "desklamp": _desklamp,
    "bottle": _bottle,
    "winebottle": _winebottle,
    "soapbottle": _soapbottle,
    "spraybottle": _spraybottle,
    "mug": _mug,
    "cup": _cup,
    "bowl": _bowl,
    "plate": _plate,
    "pot": _pot,
    "pan": _pan,
    "kettle": _kettle,
    "ellipsoid": _ellipsoid,
    "egg": _egg,
    "bread": _bread,
    "ball": _ball,
    "book": _book,
    "box": _box,
    "phone": _phone,
    "remote": _remote,
    "card": _card,
    "cloth": _cloth,
    "pillow": _pillow,
    "fork": lambda *a: _utensil(*a, head="fork"),
    "spoon": lambda *a: _utensil(*a, head="spoon"),
    "ladle": lambda *a: _utensil(*a, head="ladle"),
    "spatula": lambda *a: _utensil(*a, head="spatula"),
    "knife": _knife,
    "shaker": _shaker,
    "roll": _roll,
    "candle": _candle,
    "vase": _vase,
    "laptop": _laptop,
    "monitor": _monitor,
    "television": _television,
    "painting": _painting,
    "window": _window,
    "doorway": _doorway,
    "dogbed": _dogbed,
    "dumbbell": _dumbbell,
    "bat": _bat,
    "pen": _pen,
    "racket": _racket,
    "boots": _boots,
    "sack": _sack,
    "plunger": _plunger,
    "vacuum": _vacuum,
    "cart": _cart,
    "ottoman": _ottoman,
    "statue": _statue,
    "decor": _decor,
    "teddybear": _teddy,
    "alarmclock": _alarmclock,
    "watch": _watch,
    "keychain": _keychain,
    "cylinder": _cylinder,
}


def build(archetype: str, size: tuple[float, float, float], color: Color, rng: np.random.Generator) -> Mesh:
    """Mesh of one object of ``size`` (w, h, d), bottom centre at the origin, front towards +z."""
    w, h, d = size
    return _BUILDERS[archetype](w, h, d, color, rng).fit(size)


def archetypes() -> tuple[str, ...]:
    return tuple(_BUILDERS)
