"""Parse the 3RScan index: ``3RScan.json`` (scenes, rescans, rigid moves, splits) and ``objects.json``.

Both are read on construction (small; validated record by record). Conventions:

- Every 4x4 matrix in ``3RScan.json`` is 16 numbers, **column-major**.
- ``scans[].transform`` maps the rescan's frame into the reference frame. ``rigid[].transform`` maps
  the instance's reference points to where it is in the rescan, expressed in the reference frame.
  A reference instance that the rescan neither lists as ``removed`` nor ``nonrigid`` and that has no
  ``rigid`` entry is static: its ground-truth pose is the identity.
- Units: the 3RScan FAQ says translations are millimetres, the official library applies them to
  metre vertices. With ``units="auto"`` every scan of the evaluated split (``split``; every scan
  when None) gives its own evidence: a scan whose largest |translation| (its ``transform``, its
  ``rigid`` moves, and for a reference scan its scene's ``ambiguity`` links) is above
  :data:`MM_THRESHOLD` (no indoor scene is 100 m across) looks like millimetres, one with smaller
  non-zero translations like metres. All alike: millimetres means everything is divided by 1000;
  a mix is refused naming scans of both kinds (``units="m"``/``"mm"`` decides instead). Scans of
  other splits have no say: one odd train scan no longer rescales the validation ground truth.
  The decision and its evidence are logged and kept in :attr:`RioIndex.unit_decision`.
- ``symmetry`` codes 0/1/2 (none, 2-fold, 4-fold about +Z) and scenebench's extension 3 (continuous
  about +Z: round objects, written by the generator); other codes are refused unless mapped by
  ``symmetry_codes``. An instance's symmetry comes from its ``rigid`` entry in this rescan, else from
  its ``rigid`` entries in other rescans of the scene (symmetry is a property of the object), else
  from an optional ``symmetry`` field of its ``objects.json`` record, else 0.
- ``ambiguity``: groups of ``{instance_source, instance_target, transform}``; ``transform`` maps the
  source instance onto the target in the reference frame.
- Splits come from each scene's ``type``; test-split ground truth is hidden in 3RScan, so scoring
  it is refused with a clear message.

See ``docs/protocols.md`` (RIO) for the format; per-scan files are read by :mod:`.scans`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError, ScenebenchError
from scenebench.geometry.poses import invert, is_rotation, matrix_from_column_major, rotation_defect, symmetry_order
from scenebench.io.files import check_path_id, is_finite_number, path_id_problem, read_json
from scenebench.io.generated import require_finished

from .writer import INDEX_NAME, OBJECTS_NAME

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


def _as_int(value: Any, path: Path, where: str, fld: str) -> int:
    if type(value) is int:  # the usual case first (a bool is not of type int): 1.2 M calls for 200,000 poses
        return value
    if type(value) is str and value.isascii() and value.isdecimal():  # objects.json's ids: "12" (what the check below accepts)
        return int(value)
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


class _Slow(Exception):
    """The batch path of :meth:`RioIndex._parse_index` gives way to the one-at-a-time path."""


def _index_transforms(raw: Any) -> list[Any]:
    """Every ``transform`` value of the index, in the order :meth:`RioIndex._parse_scene` reads them."""
    if not isinstance(raw, list):
        raise _Slow
    out: list[Any] = []
    for s in raw:
        if not isinstance(s, dict):
            raise _Slow
        groups = s.get("ambiguity") or []
        if not isinstance(groups, list):
            raise _Slow
        for g in groups:
            for e in g if isinstance(g, list) else [g]:
                if not isinstance(e, dict):
                    raise _Slow
                out.append(e.get("transform"))
        scans = s.get("scans") or []
        if not isinstance(scans, list):
            raise _Slow
        for r in scans:
            if not isinstance(r, dict):
                raise _Slow
            if r.get("transform") is not None:
                out.append(r["transform"])
            rigid = r.get("rigid")
            if rigid is None:
                continue
            if not isinstance(rigid, list):
                raise _Slow
            for rg in rigid:
                if not isinstance(rg, dict):
                    raise _Slow
                out.append(rg.get("transform"))
    return out


@lru_cache(maxsize=1)
def _typed_decoders() -> tuple[Callable[[bytes], Any], Callable[[bytes], Any]]:
    """msgspec decoders of ``3RScan.json`` and ``objects.json`` into Structs: the element types of
    every field the index reads are checked in C, so the records need no per-field checks in
    Python. Every key is decoded (``forbid_unknown_fields``; fields the index does not read are
    ``Any``): a skipped value would not be checked for what :func:`read_json` refuses (1e999,
    invalid UTF-8). Anything else (an unknown key, a string or float instance id, a null where a
    key may only be absent, a non-list) is refused, and the file is read by the checking path
    (:func:`read_json` and the record-by-record parser), whose errors name the record."""
    import msgspec

    def struct(name: str, fields: list[Any]) -> Any:
        return msgspec.defstruct(name, fields, forbid_unknown_fields=True)

    unset = msgspec.UNSET
    matrix = list[float]
    rigid = struct(
        "RigidT",
        [("instance_reference", int), ("transform", matrix), ("instance_rescan", int | msgspec.UnsetType, unset), ("symmetry", int, 0)],
    )
    link = struct("LinkT", [("instance_source", int), ("instance_target", int), ("transform", matrix)])
    scan = struct(
        "ScanT",
        [
            ("reference", str),
            ("transform", matrix | None, None),
            ("rigid", list[rigid] | None, None),  # type: ignore[valid-type]
            ("nonrigid", list[int] | None, None),
            ("removed", list[int] | None, None),
            ("type", Any, None),
        ],
    )
    scene = struct(
        "SceneT",
        [
            ("reference", str),
            ("type", str, ""),
            ("ambiguity", list[list[link] | link] | None, None),  # type: ignore[valid-type]
            ("scans", list[scan] | None, None),  # type: ignore[valid-type]
        ],
    )
    extra = [(k, Any, None) for k in ("ply_color", "nyu40", "eigen13", "rio27", "affordances", "state_affordances")]
    obj = struct(
        "ObjectT",
        [
            ("id", str | int),
            ("global_id", str | int, 0),
            ("label", str, ""),
            ("symmetry", int | None, None),
            ("attributes", Any, None),
            *extra,
        ],
    )
    objects_scan = struct("ObjectsScanT", [("scan", str), ("objects", list[obj] | None, None)])  # type: ignore[valid-type]
    objects_doc = struct("ObjectsT", [("scans", list[objects_scan])])  # type: ignore[valid-type]
    return msgspec.json.Decoder(list[scene]).decode, msgspec.json.Decoder(objects_doc).decode  # type: ignore[valid-type]


def _read_typed(path: Path, decode: Callable[[bytes], Any]) -> Any:
    """``decode`` of the file's bytes (a leading UTF-8 BOM skipped, as :func:`read_json` does);
    ``_Slow`` when the file cannot be read or decoded that way."""
    try:
        raw = path.read_bytes()
        return decode(raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw)
    except Exception:  # noqa: BLE001 - refused or unreadable: the checking path says why
        raise _Slow from None


def _small_int(value: Any) -> int:
    """An objects.json id that :func:`_as_int` reads by its first two cases, else ``_Slow``."""
    if type(value) is int:
        return value
    if type(value) is str and value.isascii() and value.isdecimal():
        return int(value)
    raise _Slow


def _first(ids: list[str], n: int = 5) -> str:
    shown = ", ".join(ids[:n])
    return shown + (f" and {len(ids) - n} more" if len(ids) > n else "")


def _matrix16(value: Any, path: Path, where: str, fld: str) -> np.ndarray:
    if not isinstance(value, list) or len(value) != 16 or not all(is_finite_number(x) for x in value):
        raise InputError(path, f"is {str(value)[:80]}", where=where, field=fld, expected="16 finite numbers (4x4, column-major)")
    return matrix_from_column_major(np.array(value, dtype=float))


class RioIndex:
    """The index of a 3RScan root folder: ``3RScan.json`` and ``objects.json`` (no per-scan file is read)."""

    def __init__(
        self,
        root: str | Path,
        *,
        units: str = "auto",
        symmetry_codes: Mapping[int, int] | None = None,
        index_path: str | Path | None = None,
        objects_path: str | Path | None = None,
        split: str | None = None,
    ) -> None:
        self.root = Path(root)
        self.units_split = split  # whose scans decide the units (None: all)
        if not self.root.is_dir():
            raise InputError(self.root, "3RScan root folder does not exist")
        require_finished(self.root)
        self.index_path = Path(index_path) if index_path else self.root / INDEX_NAME
        self.objects_path = Path(objects_path) if objects_path else self.root / OBJECTS_NAME
        self.symmetry_codes = dict(symmetry_codes or {})
        if units not in ("auto", "m", "mm"):
            raise ScenebenchError(f"units must be auto, m or mm, got {units!r}")
        self._batch: tuple[list[Any], np.ndarray] | None = None
        self._batch_next = 0
        try:
            self.scenes: list[Scene] = self._parse_index_typed(units)
        except (_Slow, InputError):
            raw = read_json(self.index_path, what="3RScan index (3RScan.json)")
            if not isinstance(raw, list):
                raise InputError(self.index_path, f"top level is a {type(raw).__name__}", expected="a list of scenes") from None
            self.scenes = self._parse_index(raw, units)
        log.info("3RScan units: %s", self.unit_decision)
        self.rescans: dict[str, Rescan] = {}
        for sc in self.scenes:
            for r in sc.rescans:
                if r.scan_id in self.rescans:
                    raise InputError(self.index_path, f"rescan '{r.scan_id}' appears twice", field="scans[].reference")
                self.rescans[r.scan_id] = r
        self.scene_by_id = {s.reference: s for s in self.scenes}
        self.objects = self._read_objects()

    # --- index ---------------------------------------------------------------------------------

    def _parse_index(self, raw: list[Any], units: str) -> list[Scene]:
        """Units and scenes of the index. Every transform is converted and checked in one batch
        (a 3RScan.json holds one per rigid instance: 200,000 checked one by one took most of the
        time of scoring); any problem parses the index again one transform at a time, so the error
        names the first problem in file order, as it always did."""
        try:
            values = _index_transforms(raw)
            import msgspec

            M = np.array(msgspec.convert(values, list[list[float]]), dtype=float).reshape(len(values), -1)
            if M.shape[1:] != (16,):
                raise _Slow
            self.scale, self.unit_decision = self._decide_units(raw, units)
            T = matrix_from_column_major(M)
            if self.scale != 1.0:
                T[:, :3, 3] *= self.scale
            defect = rotation_defect(T[:, :3, :3])
            if not (np.isfinite(defect) & (defect < INDEX_ROTATION_TOL * (1 - 1e-9))).all():  # borderline: one at a time
                raise _Slow
            if not np.isclose(T[:, 3], [0, 0, 0, 1], atol=1e-6).all():
                raise _Slow
            self._batch, self._batch_next = (values, T), 0
            scenes = [self._parse_scene(s, i) for i, s in enumerate(raw)]
            if self._batch_next != len(values):
                raise _Slow
            return scenes
        except Exception:  # noqa: BLE001 - any problem (bad record, a transform that is not 16 numbers): one at a time
            pass
        finally:
            self._batch = None
        self.scale, self.unit_decision = self._decide_units(raw, units)
        return [self._parse_scene(s, i) for i, s in enumerate(raw)]

    def _parse_index_typed(self, units: str) -> list[Scene]:
        """The scenes of :meth:`_parse_index` from the typed decoding of ``3RScan.json``
        (:func:`_typed_decoders`): the same objects, transforms and unit decision, without a
        check per field in Python. ``_Slow`` for anything the checking path might refuse or read
        differently; that path then reads the file again and names the problem."""
        scenes_t = _read_typed(self.index_path, _typed_decoders()[0])
        # Every transform in file order (what _index_transforms gives), converted and checked at once.
        values: list[list[float]] = []
        owner: list[int] = []  # per transform: index in ``scans`` of the scan it is evidence of
        scans: list[tuple[str, str]] = []  # (scan id, split)
        for s in scenes_t:
            scans.append((s.reference, s.type))
            for g in s.ambiguity or ():
                values.extend(e.transform for e in (g if isinstance(g, list) else (g,)))
            owner.extend([len(scans) - 1] * (len(values) - len(owner)))
            for r in s.scans or ():
                scans.append((r.reference, s.type))
                if r.transform is not None:
                    values.append(r.transform)
                if r.rigid:
                    values.extend(rg.transform for rg in r.rigid)
                owner.extend([len(scans) - 1] * (len(values) - len(owner)))
        try:
            M = np.array(values, dtype=float).reshape(len(values), -1)
        except ValueError:  # ragged
            raise _Slow from None
        if M.shape[1:] != (16,):
            raise _Slow
        per_scan = np.zeros(len(scans))
        if len(values):
            np.maximum.at(per_scan, np.asarray(owner, dtype=np.intp), np.abs(M[:, 12:15]).max(axis=1))
        if not np.isfinite(per_scan).all():
            raise _Slow
        scale, decision = self._units_from_scans([(sid, sp, float(m)) for (sid, sp), m in zip(scans, per_scan)], units)
        T = matrix_from_column_major(M)
        if scale != 1.0:
            T[:, :3, 3] *= scale
        defect = rotation_defect(T[:, :3, :3])
        if (
            not (np.isfinite(defect) & (defect < INDEX_ROTATION_TOL * (1 - 1e-9))).all()
            or not np.isclose(T[:, 3], [0, 0, 0, 1], atol=1e-6).all()
        ):
            raise _Slow
        p = self.index_path
        known_codes: set[int] = set()
        k = 0
        scenes: list[Scene] = []
        for s in scenes_t:
            ref = s.reference
            if not ref or path_id_problem(ref) is not None or s.type not in SPLITS:
                raise _Slow
            amb: list[AmbiguityLink] = []
            for g in s.ambiguity or ():
                for e in g if isinstance(g, list) else (g,):
                    amb.append(AmbiguityLink(e.instance_source, e.instance_target, T[k]))
                    k += 1
            rescans: list[Rescan] = []
            for r in s.scans or ():
                rid = r.reference
                if not rid or path_id_problem(rid) is not None:
                    raise _Slow
                if r.transform is not None:
                    Tr = T[k]
                    k += 1
                else:
                    Tr = np.eye(4)
                rigid: dict[int, RigidEntry] = {}
                for rg in r.rigid or ():
                    a, code = rg.instance_reference, rg.symmetry
                    if code not in known_codes:
                        self._symmetry(code, "", p)  # an unknown code: the checking path names the record
                        known_codes.add(code)
                    b = rg.instance_rescan
                    rigid[a] = RigidEntry(a, b if type(b) is int else a, code, T[k])  # absent (UNSET): the reference id
                    k += 1
                if r.rigid and len(rigid) != len(r.rigid):  # an instance with two rigid entries
                    raise _Slow
                rescans.append(Rescan(rid, ref, s.type, Tr, rigid, set(r.nonrigid or ()), set(r.removed or ())))
            scenes.append(Scene(ref, s.type, amb, rescans))
        if k != len(values):  # pragma: no cover - the two walks read the same fields
            raise _Slow
        self.scale, self.unit_decision = scale, decision
        return scenes

    def _decide_units(self, raw: list[Any], units: str) -> tuple[float, str]:
        evidence: list[tuple[str, str, float]] = []

        def biggest(ms: list[Any]) -> float:
            mags = [
                abs(float(x)) for m in ms if isinstance(m, list) and len(m) == 16 and all(is_finite_number(x) for x in m) for x in m[12:15]
            ]
            return max(mags, default=0.0)

        for s in raw:
            if not isinstance(s, dict):
                continue
            split = str(s.get("type"))
            amb = [
                e.get("transform")
                for g in _list_or_none(s.get("ambiguity"))
                for e in (g if isinstance(g, list) else [g])
                if isinstance(e, dict)
            ]
            evidence.append((str(s.get("reference")), split, biggest(amb)))
            for r in _list_or_none(s.get("scans")):
                if isinstance(r, dict):
                    ms = [r.get("transform")] + [rg.get("transform") for rg in _list_or_none(r.get("rigid")) if isinstance(rg, dict)]
                    evidence.append((str(r.get("reference")), split, biggest(ms)))
        return self._units_from_scans(evidence, units)

    def _units_from_scans(self, evidence: list[tuple[str, str, float]], units: str) -> tuple[float, str]:
        """Units from ``(scan id, split, largest |translation|)`` of every scan; only the evaluated split's count."""
        split = self.units_split
        wanted = None if split is None else ({"train", "validation"} if split == "all" else {split})
        used = [(sid, mag) for sid, sp, mag in evidence if wanted is None or sp in wanted]
        biggest = max((mag for _, mag in used), default=0.0)
        if units == "auto":
            mm = [sid for sid, mag in used if mag > MM_THRESHOLD]
            m = [sid for sid, mag in used if 0 < mag <= MM_THRESHOLD]
            if mm and m:
                scope = "every scan" if split is None else f"the scans of the '{split}' split"
                raise InputError(
                    self.index_path,
                    f"units of {scope} disagree: {len(mm)} scan(s) look like millimetres (a |translation| above "
                    f"{MM_THRESHOLD:g}: {_first(mm)}) and {len(m)} like metres (every |translation| at most {MM_THRESHOLD:g}: {_first(m)})",
                    field="transform",
                    expected="one unit for all of them; set it with --units mm or --units m",
                )
        return self._units_from(biggest, units, "the file" if split is None else f"the '{split}' split")

    @staticmethod
    def _units_from(biggest: float, units: str, scope: str = "the file") -> tuple[float, str]:
        if units == "m":
            return 1.0, f"metres (set by the user; largest |translation| in {scope} {biggest:.3g})"
        if units == "mm":
            return 1e-3, f"millimetres (set by the user; largest |translation| in {scope} {biggest:.3g}); converted to metres"
        if biggest > MM_THRESHOLD:
            return 1e-3, f"millimetres (detected: largest |translation| {biggest:.3g} > {MM_THRESHOLD:g}); converted to metres"
        return 1.0, f"metres (detected: largest |translation| {biggest:.3g} <= {MM_THRESHOLD:g})"

    def _to_metres(self, T: np.ndarray) -> np.ndarray:
        if self.scale != 1.0:
            T = T.copy()
            T[:3, 3] *= self.scale
        return T

    def _pose(self, value: Any, where: str, fld: str) -> np.ndarray:
        if self._batch is not None:  # converted and checked already (_parse_index)
            values, T_all = self._batch
            k = self._batch_next
            if k >= len(values) or values[k] is not value:
                raise _Slow
            self._batch_next = k + 1
            return T_all[k]
        T = self._to_metres(_matrix16(value, self.index_path, where, fld))
        if not bool(is_rotation(T[:3, :3], tol=INDEX_ROTATION_TOL)) or not np.allclose(T[3], [0, 0, 0, 1], atol=1e-6):
            raise InputError(
                self.index_path, "is not a rigid transform (rotation part not orthonormal or last row not 0 0 0 1)", where=where, field=fld
            )
        return T

    def _symmetry(self, code: Any, where: str, path: Path | None = None) -> int:
        """A symmetry code of 3RScan.json (or of objects.json when ``path`` says so), checked against the known codes."""
        path = path or self.index_path
        c = _as_int(code, path, where, "symmetry")
        try:
            symmetry_order(c, self.symmetry_codes)
        except ValueError as exc:
            raise InputError(
                path,
                str(exc),
                where=where,
                field="symmetry",
                expected="0 (none), 1 (2-fold) or 2 (4-fold), or a code mapped with --symmetry-code",
            ) from None
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
        try:
            return self._read_objects_typed()
        except (_Slow, InputError):
            return self._read_objects_checked()

    def _read_objects_typed(self) -> dict[str, dict[int, ObjectInfo]]:
        """:meth:`_read_objects_checked` from the typed decoding of ``objects.json`` (the same
        records); ``_Slow`` (or an InputError) for anything that path might read differently."""
        doc = _read_typed(self.objects_path, _typed_decoders()[1])
        known_codes: set[int] = set()
        out: dict[str, dict[int, ObjectInfo]] = {}
        for s in doc.scans:
            objs: dict[int, ObjectInfo] = {}
            for o in s.objects or ():
                iid, sym = _small_int(o.id), o.symmetry
                if sym is not None and sym not in known_codes:
                    self._symmetry(sym, "", self.objects_path)  # an unknown code: the checking path names the record
                    known_codes.add(sym)
                objs[iid] = ObjectInfo(iid, _small_int(o.global_id), o.label, sym, o.attributes or {})
            out[s.scan] = objs
        return out

    def _read_objects_checked(self) -> dict[str, dict[int, ObjectInfo]]:
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

    # --- symmetry and interchangeable instances ------------------------------------------------

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
