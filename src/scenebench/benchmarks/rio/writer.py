"""Write scans and the scene index in the official 3RScan formats (used by synthetic data and tests).

Everything the loader (:mod:`scenebench.benchmarks.rio.loader`) reads, this module can write, so a
procedurally generated house becomes a 3RScan-shaped folder that both scenebench and third-party
3RScan tools can open.

Per scan (``write_scan``), in ``ROOT/<scan_id>/``:

- ``labels.instances.annotated.v2.ply`` -- ASCII PLY, ``element vertex`` with properties
  ``float x y z``, ``uchar red green blue``, ``ushort objectId globalId``, ``uchar NYU40 Eigen13 RIO27``
  (exactly the header of real 3RScan v2), plus ``element face`` (``list uchar int vertex_indices``)
  when faces are given.
- ``mesh.refined.v2.obj`` -- ``v x y z`` lines and 1-based ``f a b c`` lines (no material: the
  real files' texture is not needed by any metric). Same vertex order as the PLY, as in 3RScan v2.
- ``mesh.refined.0.010000.segs.v2.json`` -- ``segIndices`` per vertex. We use one segment per
  instance whose id is the instance id (0 for unlabelled vertices), so ``segGroups[].segments`` is
  ``[id]``; real data has many over-segments per instance, which readers must not assume away.
- ``semseg.v2.json`` -- ``{"scan_id", "segmentsFile", "segGroups": [{"id", "objectId", "label",
  "segments", "obb": {"centroid", "axesLengths", "normalizedAxes"}}]}``.

**OBB construction** (documented because the pose metrics use its centre as the symmetry pivot):
gravity aligned, like the boxes of 3RScan. The first two axes are the principal directions of the
instance's x-y coordinates (PCA, larger spread first), the third is +Z. ``normalizedAxes`` holds the
three unit axes one after another (9 numbers), ``axesLengths`` the full extents along them, and
``centroid`` the centre of the box (the mid-point of the extents), not the mean of the points.

Index (``write_index``), in ``ROOT/``:

- ``3RScan.json`` -- list of scenes ``{reference, type, ambiguity, scans: [{reference, transform,
  rigid: [{instance_reference, instance_rescan, symmetry, transform}], nonrigid, removed}]}``. Every
  4x4 matrix is given to the writer as a normal (row-major) 4x4 and written as 16 numbers in
  **column-major** order, like the real file. ``units="mm"`` multiplies every translation by 1000
  (the FAQ's millimetre convention), ``units="m"`` keeps metres, so both conventions can be tested.
- ``objects.json`` -- ``{"scans": [{"scan", "objects": [{"id", "global_id", "label", "ply_color",
  "nyu40", "eigen13", "rio27", "attributes"[, "symmetry"]}]}]}`` with ids as strings, as in 3RScan.

Frame convention: vertices are metres, +Z up. ``scans[].transform`` maps the rescan's own frame
into the reference frame; ``rigid[].transform`` maps the instance's reference-scan points to where
the instance is in the rescan, both expressed in the reference frame (i.e. after the rescan has
been aligned with ``transform``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.io.files import atomic_write_bytes, atomic_write_json

PLY_NAME = "labels.instances.annotated.v2.ply"
OBJ_NAME = "mesh.refined.v2.obj"
SEMSEG_NAME = "semseg.v2.json"
SEGS_NAME = "mesh.refined.0.010000.segs.v2.json"
INDEX_NAME = "3RScan.json"
OBJECTS_NAME = "objects.json"

_UNIT_SCALE = {"m": 1.0, "mm": 1000.0}


def gravity_aligned_obb(points: np.ndarray) -> dict[str, list[float]]:
    """Z-up oriented box of ``points`` (N, 3) metres: ``{centroid (3), axesLengths (3), normalizedAxes (9)}``."""
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    xy = pts[:, :2] - pts[:, :2].mean(axis=0)
    cov = xy.T @ xy
    evals, evecs = np.linalg.eigh(cov)
    a1 = evecs[:, int(np.argmax(evals))]
    # Fix the sign so the output is deterministic whatever eigh returns.
    if a1[0] < 0 or (a1[0] == 0 and a1[1] < 0):
        a1 = -a1
    a2 = np.array([-a1[1], a1[0]])
    axes = np.array([[a1[0], a1[1], 0.0], [a2[0], a2[1], 0.0], [0.0, 0.0, 1.0]])
    local = pts @ axes.T
    lo, hi = local.min(axis=0), local.max(axis=0)
    centre = ((lo + hi) / 2.0) @ axes
    return {
        "centroid": [float(v) for v in centre],
        "axesLengths": [float(v) for v in (hi - lo)],
        "normalizedAxes": [float(v) for v in axes.reshape(-1)],
    }


_VERTEX_DTYPE = [
    ("x", "f4"),
    ("y", "f4"),
    ("z", "f4"),
    ("red", "u1"),
    ("green", "u1"),
    ("blue", "u1"),
    ("objectId", "u2"),
    ("globalId", "u2"),
    ("NYU40", "u1"),
    ("Eigen13", "u1"),
    ("RIO27", "u1"),
]


def _ply_bytes(vertices: np.ndarray, colors: np.ndarray, faces: np.ndarray | None, per_vertex: dict[str, np.ndarray]) -> bytes:
    """ASCII PLY with plyfile's header and its row format (``%.18g`` of each field cast to its PLY
    type), formatted in one pass: plyfile's own writer formats row by row (~3 s for a 14k-vertex
    scan). ``tests/rio/test_writer_bytes.py`` checks the bytes against plyfile's writer."""
    from plyfile import PlyData, PlyElement

    rec = np.empty(len(vertices), dtype=_VERTEX_DTYPE)
    rec["x"], rec["y"], rec["z"] = vertices[:, 0], vertices[:, 1], vertices[:, 2]
    rec["red"], rec["green"], rec["blue"] = colors[:, 0], colors[:, 1], colors[:, 2]
    for k in ("objectId", "globalId", "NYU40", "Eigen13", "RIO27"):
        rec[k] = per_vertex[k]
    elements = [PlyElement.describe(rec, "vertex")]
    frec = None
    if faces is not None and len(faces):
        frec = np.empty(len(faces), dtype=[("vertex_indices", "i4", (3,))])
        frec["vertex_indices"] = faces
        elements.append(PlyElement.describe(frec, "face", len_types={"vertex_indices": "u1"}))
    header = PlyData(elements, text=True).header + "\n"
    cols = [rec[name].astype(np.float64) for name, _ in _VERTEX_DTYPE]
    rows = np.stack(cols, 1).tolist() if len(rec) else []
    fmt = " ".join(["%.18g"] * len(cols))
    body = "\n".join(fmt % tuple(r) for r in rows) + ("\n" if rows else "")
    if frec is not None:
        face_rows: list[list[int]] = frec["vertex_indices"].astype(np.int64).tolist()  # type: ignore[assignment]  # 2-D: rows
        body += "\n".join("3 %d %d %d" % tuple(r) for r in face_rows) + "\n"
    return (header + body).encode("ascii")


def _obj_text(vertices: np.ndarray, faces: np.ndarray | None, colors: np.ndarray | None = None) -> str:
    parts = ["# written by scenebench (3RScan mesh.refined.v2.obj layout)\n"]
    if len(vertices) and colors is not None:  # vertex colours 0..1 after the position (MeshLab / Open3D convention)
        rows = np.concatenate([vertices, np.asarray(colors, float) / 255.0], 1).tolist()
        parts.append("\n".join("v %.6f %.6f %.6f %.6f %.6f %.6f" % tuple(r) for r in rows) + "\n")
    elif len(vertices):
        parts.append("\n".join("v %.6f %.6f %.6f" % tuple(r) for r in vertices.tolist()) + "\n")
    if faces is not None and len(faces):
        parts.append("\n".join("f %d %d %d" % tuple(r) for r in (faces.astype(np.int64) + 1).tolist()) + "\n")
    return "".join(parts)


def write_scan(
    scan_dir: str | Path,
    vertices: np.ndarray,
    colors: np.ndarray,
    faces: np.ndarray | None,
    object_ids: np.ndarray,
    instances: Sequence[Mapping[str, Any]],
    *,
    atomic: bool = True,
    labels_dir: str | Path | None = None,
) -> dict[str, Path]:
    """Write one scan folder in the 3RScan v2 layout; return the paths written.

    ``atomic=False`` writes files plainly, for callers that write into a staging folder whose
    rename is the commit (the synthetic-data pipeline); the bytes are the same.

    ``labels_dir`` (``OUT/gt/3rscan/<scan_id>``) takes the files that carry instance labels (the
    PLY, ``semseg.v2.json``, the segments file) instead of ``scan_dir``, which then keeps the
    geometry alone: ``mesh.refined.v2.obj`` with vertex colours (for rescans of an evaluated split,
    whose labels would give every changed object's pose away).

    Args:
        scan_dir: ``ROOT/<scan_id>``; the folder name is the scan id.
        vertices: (N, 3) float, metres, +Z up.
        colors: (N, 3) uint8 RGB.
        faces: (F, 3) int vertex indices (0-based) or None for a point cloud.
        object_ids: (N,) int instance id per vertex; 0 = unlabelled.
        instances: one dict per instance id present: ``id`` (int > 0), ``global_id`` (int), ``label``
            (str), optional ``nyu40``/``eigen13``/``rio27`` (ints, default 0) and ``attributes``.
    """
    scan_dir = Path(scan_dir)
    v = np.asarray(vertices, dtype=float)
    c = np.asarray(colors)
    ids = np.asarray(object_ids).astype(np.int64)
    if v.ndim != 2 or v.shape[1] != 3:
        raise ValueError(f"vertices must be (N, 3), got {v.shape}")
    if c.shape != v.shape:
        raise ValueError(f"colors must be (N, 3) like vertices, got {c.shape}")
    if ids.shape != (len(v),):
        raise ValueError(f"object_ids must be (N,), got {ids.shape}")
    f = None if faces is None else np.asarray(faces).astype(np.int64).reshape(-1, 3)
    if f is not None and len(f) and (f.min() < 0 or f.max() >= len(v)):
        raise ValueError("faces index vertices out of range")
    by_id = {int(inst["id"]): inst for inst in instances}
    if 0 in by_id:
        raise ValueError("instance id 0 is reserved for unlabelled vertices")
    unknown = sorted(set(np.unique(ids).tolist()) - set(by_id) - {0})
    if unknown:
        raise ValueError(f"object_ids {unknown[:5]} have no entry in instances")
    if ids.size and (ids.min() < 0 or ids.max() > 65535):
        raise ValueError("object_ids must fit the PLY's ushort objectId (0..65535)")
    if c.size and (np.asarray(c).min() < 0 or np.asarray(c).max() > 255):
        raise ValueError("colors must be 0..255")

    # Per-vertex label columns come from the instance table through a lookup array (no Python loop over vertices).
    size = max([0, *by_id, int(ids.max()) if ids.size else 0]) + 1
    lut = {k: np.zeros(size, dtype=np.int64) for k in ("globalId", "NYU40", "Eigen13", "RIO27")}
    for iid, inst in by_id.items():
        lut["globalId"][iid] = int(inst.get("global_id", 0))
        lut["NYU40"][iid] = int(inst.get("nyu40", 0))
        lut["Eigen13"][iid] = int(inst.get("eigen13", 0))
        lut["RIO27"][iid] = int(inst.get("rio27", 0))
    per_vertex = {"objectId": ids, **{k: arr[ids] for k, arr in lut.items()}}

    scan_dir.mkdir(parents=True, exist_ok=True)
    lab = scan_dir if labels_dir is None else Path(labels_dir)
    lab.mkdir(parents=True, exist_ok=True)
    paths = {"ply": lab / PLY_NAME, "obj": scan_dir / OBJ_NAME, "semseg": lab / SEMSEG_NAME, "segs": lab / SEGS_NAME}
    groups = []
    order = np.argsort(ids, kind="stable")  # one sort instead of a full mask per instance
    sorted_ids = ids[order]
    for iid in sorted(by_id):
        lo, hi = np.searchsorted(sorted_ids, [iid, iid + 1])
        pts = v[np.sort(order[lo:hi])]
        g: dict[str, Any] = {"id": iid, "objectId": iid, "label": str(by_id[iid]["label"]), "segments": [iid] if len(pts) else []}
        if len(pts):
            g["obb"] = gravity_aligned_obb(pts)
        groups.append(g)
    texts = {
        "ply": _ply_bytes(v, c, f, per_vertex),
        "obj": _obj_text(v, f, None if labels_dir is None else c).encode("utf-8"),
        "segs": (
            json.dumps({"sceneId": f"scenebench.{scan_dir.name}", "segIndices": ids.tolist()}, ensure_ascii=False, allow_nan=False) + "\n"
        ).encode("utf-8"),
        "semseg": (
            json.dumps(
                {"scan_id": scan_dir.name, "segmentsFile": SEGS_NAME, "segGroups": groups}, indent=2, ensure_ascii=False, allow_nan=False
            )
            + "\n"
        ).encode("utf-8"),
    }
    for key, data in texts.items():
        if atomic:
            atomic_write_bytes(paths[key], data)
        else:
            paths[key].write_bytes(data)
    return paths


def column_major(matrix: Any, scale_translation: float = 1.0) -> list[float]:
    """A 4x4 (row-major nested list or array) as 16 numbers in column-major order, translation scaled."""
    m = np.array(matrix, dtype=float).reshape(4, 4)
    m[:3, 3] *= scale_translation
    return [float(x) for x in m.T.reshape(-1)]


def _identity() -> np.ndarray:
    return np.eye(4)


def _scene_json(scene: Mapping[str, Any], scale: float) -> dict[str, Any]:
    amb_out = []
    for group in scene.get("ambiguity", []) or []:
        entries = group if isinstance(group, (list, tuple)) else [group]
        amb_out.append(
            [
                {
                    "instance_source": int(e["instance_source"]),
                    "instance_target": int(e["instance_target"]),
                    "transform": column_major(e.get("transform", _identity()), scale),
                }
                for e in entries
            ]
        )
    scans = []
    for s in scene.get("scans", []):
        scans.append(
            {
                "reference": str(s["reference"]),
                "transform": column_major(s.get("transform", _identity()), scale),
                "rigid": [
                    {
                        "instance_reference": int(r["instance_reference"]),
                        "instance_rescan": int(r.get("instance_rescan", r["instance_reference"])),
                        "symmetry": int(r.get("symmetry", 0)),
                        "transform": column_major(r["transform"], scale),
                    }
                    for r in s.get("rigid", [])
                ],
                "nonrigid": [int(x) for x in s.get("nonrigid", [])],
                "removed": [int(x) for x in s.get("removed", [])],
            }
        )
    return {"reference": str(scene["reference"]), "type": str(scene.get("type", "validation")), "ambiguity": amb_out, "scans": scans}


def _hex_colour(i: int) -> str:
    rng = np.random.default_rng(i)
    r, g, b = (int(x) for x in rng.integers(0, 256, size=3))
    return f"#{r:02x}{g:02x}{b:02x}"


def write_index(
    root: str | Path,
    scenes: Sequence[Mapping[str, Any]],
    objects: Mapping[str, Sequence[Mapping[str, Any]]],
    *,
    units: str = "m",
) -> dict[str, Path]:
    """Write ``3RScan.json`` and ``objects.json`` under ``root``.

    Args:
        scenes: ``[{reference, type ("train"|"validation"|"test"), ambiguity (optional list of groups,
            each a list of {instance_source, instance_target, transform}), scans: [{reference,
            transform (4x4, rescan -> reference; identity if absent), rigid: [{instance_reference,
            instance_rescan, symmetry (0/1/2), transform (4x4)}], nonrigid: [ids], removed: [ids]}]}]``.
            Matrices are ordinary 4x4 (``M @ [x, y, z, 1]``), translations in metres.
        objects: ``{scan_id: [instance dicts as for write_scan, optional "symmetry"]}``.
        units: ``"m"`` or ``"mm"`` -- the unit the translations are written in.
    """
    if units not in _UNIT_SCALE:
        raise ValueError(f"units must be 'm' or 'mm', got {units!r}")
    scale = _UNIT_SCALE[units]
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    index = [_scene_json(s, scale) for s in scenes]
    objs = {
        "scans": [
            {
                "scan": str(scan_id),
                "objects": [
                    {
                        "id": str(int(o["id"])),
                        "global_id": str(int(o.get("global_id", 0))),
                        "label": str(o["label"]),
                        "ply_color": _hex_colour(int(o["id"])),
                        "nyu40": str(int(o.get("nyu40", 0))),
                        "eigen13": str(int(o.get("eigen13", 0))),
                        "rio27": str(int(o.get("rio27", 0))),
                        "attributes": dict(o.get("attributes", {}) or {}),
                        **({"symmetry": int(o["symmetry"])} if "symmetry" in o else {}),
                    }
                    for o in insts
                ],
            }
            for scan_id, insts in objects.items()
        ]
    }
    paths = {"index": root / INDEX_NAME, "objects": root / OBJECTS_NAME}
    atomic_write_json(paths["index"], index)
    atomic_write_json(paths["objects"], objs)
    return paths
