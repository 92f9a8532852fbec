"""Read and write RIO pose predictions (JSONL, one instance per line).

Each line names the rescan and the reference instance and gives the pose that maps the reference
instance into the rescan (same convention and frame as ``rigid[].transform``, metres), in one of
three forms:

    {"rescan": "<id>", "instance": 7, "pose": [[r00, r01, r02, tx], [..], [..], [0, 0, 0, 1]]}
    {"rescan": "<id>", "instance": 7, "R": [[..], [..], [..]], "t": [tx, ty, tz]}
    {"rescan": "<id>", "instance": 7, "quaternion": [w, x, y, z], "t": [tx, ty, tz]}

``pose`` is a row-major nested 4x4 (``x' = pose @ [x, y, z, 1]``); its last row must be
``0 0 0 1``. Rotations must be orthonormal with det +1 within
:data:`scenebench.geometry.poses.ROTATION_TOL` (1e-4, max entry of ``R^T R - I``); quaternions are
scalar-first and unit within ``QUAT_NORM_TOL`` (1e-4). Other keys (``score``, ``fitness``, ...) are
kept as metadata and ignored by the metric.

Refused with an :class:`InputError` naming file, line and field: non-numbers, NaN/inf, wrong shapes,
non-rotations, an unknown rescan or instance, a second prediction for the same (rescan, instance).
Predictions for rescans outside the scored split are ignored and counted (a user may predict all
rescans and score one split at a time).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from msgspec import UNSET

from scenebench.errors import InputError
from scenebench.geometry.poses import QUAT_NORM_TOL, ROTATION_TOL, compose, quaternion_to_matrix, rotation_defect
from scenebench.io.files import atomic_write_text, is_finite_number, iter_jsonl, iter_jsonl_decoded

ROTATION_KEYS = ("pose", "R", "quaternion")


@dataclass
class PosePredictions:
    poses: dict[tuple[str, int], np.ndarray]  # (rescan, instance) -> (4, 4)
    lines: dict[tuple[str, int], int]
    meta: dict[tuple[str, int], dict[str, Any]]
    ignored_other_split: int = 0


def _numbers(value: Any, shape: tuple[int, ...], path: Path, lineno: int, fld: str) -> np.ndarray:
    where = f"line {lineno}"
    expected = {
        (4, 4): "a 4x4 nested list of numbers",
        (3, 3): "a 3x3 nested list of numbers",
        (3,): "3 numbers",
        (4,): "4 numbers (w, x, y, z)",
    }[shape]
    try:
        arr = np.array(value, dtype=object)
    except ValueError:  # ragged nested lists
        raise InputError(path, "has rows of different lengths", where=where, field=fld, expected=expected) from None
    if arr.shape != shape:
        ragged = arr.ndim < len(shape) and any(isinstance(x, list) for x in arr.reshape(-1))
        what = "has rows of different lengths" if ragged else f"has shape {arr.shape}"
        raise InputError(path, what, where=where, field=fld, expected=expected)
    flat = arr.reshape(-1).tolist()
    for x in flat:
        if not isinstance(x, (int, float)) or isinstance(x, bool):
            raise InputError(path, f"contains {x!r}", where=where, field=fld, expected=expected)
        if not is_finite_number(x):
            raise InputError(path, f"contains {x!r}", where=where, field=fld, expected="finite numbers (no NaN or infinity)")
    return np.array(flat, dtype=float).reshape(shape)


def _parse_pose(rec: Mapping[str, Any], path: Path, lineno: int) -> tuple[np.ndarray, str]:
    where = f"line {lineno}"
    given = [k for k in ROTATION_KEYS if k in rec]
    if len(given) != 1:
        raise InputError(
            path,
            f"gives {given or 'no rotation'}",
            where=where,
            field="pose",
            expected="exactly one of 'pose' (4x4), 'R' + 't', 'quaternion' + 't'",
        )
    key = given[0]
    if key == "pose":
        T = _numbers(rec["pose"], (4, 4), path, lineno, "pose")
        if np.abs(T[3] - [0, 0, 0, 1]).max() > 1e-6:
            raise InputError(path, f"last row is {T[3].tolist()}", where=where, field="pose", expected="0 0 0 1 (a rigid transform)")
        return T, "pose"
    if "t" not in rec:
        raise InputError(path, "is missing", where=where, field="t", expected=f"a translation [tx, ty, tz] with '{key}'")
    t = _numbers(rec["t"], (3,), path, lineno, "t")
    if key == "R":
        return compose(_numbers(rec["R"], (3, 3), path, lineno, "R"), t), "R"
    q = _numbers(rec["quaternion"], (4,), path, lineno, "quaternion")
    norm = float(np.linalg.norm(q))
    if abs(norm - 1.0) > QUAT_NORM_TOL:
        raise InputError(
            path,
            f"has norm {norm:.6g}",
            where=where,
            field="quaternion",
            expected=f"a unit quaternion (w, x, y, z), |norm - 1| <= {QUAT_NORM_TOL:g}",
        )
    return compose(quaternion_to_matrix(q), t), "quaternion"


class _Slow(Exception):
    """Raised by the fast path for anything unusual: the file is read again by the plain path."""


@lru_cache(maxsize=1)
def _fast_line_type() -> Any:
    """The msgspec Struct of an ordinary line (rescan, instance and one pose form, numbers only,
    no other key): element types are checked in C. Anything else (a ``score`` key, a float
    instance, a null, a string among the numbers) is refused, and the line is read as a plain dict."""
    import msgspec

    matrix = list[list[float]] | msgspec.UnsetType
    vector = list[float] | msgspec.UnsetType
    return msgspec.defstruct(
        "PoseLine",
        [
            ("rescan", str),
            ("instance", int),
            ("pose", matrix, msgspec.UNSET),
            ("R", matrix, msgspec.UNSET),
            ("t", vector, msgspec.UNSET),
            ("quaternion", vector, msgspec.UNSET),
        ],
        forbid_unknown_fields=True,
    )


@lru_cache(maxsize=1)
def _fast_decoder() -> Callable[[bytes], Any]:
    """msgspec decoder of one ordinary line (:func:`_fast_line_type`)."""
    import msgspec

    return msgspec.json.Decoder(_fast_line_type()).decode


# A predictions file up to this size is decoded in one call (:func:`_whole_file_records`); a larger
# one line by line, so its bytes never sit in memory whole.
WHOLE_FILE_BYTES = 256 * 1024 * 1024


def _whole_file_records(p: Path) -> list[Any] | None:
    """The lines of an ordinary predictions file decoded in one msgspec call (no Python per line),
    or None: then the file is read line by line. Ordinary means: a file no larger than
    :data:`WHOLE_FILE_BYTES`, valid UTF-8, every line non-empty, starting with ``{`` and ending
    with ``}`` (no blank lines, no padding, no ``\r``), and one record per line. Since a JSON
    string cannot hold a raw newline and ``}`` followed by ``{`` is valid JSON only between two
    values, such a line holds whole records; as many records as lines means one each (a
    ``decode_lines`` stream would also take two records on one line). A refusal of any line gives
    None as well, and the per-line reader finds and names it."""
    try:
        if not p.is_file() or p.stat().st_size > WHOLE_FILE_BYTES:
            return None
        raw = p.read_bytes()
        if not raw.isascii():
            raw.decode("utf-8")  # the decoder does not look inside strings it does not keep
        buf = np.frombuffer(raw, dtype=np.uint8)
        nl = np.flatnonzero(buf == 10)
        starts = np.r_[0, nl + 1]
        ends = np.r_[nl, buf.size]
        if raw.endswith(b"\n"):
            starts, ends = starts[:-1], ends[:-1]
        if not starts.size or (ends <= starts).any() or (buf[starts] != ord("{")).any() or (buf[ends - 1] != ord("}")).any():
            return None
        recs = _fast_decoder_lines()(raw)
    except Exception:  # noqa: BLE001 - refused: the per-line reader names the problem
        return None
    return recs if len(recs) == starts.size else None


@lru_cache(maxsize=1)
def _fast_decoder_lines() -> Callable[[bytes], list[Any]]:
    """:func:`_fast_decoder`'s line type, for a whole file of lines."""
    import msgspec

    return msgspec.json.Decoder(_fast_line_type()).decode_lines  # type: ignore[no-any-return]


def read_pose_predictions(
    path: str | Path,
    known: Mapping[str, set[int]],
    *,
    evaluated: Iterable[str] | None = None,
    allow_empty: bool = False,
) -> PosePredictions:
    """Read and validate a predictions file.

    Ordinary lines are decoded by msgspec and their poses checked and built in batches; any
    error (or anything unusual) reads the file again by the plain per-line path, so the error
    message and the line it names are the ones that path gives (the first problem in file order).

    Args:
        known: every rescan id of the dataset -> its reference instance ids (what may be named).
        evaluated: rescans being scored; predictions for other known rescans are counted, not kept.
    """
    try:
        return _read_pose_predictions(path, known, evaluated=evaluated, allow_empty=allow_empty, fast=True)
    except (InputError, _Slow):
        return _read_pose_predictions(path, known, evaluated=evaluated, allow_empty=allow_empty, fast=False)


def _batch_poses(pending: dict[str, list], n: int) -> np.ndarray:
    """(n, 4, 4) poses of the fast lines, by form; ``_Slow`` for any shape or value the plain path would refuse."""
    T = np.zeros((n, 4, 4))
    if pending["pose"]:
        rows, mats = zip(*pending["pose"])
        try:
            P = np.array(mats, dtype=float)
        except ValueError:  # ragged
            raise _Slow from None
        if P.shape != (len(rows), 4, 4) or (np.abs(P[:, 3] - [0, 0, 0, 1]).max(axis=1) > 1e-6).any():
            raise _Slow
        T[list(rows)] = P
    for form, shape in (("R", (3, 3)), ("quaternion", (4,))):
        if not pending[form]:
            continue
        rows, rots, ts = zip(*pending[form])
        try:
            A, t = np.array(rots, dtype=float), np.array(ts, dtype=float)
        except ValueError:
            raise _Slow from None
        if A.shape != (len(rows), *shape) or t.shape != (len(rows), 3):
            raise _Slow
        if form == "quaternion":
            norm = np.sqrt((A * A).sum(axis=1))
            if (np.abs(norm - 1.0) > QUAT_NORM_TOL * (1 - 1e-9)).any():  # borderline ones: the plain path decides
                raise _Slow
            A = quaternion_to_matrix(A)
        T[list(rows)] = compose(A, t)
    return T


def _all_poses(p: Path, recs: list[Any], known: Mapping[str, set[int]], evaluated: set[str]) -> PosePredictions:
    """The predictions of a whole file of ordinary lines (:func:`_whole_file_records`) that all
    give ``pose`` (the usual file), checked as columns: what the per-line loop of
    :func:`_read_pose_predictions` gives them (the same arrays, counts and errors). ``_Slow`` for
    anything else (another pose form, an unknown or repeated instance): the loop reads them."""
    poses_in = [r.pose for r in recs]
    if any(T is UNSET for T in poses_in) or any(r.R is not UNSET or r.quaternion is not UNSET for r in recs):
        raise _Slow
    keys = [(r.rescan, r.instance) for r in recs]
    empty: set[int] = set()
    if not all(i in known.get(r, empty) for r, i in keys) or len(set(keys)) != len(keys):
        raise _Slow
    T_fast = _batch_poses({"pose": list(enumerate(poses_in)), "R": [], "quaternion": []}, len(recs))
    kept_rows = [i for i, (r, _) in enumerate(keys) if r in evaluated]
    poses = {keys[i]: T_fast[i] for i in kept_rows}
    lines = {keys[i]: i + 1 for i in kept_rows}  # one record per line
    if kept_rows:
        defect = rotation_defect(np.ascontiguousarray(T_fast[kept_rows, :3, :3]))
        bad = np.flatnonzero(~(defect <= ROTATION_TOL))
        if bad.size:
            raise InputError(
                p,
                f"rotation is not orthonormal with det +1 (defect {defect[bad[0]]:.3g}; {bad.size} such records)",
                where=f"line {kept_rows[int(bad[0])] + 1}",
                field="pose",
                expected=f"max |R^T R - I| and |det R - 1| <= {ROTATION_TOL:g}",
            )
    return PosePredictions(poses, lines, {}, len(recs) - len(kept_rows))


def _read_pose_predictions(
    path: str | Path,
    known: Mapping[str, set[int]],
    *,
    evaluated: Iterable[str] | None,
    allow_empty: bool,
    fast: bool,
) -> PosePredictions:
    p = Path(path)
    evaluated_set = set(known) if evaluated is None else set(evaluated)
    poses: dict[tuple[str, int], np.ndarray] = {}
    lines: dict[tuple[str, int], int] = {}
    meta: dict[tuple[str, int], dict[str, Any]] = {}
    fields: dict[tuple[str, int], str] = {}
    ignored = 0
    pending: dict[str, list] = {"pose": [], "R": [], "quaternion": []}
    slots: list[tuple[tuple[str, int], bool]] = []  # fast lines in order: key, kept
    whole = _whole_file_records(p) if fast else None
    if whole is not None:
        try:
            return _all_poses(p, whole, known, evaluated_set)
        except _Slow:
            pass
    records: Iterable[tuple[int, Any]]
    if whole is not None:
        records = enumerate(whole, start=1)  # one record per line (checked), so record k is line k
    else:
        records = iter_jsonl_decoded(p, _fast_decoder(), allow_empty=allow_empty) if fast else iter_jsonl(p, allow_empty=allow_empty)
    all_fast = True  # every kept pose comes from the batch below (no line read as a plain dict)
    for lineno, rec in records:
        if not isinstance(rec, dict):
            key = (rec.rescan, rec.instance)
            if rec.rescan not in known or rec.instance not in known[rec.rescan] or key in lines:
                raise _Slow
            if rec.pose is not UNSET:
                if rec.R is not UNSET or rec.quaternion is not UNSET:
                    raise _Slow
                pending["pose"].append((len(slots), rec.pose))
                how = "pose"
            else:
                how = "R" if rec.R is not UNSET else "quaternion"
                rot = rec.R if how == "R" else rec.quaternion
                if rot is UNSET or rec.t is UNSET or (how == "R" and rec.quaternion is not UNSET):
                    raise _Slow
                pending[how].append((len(slots), rot, rec.t))
            lines[key] = lineno
            kept = rec.rescan in evaluated_set
            slots.append((key, kept))
            if kept:
                poses[key] = None  # type: ignore[assignment]  # filled from the batch below, in file order
                fields[key] = how
            else:
                ignored += 1
            continue
        all_fast = False
        where = f"line {lineno}"
        rescan = rec.get("rescan")
        if not isinstance(rescan, str) or not rescan:
            raise InputError(p, f"is {rescan!r}", where=where, field="rescan", expected="a rescan id (string)")
        if rescan not in known:
            raise InputError(p, f"rescan '{rescan}' is not in the 3RScan index", where=where, field="rescan")
        inst = rec.get("instance")
        if isinstance(inst, bool) or not (isinstance(inst, int) or (isinstance(inst, float) and inst.is_integer())):
            raise InputError(p, f"is {inst!r}", where=where, field="instance", expected="an integer reference instance id")
        inst = int(inst)
        if inst not in known[rescan]:
            raise InputError(
                p, f"instance {inst} is not an instance of the reference scan of rescan '{rescan}'", where=where, field="instance"
            )
        key = (rescan, inst)
        if key in lines:
            raise InputError(
                p,
                f"second prediction for rescan '{rescan}' instance {inst} (first on line {lines[key]})",
                where=where,
                field="instance",
                expected="one prediction per (rescan, instance)",
            )
        T, how = _parse_pose(rec, p, lineno)
        lines[key] = lineno
        if rescan not in evaluated_set:
            ignored += 1
            continue
        poses[key] = T
        fields[key] = how
        extra = {k: v for k, v in rec.items() if k not in ("rescan", "instance", "pose", "R", "t", "quaternion")}
        if extra:
            meta[key] = extra
    kept_rows: list[int] = []
    if slots:
        T_fast = _batch_poses(pending, len(slots))
        for i, (key, kept) in enumerate(slots):
            if kept:
                poses[key] = T_fast[i]
                kept_rows.append(i)
    # Orthonormality checked in one batch; the message names the first offending line.
    if poses:
        keys = list(poses)
        if all_fast:  # the kept rows of the batch, in file order: the stack below without a Python list
            R = np.ascontiguousarray(T_fast[kept_rows, :3, :3])
        else:
            R = np.stack([poses[k][:3, :3] for k in keys])
        defect = rotation_defect(R)
        bad = np.flatnonzero(~(defect <= ROTATION_TOL))
        if bad.size:
            k = keys[int(bad[0])]
            raise InputError(
                p,
                f"rotation is not orthonormal with det +1 (defect {defect[bad[0]]:.3g}; {bad.size} such records)",
                where=f"line {lines[k]}",
                field=fields[k],
                expected=f"max |R^T R - I| and |det R - 1| <= {ROTATION_TOL:g}",
            )
    return PosePredictions(poses, {k: lines[k] for k in poses}, meta, ignored)


def write_pose_predictions(path: str | Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """Write records ``{"rescan", "instance", "pose" (4x4 array or list), ...}`` as JSONL, atomically."""
    out = []
    for r in rows:
        d = dict(r)
        d["pose"] = np.asarray(d["pose"], dtype=float).tolist()
        out.append(json.dumps(d, allow_nan=False))
    atomic_write_text(path, "\n".join(out) + ("\n" if out else ""))
