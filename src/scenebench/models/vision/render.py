"""Views of a scene's own point cloud for vision-language models: z-buffered splatting in numpy.

Every view is drawn from the points and their colours only (no labels, no ground truth):

- ``corner`` views: perspective cameras above each corner of the cloud's horizontal bounding box,
  looking down at its centre at ``elevation_deg`` (45 by default), the focal length fitted so the
  whole cloud is in the picture;
- one ``top`` view: orthographic, straight down, with a metric grid (a line every ``grid_step``
  metres, the coordinate written at each line along the top and left edges) so a model can read
  floor positions off it.

A point is a square of pixels, ``splat`` wide or wider where the cloud is sparse (wide enough to
cover the median gap between neighbouring points at the view's scale, at most 9); the nearest point wins each pixel (one stable
argsort by depth and one ``np.unique`` over pixel ids, no per-point Python loop). Points near the
top of a room-sized cloud (the ceiling, ``ceiling_band`` metres) are dropped so the views see in.
Each view also keeps, per pixel, the index of the point drawn there (``point_id``, -1 for
background): marks are placed where their segment is actually visible.

Text (mark numbers, grid coordinates) is drawn with a built-in 5x7 bitmap font; PNG encoding is
:func:`scenebench.io.png.png_bytes` (zlib, no imaging library needed).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

RENDER_VERSION = "render-2"  # bump when the drawing changes: cached images are keyed by it
BACKGROUND = (236, 236, 236)
GRID = (110, 110, 200)
MARK_FILL = (255, 255, 0)  # mark boxes: pure yellow with a black border and black digits
MARK_INK = (0, 0, 0)

_FONT_ROWS = {
    "0": "01110 10001 10011 10101 11001 10001 01110",
    "1": "00100 01100 00100 00100 00100 00100 01110",
    "2": "01110 10001 00001 00010 00100 01000 11111",
    "3": "11111 00010 00100 00010 00001 10001 01110",
    "4": "00010 00110 01010 10010 11111 00010 00010",
    "5": "11111 10000 11110 00001 00001 10001 01110",
    "6": "00110 01000 10000 11110 10001 10001 01110",
    "7": "11111 00001 00010 00100 01000 01000 01000",
    "8": "01110 10001 10001 01110 10001 10001 01110",
    "9": "01110 10001 10001 01111 00001 00010 01100",
    "-": "00000 00000 00000 11111 00000 00000 00000",
    ".": "00000 00000 00000 00000 00000 01100 01100",
    "x": "00000 00000 10001 01010 00100 01010 10001",
    "z": "00000 00000 11111 00010 00100 01000 11111",
    "y": "00000 00000 10001 10001 01111 00001 01110",
    "=": "00000 00000 11111 00000 11111 00000 00000",
    " ": "00000 00000 00000 00000 00000 00000 00000",
}
FONT = {ch: np.array([[c == "1" for c in row] for row in rows.split()], bool) for ch, rows in _FONT_ROWS.items()}


@dataclass(frozen=True)
class ViewSettings:
    """What the model is shown; every field enters the image cache key and the run's settings."""

    width: int = 640
    height: int = 480
    corner_views: int = 4  # 0..4 perspective views from the bounding box's corners
    top_view: bool = True  # the orthographic top-down view with a metric grid
    elevation_deg: float = 45.0
    splat: int = 3  # pixel size of a point
    max_points: int = 300_000  # a seeded subset of larger clouds is drawn
    ceiling_band: float = 0.25  # metres dropped at the top of clouds taller than 1.8 m
    grid_step: float = 1.0  # metres between grid lines of the top view
    mark_scale: int = 2  # font scale of mark numbers (5x7 glyphs -> 10x14 pixels)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class View:
    """One rendered picture: ``image`` (H, W, 3) uint8 and the point drawn at each pixel (-1: none)."""

    name: str
    image: np.ndarray
    point_id: np.ndarray
    marks: list[tuple[int, int, int]] = field(default_factory=list)  # (mark number, u, v) drawn
    # Top view only: world = origin + (u, v) * axes (metres per pixel), for reading positions off it.
    grid: dict[str, Any] | None = None


def horizontal_axes(up: int) -> tuple[int, int, float]:
    """The two floor axes as (image-right axis, image-down axis, sign of the image-down axis).

    y-up clouds (3DBench houses): x to the right, z down (as the synthetic houses' floor plans are
    drawn). z-up clouds (ScanNet++, 3RScan): x to the right, y up the image (north up).
    """
    if up == 1:
        return 0, 2, 1.0
    if up == 2:
        return 0, 1, -1.0
    return 1, 2, -1.0


def visible_points(points: np.ndarray, up: int, s: ViewSettings) -> np.ndarray:
    """Indices of the points drawn: the ceiling band of room-sized clouds dropped, then a seeded subset."""
    h = points[:, up]
    idx = np.arange(len(points))
    if len(points) and float(h.max() - h.min()) > 1.8:
        idx = idx[h < h.max() - s.ceiling_band]
    if len(idx) > s.max_points:
        rng = np.random.default_rng(0)
        idx = np.sort(rng.choice(idx, size=s.max_points, replace=False))
    return idx


def _splat(u: np.ndarray, v: np.ndarray, depth: np.ndarray, ids: np.ndarray, W: int, H: int, size: int) -> np.ndarray:
    """(H, W) index of the nearest point per pixel (-1 where none), points drawn as size x size squares."""
    out = np.full(H * W, -1, np.int64)
    ok = np.isfinite(u) & np.isfinite(v) & np.isfinite(depth)
    if not ok.any():
        return out.reshape(H, W)
    u, v, depth, ids = u[ok], v[ok], depth[ok], ids[ok]
    order = np.argsort(depth, kind="stable")  # nearest first
    ui = np.floor(u[order]).astype(np.int64)
    vi = np.floor(v[order]).astype(np.int64)
    lo = -(size // 2)
    offs = np.arange(lo, lo + size)
    du, dv = np.meshgrid(offs, offs)
    uu = (ui[:, None] + du.ravel()[None, :]).ravel()
    vv = (vi[:, None] + dv.ravel()[None, :]).ravel()
    pid = np.repeat(ids[order], size * size)
    inside = (uu >= 0) & (uu < W) & (vv >= 0) & (vv < H)
    flat = vv[inside] * W + uu[inside]
    pix, first = np.unique(flat, return_index=True)  # first occurrence = nearest point (sorted order kept)
    out[pix] = pid[inside][first]
    return out.reshape(H, W)


def _colorize(point_id: np.ndarray, rgb: np.ndarray) -> np.ndarray:
    img = np.empty(point_id.shape + (3,), np.uint8)
    img[:] = BACKGROUND
    hit = point_id >= 0
    img[hit] = rgb[point_id[hit]]
    return img


def point_colors(points: np.ndarray, colors: np.ndarray | None, up: int) -> np.ndarray:
    """(N, 3) uint8: the scene's colours, or a height ramp for clouds without colour."""
    if colors is not None and len(colors) == len(points):
        c = np.asarray(colors, float)
        if c.max(initial=0) > 1.0:
            c = c / 255.0
        return (np.clip(c, 0, 1) * 255 + 0.5).astype(np.uint8)
    h = points[:, up]
    t = (h - h.min()) / max(float(np.ptp(h)), 1e-6) if len(h) else h
    return (np.stack([0.3 + 0.6 * t, 0.5 + 0.2 * t, 0.9 - 0.6 * t], 1) * 255).astype(np.uint8)


def corner_cameras(points: np.ndarray, up: int, s: ViewSettings) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """(name, eye, forward, up vector) of the corner views, in the order south-west, south-east, north-east, north-west."""
    lo, hi = points.min(0), points.max(0)
    c = (lo + hi) / 2
    a, b, sb = horizontal_axes(up)
    upv = np.zeros(3)
    upv[up] = 1.0
    diag = float(np.hypot(hi[a] - lo[a], hi[b] - lo[b])) or 1.0
    el = np.radians(s.elevation_deg)
    dist = 0.75 * diag
    names = ["corner-1", "corner-2", "corner-3", "corner-4"]
    out = []
    for k, (sa, sbb) in enumerate([(-1, 1), (1, 1), (1, -1), (-1, -1)][: s.corner_views]):
        d = np.zeros(3)
        d[a], d[b] = sa * (hi[a] - lo[a]), sbb * sb * (hi[b] - lo[b])
        d /= np.linalg.norm(d) or 1.0
        eye = c + d * dist * np.cos(el) + upv * dist * np.sin(el)
        fwd = c - eye
        out.append((names[k], eye, fwd / np.linalg.norm(fwd), upv))
    return out


def perspective(
    points: np.ndarray, eye: np.ndarray, fwd: np.ndarray, upv: np.ndarray, W: int, H: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Pixel coordinates (u, v), depth and the focal length (pixels) fitting every point in front."""
    right = np.cross(fwd, upv)
    right /= np.linalg.norm(right) or 1.0
    down = np.cross(fwd, right)
    p = points - eye
    x, y, z = p @ right, p @ down, p @ fwd
    front = z > 1e-3
    z = np.where(front, z, np.nan)
    tx, ty = np.abs(x / z), np.abs(y / z)
    fx = (W / 2 - 4) / max(float(np.nanmax(tx)) if front.any() else 1.0, 1e-6)
    fy = (H / 2 - 4) / max(float(np.nanmax(ty)) if front.any() else 1.0, 1e-6)
    f = min(fx, fy)
    return W / 2 + f * x / z, H / 2 + f * y / z, z, f


def point_spacing(points: np.ndarray, sample: int = 4000) -> float:
    """Median distance to the nearest other point (metres), on a seeded subset: how far apart surface points are."""
    from scipy.spatial import cKDTree

    if len(points) < 2:
        return 0.0
    rng = np.random.default_rng(0)
    probe = points[rng.choice(len(points), size=min(sample, len(points)), replace=False)]
    d, _ = cKDTree(points).query(probe, k=2)
    return float(np.median(d[:, 1]))


def splat_size(pixels_per_point: float, s: ViewSettings) -> int:
    """Splats at least ``s.splat`` wide and wide enough to close the gaps between neighbours (at most 9)."""
    return int(np.clip(np.ceil(pixels_per_point) + 1, s.splat, 9))


def top_projection(points: np.ndarray, up: int, s: ViewSettings) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Orthographic top-down pixel coordinates and the metric grid mapping (margins hold the grid labels)."""
    a, b, sb = horizontal_axes(up)
    lo, hi = points.min(0), points.max(0)
    left, top, pad = 44, 22, 6
    W, H = s.width, s.height
    ext_a = max(float(hi[a] - lo[a]), 1e-3)
    ext_b = max(float(hi[b] - lo[b]), 1e-3)
    ppm = min((W - left - pad) / ext_a, (H - top - pad) / ext_b)
    # world coordinate at pixel (u, v): a = a0 + u / ppm ; b = b0 + sb * v / ppm
    a0 = float(lo[a]) - left / ppm
    b0 = float(lo[b]) - top / ppm if sb > 0 else float(hi[b]) + top / ppm
    u = (points[:, a] - a0) * ppm
    v = (points[:, b] - b0) * ppm * sb
    grid = {"axes": ["xyz"[a], "xyz"[b]], "origin": [a0, b0], "pixels_per_metre": ppm, "down_sign": sb, "left": left, "top": top}
    return u, v, grid


def draw_text(img: np.ndarray, text: str, u: int, v: int, scale: int, color: tuple[int, int, int]) -> None:
    """Draw ``text`` with its top-left corner at pixel (u, v), clipped to the image."""
    H, W = img.shape[:2]
    x = u
    for ch in text:
        g = FONT.get(ch, FONT[" "])
        big = np.kron(g, np.ones((scale, scale), bool))
        gh, gw = big.shape
        y0, y1, x0, x1 = max(v, 0), min(v + gh, H), max(x, 0), min(x + gw, W)
        if y1 > y0 and x1 > x0:
            sub = big[y0 - v : y1 - v, x0 - x : x1 - x]
            img[y0:y1, x0:x1][sub] = color
        x += gw + scale


def text_size(text: str, scale: int) -> tuple[int, int]:
    return len(text) * 6 * scale - scale, 7 * scale


def mark_box(text: str, u: int, v: int, scale: int, W: int, H: int) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1) of the mark label centred at (u, v), shifted to lie inside the image."""
    tw, th = text_size(text, scale)
    bw, bh = tw + 2 * scale + 2, th + 2 * scale + 2
    x0 = int(np.clip(u - bw // 2, 0, max(W - bw, 0)))
    y0 = int(np.clip(v - bh // 2, 0, max(H - bh, 0)))
    return x0, y0, x0 + bw, y0 + bh


def draw_mark(img: np.ndarray, number: int, u: int, v: int, scale: int) -> None:
    H, W = img.shape[:2]
    text = str(number)
    x0, y0, x1, y1 = mark_box(text, u, v, scale, W, H)
    img[y0:y1, x0:x1] = MARK_INK
    img[y0 + 1 : y1 - 1, x0 + 1 : x1 - 1] = MARK_FILL
    draw_text(img, text, x0 + scale + 1, y0 + scale + 1, scale, MARK_INK)


def mark_positions(point_id: np.ndarray, segment_of_point: np.ndarray, n_segments: int, min_pixels: int = 12) -> dict[int, tuple[int, int]]:
    """Per segment visible in the view (at least ``min_pixels``): the segment pixel nearest its visible centroid."""
    vv, uu = np.nonzero(point_id >= 0)
    seg = segment_of_point[point_id[vv, uu]]
    keep = seg >= 0
    vv, uu, seg = vv[keep], uu[keep], seg[keep]
    if seg.size == 0:
        return {}
    cnt = np.bincount(seg, minlength=n_segments)
    mu = np.bincount(seg, weights=uu, minlength=n_segments) / np.maximum(cnt, 1)
    mv = np.bincount(seg, weights=vv, minlength=n_segments) / np.maximum(cnt, 1)
    d = (uu - mu[seg]) ** 2 + (vv - mv[seg]) ** 2
    order = np.lexsort((d, seg))
    segs, first = np.unique(seg[order], return_index=True)
    out = {}
    for sgm, j in zip(segs.tolist(), order[first].tolist()):
        if cnt[sgm] >= min_pixels:
            out[int(sgm)] = (int(uu[j]), int(vv[j]))
    return out


def draw_grid(img: np.ndarray, grid: dict[str, Any], step: float) -> None:
    """Grid lines every ``step`` metres over the top view, coordinates along the top and left margins."""
    H, W = img.shape[:2]
    ppm, (a0, b0), sb = grid["pixels_per_metre"], grid["origin"], grid["down_sign"]
    left, top = grid["left"], grid["top"]
    img[:top, :] = 255
    img[:, :left] = 255
    a_first = np.ceil((a0 + left / ppm) / step) * step
    for val in np.arange(a_first, a0 + W / ppm, step):
        u = int(round((val - a0) * ppm))
        if left <= u < W:
            img[top:, u] = GRID
            label = f"{val:g}" if step < 1 else f"{int(round(val))}"
            tw, _ = text_size(label, 1)
            draw_text(img, label, u - tw // 2, 4, 1, (0, 0, 0))
    b_end = b0 + sb * H / ppm
    b_lo, b_hi = min(b0, b_end), max(b0, b_end)
    for val in np.arange(np.ceil(b_lo / step) * step, b_hi, step):
        v = int(round((val - b0) * sb * ppm))
        if top <= v < H:
            img[v, left:] = GRID
            label = f"{val:g}" if step < 1 else f"{int(round(val))}"
            tw, _ = text_size(label, 1)
            draw_text(img, label, left - tw - 4, v - 3, 1, (0, 0, 0))
    axis_a, axis_b = grid["axes"]
    draw_text(img, axis_a, 2, 4, 1, (0, 0, 0))
    draw_text(img, axis_b, 2, 14, 1, (0, 0, 0))


def render_views(
    points: np.ndarray, colors: np.ndarray | None, up: int, s: ViewSettings, segment_of_point: np.ndarray | None = None, n_segments: int = 0
) -> list[View]:
    """The corner views and the top view of a cloud, with numbered marks (segment k is mark k + 1)."""
    pts = np.asarray(points, float)
    if len(pts) == 0:
        blank = np.full((s.height, s.width, 3), BACKGROUND, np.uint8)
        names = [f"corner-{k + 1}" for k in range(s.corner_views)] + (["top"] if s.top_view else [])
        return [View(n, blank.copy(), np.full((s.height, s.width), -1, np.int64)) for n in names]
    rgb = point_colors(pts, colors, up)
    idx = visible_points(pts, up, s)
    sub = pts[idx]
    views: list[View] = []
    spacing = point_spacing(sub)  # sparse clouds get bigger splats, so surfaces look closed
    for name, eye, fwd, upv in corner_cameras(sub, up, s):
        u, v, z, f = perspective(sub, eye, fwd, upv, s.width, s.height)
        size = splat_size(f * spacing / max(float(np.nanmedian(z)), 1e-6), s)
        pid = _splat(u, v, z, idx, s.width, s.height, size)
        views.append(View(name, _colorize(pid, rgb), pid))
    if s.top_view:
        u, v, grid = top_projection(sub, up, s)
        pid = _splat(u, v, -sub[:, up], idx, s.width, s.height, splat_size(grid["pixels_per_metre"] * spacing, s))
        img = _colorize(pid, rgb)
        draw_grid(img, grid, s.grid_step)
        pid[: grid["top"], :] = -1
        pid[:, : grid["left"]] = -1
        views.append(View("top", img, pid, grid=grid))
    if segment_of_point is not None and n_segments:
        seg = np.asarray(segment_of_point)
        sizes = np.bincount(seg[seg >= 0], minlength=n_segments)
        for view in views:
            pos = mark_positions(view.point_id, seg, n_segments)
            # Large segments first, so the marks of small ones (drawn last) stay readable on top.
            for sgm, (u0, v0) in sorted(pos.items(), key=lambda kv: (-int(sizes[kv[0]]), kv[0])):
                draw_mark(view.image, sgm + 1, u0, v0, s.mark_scale)
                view.marks.append((sgm + 1, u0, v0))
    return views


def thumbnail(img: np.ndarray, factor: int = 2) -> np.ndarray:
    """Box-filtered downsample by an integer factor."""
    H, W = (img.shape[0] // factor) * factor, (img.shape[1] // factor) * factor
    x = img[:H, :W].reshape(H // factor, factor, W // factor, factor, 3).astype(np.float32).mean(axis=(1, 3))
    return (x + 0.5).astype(np.uint8)
