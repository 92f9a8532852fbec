"""Per-scan files of a 3RScan folder, read lazily: ``semseg.v2.json``, the labelled PLY, the mesh.

- ``semseg.v2.json`` of a scan the first time an instance centroid or label of it is asked for.
- ``labels.instances.annotated.v2.ply`` / ``mesh.refined.v2.obj`` only when a task needs geometry
  (an instance without an ``obb``, a model that looks at points); one scan's points are cached at a time.

A ground-truth tree (``gt_root``, ``OUT/gt/3rscan/<scan_id>/``) holds the label files of the
evaluated rescans of generated data: their instance labels give every changed object's pose away,
so the model-facing scan folder keeps only the geometry (``mesh.refined.v2.obj`` with vertex
colours). Labels (``semseg.v2.json``) are looked for in the scan folder, then in the tree; points
are read from the scan folder only (its labelled PLY, else, for a scan whose PLY is in the tree,
the coloured OBJ with every ``objectId`` 0), so nothing of the tree reaches a model.

:class:`ScanFiles` needs ``root`` and ``objects`` (``objects.json`` records, from :class:`.index.RioIndex`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError
from scenebench.io.files import check_path_id, is_finite_number, read_json
from scenebench.io.ply import read_ply_vertices

from .index import ObjectInfo, Rescan, _as_int
from .writer import OBJ_NAME, PLY_NAME, SEMSEG_NAME


def _three_floats(c: Any) -> bool:
    """True for a list of three finite floats (the usual obb centroid); False means "check it the slow way"."""
    if type(c) is not list or len(c) != 3:
        return False
    a, b, d = c
    # A non-finite element, or a sum overflowing to infinity, gives a non-finite sum: then False.
    return type(a) is float and type(b) is float and type(d) is float and math.isfinite(a + b + d)


@lru_cache(maxsize=1)
def _semseg_check() -> Callable[[bytes], Any]:
    """msgspec decoder that checks, in C, what :meth:`ScanFiles.semseg` checks of each group: an
    integer ``objectId``, and an ``obb`` that is absent, null or holds a 3-number ``centroid``.
    Every key is decoded (the other fields of the format as ``Any``; an unknown key is refused):
    a skipped value would not be checked for what :func:`read_json` refuses (1e999, bad UTF-8)."""
    import msgspec

    def struct(name: str, fields: list[Any]) -> Any:
        return msgspec.defstruct(name, fields, forbid_unknown_fields=True)

    def others(*keys: str) -> list[Any]:
        return [(k, Any, None) for k in keys]

    obb = struct("ObbT", [("centroid", tuple[float, float, float]), *others("axesLengths", "normalizedAxes")])
    group = struct(
        "SegGroupT",
        [("objectId", int), ("obb", obb | None, None), *others("id", "label", "segments", "partId", "index", "dominantNormal")],
    )
    doc = struct("SemsegT", [("segGroups", list[group]), *others("scan_id", "sceneId", "appId", "segmentsFile", "segIndicesFile")])  # type: ignore[valid-type]
    return msgspec.json.Decoder(doc).decode  # type: ignore[no-any-return]


def _semseg_typed(p: Path) -> dict[int, dict[str, Any]] | None:
    """:meth:`ScanFiles.semseg` of an ordinary file without a Python check per field: the typed
    decoding checks the groups, the generic decoding (what :func:`read_json` gives) is kept.
    None for anything else (an ``id`` instead of ``objectId``, a string id, a bad centroid, a
    number beyond float range): the checking path then reads the file and names the problem."""
    import msgspec

    try:
        raw = p.read_bytes()
        raw = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
        checked = _semseg_check()(raw)
        doc = msgspec.json.decode(raw)
    except Exception:  # noqa: BLE001 - refused or unreadable: the checking path says why
        return None
    for g in checked.segGroups:
        if g.obb is not None and not math.isfinite(sum(g.obb.centroid)):  # an integer too large for a float
            return None
    return {g["objectId"]: g for g in doc["segGroups"]}


_VERTEX_LINE = re.compile(rb"^v[ \t]+([^\r\n]*)", re.MULTILINE)


MAX_VERTEX_TOKEN = 64  # characters of one vertex value in an OBJ (a double needs at most 24)


def obj_points(p: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(xyz, rgb uint8, objectId = 0)`` of the ``v x y z [r g b]`` lines of an OBJ (colours 0..1,
    as MeshLab and Open3D write them; grey without). Parsed in one pass, no loop over vertices."""
    if not p.exists():
        raise InputError(p, "scan geometry is missing", expected=f"{OBJ_NAME} in the scan folder")
    raw = p.read_bytes()
    lines = _VERTEX_LINE.findall(raw)
    tokens = b" ".join(lines).split()
    # The byte-string array below is as wide as its longest token: one 2,500-digit coordinate made
    # every cell 2,500 bytes (GBs for a real scan). A number needs at most ~25 characters.
    longest = max(map(len, tokens), default=0)
    if longest > MAX_VERTEX_TOKEN:
        token = next(t for t in tokens if len(t) == longest)
        line = raw.count(b"\n", 0, raw.find(token)) + 1
        raise InputError(
            p,
            f"a vertex value of {longest:,} characters ({token[:12].decode('ascii', 'replace')}...)",
            where=f"line {line}",
            expected=f"numbers of at most {MAX_VERTEX_TOKEN} characters",
        )
    width = len(lines[0].split()) if lines else 3
    if width not in (3, 6) or len(tokens) != width * len(lines):
        raise InputError(p, "vertex lines differ in length or are not 'v x y z' / 'v x y z r g b'", expected="v x y z [r g b]")
    try:
        vals = np.array(tokens, dtype=np.bytes_).astype(np.float64).reshape(-1, width)
    except ValueError:
        raise InputError(p, "a vertex line holds a value that is not a number", expected="v x y z [r g b]") from None
    if not np.isfinite(vals).all():
        raise InputError(p, "vertex coordinates or colours contain NaN or infinity")
    xyz = vals[:, :3].copy()
    rgb = np.round(np.clip(vals[:, 3:6], 0, 1) * 255).astype(np.uint8) if width == 6 else np.full((len(vals), 3), 128, np.uint8)
    return xyz, rgb, np.zeros(len(vals), np.int64)


class ScanFiles:
    """Lazy access to the files of each scan folder under ``root``."""

    root: Path
    index_path: Path
    objects: dict[str, dict[int, ObjectInfo]]

    def __init__(self, gt_root: Path | None = None) -> None:
        self.gt_root = gt_root
        self._semseg_cache: dict[str, dict[int, dict[str, Any]]] = {}
        self._obb_cache: dict[str, dict[int, Sequence[float] | None]] = {}
        self._points_cache: tuple[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None

    def scan_reader(self) -> ScanFiles:
        """A reader of the scan folders alone (points, labels), sharing nothing with the index it may be
        part of: what a model's scene closes over, so no loader reaches the index's instance poses."""
        reader = ScanFiles(self.gt_root)
        reader.root, reader.index_path, reader.objects = self.root, self.index_path, self.objects
        return reader

    def scan_dir(self, scan_id: str) -> Path:
        check_path_id(scan_id, self.index_path, field="reference")  # a scan id is a folder name under the root
        return self.root / scan_id

    def label_file(self, scan_id: str, name: str) -> Path:
        """``name`` (a label file) of a scan: in its folder, else in the ground-truth tree when it is there."""
        p = self.scan_dir(scan_id) / name
        if not p.exists() and self.gt_root is not None and (self.gt_root / scan_id / name).exists():
            return self.gt_root / scan_id / name
        return p

    def scan_files_fingerprint(self, rescans: Sequence[Rescan]) -> dict[str, Any]:
        """One content digest over every per-scan file a score depends on, for the run fingerprint.

        ``semseg.v2.json`` (centroids, labels) and the labelled PLY (centroids without an obb, the
        baseline's points) of each rescan and its reference, hashed by content (sha256), not size and
        mtime: moving every centroid must change the run's identity.
        """
        import hashlib

        from scenebench.io.files import sha256_file

        scan_ids = sorted({r.scan_id for r in rescans} | {r.scene_id for r in rescans})
        h = hashlib.sha256()
        n = 0
        for sid in scan_ids:
            for name in (SEMSEG_NAME, PLY_NAME):
                f = self.label_file(sid, name)
                digest = sha256_file(f) if f.is_file() else "absent"
                n += digest != "absent"
                h.update(f"{sid}/{name}={digest}\n".encode())
        return {"sha256": h.hexdigest(), "n_files": n, "files": f"{SEMSEG_NAME} and {PLY_NAME} of {len(scan_ids)} scans"}

    def semseg(self, scan_id: str) -> dict[int, dict[str, Any]]:
        """``objectId -> segGroup`` of a scan; {} when the scan has no semseg.v2.json."""
        if scan_id not in self._semseg_cache:
            p = self.label_file(scan_id, SEMSEG_NAME)
            groups: dict[int, dict[str, Any]] = {}
            if p.exists():
                fast = _semseg_typed(p)
                self._semseg_cache[scan_id] = fast if fast is not None else self._semseg_checked(p)
            else:
                self._semseg_cache[scan_id] = groups
        return self._semseg_cache[scan_id]

    def obb_centroids(self, scan_id: str) -> dict[int, Sequence[float] | None]:
        """``objectId -> obb centroid`` (None without an obb) of a scan's semseg.v2.json, {} without
        the file: what :meth:`semseg` gives (and checks), without keeping every group's fields.
        The ground-truth table needs only these; an unusual file is read by :meth:`semseg`."""
        if scan_id not in self._obb_cache:
            p = self.label_file(scan_id, SEMSEG_NAME)
            out: dict[int, Sequence[float] | None] | None = None
            if scan_id not in self._semseg_cache and p.exists():
                try:
                    raw = p.read_bytes()
                    checked = _semseg_check()(raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw)
                    out = {g.objectId: None if g.obb is None else g.obb.centroid for g in checked.segGroups}
                    if not all(c is None or math.isfinite(sum(c)) for c in out.values()):
                        out = None  # an integer too large for a float: semseg() refuses it
                except Exception:  # noqa: BLE001 - refused: semseg() reads it and names the problem
                    out = None
            if out is None:
                sem = self.semseg(scan_id)
                out = {i: g["obb"]["centroid"] if isinstance(g.get("obb"), dict) else None for i, g in sem.items()}
            self._obb_cache[scan_id] = out
        return self._obb_cache[scan_id]

    @staticmethod
    def _semseg_checked(p: Path) -> dict[int, dict[str, Any]]:
        """The groups of a semseg.v2.json, checked record by record (the errors name the group)."""
        groups: dict[int, dict[str, Any]] = {}
        raw = read_json(p, what="semseg.v2.json")
        if not isinstance(raw, dict) or not isinstance(raw.get("segGroups"), list):
            raise InputError(p, "has no 'segGroups' list", field="segGroups")
        for gi, g in enumerate(raw["segGroups"]):
            w = f"segGroups[{gi}]"
            if not isinstance(g, dict):
                raise InputError(p, f"is a {type(g).__name__}", where=w)
            iid = _as_int(g.get("objectId", g.get("id")), p, w, "objectId")
            obb = g.get("obb")
            if obb is not None:
                c = obb.get("centroid") if isinstance(obb, dict) else None
                if not _three_floats(c) and (not isinstance(c, list) or len(c) != 3 or not all(is_finite_number(x) for x in c)):
                    raise InputError(
                        p, f"is {str(c)[:60]}", where=f"{w} (objectId {iid})", field="obb.centroid", expected="3 finite numbers"
                    )
            groups[iid] = g
        return groups

    def instance_ids(self, scan_id: str) -> set[int] | None:
        """Instance ids annotated in a scan (objects.json, else semseg.v2.json); None if neither exists."""
        if scan_id in self.objects:
            return {i for i in self.objects[scan_id] if i != 0}
        sem = self.semseg(scan_id)
        if sem:
            return {i for i in sem if i != 0}
        return None

    def label(self, scan_id: str, iid: int) -> str:
        o = self.objects.get(scan_id, {}).get(iid)
        if o is not None and o.label:
            return o.label
        g = self.semseg(scan_id).get(iid)
        return str(g.get("label", "")) if g else "unknown"

    def points(self, scan_id: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(xyz (N,3) float, rgb (N,3) uint8, objectId (N,) int)`` of a scan's labelled PLY, own frame."""
        if self._points_cache and self._points_cache[0] == scan_id:
            return self._points_cache[1]
        p = self.scan_dir(scan_id) / PLY_NAME
        if not p.exists() and self.gt_root is not None and (self.gt_root / scan_id / PLY_NAME).exists():
            pts = obj_points(self.scan_dir(scan_id) / OBJ_NAME)  # labels are ground truth here: geometry only
            self._points_cache = (scan_id, pts)
            return pts
        if not p.exists():
            raise InputError(p, "labelled instance mesh is missing", expected=f"{PLY_NAME} in the scan folder")
        try:
            v = read_ply_vertices(p)
            xyz = np.stack([v["x"], v["y"], v["z"]], axis=1).astype(float)
            names = v.dtype.names or ()
            rgb = (
                np.stack([v["red"], v["green"], v["blue"]], axis=1).astype(np.uint8) if "red" in names else np.zeros((len(v), 3), np.uint8)
            )
            if "objectId" not in names:
                raise InputError(p, "vertices have no objectId property", field="objectId")
            ids = np.asarray(v["objectId"]).astype(np.int64)
        except InputError:
            raise
        except Exception as exc:  # plyfile raises several types for malformed files
            raise InputError(p, f"not a readable PLY: {type(exc).__name__}: {str(exc)[:200]}") from None
        if not np.isfinite(xyz).all():
            raise InputError(p, "vertex coordinates contain NaN or infinity", field="x/y/z")
        self._points_cache = (scan_id, (xyz, rgb, ids))
        return xyz, rgb, ids

    def mesh(self, scan_id: str) -> tuple[np.ndarray, np.ndarray]:
        """``(vertices (N,3), faces (F,3) 0-based)`` of ``mesh.refined.v2.obj`` (polygons fan-triangulated)."""
        p = self.scan_dir(scan_id) / OBJ_NAME
        if not p.exists():
            raise InputError(p, "mesh is missing")
        verts: list[list[float]] = []
        faces: list[list[int]] = []
        with open(p, encoding="utf-8", errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                if line.startswith("v "):
                    parts = line.split()
                    try:
                        verts.append([float(parts[1]), float(parts[2]), float(parts[3])])
                    except (IndexError, ValueError):
                        raise InputError(p, "bad vertex line", where=f"line {lineno}", expected="v x y z") from None
                elif line.startswith("f "):
                    try:
                        idx = [int(tok.split("/")[0]) for tok in line.split()[1:]]
                    except ValueError:
                        raise InputError(p, "bad face line", where=f"line {lineno}", expected="f a b c (1-based)") from None
                    idx = [i - 1 if i > 0 else len(verts) + i for i in idx]
                    faces.extend([idx[0], idx[k], idx[k + 1]] for k in range(1, len(idx) - 1))
        V = np.array(verts, dtype=float).reshape(-1, 3)
        F = np.array(faces, dtype=np.int64).reshape(-1, 3)
        if F.size and (F.min() < 0 or F.max() >= len(V)):
            raise InputError(p, "a face indexes a vertex that does not exist")
        return V, F

    def centroid(self, scan_id: str, iid: int) -> tuple[np.ndarray, str]:
        """Instance centroid in its scan's frame: the obb centre, else the mean of its PLY vertices."""
        g = self.semseg(scan_id).get(iid)
        if g is not None and isinstance(g.get("obb"), dict):
            return np.array(g["obb"]["centroid"], dtype=float), "obb"
        xyz, _, ids = self.points(scan_id)
        m = ids == iid
        if not m.any():
            raise InputError(
                self.scan_dir(scan_id) / PLY_NAME, f"instance {iid} has no obb and no vertices, so it has no centroid", field="objectId"
            )
        return xyz[m].mean(axis=0), "vertices"
