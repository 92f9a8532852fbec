"""Read SURPRISE3D prediction files (JSONL, or Parquet with the same columns), streamed.

One record per sample. It names its sample by ``sample_id`` (see :mod:`.annotations`) or by
``index`` (0-based row of the annotation file), or both when they agree, and carries exactly one
prediction field:

- ``mask_indices``: point indices (ints in [0, N)); repeats are harmless (a mask is a set);
- ``mask_rle``: flat ``[start, length, start, length, ...]`` runs over point indices;
- ``scores``: one probability in [0, 1] per point (length N); a point is predicted when its score
  is ``>= score_threshold`` (0.5 by default, at both protocols; ``official`` compares float32
  score with float32 threshold, as the released ``get_iou`` does);
- ``logits``: one raw model output per point (any finite number, length N), turned into a
  probability by the sigmoid: ``official`` reproduces float32 ``torch.sigmoid`` on CPU bit for bit
  (:func:`scenebench.metrics.segmentation.torch_sigmoid_f32`), ``strict`` uses the exact sigmoid;
- ``box``: ``[xmin, ymin, zmin, xmax, ymax, zmax]`` in metres (scored as the mask of the points
  inside it, and separately by the box-detection protocol).

A file holds either boxes or masks, not both: the two kinds of model are never averaged together.
Each record is turned at once into a compact form (sorted unique point indices, or the box), so a
1 GB file of per-point scores is never held in memory. Checks that need the scene (an index beyond
the scene's N points, a ``scores`` list whose length is not N) run when the scene is loaded, with the
same file/line/field message. Every error is an :class:`~scenebench.errors.InputError`.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError
from scenebench.io.files import iter_jsonl_decoded, read_jsonl_line

from .annotations import Annotations

MASK_FIELDS = ("mask_indices", "mask_rle", "scores", "logits")
PRED_FIELDS = (*MASK_FIELDS, "box")
KEY_FIELDS = ("sample_id", "index")
DEFAULT_SCORE_THRESHOLD = 0.5
# Larger than any SURPRISE3D scene (area-sampled ScanNet++ clouds hold a few million points).
MAX_RLE_POINTS = 2**28


@dataclass(frozen=True)
class Prediction:
    """A parsed prediction. ``indices``: sorted unique int32/int64 point indices (masks);
    ``limit``: one past the largest point index referred to; ``n_scores``: length of a ``scores``
    list; ``box``: (6,) float64 min-max box.

    Every prediction of the file is held until its scene is scored, so a dense mask (more than one
    point in 32 selected, as per-point ``scores`` usually give) is kept as packed bits (``bits``, one
    bit per point up to ``n_bits``) and unpacked on access: 1/32 of int32 indices, which keeps the
    memory of scoring a 1 GB scores file far below the file size (benchmarks/bench_memory.py).
    """

    kind: str
    where: str
    _indices: np.ndarray | None = None
    limit: int = 0
    n_scores: int | None = None
    box: np.ndarray | None = None
    bits: np.ndarray | None = None
    n_bits: int = 0

    @property
    def indices(self) -> np.ndarray | None:
        if self.bits is not None:
            return np.flatnonzero(np.unpackbits(self.bits, count=self.n_bits)).astype(np.int32 if self.n_bits < 2**31 else np.int64)
        return self._indices


def _mask_fields(idx: np.ndarray) -> dict[str, Any]:
    """``Prediction`` fields of a sorted unique index set: packed bits when dense, else the indices."""
    n = int(idx[-1]) + 1 if idx.size else 0
    if idx.size * 32 > n:
        bits = np.zeros(n, dtype=bool)
        bits[idx] = True
        return {"bits": np.packbits(bits), "n_bits": n}
    return {"_indices": idx}


@dataclass
class PredictionSet:
    path: Path
    by_sample: dict[str, Prediction]
    kinds: Counter
    score_threshold: float

    @property
    def has_boxes(self) -> bool:
        return self.kinds.get("box", 0) > 0

    def check_scene(self, pred: Prediction, n_points: int, scene_id: str) -> None:
        """Refuse a prediction that does not fit its scene's ``n_points`` points."""
        if pred.kind in ("scores", "logits") and pred.n_scores != n_points:
            raise InputError(
                self.path,
                f"{pred.n_scores} {pred.kind} for scene '{scene_id}' of {n_points} points",
                where=pred.where,
                field=pred.kind,
                expected=f"one value per point ({n_points})",
            )
        if pred.limit > n_points:
            raise InputError(
                self.path,
                f"point index {pred.limit - 1} is beyond scene '{scene_id}' ({n_points} points)",
                where=pred.where,
                field=pred.kind,
                expected=f"indices in [0, {n_points})",
            )


# ------------------------------------------------------------------------------------------------
# Field parsers: value (list from JSON, or numpy array from Parquet) -> compact form.


def _as_array(path: Path, where: str, name: str, value: Any, what: str) -> np.ndarray:
    if isinstance(value, np.ndarray):
        arr = value
    elif isinstance(value, list):
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError):
            raise InputError(path, "not a flat list", where=where, field=name, expected=what) from None
    else:
        raise InputError(path, f"is a {type(value).__name__}", where=where, field=name, expected=what)
    if arr.ndim != 1:
        raise InputError(path, f"nested list (shape {arr.shape})", where=where, field=name, expected=what)
    return arr


def _int_array(path: Path, where: str, name: str, value: Any, what: str) -> np.ndarray:
    arr = _as_array(path, where, name, value, what)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind not in "iu":
        bad = _first_bad(arr)
        raise InputError(path, f"non-integer value{bad}", where=where, field=name, expected=what)
    arr = arr.astype(np.int64, copy=False)
    if (arr < 0).any():
        i = int(np.flatnonzero(arr < 0)[0])
        raise InputError(path, f"negative value {int(arr[i])} at position {i}", where=where, field=name, expected=what)
    return arr


def _first_bad(arr: np.ndarray) -> str:
    """Describe the first element that is not an integer (error path only)."""
    if arr.dtype == object or arr.dtype.kind in "USb":
        for i, x in enumerate(arr.tolist()):
            if isinstance(x, bool) or not isinstance(x, int):
                return f" {x!r} at position {i}"
    elif arr.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)) | (np.abs(arr) >= 2.0**63))
        if bad.size:  # whole numbers mixed with ints beyond int64 also arrive as floats
            return f" {arr[int(bad[0])].item()!r} at position {int(bad[0])}"
    return ""


def _compact(idx: np.ndarray) -> np.ndarray:
    """Sorted unique indices in the smallest safe integer type.

    Sort-and-drop-repeats rather than ``np.unique`` (hash based in numpy 2.3+, measured 20x slower
    here); already-increasing input, the usual case, skips the sort.
    """
    u = np.asarray(idx)
    if u.size > 1 and not (u[1:] > u[:-1]).all():
        u = np.sort(u)
        u = u[np.r_[True, u[1:] != u[:-1]]]
    return u.astype(np.int32) if (u.size == 0 or u[-1] < 2**31 - 1) else u.astype(np.int64)


def parse_mask_indices(path: Path, where: str, value: Any) -> Prediction:
    arr = _int_array(path, where, "mask_indices", value, "a list of point indices (integers >= 0)")
    limit = int(arr.max()) + 1 if arr.size else 0
    return Prediction("mask_indices", where, limit=limit, **_mask_fields(_compact(arr)))


def rle_to_indices(runs: np.ndarray) -> np.ndarray:
    """Flat ``[start, length, ...]`` (int, even length) -> the covered point indices (unsorted if
    runs are unsorted; may repeat if runs overlap). Vectorised: no loop over runs or points."""
    starts, lens = runs[0::2], runs[1::2]
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    run_of = np.repeat(np.arange(lens.size), lens)
    offset_in_run = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens)
    return starts[run_of] + offset_in_run


def parse_mask_rle(path: Path, where: str, value: Any) -> Prediction:
    what = "a flat list [start, length, start, length, ...] of integers >= 0"
    runs = _int_array(path, where, "mask_rle", value, what)
    if runs.size % 2:
        raise InputError(path, f"odd length {runs.size}", where=where, field="mask_rle", expected=what)
    # Runs are expanded before the scene is known: a one-line [0, 10**12] must not allocate terabytes.
    if runs.size and (runs.max() > MAX_RLE_POINTS or int(runs[1::2].sum()) > MAX_RLE_POINTS):
        raise InputError(
            path,
            f"runs reach beyond {MAX_RLE_POINTS:,} points",
            where=where,
            field="mask_rle",
            expected=f"runs inside the scene (starts and total length <= {MAX_RLE_POINTS:,})",
        )
    ends = runs[0::2] + runs[1::2]
    nonempty = runs[1::2] > 0
    limit = int(ends[nonempty].max()) if nonempty.any() else 0
    return Prediction("mask_rle", where, limit=limit, **_mask_fields(_compact(rle_to_indices(runs))))


def _float_array(path: Path, where: str, name: str, value: Any, what: str) -> np.ndarray:
    arr = _as_array(path, where, name, value, what)
    if arr.size and arr.dtype.kind not in "iuf":
        raise InputError(path, "non-numeric values (strings, null or lists)", where=where, field=name, expected=what)
    arr = arr.astype(np.float64, copy=False)
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(path, f"{arr[i]!r} at position {i} (NaN or null)", where=where, field=name, expected=what)
    return arr


def parse_scores(path: Path, where: str, value: Any, threshold: float, protocol: str = "strict") -> Prediction:
    what = "one probability in [0, 1] per point (raw model outputs go in 'logits')"
    arr = _float_array(path, where, "scores", value, what)
    out = (arr < 0) | (arr > 1)
    if out.any():
        i = int(np.flatnonzero(out)[0])
        raise InputError(
            path,
            f"{arr[i]!r} at position {i} is outside [0, 1]: scores are probabilities; "
            "give raw model outputs (before the sigmoid) as 'logits'",
            where=where,
            field="scores",
            expected=what,
        )
    if protocol == "official":  # released: a float32 tensor compared with the threshold cast to float32
        keep = arr.astype(np.float32) >= np.float32(threshold)
    else:
        keep = arr >= threshold
    return Prediction("scores", where, n_scores=int(arr.size), **_mask_fields(_compact(np.flatnonzero(keep))))


def parse_logits(path: Path, where: str, value: Any, threshold: float, protocol: str = "strict") -> Prediction:
    """Per-point logits: predicted when ``sigmoid(logit) >= threshold``.

    ``official``: float32 ``torch.sigmoid`` as the released ``get_iou`` computes it on CPU, compared
    with float32(threshold) (so a logit in about [-1.79e-7, 0) gives exactly 0.5 and is predicted at
    0.5); ``strict``: the exact sigmoid, i.e. ``logit >= log(t / (1 - t))`` (t = 0: every point;
    t = 1: none).
    """
    from scenebench.metrics.segmentation import torch_sigmoid_f32

    what = "one finite number (a logit) per point"
    arr = _float_array(path, where, "logits", value, what)
    if protocol == "official":
        with np.errstate(over="ignore"):
            keep = torch_sigmoid_f32(arr.astype(np.float32)) >= np.float32(threshold)
    elif threshold <= 0:
        keep = np.ones(arr.shape, dtype=bool)
    elif threshold >= 1:
        keep = np.zeros(arr.shape, dtype=bool)
    else:
        keep = arr >= math.log(threshold) - math.log1p(-threshold)
    return Prediction("logits", where, n_scores=int(arr.size), **_mask_fields(_compact(np.flatnonzero(keep))))


def parse_box(path: Path, where: str, value: Any) -> Prediction:
    what = "[xmin, ymin, zmin, xmax, ymax, zmax] (6 finite numbers, metres)"
    arr = _as_array(path, where, "box", value, what)
    if arr.size != 6 or arr.dtype.kind not in "iuf":
        raise InputError(path, f"{value!r}" if isinstance(value, list) else f"{arr.size} values", where=where, field="box", expected=what)
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        raise InputError(path, "non-finite value", where=where, field="box", expected=what)
    if (arr[3:] < arr[:3]).any():
        axis = "xyz"[int(np.flatnonzero(arr[3:] < arr[:3])[0])]
        raise InputError(path, f"{axis}max < {axis}min", where=where, field="box", expected=what)
    return Prediction("box", where, box=arr)


# ------------------------------------------------------------------------------------------------
# Record streams.


def _locate_nonfinite(path: Path, lineno: int) -> str | None:
    """Name the field holding NaN/Infinity on one JSONL line (only on the error path)."""
    with open(path, "rb") as fh:
        for i, raw in enumerate(fh, start=1):
            if i == lineno:
                try:
                    rec = json.loads(raw.decode("utf-8"), parse_constant=float)
                except ValueError:
                    return None
                for k, v in rec.items() if isinstance(rec, dict) else ():
                    vals = v if isinstance(v, list) else [v]
                    for j, x in enumerate(vals):
                        if isinstance(x, float) and not math.isfinite(x):
                            return f"{k}[{j}]" if isinstance(v, list) else k
                return None
    return None


# Fast JSONL path: msgspec decodes each line into the known fields, lists of ints or floats checked in
# C (no bools, strings or nulls inside) and turned into numpy arrays at once; other fields (a box, any
# field added later) decode as plain JSON. A line it refuses is read by the standard-library path,
# whose record then meets the checks below, so every error message is the one that path gives.
_TYPED_LISTS: dict[str, tuple[Any, Any]] = {
    "mask_indices": (list[int], np.int64),
    "mask_rle": (list[int], np.int64),
    "scores": (list[float], np.float64),
}


# ``mask_indices`` (the usual field, thousands of indices per line) is kept as its raw JSON text and
# read by numpy's C text parser: no Python int per index (msgspec list[int] + np.array: 2x slower).
_RAW_INTS = ("mask_indices",)
_INT_TEXT = b"0123456789,- \t\n\r"  # all a JSON array of integers can hold between its brackets
_WHITESPACE = b" \t\n\r"
_LONG = 10**18


class _NotPlainInts(Exception):
    """The raw array is not a flat list of integers of at most 18 digits: the standard-library path reads the line."""


def _raw_int_array(raw: bytes) -> np.ndarray:
    """The int64 values of ``raw``, the text of a JSON array that msgspec has checked to be valid
    JSON. Holding only digits, commas, minus signs and whitespace, it can only be a flat list of
    integers; 19 digits or more (possibly beyond int64) and anything else raise ``_NotPlainInts``."""
    if len(raw) < 2 or raw[0] != 0x5B or raw[-1] != 0x5D:
        raise _NotPlainInts
    inner = raw[1:-1]
    if inner.translate(None, _INT_TEXT):
        raise _NotPlainInts
    if not inner.strip(_WHITESPACE):
        return np.zeros(0, dtype=np.int64)  # (np.fromstring reads whitespace alone as [0])
    arr = np.fromstring(inner, dtype=np.int64, sep=",")
    # 19 digits or more: beyond what int64 surely holds (the parser clamps at +-(2**63 - 1)); JSON
    # has no leading zeros, so such a number is at least 10**18 in magnitude
    if arr.size and (arr.max() >= _LONG or arr.min() <= -_LONG):
        raise _NotPlainInts
    return arr


@lru_cache(maxsize=1)
def _fast_decoder() -> Callable[[bytes], dict[str, Any]]:
    import msgspec

    keys = {"sample_id": str, "index": int}
    names = (*KEY_FIELDS, *PRED_FIELDS)
    spec: list[tuple[str, Any, Any]] = []
    for f in names:
        if f in _RAW_INTS:
            spec.append((f, msgspec.Raw, msgspec.Raw()))  # absent: an empty Raw
        else:
            spec.append((f, (_TYPED_LISTS[f][0] if f in _TYPED_LISTS else keys.get(f, Any)) | None, None))
    decoder = msgspec.json.Decoder(msgspec.defstruct("PredictionLine", spec, forbid_unknown_fields=False))
    arrays = [(f, dtype) for f, (_, dtype) in _TYPED_LISTS.items() if f in names and f not in _RAW_INTS]
    raw_ints = [f for f in _RAW_INTS if f in names]
    plain = [f for f in names if f not in _TYPED_LISTS]

    def decode(raw: bytes) -> dict[str, Any]:
        line = decoder.decode(raw)
        rec = {f: v for f in plain if (v := getattr(line, f)) is not None}
        for f in raw_ints:
            text = getattr(line, f)
            if len(text) and not (len(text) == 4 and memoryview(text) == b"null"):  # type: ignore[comparison-overlap]  # equal bytes
                rec[f] = _raw_int_array(bytes(text))  # _NotPlainInts: the standard-library path reads the line
        for f, dtype in arrays:
            v = getattr(line, f)
            if v is not None:
                rec[f] = np.array(v, dtype=dtype)  # OverflowError (int beyond int64): the slow path says so
        return rec

    return decode


def _iter_jsonl_records(path: Path, allow_empty: bool = False) -> Iterator[tuple[str, dict[str, Any]]]:
    try:
        for lineno, rec in iter_jsonl_decoded(path, _fast_decoder(), allow_empty=allow_empty):
            yield f"line {lineno}", rec
    except InputError as exc:
        if exc.reason.startswith("non-finite") and exc.where and exc.where.startswith("line "):
            lineno = int(exc.where.split()[1])
            fld = _locate_nonfinite(path, lineno)
            raise InputError(
                path,
                f"{exc.reason.split()[-1]} is not a valid value",
                where=exc.where,
                field=fld,
                expected="finite numbers (scores in [0, 1])",
            ) from None
        raise


# Bounds on what a Parquet predictions file may declare, checked from its metadata before any page
# is decoded: run-length encoding lets 1 KB declare 200,000,000 zeros (GBs once decoded).
MAX_VALUES_PER_ROW = 2**25  # list values per row on average (a scene holds a few million points)
MAX_VALUES_PER_BYTE = 1024  # declared values per encoded byte, for column chunks over BOMB_VALUES
BOMB_VALUES = 2**25
BATCH_VALUES = 2**24  # values of a list column decoded at once (about 128 MB of float64)


def _check_parquet_sizes(path: Path, pf: Any, cols: list[str]) -> float:
    """Refuse a file whose metadata declares more list values than predictions can hold, before any
    page is decoded; return the largest average number of values per row of a read column."""
    md = pf.metadata
    worst = 0.0
    for rg in range(md.num_row_groups):
        group = md.row_group(rg)
        rows = max(group.num_rows, 1)
        for j in range(group.num_columns):
            chunk = group.column(j)
            name = chunk.path_in_schema.split(".")[0]
            if name not in cols:
                continue
            n, packed = int(chunk.num_values), max(int(chunk.total_uncompressed_size), 1)
            if n > rows * MAX_VALUES_PER_ROW or (n > BOMB_VALUES and n > packed * MAX_VALUES_PER_BYTE):
                raise InputError(
                    path,
                    f"row group {rg} declares {n:,} values in {rows:,} row(s), encoded in {packed:,} bytes: refused before decoding",
                    field=name,
                    expected=f"at most {MAX_VALUES_PER_ROW:,} values per row (a scene's points) and no more than {MAX_VALUES_PER_BYTE} values per encoded byte",
                )
            worst = max(worst, n / rows)
    return worst


def _iter_parquet_records(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    from scenebench.extras import require

    pq = require("pyarrow.parquet", "core", purpose="reading Parquet predictions")
    pa = require("pyarrow", "core")
    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises ArrowInvalid / OSError for non-Parquet files
        raise InputError(path, f"not a readable Parquet file: {exc}") from None
    cols = [c for c in pf.schema_arrow.names if c in KEY_FIELDS + PRED_FIELDS]
    if not any(c in KEY_FIELDS for c in cols):
        raise InputError(
            path, "no 'sample_id' or 'index' column", expected="columns sample_id or index, plus one of " + ", ".join(PRED_FIELDS)
        )
    per_row = _check_parquet_sizes(path, pf, cols)
    row = 0
    # A batch holds about BATCH_VALUES values of the longest column (256 rows of ordinary scenes).
    batches = pf.iter_batches(batch_size=int(max(1, min(256, BATCH_VALUES // max(per_row, 1)))), columns=cols)
    while True:
        try:
            batch = next(batches, None)
        except (pa.ArrowException, OSError) as exc:  # a damaged page surfaces only when read
            raise InputError(path, f"damaged Parquet data: {str(exc).strip()[:200]}", where=f"after row {row}") from None
        if batch is None:
            break
        columns: dict[str, Any] = {}
        for name in cols:
            arr = batch.column(name)
            if pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type):
                offsets = arr.offsets.to_numpy()
                values = arr.values.to_numpy(zero_copy_only=False)
                columns[name] = (arr, offsets, values)
            else:
                columns[name] = (arr, None, arr.to_pylist())
        for i in range(batch.num_rows):
            rec: dict[str, Any] = {}
            for name, (arr, offsets, values) in columns.items():
                if not arr[i].is_valid:
                    continue
                rec[name] = values[offsets[i] : offsets[i + 1]] if offsets is not None else values[i]
            row += 1
            yield f"row {row}", rec


def iter_records(path: str | Path, *, allow_empty: bool = False) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, record)`` from a ``.jsonl`` or ``.parquet`` predictions file, streamed. A JSONL
    ``mask_indices`` comes as :class:`CompactIndices` when its batch was read by the fast path,
    else as an int64 array or the standard-library value (:func:`parse_mask_indices` takes all)."""
    p = Path(path)
    if not p.exists():
        raise InputError(p, "predictions file does not exist")
    if p.suffix.lower() in (".parquet", ".pq"):
        yield from _iter_parquet_records(p)
    else:
        yield from _iter_jsonl_records(p, allow_empty)


def _resolve(path: Path, where: str, rec: dict[str, Any], ann: Annotations) -> str:
    sid, idx = rec.get("sample_id"), rec.get("index")
    if sid is None and idx is None:
        raise InputError(
            path,
            "record names no sample",
            where=where,
            field="sample_id",
            expected="'sample_id' (see scenebench validate surprise3d --list-ids) or 'index'",
        )
    by_index = None
    if idx is not None:
        if isinstance(idx, bool) or not isinstance(idx, (int, np.integer)):
            raise InputError(path, f"{idx!r}", where=where, field="index", expected="an integer row of the annotation file")
        if int(idx) not in ann.by_index:
            rows = f"0 <= index < {len(ann)}" if len(ann) == ann.samples[-1].index + 1 else "a row of the annotation file being scored"
            raise InputError(path, f"{idx} is not a row of {ann.path.name}", where=where, field="index", expected=rows)
        by_index = ann.by_index[int(idx)].sample_id
    if sid is not None:
        if not isinstance(sid, str):
            raise InputError(path, f"{sid!r}", where=where, field="sample_id", expected="a string")
        if sid not in ann.by_id:
            raise InputError(
                path,
                f"unknown sample '{sid}'",
                where=where,
                field="sample_id",
                expected=f"an id of {ann.path.name} (list them with scenebench validate surprise3d --list-ids)",
            )
        if by_index is not None and by_index != sid:
            raise InputError(path, f"sample_id '{sid}' and index {idx} name different samples", where=where, field="index")
        return sid
    assert by_index is not None
    return by_index


def _parse_field(path: Path, where: str, kind: str, value: Any, threshold: float, protocol: str) -> Prediction:
    if kind == "mask_indices":
        return parse_mask_indices(path, where, value)
    if kind == "mask_rle":
        return parse_mask_rle(path, where, value)
    if kind == "scores":
        return parse_scores(path, where, value, threshold, protocol)
    if kind == "logits":
        return parse_logits(path, where, value, threshold, protocol)
    return parse_box(path, where, value)


def read_predictions(
    path: str | Path,
    annotations: Annotations,
    *,
    score_threshold: float = DEFAULT_SCORE_THRESHOLD,
    protocol: str = "strict",
    allow_empty: bool = False,
) -> PredictionSet:
    """Stream and validate every record; return the compact predictions keyed by sample id.

    ``protocol`` only changes how ``scores`` and ``logits`` meet the threshold (float32 in ``official``).
    ``allow_empty``: an empty JSONL file is a valid set of no predictions (the file ``scenebench run``
    writes for a model that abstained on every sample: all missing, scored 0) instead of an error."""
    p = Path(path)
    by_sample: dict[str, Prediction] = {}
    kinds: Counter = Counter()
    first_kind_where: dict[str, str] = {}
    jsonl = p.suffix.lower() not in (".parquet", ".pq")
    for where, rec in iter_records(p, allow_empty=allow_empty):
        sid = _resolve(p, where, rec, annotations)
        present = [f for f in PRED_FIELDS if rec.get(f) is not None]
        if not present:
            raise InputError(p, "record has no prediction", where=where, expected="one of " + ", ".join(PRED_FIELDS))
        if len(present) > 1:
            raise InputError(
                p,
                f"several predictions ({', '.join(present)})",
                where=where,
                field=present[1],
                expected="exactly one of " + ", ".join(PRED_FIELDS),
            )
        kind = present[0]
        try:
            pred = _parse_field(p, where, kind, rec[kind], score_threshold, protocol)
        except InputError:
            if jsonl:  # decoded by the fast path: the standard-library record gives the usual message
                _parse_field(p, where, kind, read_jsonl_line(p, int(where.split()[1]))[kind], score_threshold, protocol)
            raise
        family = "box" if kind == "box" else "mask"
        other = "mask" if family == "box" else "box"
        if other in first_kind_where:
            raise InputError(
                p,
                f"a {family} prediction in a file whose {first_kind_where[other]} holds a {other}",
                where=where,
                field=kind,
                expected="boxes or masks in one file, not both (they are scored and reported apart)",
            )
        first_kind_where.setdefault(family, where)
        if sid in by_sample:
            raise InputError(
                p,
                f"second prediction for sample '{sid}' (first at {by_sample[sid].where})",
                where=where,
                field="sample_id" if rec.get("sample_id") is not None else "index",
                expected="one record per sample",
            )
        by_sample[sid] = pred
        kinds[kind] += 1
    return PredictionSet(p, by_sample, kinds, score_threshold)
