"""The rendered, marked views of one scene, cached on disk by scene content and view settings.

Cache folder: ``cache_dir`` (model argument), else env ``SCENEBENCH_VISION_CACHE``, else
``$XDG_CACHE_HOME/scenebench/vision`` (``~/.cache`` by default). One sub-folder per key, the
sha256 of (render version, scene id, sha256 of the points and colours, up axis, view settings,
segmentation settings): any change to the data or the settings renders again; a rerun (or another
run of another model id on the same scene) reads the PNGs back. A folder holds ``view-K.png`` (what
the model is sent), ``thumb-K.png`` (half size, for the report), ``segments.npz`` (the segment of
each point and the segment boxes; read with ``allow_pickle=False``) and ``meta.json`` (the views
and the marks drawn in each). It is written in a temporary folder and renamed into place, so a
killed run never leaves a half-written entry. Nothing secret is ever written here.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.io.files import atomic_write_bytes, atomic_write_json
from scenebench.models.vision.marks import Segmentation, SegmentSettings, over_segment
from scenebench.models.vision.render import RENDER_VERSION, ViewSettings, render_views, thumbnail


def default_cache_dir() -> Path:
    env = os.environ.get("SCENEBENCH_VISION_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "scenebench" / "vision"


def cloud_digest(points: np.ndarray, colors: np.ndarray | None) -> str:
    h = hashlib.sha256(np.ascontiguousarray(np.asarray(points, np.float64)).tobytes())
    if colors is not None:
        h.update(np.ascontiguousarray(np.asarray(colors, np.float64)).tobytes())
    return h.hexdigest()


@dataclass
class SceneImages:
    folder: Path
    views: list[dict[str, Any]]  # {"name", "image", "thumb", "marks": [[n, u, v], ...]}
    grid: dict[str, Any] | None
    segmentation: Segmentation

    def image_paths(self) -> list[Path]:
        return [self.folder / v["image"] for v in self.views]

    def thumb_paths(self) -> list[Path]:
        return [self.folder / v["thumb"] for v in self.views]

    def names(self) -> list[str]:
        return [v["name"] for v in self.views]


def cache_key(scene_id: str, digest: str, up: int, view: ViewSettings, seg: SegmentSettings) -> str:
    blob = {"render": RENDER_VERSION, "scene": scene_id, "cloud": digest, "up": int(up), "view": view.to_json(), "segments": seg.to_json()}
    return hashlib.sha256(json.dumps(blob, sort_keys=True).encode()).hexdigest()


def _load(folder: Path) -> SceneImages | None:
    meta_path = folder / "meta.json"
    if not meta_path.is_file():
        return None
    try:
        meta = json.loads(meta_path.read_text())
        with np.load(folder / "segments.npz", allow_pickle=False) as z:
            seg = Segmentation.from_arrays(z["labels"], z["boxes"])
    except (OSError, ValueError, KeyError):
        return None  # a damaged entry is rendered again
    if not all((folder / v["image"]).is_file() and (folder / v["thumb"]).is_file() for v in meta["views"]):
        return None
    return SceneImages(folder, meta["views"], meta.get("grid"), seg)


def scene_images(
    scene_id: str,
    points: np.ndarray,
    colors: np.ndarray | None,
    up: int,
    view: ViewSettings,
    seg_settings: SegmentSettings,
    cache_dir: str | Path | None = None,
) -> SceneImages:
    """The scene's marked views, from the cache or rendered now (and cached)."""
    from scenebench.io.png import png_bytes

    root = Path(cache_dir) if cache_dir else default_cache_dir()
    key = cache_key(scene_id, cloud_digest(points, colors), up, view, seg_settings)
    folder = root / key[:2] / key
    hit = _load(folder)
    if hit is not None:
        return hit
    seg = over_segment(points, up, seg_settings, colors)
    views = render_views(points, colors, up, view, seg.labels(), len(seg))
    tmp = folder.parent / f".{key}.{uuid.uuid4().hex[:8]}.tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    meta_views = []
    grid = None
    for k, v in enumerate(views, 1):
        atomic_write_bytes(tmp / f"view-{k}.png", png_bytes(v.image))
        atomic_write_bytes(tmp / f"thumb-{k}.png", png_bytes(thumbnail(v.image, 2)))
        meta_views.append({"name": v.name, "image": f"view-{k}.png", "thumb": f"thumb-{k}.png", "marks": [list(m) for m in v.marks]})
        grid = v.grid if v.grid is not None else grid
    arrays = seg.to_arrays()
    with open(tmp / "segments.npz", "wb") as fh:
        np.savez_compressed(fh, **arrays)
    atomic_write_json(
        tmp / "meta.json",
        {
            "scene_id": scene_id,
            "key": key,
            "views": meta_views,
            "grid": grid,
            "view_settings": view.to_json(),
            "segment_settings": seg_settings.to_json(),
        },
    )
    if folder.exists() and _load(folder) is None:  # a damaged entry (e.g. a file deleted by hand): replace it
        shutil.rmtree(folder, ignore_errors=True)
    try:
        os.replace(tmp, folder)
    except OSError:  # another worker finished the same scene first: keep theirs
        theirs = _load(folder)
        if theirs is not None:
            shutil.rmtree(tmp, ignore_errors=True)
            return theirs
        return SceneImages(tmp, meta_views, grid, seg)  # could not move ours into place: use it where it is
    return SceneImages(folder, meta_views, grid, seg)
