"""Compact, JSON-safe payloads for the report's 3D viewer: point clouds, boxes, paths.

Point clouds are downsampled for the viewer only (a seeded random subset per cloud; scoring never
sees this) and quantised to uint16 inside their own bounding box (sub-millimetre for rooms a few
metres across), then base64-encoded, so a 30k-point scene costs ~240 kB of HTML instead of ~1 MB
of JSON numbers. Everything here is plain data; the browser code in ``assets/viewer.js`` draws it.

Payload shapes (what ``viewer.js`` expects)::

    cloud   {"n", "total", "lo": [3], "hi": [3], "q": b64(uint16 n*3), "rgb": b64(uint8 n*3) | None,
             "color": [r, g, b] | None}
    scene   {"cloud": cloud, "up": "z" | "y"}
    layer   {"kind": "cloud", "label", "color", "cloud"}            masks, moved object clouds
            {"kind": "box", "label", "color", "minmax": [6], "dashed"} axis-aligned boxes
            {"kind": "obb", "label", "color", "corners": [[3] x 8]}  oriented boxes
            {"kind": "path", "label", "color", "points": [[3], ...], "dashed"} paths, waypoints
    view    {"scene": key, "layers": [layer, ...], "note": str}
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

# Colours (Okabe-Ito, apart for the common colour-vision deficiencies): ground truth sky blue,
# prediction orange, agreement bluish green, anchors (objects a question names) yellow, anything
# else reddish purple. Each has a WCAG contrast of at least 4.5 against the viewer's dark
# background and against the black outline every overlay gets, and that outline stands 3:1 or
# more against the brightest (dimmed) scene colour, so overlays read on dark and light scenes
# (checked by tests/report/test_views_contrast.py and a pixel test in the browser).
GT = (86, 180, 233)
PRED = (230, 159, 0)
BOTH = (0, 158, 115)
ANCHOR = (240, 228, 66)
EXTRA = (204, 121, 167)
AXES = ((235, 80, 80), (80, 220, 80), (100, 150, 255))  # x, y, z of a drawn pose
BACKGROUND = (23, 26, 30)  # viewer.js clears to #171a1e
HALO = (0, 0, 0)


def dimmed(c: float) -> float:
    """A scene colour channel as viewer.js draws it behind overlays (``c * 0.5 + 30``)."""
    return c * 0.5 + 30


def luminance(rgb: Sequence[float]) -> float:
    """WCAG relative luminance of an sRGB colour in [0, 255]."""
    lin = [(c / 255) / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: Sequence[float], b: Sequence[float]) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def seeded_subset(n: int, k: int, key: str, seed: int = 0) -> np.ndarray:
    """Sorted indices of ``min(n, k)`` of ``n`` items; the same for the same (key, seed) in every run."""
    if n <= k:
        return np.arange(n)
    rng = np.random.default_rng([seed, zlib.crc32(key.encode())])
    return np.sort(rng.choice(n, size=k, replace=False))


def _b64(a: np.ndarray) -> str:
    # Little-endian, as JavaScript typed arrays read it on every platform browsers run on.
    return base64.b64encode(np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes()).decode("ascii")


def encode_cloud(
    points: np.ndarray,
    *,
    colors: np.ndarray | None = None,
    color: Sequence[int] | None = None,
    max_points: int = 30000,
    key: str = "",
    seed: int = 0,
) -> dict[str, Any]:
    """Downsample (seeded) and quantise an (N, 3) cloud; ``colors`` (N, 3) in [0, 255] or [0, 1]."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    finite = np.isfinite(p).all(axis=1)
    idx = np.flatnonzero(finite)
    idx = idx[seeded_subset(idx.size, max_points, key, seed)]
    sub = p[idx]
    if sub.size:
        lo, hi = sub.min(axis=0), sub.max(axis=0)
    else:
        lo = hi = np.zeros(3)
    span = np.where(hi > lo, hi - lo, 1.0)
    q = np.rint((sub - lo) / span * 65535.0).astype(np.uint16)
    out: dict[str, Any] = {
        "n": int(idx.size),
        "total": int(p.shape[0]),
        "lo": [float(v) for v in lo],
        "hi": [float(v) for v in hi],
        "q": _b64(q),
        "rgb": None,
        "color": [int(c) for c in color] if color is not None else None,
    }
    if colors is not None:
        c = np.asarray(colors, dtype=np.float64).reshape(-1, 3)[idx]
        if c.size and c.max() <= 1.0:
            c = c * 255.0
        out["rgb"] = _b64(np.clip(np.rint(c), 0, 255).astype(np.uint8))
    return out


def scene_payload(
    points: np.ndarray, colors: np.ndarray | None, *, up: str = "z", key: str, max_points: int = 30000, seed: int = 0
) -> dict[str, Any]:
    return {"cloud": encode_cloud(points, colors=colors, max_points=max_points, key=key, seed=seed), "up": up}


def cloud_layer(label: str, points: np.ndarray, color: Sequence[int], *, key: str, max_points: int = 4000, seed: int = 0) -> dict[str, Any]:
    return {
        "kind": "cloud",
        "label": label,
        "color": [int(c) for c in color],
        "cloud": encode_cloud(points, color=color, max_points=max_points, key=key, seed=seed),
    }


def mask_layers(
    points: np.ndarray, gt: np.ndarray | None, pred: np.ndarray | None, *, key: str, max_points: int = 4000, seed: int = 0
) -> list[dict[str, Any]]:
    """GT and predicted point masks as three clouds: both (true positives), GT only, prediction only.

    ``points`` (N, 3); ``gt``/``pred`` (N,) bool or None. Drawn over the scene, they show at a glance
    what was found, missed and wrongly added; counts are the full (not downsampled) numbers.
    """
    n = len(points)
    g = np.zeros(n, bool) if gt is None else np.asarray(gt, bool)
    p = np.zeros(n, bool) if pred is None else np.asarray(pred, bool)
    layers = []
    for label, m, color in (
        ("GT ∩ prediction", g & p, BOTH),
        ("GT only (missed)", g & ~p, GT),
        ("prediction only (wrong)", p & ~g, PRED),
    ):
        count = int(m.sum())
        if count:
            layers.append(cloud_layer(f"{label}: {count} pts", points[m], color, key=f"{key}/{label}", max_points=max_points, seed=seed))
    return layers


def box_layer(
    label: str,
    minmax: Sequence[float] | np.ndarray,
    color: Sequence[int],
    *,
    dashed: bool = False,
    text: str | None = None,
    group: str | None = None,
) -> dict[str, Any]:
    """``dashed`` for predictions, so a prediction lying exactly on the GT box still shows both.
    ``text`` is written on the canvas above the box; layers sharing a ``group`` share one legend entry."""
    out = {"kind": "box", "label": label, "color": [int(c) for c in color], "minmax": [float(v) for v in minmax], "dashed": dashed}
    if text:
        out["text"] = text
    if group:
        out["group"] = group
    return out


def obb_layer(
    label: str, corners: np.ndarray, color: Sequence[int], *, dashed: bool = False, text: str | None = None, group: str | None = None
) -> dict[str, Any]:
    """Oriented box from its 8 corners (the order of :func:`box_corners`)."""
    out = {
        "kind": "obb",
        "label": label,
        "color": [int(c) for c in color],
        "corners": np.asarray(corners, float).reshape(8, 3).round(4).tolist(),
        "dashed": dashed,
    }
    if text:
        out["text"] = text
    if group:
        out["group"] = group
    return out


def pose_layers(
    label: str,
    T: np.ndarray,
    center: Sequence[float],
    size: Sequence[float],
    color: Sequence[int],
    *,
    dashed: bool = False,
    text: str | None = None,
) -> list[dict[str, Any]]:
    """An object's box (``center``/``size`` in its own frame) moved by the 4x4 pose ``T``, with the
    pose's x/y/z axes drawn from the moved centre (red, green, blue; half the box's largest side
    long): a rotation shows as turned axes even where the box looks the same."""
    T = np.asarray(T, float)
    corners = box_corners(center, size) @ T[:3, :3].T + T[:3, 3]
    c = np.asarray(center, float) @ T[:3, :3].T + T[:3, 3]
    length = max(0.1, float(np.max(size)) * 0.6)
    layers = [obb_layer(label, corners, color, dashed=dashed, text=text)]
    for k, (name, col) in enumerate(zip("xyz", AXES)):
        layers.append(
            path_layer(f"{label} {name} axis", np.stack([c, c + T[:3, k] * length]), col) | {"group": f"{label} axes", "nodots": True}
        )
    return layers


def box_corners(center: Sequence[float], size: Sequence[float], rotation: np.ndarray | None = None) -> np.ndarray:
    """(8, 3) corners; bit k of the corner index picks the +/- side of axis k (what viewer.js connects)."""
    c = np.asarray(center, float)
    h = np.asarray(size, float) / 2.0
    signs = np.array([[1 if (i >> k) & 1 else -1 for k in range(3)] for i in range(8)], float)
    local = signs * h
    if rotation is not None:
        local = local @ np.asarray(rotation, float).T
    return local + c


def path_layer(label: str, points: np.ndarray, color: Sequence[int], *, dashed: bool = False) -> dict[str, Any]:
    """Points that are not finite (a model's waypoint at ``inf``) are left out: they cannot be drawn."""
    p = np.asarray(points, float).reshape(-1, 3)
    return {
        "kind": "path",
        "label": label,
        "color": [int(c) for c in color],
        "points": p[np.isfinite(p).all(axis=1)].round(4).tolist(),
        "dashed": dashed,
    }
