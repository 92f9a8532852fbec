"""Read 3RScan (real or written by :mod:`.writer`): the scene index, objects, per-scan annotations.

What is read when:

- ``3RScan.json`` and ``objects.json`` on construction (small; validated record by record).
- ``semseg.v2.json`` of a scan the first time an instance centroid or label of it is asked for.
- ``labels.instances.annotated.v2.ply`` / ``mesh.refined.v2.obj`` only when a task needs geometry
  (an instance without an ``obb``, or the FPFH baseline); one scan's points are cached at a time.

Conventions (protocols.md section 2):

- Every 4x4 matrix in ``3RScan.json`` is 16 numbers, **column-major**.
- ``scans[].transform`` maps the rescan's frame into the reference frame. ``rigid[].transform`` maps
  the instance's reference points to where it is in the rescan, expressed in the reference frame.
  A reference instance that the rescan neither lists as ``removed`` nor ``nonrigid`` and that has no
  ``rigid`` entry is static: its ground-truth pose is the identity.
- Units: the 3RScan FAQ says translations are millimetres, the official library applies them to
  metre vertices. With ``units="auto"`` the largest |translation| over the whole file decides: above
  :data:`MM_THRESHOLD` (no indoor scene is 100 m across) means millimetres and everything is divided
  by 1000. The decision and its evidence are logged and kept in :attr:`ThreeRScan.unit_decision`.
- ``symmetry`` codes 0/1/2 (none, 2-fold, 4-fold about +Z); other codes are refused unless mapped by
  ``symmetry_codes``. An instance's symmetry comes from its ``rigid`` entry in this rescan, else from
  its ``rigid`` entries in other rescans of the scene (symmetry is a property of the object), else
  from an optional ``symmetry`` field of its ``objects.json`` record, else 0.
- ``ambiguity``: groups of ``{instance_source, instance_target, transform}``; ``transform`` maps the
  source instance onto the target in the reference frame. Interchangeable instances may be matched
  to each other (:class:`GroundTruthInstance.candidates`).
- Splits come from each scene's ``type``; test-split ground truth is hidden in 3RScan, so scoring
  it is refused with a clear message.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError, ScenebenchError
from scenebench.geometry.poses import invert, is_identity, is_rotation, matrix_from_column_major, symmetry_order
from scenebench.io.files import check_path_id, is_finite_number, read_json

from .writer import INDEX_NAME, OBJ_NAME, OBJECTS_NAME, PLY_NAME, SEMSEG_NAME

log = logging.getLogger("scenebench.rio")

MM_THRESHOLD = 100.0
SPLITS = ("train", "validation", "test")
HIDDEN_SPLITS = ("test",)
# 3RScan's rigid transforms are hand aligned; a rescan whose instance moved less than this is static.
STATIC_ROT_DEG = 1e-3
STATIC_TRANS_M = 1e-6
# Ground-truth transforms are hand aligned and stored as printed floats; they are accepted as rigid
# when max |R^T R - I| and |det R - 1| are within 1e-2 (a reflection or a scaled matrix is refused).
INDEX_ROTATION_TOL = 1e-2


@dataclass(frozen=True)
class RigidEntry:
    instance_reference: int
    instance_rescan: int
    symmetry: int
    transform: np.ndarray  # (4, 4) metres


@dataclass(frozen=True)
class AmbiguityLink:
    source: int
    target: int
    transform: np.ndarray  # (4, 4) metres, maps source onto target (reference frame)


@dataclass
class Rescan:
    scan_id: str
    scene_id: str  # the reference scan id
    split: str
    transform: np.ndarray  # rescan frame -> reference frame, metres
    rigid: dict[int, RigidEntry]
    nonrigid: set[int]
    removed: set[int]


@dataclass
class Scene:
    reference: str
    split: str
    ambiguity: list[AmbiguityLink]
    rescans: list[Rescan]


@dataclass(frozen=True)
class ObjectInfo:
    id: int
    global_id: int
    label: str
    symmetry: int | None = None
    attributes: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class GroundTruthInstance:
    """One sample: a reference instance to re-localize in one rescan."""

    rescan: str
    scene: str
    instance: int
    label: str
    pose: np.ndarray  # (4, 4) true pose, reference -> rescan (reference frame)
    symmetry_order: int
    moved: bool
    centroid: np.ndarray  # (3,) reference frame
    centroid_source: str  # "obb" or "vertices"
    candidates: list[np.ndarray]  # own pose first, then poses that land it on interchangeable partners
    partners: list[int]
    excluded: str | None = None  # why it cannot be scored (e.g. "nonrigid"), None when scored

    @property
    def sample_id(self) -> str:
        return f"{self.rescan}/{self.instance}"


def _as_int(value: Any, path: Path, where: str, fld: str) -> int:
    if isinstance(value, bool):
        raise InputError(path, f"is a boolean {value!r}", where=where, field=fld, expected="an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isascii() and value.strip().lstrip("-").isdecimal():
        return int(value)
    raise InputError(path, f"is {value!r}", where=where, field=fld, expected="an integer")


def _list_or_none(value: Any) -> list[Any]:
    """A list, or [] for anything else: for the unit scan, which runs before records are checked."""
    return value if isinstance(value, list) else []


def _list_field(rec: Mapping[str, Any], key: str, path: Path, where: str) -> list[Any]:
    """``rec[key]`` as a list (absent or null: empty); anything else is refused, naming the key."""
    value = rec.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(path, f"is {str(value)[:60]}", where=where, field=key, expected="a list")
    return value


def _matrix16(value: Any, path: Path, where: str, fld: str) -> np.ndarray:
    if not isinstance(value, list) or len(value) != 16 or not all(is_finite_number(x) for x in value):
        raise InputError(path, f"is {str(value)[:80]}", where=where, field=fld, expected="16 finite numbers (4x4, column-major)")
    return matrix_from_column_major(np.array(value, dtype=float))


class ThreeRScan:
    """A 3RScan root folder: ``3RScan.json``, ``objects.json`` and one folder per scan."""

    def __init__(
        self,
        root: str | Path,
        *,
        units: str = "auto",
        symmetry_codes: Mapping[int, int] | None = None,
        index_path: str | Path | None = None,
        objects_path: str | Path | None = None,
    ) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise InputError(self.root, "3RScan root folder does not exist")
        self.index_path = Path(index_path) if index_path else self.root / INDEX_NAME
        self.objects_path = Path(objects_path) if objects_path else self.root / OBJECTS_NAME
        self.symmetry_codes = dict(symmetry_codes or {})
        if units not in ("auto", "m", "mm"):
            raise ScenebenchError(f"units must be auto, m or mm, got {units!r}")
        raw = read_json(self.index_path, what="3RScan index (3RScan.json)")
        if not isinstance(raw, list):
            raise InputError(self.index_path, f"top level is a {type(raw).__name__}", expected="a list of scenes")
        self.scale, self.unit_decision = self._decide_units(raw, units)
        log.info("3RScan units: %s", self.unit_decision)
        self.scenes: list[Scene] = [self._parse_scene(s, i) for i, s in enumerate(raw)]
        self.rescans: dict[str, Rescan] = {}
        for sc in self.scenes:
            for r in sc.rescans:
                if r.scan_id in self.rescans:
                    raise InputError(self.index_path, f"rescan '{r.scan_id}' appears twice", field="scans[].reference")
                self.rescans[r.scan_id] = r
        self.scene_by_id = {s.reference: s for s in self.scenes}
        self.objects = self._read_objects()
        self._semseg_cache: dict[str, dict[int, dict[str, Any]]] = {}
        self._points_cache: tuple[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None

    # --- index ---------------------------------------------------------------------------------

    def _decide_units(self, raw: list[Any], units: str) -> tuple[float, str]:
        mags: list[float] = []

        def grab(m: Any) -> None:
            if isinstance(m, list) and len(m) == 16 and all(is_finite_number(x) for x in m):
                mags.extend(abs(float(x)) for x in m[12:15])

        for s in raw:
            if not isinstance(s, dict):
                continue
            for g in _list_or_none(s.get("ambiguity")):
                for e in g if isinstance(g, list) else [g]:
                    if isinstance(e, dict):
                        grab(e.get("transform"))
            for r in _list_or_none(s.get("scans")):
                if isinstance(r, dict):
                    grab(r.get("transform"))
                    for rg in _list_or_none(r.get("rigid")):
                        if isinstance(rg, dict):
                            grab(rg.get("transform"))
        biggest = max(mags, default=0.0)
        if units == "m":
            return 1.0, f"metres (set by the user; largest |translation| in the file {biggest:.3g})"
        if units == "mm":
            return 1e-3, f"millimetres (set by the user; largest |translation| in the file {biggest:.3g}); converted to metres"
        if biggest > MM_THRESHOLD:
            return 1e-3, f"millimetres (detected: largest |translation| {biggest:.3g} > {MM_THRESHOLD:g}); converted to metres"
        return 1.0, f"metres (detected: largest |translation| {biggest:.3g} <= {MM_THRESHOLD:g})"

    def _to_metres(self, T: np.ndarray) -> np.ndarray:
        if self.scale != 1.0:
            T = T.copy()
            T[:3, 3] *= self.scale
        return T

    def _pose(self, value: Any, where: str, fld: str) -> np.ndarray:
        T = self._to_metres(_matrix16(value, self.index_path, where, fld))
        if not bool(is_rotation(T[:3, :3], tol=INDEX_ROTATION_TOL)) or not np.allclose(T[3], [0, 0, 0, 1], atol=1e-6):
            raise InputError(self.index_path, "is not a rigid transform (rotation part not orthonormal or last row not 0 0 0 1)", where=where, field=fld)
        return T

    def _symmetry(self, code: Any, where: str, path: Path | None = None) -> int:
        """A symmetry code of 3RScan.json (or of objects.json when ``path`` says so), checked against the known codes."""
        path = path or self.index_path
        c = _as_int(code, path, where, "symmetry")
        try:
            symmetry_order(c, self.symmetry_codes)
        except ValueError as exc:
            raise InputError(path, str(exc), where=where, field="symmetry", expected="0 (none), 1 (2-fold) or 2 (4-fold), or a code mapped with --symmetry-code") from None
        return c

    def _parse_scene(self, s: Any, i: int) -> Scene:
        p = self.index_path
        where = f"scene {i}"
        if not isinstance(s, dict):
            raise InputError(p, f"is a {type(s).__name__}", where=where, expected="an object")
        ref = s.get("reference")
        if not isinstance(ref, str) or not ref:
            raise InputError(p, f"is {ref!r}", where=where, field="reference", expected="the reference scan id")
        check_path_id(ref, p, where=where, field="reference")
        where = f"scene {i} ({ref})"
        split = s.get("type", "")
        if split not in SPLITS:
            raise InputError(p, f"is {split!r}", where=where, field="type", expected=" / ".join(SPLITS))
        amb: list[AmbiguityLink] = []
        groups = s.get("ambiguity") or []
        if not isinstance(groups, list):
            raise InputError(p, "is not a list", where=where, field="ambiguity")
        for gi, g in enumerate(groups):
            for ei, e in enumerate(g if isinstance(g, list) else [g]):
                w = f"{where}, ambiguity[{gi}][{ei}]"
                if not isinstance(e, dict):
                    raise InputError(p, f"is a {type(e).__name__}", where=w, expected="{instance_source, instance_target, transform}")
                amb.append(
                    AmbiguityLink(
                        _as_int(e.get("instance_source"), p, w, "instance_source"),
                        _as_int(e.get("instance_target"), p, w, "instance_target"),
                        self._pose(e.get("transform"), w, "transform"),
                    )
                )
        rescans = []
        scans = s.get("scans") or []
        if not isinstance(scans, list):
            raise InputError(p, "is not a list", where=where, field="scans")
        for ri, r in enumerate(scans):
            w = f"{where}, scans[{ri}]"
            if not isinstance(r, dict):
                raise InputError(p, f"is a {type(r).__name__}", where=w, expected="an object")
            rid = r.get("reference")
            if not isinstance(rid, str) or not rid:
                raise InputError(p, f"is {rid!r}", where=w, field="reference", expected="the rescan id")
            check_path_id(rid, p, where=w, field="reference")
            w = f"{where}, rescan {rid}"
            T = self._pose(r["transform"], w, "transform") if r.get("transform") is not None else np.eye(4)
            rigid: dict[int, RigidEntry] = {}
            for gi, rg in enumerate(_list_field(r, "rigid", p, w)):
                wg = f"{w}, rigid[{gi}]"
                if not isinstance(rg, dict):
                    raise InputError(p, f"is a {type(rg).__name__}", where=wg, expected="an object")
                a = _as_int(rg.get("instance_reference"), p, wg, "instance_reference")
                b = _as_int(rg.get("instance_rescan", a), p, wg, "instance_rescan")
                if a in rigid:
                    raise InputError(p, f"instance {a} has two rigid entries", where=wg, field="instance_reference")
                rigid[a] = RigidEntry(a, b, self._symmetry(rg.get("symmetry", 0), wg), self._pose(rg.get("transform"), wg, "transform"))
            nonrigid = {_as_int(x, p, w, "nonrigid") for x in _list_field(r, "nonrigid", p, w)}
            removed = {_as_int(x, p, w, "removed") for x in _list_field(r, "removed", p, w)}
            rescans.append(Rescan(rid, ref, split, T, rigid, nonrigid, removed))
        return Scene(ref, split, amb, rescans)

    def _read_objects(self) -> dict[str, dict[int, ObjectInfo]]:
        if not self.objects_path.exists():
            log.info("no %s: labels and instance lists come from semseg.v2.json", self.objects_path)
            return {}
        raw = read_json(self.objects_path, what="objects.json")
        p = self.objects_path
        if not isinstance(raw, dict) or not isinstance(raw.get("scans"), list):
            raise InputError(p, "has no 'scans' list", field="scans", expected='{"scans": [{"scan", "objects"}]}')
        out: dict[str, dict[int, ObjectInfo]] = {}
        for si, s in enumerate(raw["scans"]):
            w = f"scans[{si}]"
            if not isinstance(s, dict) or not isinstance(s.get("scan"), str):
                raise InputError(p, "has no scan id", where=w, field="scan")
            objs: dict[int, ObjectInfo] = {}
            for oi, o in enumerate(_list_field(s, "objects", p, w)):
                wo = f"{w} ({s['scan']}), objects[{oi}]"
                if not isinstance(o, dict):
                    raise InputError(p, f"is a {type(o).__name__}", where=wo, expected="an object")
                iid = _as_int(o.get("id"), p, wo, "id")
                sym = o.get("symmetry")
                objs[iid] = ObjectInfo(
                    iid,
                    _as_int(o.get("global_id", 0), p, wo, "global_id"),
                    str(o.get("label", "")),
                    None if sym is None else self._symmetry(sym, wo, self.objects_path),
                    o.get("attributes") or {},
                )
            out[s["scan"]] = objs
        return out

    # --- splits --------------------------------------------------------------------------------

    def split_rescans(self, split: str) -> list[Rescan]:
        """Rescans of the scenes of ``split`` (``train``, ``validation`` or ``all`` = train + validation)."""
        if split in HIDDEN_SPLITS:
            raise ScenebenchError(
                f"the 3RScan '{split}' split has hidden ground truth (rescan poses are not public), so scenebench "
                "cannot score it; score --split validation or train, or submit test predictions to the official benchmark"
            )
        if split == "all":
            wanted = {"train", "validation"}
        elif split in SPLITS:
            wanted = {split}
        else:
            raise ScenebenchError(f"unknown split {split!r}; choose train, validation or all")
        out = [r for s in self.scenes if s.split in wanted for r in s.rescans]
        if not out:
            raise ScenebenchError(f"{self.index_path} has no rescans in the '{split}' split")
        return out

    # --- per-scan annotations (lazy) -------------------------------------------------------------

    def scan_dir(self, scan_id: str) -> Path:
        check_path_id(scan_id, self.index_path, field="reference")  # a scan id is a folder name under the root
        return self.root / scan_id

    def semseg(self, scan_id: str) -> dict[int, dict[str, Any]]:
        """``objectId -> segGroup`` of a scan; {} when the scan has no semseg.v2.json."""
        if scan_id not in self._semseg_cache:
            p = self.scan_dir(scan_id) / SEMSEG_NAME
            groups: dict[int, dict[str, Any]] = {}
            if p.exists():
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
                        if not isinstance(c, list) or len(c) != 3 or not all(is_finite_number(x) for x in c):
                            raise InputError(p, f"is {str(c)[:60]}", where=f"{w} (objectId {iid})", field="obb.centroid", expected="3 finite numbers")
                    groups[iid] = g
            self._semseg_cache[scan_id] = groups
        return self._semseg_cache[scan_id]

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
                f = self.scan_dir(sid) / name
                digest = sha256_file(f) if f.is_file() else "absent"
                n += digest != "absent"
                h.update(f"{sid}/{name}={digest}\n".encode())
        return {"sha256": h.hexdigest(), "n_files": n, "files": f"{SEMSEG_NAME} and {PLY_NAME} of {len(scan_ids)} scans"}

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
        from plyfile import PlyData

        p = self.scan_dir(scan_id) / PLY_NAME
        if not p.exists():
            raise InputError(p, "labelled instance mesh is missing", expected=f"{PLY_NAME} in the scan folder")
        try:
            ply = PlyData.read(str(p))
            v = ply["vertex"].data
            xyz = np.stack([v["x"], v["y"], v["z"]], axis=1).astype(float)
            names = v.dtype.names or ()
            rgb = np.stack([v["red"], v["green"], v["blue"]], axis=1).astype(np.uint8) if "red" in names else np.zeros((len(v), 3), np.uint8)
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
            raise InputError(self.scan_dir(scan_id) / PLY_NAME, f"instance {iid} has no obb and no vertices, so it has no centroid", field="objectId")
        return xyz[m].mean(axis=0), "vertices"

    # --- ground truth -------------------------------------------------------------------------------

    @cached_property
    def _scene_symmetry(self) -> dict[str, dict[int, int]]:
        out: dict[str, dict[int, int]] = {}
        for s in self.scenes:
            d: dict[int, int] = {}
            for r in s.rescans:
                for iid, e in r.rigid.items():
                    d.setdefault(iid, e.symmetry)
            out[s.reference] = d
        return out

    def symmetry_code(self, rescan: Rescan, iid: int) -> int:
        if iid in rescan.rigid:
            return rescan.rigid[iid].symmetry
        d = self._scene_symmetry[rescan.scene_id]
        if iid in d:
            return d[iid]
        o = self.objects.get(rescan.scene_id, {}).get(iid)
        return o.symmetry if o is not None and o.symmetry is not None else 0

    def ground_truth(self, rescan: Rescan) -> list[GroundTruthInstance]:
        """Every reference instance of a rescan's scene as a sample of this rescan (sorted by id).

        Removed instances are not samples (they are not in the rescan); non-rigid ones and ones the
        rescan's annotation does not contain are samples with ``excluded`` set, so they are listed.
        """
        ref = rescan.scene_id
        ref_ids = self.instance_ids(ref)
        if ref_ids is None:
            raise InputError(self.scan_dir(ref), "reference scan has neither an objects.json entry nor semseg.v2.json", expected="the reference's instance list")
        present = self.instance_ids(rescan.scan_id)
        scene = self.scene_by_id[ref]
        poses: dict[int, np.ndarray] = {}
        for iid in ref_ids:
            if iid in rescan.removed or iid in rescan.nonrigid:
                continue
            poses[iid] = rescan.rigid[iid].transform if iid in rescan.rigid else np.eye(4)
        partners = self._partners(scene)
        out: list[GroundTruthInstance] = []
        for iid in sorted(ref_ids):
            if iid in rescan.removed:
                continue
            code = self.symmetry_code(rescan, iid)
            order = symmetry_order(code, self.symmetry_codes)
            excluded = None
            if iid in rescan.nonrigid:
                excluded = "nonrigid (no rigid ground-truth pose)"
            elif present is not None and iid not in rescan.rigid and iid not in present:
                excluded = "not annotated in the rescan and not listed as removed"
            if excluded:
                out.append(GroundTruthInstance(rescan.scan_id, ref, iid, self.label(ref, iid), np.eye(4), order, False, np.zeros(3), "", [], [], excluded))
                continue
            pose = poses[iid]
            centroid, src = self.centroid(ref, iid)
            cands, pids = [pose], []
            for j, A in sorted(partners.get(iid, {}).items()):
                if j in poses:
                    cands.append(poses[j] @ A)
                    pids.append(j)
            moved = not bool(is_identity(pose, rot_tol_deg=STATIC_ROT_DEG, trans_tol_m=STATIC_TRANS_M))
            out.append(GroundTruthInstance(rescan.scan_id, ref, iid, self.label(ref, iid), pose, order, moved, centroid, src, cands, pids))
        return out

    @staticmethod
    def _partners(scene: Scene) -> dict[int, dict[int, np.ndarray]]:
        """``i -> {k: A_ik}``: every instance reachable through ambiguity links, with the transform
        that lands i on k's reference placement (composed along the path: A_ik = A_jk A_ij)."""
        links: dict[int, list[tuple[int, np.ndarray]]] = {}
        for link in scene.ambiguity:
            links.setdefault(link.source, []).append((link.target, link.transform))
            links.setdefault(link.target, []).append((link.source, invert(link.transform)))
        out: dict[int, dict[int, np.ndarray]] = {}
        for start in links:
            reach: dict[int, np.ndarray] = {start: np.eye(4)}
            queue = [start]
            while queue:
                j = queue.pop(0)
                for k, A in links.get(j, []):
                    if k not in reach:
                        reach[k] = A @ reach[j]
                        queue.append(k)
            del reach[start]
            out[start] = reach
        return out

    def reference_instances(self) -> dict[str, set[int]]:
        """Reference instance ids per rescan (what a prediction may name), without reading geometry."""
        out = {}
        for r in self.rescans.values():
            ids = self.instance_ids(r.scene_id)
            out[r.scan_id] = ids if ids is not None else set()
        return out
