"""Real models in place of primitives: normalise, fit by a uniform scale, colour name, support surfaces.

Every model is normalised once per process to scenebench's object frame (metres, y up, front +z,
bottom centre at the origin) and then, for a sampled category size, scaled by the one factor that
best matches the fitted axes (the geometric mean of the per-axis ratios); the model is a candidate
only when every fitted axis is then within ``TOLERANCE`` of the sample (no squashing). A bed is fitted
on its footprint only, since the category's height is the mattress and the models carry headboards.
Doors and windows are the exception: like SweetHome3D itself, it stretches them to fill their wall
opening exactly (width and height, within the same tolerance of the model's proportions) and to the
frame's depth, which is the wall's and not the model's; a doorway is open, so a door model's leaf
is left out and its frame kept.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scenebench.synth.assets.library import AssetModel, AssetSet
from scenebench.synth.assets.obj import parse_obj
from scenebench.synth.categories import CATEGORIES, PALETTE
from scenebench.synth.meshes import Mesh

DECIMATE_CELL = 0.01  # metres: finer detail than 1 cm is below what 2 cm object voxels and 128x96 frames keep
DECIMATE_ABOVE = 4000  # faces: lighter models are kept as they are
TOLERANCE = 0.3  # each fitted axis within x/÷ 1.3 of the sampled size after the uniform scale
# beds on their footprint (the category's height is the mattress, models carry headboards); floor lamps
# on width and height (an arc lamp's reach is its own depth, wider than a column lamp's shade), and so
# a spray bottle (its nozzle's reach); cutlery, bread and a book on their footprint (a blade's 3 mm,
# a loaf's rise and an open book's 2 cm are the model's own: the primitives' boxes are thicker, and
# no model fitted them); so too keys on their tag, a ladle lying flat, a wall tap, ankle boots and a
# remote (the primitives' heights are a flat tag's 1 cm, a ladle's raised handle, a pillar tap's, a tall
# boot's and a thicker remote's); a figurine on height and depth (a deer is narrower than its box)
FIT_AXES: dict[str, tuple[int, ...]] = {
    "bed": (0, 2),
    "floorlamp": (0, 1),
    "spraybottle": (0, 1),
    **dict.fromkeys(("fork", "knife", "butterknife", "spoon", "bread", "book"), (0, 2)),
    **dict.fromkeys(("keychain", "ladle", "faucet", "boots", "remotecontrol"), (0, 2)),
    "statue": (1, 2),
}
# SweetHome3D names the parts of a door or window that swing or slide "sweethome3d_opening_on_..."
# and the glass they carry "sweethome3d_window_pane_on_...": a doorway is an open frame, so they go
OPEN_PARTS: dict[str, tuple[str, ...]] = {"doorway": ("sweethome3d_opening_on_", "sweethome3d_window_pane_on_")}
_YAW = {"+z": 0.0, "-z": np.pi, "+x": -np.pi / 2, "-x": np.pi / 2}
_PALETTE_NAMES = tuple(PALETTE)
_PALETTE_RGB = np.array([PALETTE[n] for n in _PALETTE_NAMES], np.float32)


@dataclass(frozen=True)
class Choice:
    model: AssetModel
    scale: float
    size: tuple[float, float, float]  # the fitted model's real (w, h, d)
    fills: bool = False  # stretched to fill ``size`` exactly: a door or window in its wall opening


def _bottom_centre(v: np.ndarray) -> np.ndarray:
    lo, hi = v.min(0), v.max(0)
    return v - np.array([(lo[0] + hi[0]) / 2, lo[1], (lo[2] + hi[2]) / 2])


def _to_size(v: np.ndarray, size) -> np.ndarray:
    v = _bottom_centre(v)
    ext = np.maximum(v.max(0) - v.min(0), 1e-9)
    return v * (np.asarray(size, float) / ext)


def _yaw(v: np.ndarray, front: str) -> np.ndarray:
    a = _YAW[front]
    if a == 0.0:
        return v
    c, s = np.cos(a), np.sin(a)
    out = v @ np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]]).T
    return np.round(out, 12)  # quarter turns: exact zeros, so bounds do not depend on rounding noise


def fit_scale(dims, target, axes=(0, 1, 2), tol: float = TOLERANCE) -> float | None:
    """The uniform scale taking ``dims`` closest to ``target`` on ``axes``, or None when any of those
    axes then differs from the target by more than a factor ``1 + tol``."""
    d = np.log(np.asarray(target, float)[list(axes)]) - np.log(np.asarray(dims, float)[list(axes)])
    k = float(d.mean())
    if np.abs(d - k).max() > np.log1p(tol) + 1e-12:
        return None
    return float(np.exp(k))


def decimate(mesh: Mesh, cell: float = DECIMATE_CELL) -> Mesh:
    """Vertex clustering: vertices in one ``cell``-sized grid cell merge into their mean; faces that
    collapse (two corners in one cell) go. Keeps every face's colour; deterministic."""
    q = np.floor(mesh.vertices / cell).astype(np.int64)
    _, first, inv = np.unique(q, axis=0, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    n = len(first)
    v = np.stack([np.bincount(inv, weights=mesh.vertices[:, k], minlength=n) for k in range(3)], 1) / np.bincount(inv, minlength=n)[:, None]
    f = inv[mesh.faces]
    keep = (f[:, 0] != f[:, 1]) & (f[:, 1] != f[:, 2]) & (f[:, 0] != f[:, 2])
    return Mesh(v, f[keep], mesh.colors[keep])


def colour_name(mesh: Mesh) -> str:
    """The palette name covering the largest surface area of ``mesh`` (each face to its nearest colour)."""
    tri = mesh.vertices[mesh.faces]
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    near = ((mesh.colors[:, None, :] - _PALETTE_RGB[None]) ** 2).sum(-1).argmin(1)
    return _PALETTE_NAMES[int(np.bincount(near, weights=area, minlength=len(_PALETTE_NAMES)).argmax())]


def model_surfaces(mesh: Mesh, kind: str, margin: float = 0.03) -> list[tuple[float, float, float, float, float, float]]:
    """Support surfaces ``(y, x0, z0, x1, z1, clearance)`` read off an upright local mesh from the area
    of upward-facing faces per 2 cm of height (above the lowest 15 %): for a seat the level with
    the largest area, for a top or basin the highest level with at least 40 % of that area; for shelves every level covering an
    eighth of the footprint, with the clearance to the next."""
    if not kind:
        return []
    tri = mesh.vertices[mesh.faces]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    # winding differs between files: orient normals outwards by the sign of the enclosed volume
    if np.einsum("ij,ij->", tri[:, 0], n) < 0:
        n = -n
    area2 = np.linalg.norm(n, axis=1)
    up = (n[:, 1] > 0.8 * np.maximum(area2, 1e-18)) & (area2 > 0)  # 0.8: rounded cushions and mattresses count
    lo, hi = mesh.vertices.min(0), mesh.vertices.max(0)
    h = float(hi[1] - lo[1])
    ys = tri[up, :, 1].mean(1)
    keep = ys > 0.15 * h  # bases and feet are not where things stand
    ys, a, t = ys[keep], 0.5 * area2[up][keep], tri[up][keep]
    if not len(ys):
        return []
    bins = np.floor(ys / 0.02).astype(np.int64)
    ub, inv = np.unique(bins, return_inverse=True)
    tot = np.bincount(inv, weights=a)
    foot = float((hi[0] - lo[0]) * (hi[2] - lo[2]))
    if kind == "shelves":
        levels = [int(b) for b, s in zip(ub, tot) if s >= 0.25 * foot * 0.5]
    elif kind == "seat":  # the largest level: a backrest's top is higher but smaller
        levels = [int(ub[int(tot.argmax())])]
    else:  # the highest level holding at least 40 % of the largest one's area: a tabletop over a lower shelf
        levels = [int(ub[np.flatnonzero(tot >= 0.4 * tot.max())[-1]])]
    out = []
    tops = []
    for b in levels:
        sel = bins == b
        y = float(t[sel][:, :, 1].max())
        if tops and y - tops[-1] < 0.05:  # one board seen as two neighbouring bins
            continue
        xz = t[sel][:, :, [0, 2]].reshape(-1, 2)
        x0, z0 = xz.min(0) + margin
        x1, z1 = xz.max(0) - margin
        if x1 <= x0 or z1 <= z0:
            continue
        tops.append(y)
        out.append([y, float(x0), float(z0), float(x1), float(z1), np.inf])
    if kind == "shelves":
        for i in range(len(out) - 1):
            out[i][5] = out[i + 1][0] - out[i][0] - 0.06
    elif kind == "basin":
        out = [[*s[:5], 0.35] for s in out]
    return [tuple(s) for s in out]  # type: ignore[misc]


class Furnisher:
    """Chooses, loads and fits models of one :class:`AssetSet` (meshes cached for the process)."""

    def __init__(self, assets: AssetSet):
        self.assets = assets
        self.by_category = assets.by_category()
        self._meshes: dict[str, Mesh] = {}
        self._colours: dict[str, str] = {}

    def categories(self) -> set[str]:
        return set(self.by_category)

    def normalised(self, m: AssetModel) -> Mesh:
        if m.key not in self._meshes:
            src = self.assets.sources[m.library]
            where = f"model {m.key!r}"

            def read(p: str) -> bytes | None:
                return src.read(p, where=where) if src.has(p) else None

            mesh = parse_obj(src.read(m.mesh, where=where), m.mesh.lstrip("/"), read, OPEN_PARTS.get(m.category, ()))
            v = mesh.vertices
            if m.up == "+z":
                v = np.stack([v[:, 0], v[:, 2], -v[:, 1]], 1)
            if m.rotation:
                v = v @ np.asarray(m.rotation, float).reshape(3, 3).T
            if self.assets.libraries[m.library].kind == "sh3f":  # catalog size is before the front fix
                v = _bottom_centre(_yaw(_to_size(v, m.size), m.front)) * m.scale
            else:
                v = _to_size(_yaw(v, m.front), m.size) * m.scale
            out = Mesh(v, mesh.faces, mesh.colors)
            if len(out.faces) > DECIMATE_ABOVE:
                # the bounds stay the catalog's to within a cell: refit them exactly
                lo, hi = v.min(0), v.max(0)
                out = decimate(out)
                out = Mesh(_to_size(out.vertices, hi - lo), out.faces, out.colors)
            self._meshes[m.key] = out
        return self._meshes[m.key]

    def dims(self, m: AssetModel) -> np.ndarray:
        w, h, d = m.size
        if m.front in ("+x", "-x") and self.assets.libraries[m.library].kind == "sh3f":
            w, d = d, w
        return np.array([w, h, d]) * m.scale

    def choose(self, cat: str, size, rng: np.random.Generator) -> Choice | None:
        """A model of ``cat`` that fits ``size`` within the tolerance (uniformly among those), or None."""
        models = self.by_category.get(cat)
        if not models:
            return None
        axes = FIT_AXES.get(cat, (0, 1, 2))
        fits = [(m, k) for m in models if (k := fit_scale(self.dims(m), size, axes)) is not None]
        if not fits:
            return None
        m, k = fits[int(rng.integers(len(fits)))]
        return self.resized(m, k)

    def choose_opening(self, cat: str, size, rng: np.random.Generator) -> Choice | None:
        """A door or window model for a wall opening of ``size`` (w, h, frame depth): one drawn
        uniformly among those whose front (width : height) fits the opening's within the tolerance,
        to be stretched to ``size`` exactly; None when none fits (an archway over a whole wall)."""
        models = self.by_category.get(cat)
        if not models:
            return None
        fits = [m for m in models if fit_scale(self.dims(m), size, (0, 1)) is not None]
        if not fits:
            return None
        m = fits[int(rng.integers(len(fits)))]
        return Choice(m, 1.0, (float(size[0]), float(size[1]), float(size[2])), fills=True)

    def resized(self, m: AssetModel, k: float) -> Choice:
        dims = self.dims(m) * k
        return Choice(m, k, (float(dims[0]), float(dims[1]), float(dims[2])))

    def mesh(self, c: Choice) -> Mesh:
        base = self.normalised(c.model)
        if c.fills:  # per axis, to the opening: the box is the opening's whatever the model's bounds
            ext = np.maximum(base.vertices.max(0) - base.vertices.min(0), 1e-9)
            return Mesh(base.vertices * (np.asarray(c.size) / ext), base.faces, base.colors)
        return Mesh(base.vertices * c.scale, base.faces, base.colors)

    def colour(self, m: AssetModel) -> str:
        if m.key not in self._colours:
            self._colours[m.key] = colour_name(self.normalised(m))
        return self._colours[m.key]

    def surfaces(self, c: Choice, cat: str):
        return model_surfaces(self.mesh(c), CATEGORIES[cat].surface)


_CACHE: dict[tuple[str, ...], Furnisher] = {}


def furnisher_for(paths: tuple[str, ...]) -> Furnisher | None:
    """One :class:`Furnisher` per process and set of library paths (None for no paths: primitives)."""
    if not paths:
        return None
    if paths not in _CACHE:
        from pathlib import Path

        from scenebench.synth.assets.library import load_assets

        _CACHE[paths] = Furnisher(load_assets([Path(p) for p in paths]))
    return _CACHE[paths]


__all__ = ["Choice", "Furnisher", "colour_name", "fit_scale", "furnisher_for", "model_surfaces"]
