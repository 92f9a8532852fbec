"""Mutations of valid inputs: structure-aware (JSON, JSONL, arrays, PLY, Parquet) and byte-level.

``choose(n)`` returns an int in [0, n): hypothesis' ``data.draw`` or a fuzzer's bytes.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import numpy as np
from harness_targets import Target

# ------------------------------------------------------------------------------------------------
# Mutations. ``choose(n)`` returns an int in [0, n): hypothesis' ``data.draw`` or a fuzzer's bytes.

Choose = Callable[[int], int]

HUGE_INT = 10**30
HUGE_DIGITS = int("9" * 400)  # beyond float range: float(x) raises OverflowError
NASTY_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    -(2**63),
    2**63,
    HUGE_INT,
    -HUGE_INT,
    HUGE_DIGITS,
    1.5,
    -0.0,
    1e308,
    -1e308,
    5e-324,
    "",
    " ",
    "x",
    "²",
    "١٢",
    "0x10",
    "1e3",
    "NaN",
    "-1",
    "\u202e\x00",
    "a" * 300,
    [],
    [None],
    [[1, 2], [3]],
    [1, "a"],
    [HUGE_INT, 0, 0],
    [0.5] * 17,
    {},
    {"a": 1},
    [[]],
    [[[0]]],
]
# Tokens Python's json accepts but strict JSON does not (spliced in as raw text).
RAW_TOKENS = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"]


def _paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value inside ``doc`` (not the root)."""
    out: list[tuple] = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.append(prefix + (k,))
            out.extend(_paths(v, prefix + (k,)))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:6]):  # a few elements of long lists are enough
            out.append(prefix + (i,))
            out.extend(_paths(v, prefix + (i,)))
    return out


def _parent(doc: Any, path: tuple) -> Any:
    for k in path[:-1]:
        doc = doc[k]
    return doc


def mutate_json(doc: Any, choose: Choose) -> tuple[Any, str | None, str]:
    """One structural mutation of a parsed JSON document.

    Returns ``(document, raw_token, description)``: ``raw_token`` (NaN, Infinity, 1e999) is spliced
    into the serialized text in place of a marker, since ``json.dumps`` cannot write it literally.
    """
    import copy

    doc = copy.deepcopy(doc)
    paths = _paths(doc)
    if not paths:
        return doc, None, "unchanged (no inner value)"
    path = paths[choose(len(paths))]
    parent, key = _parent(doc, path), path[-1]
    op = choose(6)
    if op == 0:
        v = NASTY_VALUES[choose(len(NASTY_VALUES))]
        parent[key] = v
        return doc, None, f"{list(path)} = {v!r:.40}"
    if op == 1:
        tok = RAW_TOKENS[choose(len(RAW_TOKENS))]
        parent[key] = "@@RAW@@"
        return doc, tok, f"{list(path)} = {tok}"
    if op == 2:
        if isinstance(parent, dict):
            del parent[key]
        else:
            parent.pop(key)
        return doc, None, f"delete {list(path)}"
    if op == 3 and isinstance(parent, list):
        parent.append(copy.deepcopy(parent[key]))  # a duplicated record / id
        return doc, None, f"duplicate {list(path)}"
    if op == 4:
        v = parent[key]
        parent[key] = [v, v] if not isinstance(v, list) else (v[:1] if len(v) > 1 else v + v + [v[0] if v else 0])
        return doc, None, f"reshape {list(path)}"
    if isinstance(parent, dict):
        parent["unknown_" + str(choose(3))] = NASTY_VALUES[choose(len(NASTY_VALUES))]
        return doc, None, f"unknown key beside {list(path)}"
    parent[key] = {"wrapped": parent[key]}
    return doc, None, f"wrap {list(path)}"


def dump_json(doc: Any, raw: str | None) -> bytes:
    text = json.dumps(doc, ensure_ascii=False)
    if raw is not None:
        text = text.replace('"@@RAW@@"', raw, 1)
    return text.encode("utf-8")


def mutate_jsonl(text: bytes, choose: Choose) -> tuple[bytes, str]:
    """Mutate one record of a JSONL file (structured), or duplicate one line."""
    lines = text.decode("utf-8").splitlines()
    i = choose(len(lines))
    if choose(5) == 0:
        lines.insert(i, lines[i])
        return ("\n".join(lines) + "\n").encode(), f"line {i + 1} duplicated"
    doc, raw, what = mutate_json(json.loads(lines[i]), choose)
    lines[i] = dump_json(doc, raw).decode("utf-8")
    return ("\n".join(lines) + "\n").encode(), f"line {i + 1}: {what}"


def mutate_bytes(data: bytes, choose: Choose) -> tuple[bytes, str]:
    """Byte-level damage: truncation, empty file, flipped bytes, non-UTF-8 bytes, a spliced block."""
    n = len(data)
    op = choose(6)
    if op == 0:
        k = choose(max(n, 1))
        return data[:k], f"truncated to {k} of {n} bytes"
    if op == 1:
        return b"", "empty file"
    if op == 2:
        b = bytearray(data)
        for _ in range(1 + choose(8)):
            b[choose(n)] = choose(256)
        return bytes(b), "random bytes overwritten"
    if op == 3:
        k = choose(max(n, 1))
        return data[:k] + b"\xff\xfe\x80" + data[k:], f"non-UTF-8 bytes inserted at {k}"
    if op == 4:
        k = choose(max(n, 1))
        return data[:k] + data[k:][: choose(64) + 1] * (2 + choose(4)) + data[k:], f"block repeated at {k}"
    return data + data[: max(1, n // 2)], "half the file appended"


def mutate_arrays(arrays: dict[str, np.ndarray], choose: Choose) -> tuple[dict[str, Any], str]:
    """Structured damage to a dict of arrays: wrong shapes, dtypes, NaN/inf, huge values, missing keys."""
    arrays = dict(arrays)
    keys = sorted(arrays)
    k = keys[choose(len(keys))]
    a = arrays[k]
    op = choose(9)
    if op == 0:
        del arrays[k]
        return arrays, f"{k} removed"
    if op == 1:
        arrays[k] = a[: max(0, len(a) - 1 - choose(3))]
        return arrays, f"{k} shortened"
    if op == 2:
        arrays[k] = a.reshape(-1)
        return arrays, f"{k} flattened"
    if op == 3:
        b = a.astype(np.float64)
        b.reshape(-1)[choose(b.size)] = [np.nan, np.inf, -np.inf, 1e300][choose(4)]
        arrays[k] = b
        return arrays, f"{k} with a non-finite or huge value"
    if op == 4:
        arrays[k] = a.astype("U8")
        return arrays, f"{k} as strings"
    if op == 5:
        arrays[k] = np.zeros((0,) + a.shape[1:], a.dtype)
        return arrays, f"{k} empty"
    if op == 6:
        b = a.astype(np.int64)
        b.reshape(-1)[choose(b.size)] = [2**62, -(2**62), -5][choose(3)]
        arrays[k] = b
        return arrays, f"{k} with an enormous integer"
    if op == 7:
        arrays[k] = a.astype(np.complex64)
        return arrays, f"{k} as complex numbers"
    arrays["unexpected"] = np.arange(3)
    arrays[k] = np.stack([a, a], axis=-1)
    return arrays, f"{k} with an extra axis"


def encode_arrays(fmt: str, arrays: dict[str, Any]) -> bytes:
    buf = io.BytesIO()
    if fmt == "npz":
        np.savez(buf, **arrays)
    elif fmt == "pth":
        import torch

        torch.save(
            {k: (torch.from_numpy(np.ascontiguousarray(v)) if v.dtype.kind in "biuf" else v.tolist()) for k, v in arrays.items()}, buf
        )
    else:
        np.save(buf, arrays["array"], allow_pickle=False)
    return buf.getvalue()


def decode_arrays(fmt: str, data: bytes) -> dict[str, np.ndarray]:
    if fmt == "npz":
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    if fmt == "pth":
        import torch

        return {k: v.numpy() for k, v in torch.load(io.BytesIO(data), weights_only=True).items()}
    return {"array": np.load(io.BytesIO(data), allow_pickle=False)}


def mutate_ply(data: bytes, choose: Choose) -> tuple[bytes, str]:
    """Structured damage to an ASCII PLY: a bad header count, a property dropped, a bad vertex value."""
    text = data.decode("ascii")
    head, _, body = text.partition("end_header\n")
    lines = body.splitlines()
    op = choose(5)
    if op == 0:
        head = head.replace("element vertex ", "element vertex 9", 1)
        return (head + "end_header\n" + body).encode(), "vertex count inflated"
    if op == 1:
        head = head.replace("property ushort objectId\n", "", 1)
        return (head + "end_header\n" + body).encode(), "objectId property dropped"
    if op == 2:
        i = choose(min(len(lines), 200))
        parts = lines[i].split()
        parts[choose(len(parts))] = ["nan", "inf", "-inf", "1e999", "x", "-1", "99999999999", ""][choose(8)]
        lines[i] = " ".join(parts)
        return (head + "end_header\n" + "\n".join(lines) + "\n").encode(), f"vertex line {i} damaged"
    if op == 3:
        head = head.replace("property float x", "property double x", 1).replace("format ascii", "format binary_little_endian", 1)
        return (head + "end_header\n" + body).encode(), "format says binary, body is text"
    return (head + "end_header\n" + "\n".join(lines[: choose(len(lines))]) + "\n").encode(), "vertex lines cut"


def structured_mutation(target: Target, seed: bytes, choose: Choose) -> tuple[bytes, str, bool]:
    """``(bytes, description, located)`` for one structure-aware mutation of ``seed``."""
    if target.fmt == "json":
        doc, raw, what = mutate_json(json.loads(seed), choose)
        return dump_json(doc, raw), what, True
    if target.fmt == "jsonl":
        data, what = mutate_jsonl(seed, choose)
        return data, what, True
    if target.fmt in ("npz", "pth", "npy"):
        arrays, what = mutate_arrays(decode_arrays(target.fmt, seed), choose)
        if target.fmt == "npy" and "array" not in arrays:
            arrays["array"] = np.zeros(0)
        return encode_arrays(target.fmt, arrays), what, target.fmt != "npy"
    if target.fmt == "ply":
        data, what = mutate_ply(seed, choose)
        return data, what, False
    return _mutate_parquet(seed, choose)


def _mutate_parquet(seed: bytes, choose: Choose) -> tuple[bytes, str, bool]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = pq.read_table(io.BytesIO(seed)).to_pylist()
    i = choose(len(rows))
    rec, raw, what = mutate_json(rows[i], choose)
    if raw is not None:
        rec = {k: (float(raw.replace("Infinity", "inf").replace("1e999", "inf")) if v == "@@RAW@@" else v) for k, v in rec.items()}
    rows[i] = rec
    buf = io.BytesIO()
    try:
        table = pa.Table.from_pylist(rows)
        pq.write_table(table, buf)
    except (pa.ArrowException, OverflowError):
        # Arrow cannot hold this mix in one column: keep each value as its JSON text instead.
        table = pa.Table.from_pylist([{k: json.dumps(v) for k, v in r.items()} for r in rows])
        buf = io.BytesIO()
        pq.write_table(table, buf)
        what += " (columns as JSON strings)"
    # A value deleted from every row removes the column: a schema error, not a row's.
    same_columns = set(table.column_names) == set(pq.read_schema(io.BytesIO(seed)).names)
    return buf.getvalue(), f"row {i + 1}: {what}", same_columns


def bytes_chooser(data: bytes) -> Choose:
    """A ``choose`` that consumes a fuzzer's bytes (zeros once they run out)."""
    pos = 0

    def choose(n: int) -> int:
        nonlocal pos
        if n <= 1:
            return 0
        v = int.from_bytes(data[pos : pos + 4].ljust(4, b"\0"), "little")
        pos += 4
        return v % n

    return choose
