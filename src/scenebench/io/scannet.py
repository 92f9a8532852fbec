"""ScanNet-layout scene files, as ScanRefer's preprocessing writes them and every ScanNet-based
benchmark (ScanRefer, ScanQA, Scan2Cap, Multi3DRefer) reads them.

- ``scannet_data/<scene_id>_aligned_bbox.npy``: ``(K, 8)`` rows ``[cx, cy, cz, dx, dy, dz, nyu40id,
  object_id]``, axis-aligned boxes (full extents, metres) in the axis-aligned frame, ``object_id``
  the aggregation ``objectId`` (ScanRefer ``data/scannet/load_scannet_data.py``);
- ``<scene_id>_aligned_vert.npy``: ``(N, 6)`` xyz + rgb 0-255 of the aligned points;
- ``<scene_id>_ins_label.npy``: ``(N,)`` ``object_id + 1`` per point, 0 unannotated;
- ``<scene_id>.txt``: the meta file whose ``axisAlignment = m00 ... m33`` line (16 floats,
  row-major 4x4) maps raw points into the aligned frame (``pts_h @ M.T``); test scans have none
  and keep the raw frame;
- ``scannetv2-labels.combined.tsv``: raw category -> NYU40 id and class.

Readers raise :class:`~scenebench.errors.InputError` naming the file (and the row or line); writers
are atomic. Nothing here names a benchmark.
"""

from __future__ import annotations

import io
import re
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

import numpy as np

from scenebench.errors import InputError
from scenebench.io.arrays import load_npy
from scenebench.io.files import atomic_write_bytes, atomic_write_text


class _InScene(Protocol):
    @property
    def scene_id(self) -> str: ...


T = TypeVar("T", bound=_InScene)

SCENES = "scannet_data"
TSV = "scannetv2-labels.combined.tsv"
TSV_HEAD = ["id", "raw_category", "category", "count", "nyu40id", "eigen13id", "nyuClass", "nyu40class"]
NYU40 = {"wall": 1, "floor": 2, "cabinet": 3, "bed": 4, "chair": 5, "sofa": 6, "table": 7, "door": 8, "window": 9, "bookshelf": 10}
NYU40 |= {"picture": 11, "counter": 12, "desk": 14, "curtain": 16, "refrigerator": 24, "shower curtain": 28, "ceiling": 22}
NYU40 |= {"toilet": 33, "sink": 34, "bathtub": 36, "otherprop": 40}
SCENE_FILES = ("aligned_bbox", "aligned_vert", "ins_label")
BOX_COLUMNS = "cx cy cz dx dy dz nyu40id object_id"


def write_npy(path: Path, arr: np.ndarray) -> None:
    """``arr`` as a ``.npy`` file, atomically and without pickles."""
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.ascontiguousarray(arr), allow_pickle=False)
    atomic_write_bytes(path, buf.getvalue())


def by_scene(items: Iterable[T]) -> dict[str, list[T]]:
    """``items`` (records with a ``scene_id``) grouped by scene, scenes and records in input order."""
    out: dict[str, list[T]] = {}
    for item in items:
        out.setdefault(item.scene_id, []).append(item)
    return out


def scene_paths(folder: str | Path, scene_id: str) -> list[Path]:
    """The box table, points and instance labels of one scene, in :data:`SCENE_FILES` order."""
    return [Path(folder) / f"{scene_id}_{kind}.npy" for kind in SCENE_FILES]


def copy_scene(source: str | Path, dest: str | Path, scene_id: str) -> list[Path]:
    """Copy one scene's three files (:data:`SCENE_FILES`) from folder ``source`` into ``dest``; the copies."""
    out = scene_paths(dest, scene_id)
    for src, dst in zip(scene_paths(source, scene_id), out):
        shutil.copyfile(src, dst)
    return out


def write_scene(folder: Path, scene_id: str, boxes: np.ndarray, vert: np.ndarray, ins: np.ndarray) -> list[Path]:
    """One scene's box table ``(K, 8)``, points ``(N, 6)`` and per-point ``object_id + 1`` (0: none)."""
    out = scene_paths(folder, scene_id)
    for path, arr, dtype in zip(out, (np.reshape(boxes, (-1, 8)), vert, ins), (np.float64, np.float32, np.uint32)):
        write_npy(path, np.asarray(arr, dtype))
    return out


def box_path(folder: str | Path, scene_id: str) -> Path:
    return Path(folder) / f"{scene_id}_aligned_bbox.npy"


def load_boxes(folder: str | Path, scene_id: str) -> np.ndarray:
    """A scene's (K, 8) box table, checked: finite, sizes >= 0."""
    p = box_path(folder, scene_id)
    t = load_npy(p)
    if t.ndim != 2 or t.shape[1] != 8 or not np.issubdtype(t.dtype, np.number):
        raise InputError(p, f"box table has shape {t.shape}", expected=f"(K, 8) numbers: {BOX_COLUMNS}")
    bad = np.flatnonzero(~np.isfinite(t).all(1) | (t[:, 3:6] < 0).any(1))
    if bad.size:
        raise InputError(p, "non-finite number or negative size", where=f"row {int(bad[0])}", expected="finite rows, sizes >= 0")
    return t.astype(np.float64)


def load_minmax_boxes(folder: str | Path, scene_id: str) -> tuple[np.ndarray, np.ndarray]:
    """A scene's object ids ``(K,)`` and min-max boxes ``(K, 6)`` from its checked box table."""
    t = load_boxes(folder, scene_id)
    half = t[:, 3:6] / 2.0
    return t[:, 7].astype(np.int64), np.concatenate([t[:, :3] - half, t[:, :3] + half], axis=1)


def corners_of_minmax(minmax: Sequence[float] | np.ndarray) -> list[list[float]]:
    """The 8 corners ``min + (max - min) * {0, 1}^3`` of a min-max box, x the fastest bit (the order
    M3DRef-CLIP and Scan2Cap's ``pred.json`` write them); the inverse of :func:`minmax_of_corners`."""
    b = [float(v) for v in np.asarray(minmax, dtype=float).reshape(-1)[:6]]
    lo, hi = b[:3], b[3:6]
    return [[(hi if i >> k & 1 else lo)[k] for k in range(3)] for i in range(8)]


def minmax_of_corners(value: object, path: Path, *, where: str, field: str, expected: str = "[[x, y, z] x 8]") -> np.ndarray:
    """The ``(6,)`` min-max box of one box given as 8 corners (the axis-aligned box of the corners, as
    the released ``box3d_iou`` readers take it); anything else is an error naming ``field``."""
    try:
        corners = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        corners = np.zeros(0)
    if corners.shape != (8, 3) or not np.isfinite(corners).all():
        raise InputError(path, "not 8 corners of finite numbers", where=where, field=field, expected=expected)
    return np.concatenate([corners.min(0), corners.max(0)])


def load_vertices(folder: str | Path, scene_id: str) -> np.ndarray:
    """A scene's ``(N, 6)`` aligned points (xyz, rgb 0-255), checked for shape."""
    p = Path(folder) / f"{scene_id}_aligned_vert.npy"
    v = load_npy(p)
    if v.ndim != 2 or v.shape[1] < 6 or not np.issubdtype(v.dtype, np.number):
        raise InputError(p, f"vertex array has shape {v.shape}", expected="(N, 6) numbers: x y z r g b")
    return v


def load_instance_labels(folder: str | Path, scene_id: str, n_points: int | None = None) -> np.ndarray:
    """A scene's per-point ``object_id`` (``-1``: unannotated) from ``_ins_label.npy`` (``object_id + 1``)."""
    p = Path(folder) / f"{scene_id}_ins_label.npy"
    ins = load_npy(p)
    if ins.ndim != 1 or not np.issubdtype(ins.dtype, np.integer) or (n_points is not None and len(ins) != n_points):
        want = f"({n_points},)" if n_points is not None else "(N,)"
        raise InputError(p, f"instance labels have shape {ins.shape} and dtype {ins.dtype}", expected=f"{want} integers")
    return ins.astype(np.int64) - 1


def boxes_from_points(
    points: np.ndarray, instance_ids: np.ndarray, nyu40: Sequence[int] | np.ndarray, object_ids: Sequence[int] | np.ndarray
) -> np.ndarray:
    """The ``(K, 8)`` aligned box table of ``object_ids``: min/max of each object's points (as every
    reader computes ground truth; an object without points gets a zero-size box at the origin)."""
    obj = np.asarray(object_ids, np.int64)
    table = np.zeros((len(obj), 8))
    table[:, 6] = np.asarray(nyu40, float)
    table[:, 7] = obj
    ids = np.asarray(instance_ids, np.int64)
    pts = np.asarray(points, float)[:, :3]
    keep = np.isin(ids, obj)
    if not keep.any():
        return table
    row = np.searchsorted(np.sort(obj), ids[keep])
    order = np.argsort(obj)
    rows = order[row]
    lo = np.full((len(obj), 3), np.inf)
    hi = np.full((len(obj), 3), -np.inf)
    np.minimum.at(lo, rows, pts[keep])
    np.maximum.at(hi, rows, pts[keep])
    seen = np.isfinite(lo).all(1)
    table[seen, :3] = (lo[seen] + hi[seen]) / 2
    table[seen, 3:6] = hi[seen] - lo[seen]
    return table


_ALIGN = re.compile(r"^\s*axisAlignment\s*=\s*(.*)$")


def read_axis_alignment(path: str | Path) -> np.ndarray | None:
    """The 4x4 ``axisAlignment`` of a ScanNet meta file ``<scene>.txt``, or ``None`` when it has no
    such line (test scans: the raw frame is kept, as ScanRefer's loader does)."""
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(p, f"cannot be read: {e}") from None
    for n, line in enumerate(lines, 1):
        m = _ALIGN.match(line)
        if m is None:
            continue
        try:
            vals = [float(x) for x in m.group(1).split()]
        except ValueError:
            vals = []
        if len(vals) != 16 or not np.isfinite(vals).all():
            raise InputError(
                p, "axisAlignment is not 16 finite numbers", where=f"line {n}", field="axisAlignment", expected="16 floats, row-major 4x4"
            )
        return np.asarray(vals, float).reshape(4, 4)
    return None


def write_axis_alignment(path: Path, matrix: np.ndarray | None, extra: Sequence[str] = ()) -> Path:
    """A meta file with the ``axisAlignment`` line (none when ``matrix`` is ``None``) and ``extra`` lines."""
    lines = list(extra)
    if matrix is not None:
        lines.insert(0, "axisAlignment = " + " ".join(repr(float(x)) for x in np.asarray(matrix, float).reshape(16)))
    atomic_write_text(path, "\n".join(lines) + "\n")
    return path


def align_points(points: np.ndarray, matrix: np.ndarray | None) -> np.ndarray:
    """``points[:, :3]`` in the aligned frame (``pts_h @ M.T``, the homogeneous coordinate dropped);
    ``matrix=None`` keeps them (a scan without alignment). Other columns (colours) are kept."""
    pts = np.asarray(points, float)
    if matrix is None:
        return pts.copy()
    m = np.asarray(matrix, float)
    out = pts.copy()
    out[:, :3] = pts[:, :3] @ m[:3, :3].T + m[:3, 3]
    return out


def nyu40class(raw: str) -> str:
    """A raw category's NYU40 class: the longest class name it ends with (``sidetable``: table), else ``otherprop``."""
    return next((c for c in sorted(NYU40, key=len, reverse=True) if raw.replace(" ", "").endswith(c.replace(" ", ""))), "otherprop")


def write_labels(path: Path, raw_names: Sequence[str]) -> Path:
    """``scannetv2-labels.combined.tsv`` covering every raw name (its NYU40 class by :func:`nyu40class`)."""
    rows = ["\t".join(TSV_HEAD)]
    for i, raw in enumerate(sorted(set(raw_names)), start=1):
        c = nyu40class(raw)
        rows.append("\t".join([str(i), raw, raw, "1", str(NYU40[c]), "0", c, c]))
    atomic_write_text(path, "\n".join(rows) + "\n")
    return path
