"""Load SURPRISE3D scene point clouds (``SCENES_DIR/<scene_id>.pth`` or ``.npz``) safely.

Arrays are read with :mod:`scenebench.io.arrays` (``numpy.load(allow_pickle=False)``; ``.pth``
through a restricted unpickler that builds numpy arrays and tensors only, without torch): a scene
file is data and never runs code. Each array is checked (keys, shapes, dtypes, finite coordinates)
and every problem names the file and the key.

**Colours.** The official preprocessing stores ``sampled_colors`` in [0, 1] (float64); other tools
store [0, 255]. The range is decided per file: a maximum above 1 means [0, 255] (divided by 255),
otherwise [0, 1] (kept). :attr:`Scene.colors` is always in [0, 1]; :attr:`Scene.color_range` says
what the file held and the decision is logged (logger ``scenebench.surprise3d``).

**Unannotated points.** ScanNet++ writes -100, older files -1: every negative instance id means
"no instance".

**Scoring reads less.** Scoring needs the instance ids and the point count only:
:func:`load_scene_for_scoring` reads and checks the instance ids of a ``.npz`` scene, checks the
coordinates, colours and superpoints by their headers (key, shape, dtype: the same errors as
:func:`load_scene`) and reads them, with every check of their values (finite coordinates, colour
range), only when they are used (box predictions). ``scenebench validate surprise3d`` reads and
checks everything.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from scenebench.errors import InputError
from scenebench.io.arrays import ArrayHeader, load_arrays, load_npz

from .writer import COLORS_KEY, COORDS_KEY, INSTANCE_KEY, SUPERPOINTS_KEY

SCENE_SUFFIXES = (".pth", ".npz")
UNIT_RANGE, BYTE_RANGE = "[0, 1]", "[0, 255]"

log = logging.getLogger("scenebench.surprise3d")


@dataclass(frozen=True)
class Scene:
    """One scene: ``coords`` float32 (N, 3) metres, ``colors`` float32 (N, 3) in [0, 1] (whatever
    the file held: ``color_range``), ``instance_ids`` int64 (N,) with any negative (-100, -1)
    unannotated, optional ``superpoints`` (N,)."""

    scene_id: str
    path: Path
    coords: np.ndarray
    colors: np.ndarray
    instance_ids: np.ndarray
    superpoints: np.ndarray | None = None
    color_range: str = UNIT_RANGE

    @property
    def n_points(self) -> int:
        return int(self.coords.shape[0])


def scene_path(scenes_dir: str | Path, scene_id: str) -> Path:
    """``<scene_id>.pth`` if present, else ``<scene_id>.npz``; an error lists what was looked for."""
    d = Path(scenes_dir)
    for suf in SCENE_SUFFIXES:
        p = d / f"{scene_id}{suf}"
        if p.is_file():
            return p
    raise InputError(d, f"no point cloud for scene '{scene_id}'", expected=f"{scene_id}.pth or {scene_id}.npz in this folder")


def _array(path: Path, data: dict, key: str) -> np.ndarray | ArrayHeader:
    if key not in data:
        raise InputError(path, "key missing", field=key, expected=f"keys {COORDS_KEY}, {COLORS_KEY}, {INSTANCE_KEY}")
    v = data[key]
    if not isinstance(v, (np.ndarray, ArrayHeader)):
        raise InputError(path, f"holds a {type(v).__name__}", field=key, expected="an array or tensor")
    return v


def check_scene_arrays(path: Path, data: dict, scene_id: str) -> Scene:
    """Validate the arrays of one scene file and return them with canonical dtypes."""
    scene = _check(path, data, scene_id)
    assert isinstance(scene, Scene)
    return scene


def _check_shapes(path: Path, data: dict) -> int:
    """The point count, after the key, shape and dtype checks of every array: from ``.npz``
    headers alone (:class:`ArrayHeader`) too, so a member declaring the wrong shape is refused
    before its data is inflated."""
    coords = _array(path, data, COORDS_KEY)
    if coords.ndim != 2 or coords.shape[1] != 3:
        raise InputError(path, f"shape {coords.shape}", field=COORDS_KEY, expected="(N, 3)")
    n = int(coords.shape[0])
    if n == 0:
        raise InputError(path, "scene has no points", field=COORDS_KEY, expected="N > 0")
    if coords.dtype.kind not in "fiu":
        raise InputError(path, f"dtype {coords.dtype}", field=COORDS_KEY, expected="numbers (float32)")
    colors = _array(path, data, COLORS_KEY)
    if colors.shape != (n, 3):
        raise InputError(path, f"shape {colors.shape}", field=COLORS_KEY, expected=f"({n}, 3) like {COORDS_KEY}")
    if colors.dtype.kind not in "fiu":
        raise InputError(path, f"dtype {colors.dtype}", field=COLORS_KEY, expected="numbers in [0, 1] or [0, 255]")
    inst = _array(path, data, INSTANCE_KEY)
    if inst.shape != (n,):
        raise InputError(path, f"shape {inst.shape}", field=INSTANCE_KEY, expected=f"({n},) like {COORDS_KEY}")
    if data.get(SUPERPOINTS_KEY) is not None:
        sp = _array(path, data, SUPERPOINTS_KEY)
        if sp.shape != (n,) or sp.dtype.kind not in "iu":
            raise InputError(path, f"shape {sp.shape} dtype {sp.dtype}", field=SUPERPOINTS_KEY, expected=f"({n},) integers")
    return n


def _check(path: Path, data: dict, scene_id: str) -> Scene | ScoringScene:
    """:func:`check_scene_arrays`; coordinates and colours given as :class:`ArrayHeader` (not read)
    are checked by shape and dtype only and give a :class:`ScoringScene`."""
    n = _check_shapes(path, data)
    coords, colors, inst = data[COORDS_KEY], data[COLORS_KEY], data[INSTANCE_KEY]
    lazy = isinstance(coords, ArrayHeader)
    if not lazy:
        coords = coords.astype(np.float32, copy=False)
    if not lazy and not np.isfinite(coords).all():
        bad = int(np.flatnonzero(~np.isfinite(coords).all(axis=1))[0])
        raise InputError(path, f"non-finite coordinate at point {bad}", field=COORDS_KEY, expected="finite numbers")
    lazy = lazy or isinstance(colors, ArrayHeader)
    if not lazy:
        colors, color_range = normalise_colors(path, colors)
    assert isinstance(inst, np.ndarray), "instance ids are always read"
    if inst.dtype.kind == "f":
        # Some pipelines store ids as floats; accept them only when they are whole numbers.
        if not np.isfinite(inst).all() or not np.array_equal(inst, np.round(inst)) or (np.abs(inst) >= 2.0**53).any():
            raise InputError(path, "non-integer instance id", field=INSTANCE_KEY, expected="integers, -100 or -1 for unannotated")
    elif inst.dtype.kind not in "iu":
        raise InputError(path, f"dtype {inst.dtype}", field=INSTANCE_KEY, expected="integers, -100 or -1 for unannotated")
    inst = inst.astype(np.int64, copy=False)
    sp = data.get(SUPERPOINTS_KEY)
    if lazy:
        return ScoringScene(scene_id, path, int(n), inst)
    return Scene(scene_id, path, coords, colors, inst, sp, color_range)


class ScoringScene:
    """A scene as scoring needs it (:func:`load_scene_for_scoring`): ``instance_ids`` (read and
    checked) and ``n_points``; ``coords``, ``colors``, ``superpoints`` and ``color_range`` are read
    and fully checked (:func:`load_scene`) on first use."""

    def __init__(self, scene_id: str, path: Path, n_points: int, instance_ids: np.ndarray) -> None:
        self.scene_id = scene_id
        self.path = path
        self.n_points = n_points
        self.instance_ids = instance_ids

    @cached_property
    def full(self) -> Scene:
        return check_scene_arrays(self.path, _load(self.path), self.scene_id)

    @property
    def coords(self) -> np.ndarray:
        return self.full.coords

    @property
    def colors(self) -> np.ndarray:
        return self.full.colors

    @property
    def superpoints(self) -> np.ndarray | None:
        return self.full.superpoints

    @property
    def color_range(self) -> str:
        return self.full.color_range


def normalise_colors(path: Path, colors: np.ndarray) -> tuple[np.ndarray, str]:
    """Colours as float32 in [0, 1] and the range the file used (see the module docstring)."""
    c = colors.astype(np.float32)
    if not np.isfinite(c).all():
        raise InputError(path, "non-finite colour", field=COLORS_KEY, expected="finite numbers in [0, 1] or [0, 255]")
    lo, hi = (float(c.min()), float(c.max())) if c.size else (0.0, 0.0)
    if lo < 0 or hi > 255:
        raise InputError(path, f"colours span [{lo:g}, {hi:g}]", field=COLORS_KEY, expected="[0, 1] or [0, 255]")
    if hi > 1.0:
        log.info("%s: %s in [0, 255]; divided by 255", path, COLORS_KEY)
        return c / np.float32(255.0), BYTE_RANGE
    log.info("%s: %s in [0, 1]; used as is", path, COLORS_KEY)
    return c, UNIT_RANGE


def load_scene(scenes_dir: str | Path, scene_id: str) -> Scene:
    """Load and validate ``<scenes_dir>/<scene_id>.pth|.npz``."""
    p = scene_path(scenes_dir, scene_id)
    return check_scene_arrays(p, _load(p), scene_id)


def _load(p: Path, only: tuple[str, ...] | None = None) -> dict:
    """The arrays of a scene file; for a ``.npz``, shapes are checked from the headers first."""
    if p.suffix.lower() != ".npz":
        return load_arrays(p)

    def check(headers: dict) -> None:
        _check_shapes(p, headers)

    return load_npz(p, only=only, check_headers=check)


def load_scene_for_scoring(scenes_dir: str | Path, scene_id: str) -> Scene | ScoringScene:
    """:func:`load_scene` reading only what scoring needs (module docstring): a ``.npz`` scene's
    instance ids, and the headers of its other arrays. A ``.pth`` scene is one pickle: read whole."""
    p = scene_path(scenes_dir, scene_id)
    if p.suffix.lower() != ".npz":
        return check_scene_arrays(p, load_arrays(p), scene_id)
    return _check(p, _load(p, only=(INSTANCE_KEY,)), scene_id)
