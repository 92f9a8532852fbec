"""Atomic writes, checksums and streamed JSONL reading.

Writes go to a temporary file in the same folder, are fsynced, then renamed over the target, so a
reader (or a resumed run) never sees half a file.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from scenebench.errors import InputError

MAX_JSONL_LINE_BYTES = 512 * 1024 * 1024  # one record larger than this is refused, not read
# Lines up to this length are read in one readline; a longer one is measured first (read in chunks
# and dropped), so a line past MAX_JSONL_LINE_BYTES is refused holding at most this much of it.
_LINE_PROBE_BYTES = 64 * 1024 * 1024
_SCAN_CHUNK = 1 << 20


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if hasattr(os, "fchmod"):  # mkstemp makes 0600; a written file gets what open() would give (0644 under umask 022)
            os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _umask() -> int:
    """The process umask, read without changing it where Linux exposes it (``/proc/self/status``)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    old = os.umask(0o022)  # elsewhere: set and restore (not thread-safe, but brief)
    os.umask(old)
    return old


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | Path, obj: Any, *, indent: int | None = 2) -> None:
    atomic_write_text(path, json.dumps(obj, indent=indent, ensure_ascii=False, allow_nan=False) + "\n")


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def tsv_row(*fields: Any) -> str:
    """One TSV line: a tab, newline or carriage return inside a field (an id read from the data) is
    written ``\\t`` / ``\\n`` / ``\\r`` and a backslash ``\\\\``, so every record is exactly one line
    of the same number of columns (the escaping of PostgreSQL's text COPY format)."""
    return "\t".join(str(f).translate(_TSV_ESCAPES) for f in fields) + "\n"


def sha256_file(path: str | Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def file_fingerprint(path: str | Path) -> dict[str, Any]:
    """Checksum record of one input file for results.json (and the run folder's resume check)."""
    p = Path(path)
    return {"path": str(p), "sha256": sha256_file(p), "bytes": p.stat().st_size}


def path_id_problem(value: str) -> str | None:
    """Why ``value`` cannot name a file or folder inside a data folder, or None when it can.

    Ids that become path components (a 3DBench house ``id``, a 3RScan scan id) must not carry a
    separator, be ``.``/``..``, be absolute, or hold NUL / control characters: otherwise a record
    could make scenebench read (and hand to a model, or an API) a file outside the data folder.
    """
    if not value:
        return "is empty"
    if "/" in value or "\\" in value:
        return "contains a path separator"
    if value in (".", "..") or value.startswith(".."):
        return "is a relative path ('..')"
    if value.startswith("~") or (len(value) > 1 and value[1] == ":"):
        return "looks like an absolute path"
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        return "contains a control character"
    return None


def check_path_id(value: str, path: str | Path | None, *, where: str | None = None, field: str | None = None) -> str:
    """``value`` if it can be used as one path component (see :func:`path_id_problem`), else an InputError."""
    why = path_id_problem(value)
    if why is not None:
        raise InputError(
            path,
            f"{value[:80]!r} {why}",
            where=where,
            field=field,
            expected="an id without '/', '\\', '..' or a drive (it names a file inside the data folder)",
        )
    return value


def inside(root: str | Path, candidate: str | Path) -> Path:
    """``candidate`` resolved, if it lies inside ``root`` (symlinks followed); else an InputError."""
    r, c = Path(root).resolve(), Path(candidate).resolve()
    if c != r and r not in c.parents:
        raise InputError(candidate, f"lies outside the data folder {r}", expected="a file inside the data folder")
    return c


def _reject_constant(name: str) -> float:
    raise ValueError(f"non-finite number {name}")


def read_json(path: str | Path, *, what: str = "JSON file") -> Any:
    """Read a whole JSON document; errors name the file and the line/column."""
    p = Path(path)
    if not p.exists():
        raise InputError(p, f"{what} does not exist")
    if p.is_dir():
        raise InputError(p, f"{what} is a folder, not a file")
    raw = p.read_bytes()
    if not raw.strip():
        raise InputError(p, f"{what} is empty", expected="a JSON document")
    doc = _fast_json(raw)
    if not isinstance(doc, _Refused):
        return doc
    _refuse_located_constant(p, raw, doc.exc)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(p, f"not UTF-8 text (byte {exc.start})", expected="a UTF-8 JSON document") from None
    try:
        doc = json.loads(text, parse_constant=_NonFinite, parse_float=_checked_float)
    except json.JSONDecodeError as exc:
        raise InputError(p, f"invalid JSON: {exc.msg}", where=f"line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise InputError(p, str(exc), expected="numbers of ordinary size") from None
    except RecursionError:
        raise InputError(p, "JSON nested too deeply to read", expected="a JSON document of ordinary depth") from None
    bad = _find_non_finite(doc)
    if bad is not None:
        where, token = bad
        if isinstance(token, _Surrogate):
            raise InputError(p, token.message, where=f"at {where}", expected=SURROGATE_EXPECTED)
        # NaN/Infinity (and 1e999, which Python reads as inf) are refused, naming the key that holds them.
        raise InputError(p, f"non-finite number {token}", where=f"at {where}", expected="finite numbers (NaN/Infinity are not JSON)")
    return doc


class _Refused:
    """What msgspec refused a document with (the standard-library path then says why, and where)."""

    def __init__(self, exc: Exception | None) -> None:
        self.exc = exc


_REFUSED = _Refused(None)  # refused for no stated reason: the standard-library path reads it


_CONSTANTS = (b"-Infinity", b"Infinity", b"NaN")
_STRUCTURE = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}:]')  # strings, brackets, braces, colons: numbers are skipped in C
_BIG_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?[eE]\+?\d{3,}|-?\d{309,}(?:\.\d*)?")


def _json_path_at(raw: bytes, offset: int) -> str:
    """The key path (``$[1].b[1]``, as :func:`_find_non_finite` writes it) of the value starting at
    byte ``offset`` of a JSON document, from the bytes alone: only brackets, braces, colons and
    strings are visited (list indices are commas counted in C), and memory is the nesting depth."""
    stack: list[list[Any]] = []  # [is_list, index or key, bytes scanned up to, after the key's colon]

    def skip_to(upto: int) -> None:
        top = stack[-1]
        n = raw.count(b",", top[2], upto)
        if top[0]:
            top[1] += n
        elif n:
            top[1], top[3] = None, False
        top[2] = upto

    for m in _STRUCTURE.finditer(raw, 0, offset):
        c = raw[m.start()]
        if stack:
            skip_to(m.start())
        if c in b"[{":
            stack.append([c == 0x5B, 0 if c == 0x5B else None, m.end(), False])
        elif c in b"]}":
            stack.pop()
            if stack:
                stack[-1][2] = m.end()
        elif c == 0x3A:
            stack[-1][2], stack[-1][3] = m.end(), True
        elif stack:
            top = stack[-1]
            if not top[0] and not top[3]:
                top[1] = json.loads(m.group())
            top[2] = m.end()
    if stack:
        skip_to(offset)
    return "$" + "".join(f"[{e[1]}]" if e[0] else f".{e[1]}" for e in stack)


def _inside_string(raw: bytes, offset: int) -> bool:
    """Whether byte ``offset`` lies inside a JSON string (``"1e999"`` is text, not a number)."""
    for m in _STRUCTURE.finditer(raw):
        if m.start() >= offset:
            return False
        if m.end() > offset:
            return raw[m.start()] == 0x22
    return False


def _refuse_located_constant(path: Path, raw: bytes, exc: Exception | None) -> None:
    """Refuse a NaN/Infinity token (or a number beyond float range) that msgspec stopped at, naming
    its key path from the bytes alone (:func:`_json_path_at`). Before, the standard-library parser
    built the whole document as Python objects, then walked it, to name the key: an 18 MB annotation
    file with one NaN peaked at GBs. Anything else is left to the standard-library path."""
    import msgspec

    bom = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
    at, token = None, None
    m = re.search(r"invalid character \(byte (\d+)\)", str(exc)) if isinstance(exc, msgspec.DecodeError) else None
    if m is not None:
        start = int(m.group(1)) + bom
        for s in (start - 1, start):  # msgspec may stop just after the sign of -Infinity
            token = next((t for t in _CONSTANTS if s >= 0 and raw.startswith(t, s)), None)
            if token is not None:
                at = s
                break
    elif isinstance(exc, msgspec.ValidationError) and str(exc).startswith("Number out of range"):
        for big in _BIG_NUMBER.finditer(raw):
            if not math.isfinite(float(big.group())) and not _inside_string(raw, big.start()):
                at, token = big.start(), big.group()
                break
    if at is None or token is None:
        return
    shown = token.decode() if len(token) <= 40 else f"{token[:20].decode()}...({len(token)} characters)"
    raise InputError(
        path, f"non-finite number {shown}", where=f"at {_json_path_at(raw, at)}", expected="finite numbers (NaN/Infinity are not JSON)"
    )


def _fast_json(raw: bytes) -> Any:
    """``msgspec`` decoding of a whole document, or :class:`_Refused` when it refuses it.

    It accepts exactly what :func:`read_json` accepts: it refuses NaN/Infinity tokens, numbers out
    of float range (1e999) and integers of more than 4300 digits, invalid UTF-8 and very deep
    nesting, and its floats are the correctly rounded ones ``json`` gives. Whatever it refuses is
    read again by the standard-library path, which names the problem (and where it is).
    """
    import msgspec

    try:
        return msgspec.json.decode(raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, UnicodeDecodeError, ValueError) as exc:
        return _Refused(exc)


SURROGATE_EXPECTED = "text that can be written as UTF-8 (a lone \\ud800-\\udfff escape is half of a character)"
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


class _Surrogate:
    """Where a string holds a lone UTF-16 surrogate (valid JSON, not encodable text: it would crash
    every later write of that string, so it is refused where it is read)."""

    def __init__(self, text: str, is_key: bool) -> None:
        m = _SURROGATE_RE.search(text)
        pos = m.start() if m else 0
        self.message = (
            f"{'key' if is_key else 'string'} {text[max(0, pos - 20) : pos + 1].encode('ascii', 'backslashreplace').decode()!r}... "
            f"holds a lone surrogate \\u{ord(text[pos]):04x} at character {pos}"
        )


def _has_surrogate(text: str) -> bool:
    return not text.isascii() and _SURROGATE_RE.search(text) is not None


def find_lone_surrogate(doc: Any, path: str = "$") -> tuple[str, str] | None:
    """``(key path, message)`` of the first string or key in ``doc`` holding a lone surrogate, or None."""
    bad = _find_non_finite(doc, path)
    if bad is not None and isinstance(bad[1], _Surrogate):
        return bad[0], bad[1].message
    return None


class _NonFinite:
    """Placeholder for a NaN/Infinity token, so the error can name the key that holds it."""

    def __init__(self, token: str) -> None:
        self.token = token


def _checked_float(text: str, seen: list[str] | None = None) -> float | _NonFinite:
    x = float(text)
    if math.isfinite(x):
        return x
    if seen is not None:
        seen.append(text)
    return _NonFinite(text)


def _find_non_finite(doc: Any, path: str = "$") -> tuple[str, str] | None:
    """``(key path, token)`` of the first non-finite number in ``doc`` (iterative: deep documents are fine)."""
    stack = [(path, doc)]
    while stack:
        where, x = stack.pop()
        if isinstance(x, _NonFinite):
            return where, x.token
        if isinstance(x, str):
            if _has_surrogate(x):
                return where, _Surrogate(x, False)  # type: ignore[return-value]
        elif isinstance(x, dict):
            for k in x:
                if isinstance(k, str) and _has_surrogate(k):
                    return where, _Surrogate(k, True)  # type: ignore[return-value]
            stack.extend((f"{where}.{k}", v) for k, v in reversed(list(x.items())))
        elif isinstance(x, list):
            stack.extend((f"{where}[{i}]", v) for i, v in reversed(list(enumerate(x))))
    return None


def jsonl_lines(fh: BinaryIO, path: str | Path) -> Iterator[bytes]:
    """The lines of a file opened in binary mode, as ``for raw in fh`` gives them, refusing a line
    longer than :data:`MAX_JSONL_LINE_BYTES` (an :class:`InputError` naming the file and line)
    without holding it: a line longer than 64 MiB is measured in 1 MiB chunks first and read
    only when it is within the limit (so ``fh`` must be seekable then)."""
    lineno = 0
    while raw := fh.readline(_LINE_PROBE_BYTES):
        lineno += 1
        if len(raw) == _LINE_PROBE_BYTES and not raw.endswith(b"\n"):
            raw = _long_line(fh, Path(path), len(raw), lineno)
        yield raw


def _long_line(fh: BinaryIO, path: Path, head: int, lineno: int) -> bytes:
    """The rest of a line whose first ``head`` bytes were just read, measured before it is read."""
    start = fh.tell() - head
    size = head
    while True:
        chunk = fh.read(_SCAN_CHUNK)
        if not chunk:
            break
        nl = chunk.find(b"\n")
        size += len(chunk) if nl < 0 else nl + 1
        if size > MAX_JSONL_LINE_BYTES:
            raise InputError(
                path,
                f"record of {size:,} bytes is too large" if nl >= 0 else f"record of more than {MAX_JSONL_LINE_BYTES:,} bytes is too large",
                where=f"line {lineno}",
                expected=f"at most {MAX_JSONL_LINE_BYTES:,} bytes per line",
            )
        if nl >= 0:
            break
    fh.seek(start)
    return fh.read(size)


def iter_jsonl(path: str | Path, *, allow_empty: bool = False) -> Iterator[tuple[int, dict[str, Any]]]:
    """Stream ``(line_number, record)`` from a JSONL file; blank lines are skipped.

    Each record must be a JSON object. Errors name the file and line. The file is read line by
    line, so a 1 GB predictions file never sits in memory whole.
    """
    for lineno, _offset, rec in iter_jsonl_offsets(path, allow_empty=allow_empty):
        yield lineno, rec


def iter_jsonl_offsets(path: str | Path, *, allow_empty: bool = False) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """Like :func:`iter_jsonl`, also yielding each record's byte offset, so a reader can keep an
    index of offsets instead of the records and read one back later (:func:`read_jsonl_at`)."""
    p = Path(path)
    if not p.exists():
        raise InputError(p, "file does not exist")
    if p.is_dir():
        raise InputError(p, "is a folder, not a JSONL file")
    n = 0
    offset = 0
    with open(p, "rb") as fh:
        for lineno, raw in enumerate(jsonl_lines(fh, p), start=1):
            start, offset = offset, offset + len(raw)
            if not raw.strip():
                continue
            rec = _parse_jsonl_line(p, raw, lineno)
            n += 1
            yield lineno, start, rec
    if n == 0 and not allow_empty:
        raise InputError(p, "file holds no records", expected="one JSON object per line")


def iter_jsonl_decoded(path: str | Path, decode: Callable[[bytes], Any], *, allow_empty: bool = False) -> Iterator[tuple[int, Any]]:
    """Like :func:`iter_jsonl`, but each line goes through a fast decoder first (``decode(raw)``,
    e.g. a typed ``msgspec`` decoder that builds numpy arrays): the hot path of large prediction files.

    A line that ``decode`` refuses (it raises anything) is read again by the standard-library path
    of :func:`iter_jsonl`, which raises the usual :class:`InputError` naming the file and line (bad
    JSON, NaN, not an object, ...); when that path accepts the line, its plain ``dict`` is yielded
    instead, for the caller's own checks to name the field. So the caller gets either what
    ``decode`` returns or a dict, and every error message is the one the slow path gives.
    """
    p = Path(path)
    if not p.exists():
        raise InputError(p, "file does not exist")
    if p.is_dir():
        raise InputError(p, "is a folder, not a JSONL file")
    n = 0
    # A 64 KiB buffer: lines of large prediction files are read in a third of the default's time.
    with open(p, "rb", buffering=1 << 16) as fh:
        for lineno, raw in enumerate(jsonl_lines(fh, p), start=1):
            if raw.isspace():  # (a line is never empty) same as `not raw.strip()`, without copying the line
                continue
            try:
                if not raw.isascii():
                    raw.decode("utf-8")  # a decoder may skip the bytes of fields it ignores
                rec = decode(raw)
            except Exception:  # noqa: BLE001 - any refusal: the slow path names the problem
                rec = _parse_jsonl_line(p, raw, lineno)
            n += 1
            yield lineno, rec
    if n == 0 and not allow_empty:
        raise InputError(p, "file holds no records", expected="one JSON object per line")


def json_records(path: str | Path, *, what: str, expected: str) -> list[tuple[str, Any]]:
    """``(where, record)`` of a JSONL file (``line N``) or of a JSON list (``record I``): the two
    layouts prediction files come in; a JSON document that is no list is an error naming ``expected``."""
    p = Path(path)
    if p.suffix == ".jsonl":
        return [(f"line {n}", r) for n, r in iter_jsonl(p, allow_empty=True)]
    doc = read_json(p, what=what)
    if not isinstance(doc, list):
        raise InputError(p, "is not a JSON list", expected=expected)
    return [(f"record {i}", r) for i, r in enumerate(doc)]


def read_jsonl_line(path: str | Path, lineno: int) -> dict[str, Any]:
    """Line ``lineno`` of a JSONL file, read by the standard-library path (error messages only)."""
    p = Path(path)
    with open(p, "rb") as fh:
        for i, raw in enumerate(jsonl_lines(fh, p), start=1):
            if i == lineno:
                return _parse_jsonl_line(p, raw, lineno)
    raise InputError(p, f"has no line {lineno}")


@functools.lru_cache(maxsize=1)
def _dict_decoder() -> Callable[[bytes], dict[str, Any]]:
    import msgspec

    return msgspec.json.Decoder(dict).decode


def _parse_jsonl_line(p: Path, raw: bytes, lineno: int) -> dict[str, Any]:
    """One JSONL record as ``json.loads`` gives it. ``msgspec`` decodes it (several times faster);
    a line it refuses (bad JSON, NaN, 1e999, an integer of more than 4300 digits, deep nesting,
    not an object) is read by the standard-library path, which names the problem."""
    try:
        if not raw.isascii():
            raw.decode("utf-8")
        return _dict_decoder()(raw)
    except Exception:  # noqa: BLE001 - refused: the standard-library path below says why
        pass
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(p, f"not UTF-8 text (byte {exc.start})", where=f"line {lineno}") from None
    try:
        overflowed: list[str] = []
        rec = json.loads(text, parse_constant=_reject_constant, parse_float=functools.partial(_checked_float, seen=overflowed))
    except json.JSONDecodeError as exc:
        raise InputError(
            p,
            f"invalid JSON: {exc.msg}",
            where=f"line {lineno} column {exc.colno}",
            expected="one JSON object per line",
        ) from None
    except ValueError as exc:
        raise InputError(p, str(exc), where=f"line {lineno}", expected="finite numbers") from None
    except RecursionError:
        raise InputError(
            p, "JSON nested too deeply to read", where=f"line {lineno}", expected="one JSON object of ordinary depth"
        ) from None
    if overflowed:  # a number beyond float range (1e999), which Python reads as inf: refused like NaN, naming the key
        key = next((k for k, v in rec.items() if _find_non_finite(v) is not None), None) if isinstance(rec, dict) else None
        raise InputError(p, f"non-finite number {overflowed[0]}", where=f"line {lineno}", field=key, expected="finite numbers")
    if not isinstance(rec, dict):
        raise InputError(p, f"record is a {type(rec).__name__}", where=f"line {lineno}", expected="a JSON object")
    if b"\\u" in raw and (bad := find_lone_surrogate(rec)) is not None:  # only a \\uXXXX escape can make one
        raise InputError(p, bad[1], where=f"line {lineno}, at {bad[0]}", expected=SURROGATE_EXPECTED)
    return rec


def read_jsonl_at(fh: BinaryIO, path: str | Path, offset: int, lineno: int) -> dict[str, Any]:
    """Read back the record that :func:`iter_jsonl_offsets` found at ``offset`` of an open file."""
    fh.seek(offset)
    return _parse_jsonl_line(Path(path), fh.readline(), lineno)


def to_plain(x: Any) -> Any:
    """numpy arrays and scalars (also nested in dicts, lists, tuples) -> plain JSON-able Python."""
    if hasattr(x, "tolist") and hasattr(x, "dtype"):  # numpy array or scalar, without importing numpy here
        return x.tolist()
    if isinstance(x, dict):
        return {k: to_plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [to_plain(v) for v in x]
    return x


def is_finite_number(x: Any) -> bool:
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:  # an int beyond float range cannot be used as a coordinate
        return False
