"""Crash-safe per-sample storage for run folders (SQLite, WAL, one transaction per batch).

Every scored (or predicted, or judged) sample is written the moment its batch finishes, keyed by
its stable ``sample_id``. A killed process loses at most the batch in flight; the next run reads
what is there and skips it. (The scoring driver hands over the batches of up to 0.2 s at once:
``scenebench.runtime.scoring.FLUSH_SECONDS``.)

Records are stored one row per sample (``records``: :meth:`SampleStore.put_many`) or, for a batch
a scorer gives as columns, one row per batch (``batches``: :meth:`SampleStore.put_columns`; 200,000
RIO records were 200,000 rows, 1.7 CPU-s of SQLite alone). Readers see no difference:
:meth:`~SampleStore.iter`, :meth:`~SampleStore.ids`, :meth:`~SampleStore.get` and
:meth:`~SampleStore.count` give every sample's record, in insertion order, from either table.
"""

from __future__ import annotations

import base64
import functools
import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

SCORE_KIND = "score"  # the per-sample score records of a run (runtime.scoring writes them)

# What json.dumps(body, ensure_ascii=False, allow_nan=True) gives, without building an encoder per record.
_json_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=True).encode


@functools.lru_cache(maxsize=1)
def _fast_encoder() -> Callable[[Any], bytes]:
    import msgspec

    return msgspec.json.Encoder().encode


def _encode(body: Any) -> str:
    """``body`` as JSON text that :func:`json.loads` reads back to what :data:`_json_encode`'s text
    gives (the same values), several times faster: msgspec writes every value the standard
    library does alike except non-finite floats, which it writes as ``null``; so any output holding
    ``null`` (a None, a NaN or an infinity, or just the word in a string) and anything msgspec
    refuses (lone surrogates, numpy scalars, non-string keys) is written by the standard library."""
    try:
        raw = _fast_encoder()(body)
    except Exception:  # noqa: BLE001 - refused: the standard library writes it (or raises its usual error)
        return _json_encode(body)
    if b"null" in raw:
        return _json_encode(body)
    return raw.decode("utf-8")


class SampleStore:
    """A table of JSON records keyed by ``(kind, sample_id)``; ``kind`` separates predictions from scores."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=60, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS records ("
            " kind TEXT NOT NULL, sample_id TEXT NOT NULL, seq INTEGER NOT NULL,"
            " body TEXT NOT NULL, PRIMARY KEY (kind, sample_id))"
        )
        # Each batch asks for MAX(seq) of its kind: without this index a full scan per batch, quadratic
        # in runs of many scenes (2,000 rescans of 100 poses: minutes). Added to older stores on open.
        self._db.execute("CREATE INDEX IF NOT EXISTS records_kind_seq ON records(kind, seq)")
        # Batches stored as columns (put_columns) live in their own table, made by the first one:
        # stores without any keep the layout (and size) they always had.
        self._batches = self._has_batches()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> SampleStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _next_seq(self, kind: str) -> int:
        """The first free insertion number of ``kind`` (both tables); call inside a transaction."""
        a = self._db.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM records WHERE kind=?", (kind,)).fetchone()[0]
        b = self._batch_rows("SELECT seq + n FROM batches WHERE kind=? ORDER BY seq DESC LIMIT 1", kind)
        return int(max(a, b[0][0] if b else 0))

    def _has_batches(self) -> bool:
        return self._db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='batches'").fetchone() is not None

    def _batch_rows(self, sql: str, kind: str) -> list[Any]:
        """Rows of ``sql`` (one ``?``: the kind) on the batches table; [] when the store has none
        (asked again each time until it has: another connection may have made it)."""
        self._batches = self._batches or self._has_batches()
        return self._db.execute(sql, (kind,)).fetchall() if self._batches else []

    def put_many(self, kind: str, items: Iterable[tuple[str, dict[str, Any]]]) -> int:
        rows = [(kind, sid, _encode(body)) for sid, body in items]
        if not rows:
            return 0
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._unbatch(kind, {s for _, s, _ in rows})
                start = self._next_seq(kind)
                self._db.executemany(
                    "INSERT OR REPLACE INTO records(kind, sample_id, seq, body) VALUES (?, ?, ?, ?)",
                    [(k, s, start + i, b) for i, (k, s, b) in enumerate(rows)],
                )
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:  # a failed COMMIT (disk full) may already have ended it
                    self._db.execute("ROLLBACK")
                raise
        return len(rows)

    def put_columns(self, kind: str, ids: list[str], fields: list[ColumnField]) -> int:
        """Store the records of one batch, given as columns, as one row (one transaction).

        ``fields`` (see :class:`ColumnField`) list every key of the records in the order a record
        holds them; :meth:`iter` gives each sample's record back as the dict :meth:`put_many` would
        have stored for it (a float field's NaN is ``None``, as ``SampleScore.to_json`` writes it).
        ``ids`` must be new to ``kind``, and distinct (the driver stores only samples not yet stored).
        """
        if not ids:
            return 0
        body = _encode_columns(len(ids), fields)
        id_text = _fast_encoder()(ids).decode("utf-8")
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if not self._batches:
                    # A batch holds samples seq .. seq + n - 1 of its kind, in order.
                    self._db.execute(
                        "CREATE TABLE IF NOT EXISTS batches ("
                        " kind TEXT NOT NULL, seq INTEGER NOT NULL, n INTEGER NOT NULL,"
                        " ids TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (kind, seq))"
                    )
                start = self._next_seq(kind)
                self._db.execute(
                    "INSERT INTO batches(kind, seq, n, ids, body) VALUES (?, ?, ?, ?, ?)", (kind, start, len(ids), id_text, body)
                )
                self._db.execute("COMMIT")
                self._batches = True
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        return len(ids)

    def _unbatch(self, kind: str, sids: set[str]) -> None:
        """Move the batches holding any of ``sids`` back to one row per sample (same insertion
        numbers), so that a record put again replaces the stored one; call inside a transaction."""
        for seq, n, id_text, body in self._batch_rows("SELECT seq, n, ids, body FROM batches WHERE kind=?", kind):
            ids = json.loads(id_text)
            if sids.isdisjoint(ids):
                continue
            bodies = _decode_columns(n, body)
            self._db.execute("DELETE FROM batches WHERE kind=? AND seq=?", (kind, seq))
            self._db.executemany(
                "INSERT OR REPLACE INTO records(kind, sample_id, seq, body) VALUES (?, ?, ?, ?)",
                [(kind, sid, seq + i, _encode(b)) for i, (sid, b) in enumerate(zip(ids, bodies))],
            )

    def ids(self, kind: str) -> set[str]:
        with self._lock:
            out = {r[0] for r in self._db.execute("SELECT sample_id FROM records WHERE kind=?", (kind,))}
            for (id_text,) in self._batch_rows("SELECT ids FROM batches WHERE kind=?", kind):
                out.update(json.loads(id_text))
        return out

    def get(self, kind: str, sample_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT body FROM records WHERE kind=? AND sample_id=?", (kind, sample_id)).fetchone()
            batches = [] if row else self._batch_rows("SELECT n, ids, body FROM batches WHERE kind=?", kind)
        if row:
            return json.loads(row[0])  # type: ignore[no-any-return]
        for n, id_text, body in batches:
            ids: list[str] = json.loads(id_text)
            if sample_id in ids:
                return _decode_columns(n, body)[ids.index(sample_id)]
        return None

    def iter(self, kind: str) -> Iterator[tuple[str, dict[str, Any]]]:
        with self._lock:
            rows = self._db.execute("SELECT sample_id, body, seq FROM records WHERE kind=? ORDER BY seq", (kind,)).fetchall()
            batches = self._batch_rows("SELECT seq, n, ids, body FROM batches WHERE kind=? ORDER BY seq", kind)
        k = 0
        for seq, n, id_text, body in batches:
            while k < len(rows) and rows[k][2] < seq:  # rows stored before this batch
                yield rows[k][0], json.loads(rows[k][1])
                k += 1
            yield from zip(json.loads(id_text), _decode_columns(n, body))
        for sid, body, _ in rows[k:]:
            yield sid, json.loads(body)

    def count(self, kind: str) -> int:
        with self._lock:
            a = self._db.execute("SELECT COUNT(*) FROM records WHERE kind=?", (kind,)).fetchone()[0]
            b = self._batch_rows("SELECT COALESCE(SUM(n), 0) FROM batches WHERE kind=?", kind)
        return int(a) + (int(b[0][0]) if b else 0)

    def clear(self, kind: str | None = None) -> None:
        with self._lock:
            for table in ("records", "batches") if self._batches else ("records",):
                if kind is None:
                    self._db.execute(f"DELETE FROM {table}")  # noqa: S608 - a fixed table name
                else:
                    self._db.execute(f"DELETE FROM {table} WHERE kind=?", (kind,))  # noqa: S608


@dataclass(frozen=True)
class ColumnField:
    """One key of the records of a batch stored by :meth:`SampleStore.put_columns`.

    ``path``: the keys leading to it (``("values", "r_err")``; its parent dicts are earlier fields).
    ``kind``: ``"dict"`` (an empty dict, filled by later fields; ``data`` unused), ``"float"``
    (``data`` a float64 array, NaN read back as ``None``) or ``"json"`` (``data`` a list of
    JSON values). ``present``: the records that hold the key (a bool array; ``None``: all);
    ``data`` has one entry per record that holds it, in record order.
    """

    path: tuple[str, ...]
    kind: Literal["dict", "float", "json"]
    data: Any = None
    present: np.ndarray | None = None


def _b64(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode("ascii")


def _encode_columns(n: int, fields: list[ColumnField]) -> str:
    """The batch body: one JSON document; floats as the bytes of little-endian float64 (exact,
    NaN and infinities included), presence masks as bytes ("" for all), other values as JSON."""
    out = []
    seen: set[tuple[str, ...]] = {()}
    for f in fields:
        if f.path[:-1] not in seen:
            raise ValueError(f"column {f.path} comes before its parent dict")
        present, m = "", n
        if f.present is not None:
            mask = np.asarray(f.present, dtype=bool)
            if mask.shape != (n,):
                raise ValueError(f"column {f.path}: presence mask of shape {mask.shape}, expected ({n},)")
            present, m = _b64(mask.astype(np.uint8)), int(mask.sum())
        data: Any = 0
        if f.kind == "dict":
            seen.add(f.path)
        elif f.kind == "float":
            arr = np.asarray(f.data, dtype="<f8")
            if arr.shape != (m,):
                raise ValueError(f"column {f.path}: {arr.size} values for {m} records")
            data = _b64(arr)
        else:
            data = list(f.data)
            if len(data) != m:
                raise ValueError(f"column {f.path}: {len(data)} values for {m} records")
        out.append([list(f.path), f.kind, data, present])
    return _encode({"format": 1, "n": n, "fields": out})


def _decode_columns(n: int, body: str) -> list[dict[str, Any]]:
    """The records of a batch body written by :func:`_encode_columns`, in order."""
    doc = json.loads(body)
    records: list[dict[str, Any]] = [{} for _ in range(n)]
    for path, kind, data, present in doc["fields"]:
        rows: Iterable[int] = range(n) if not present else np.flatnonzero(np.frombuffer(base64.b64decode(present), dtype=np.uint8)).tolist()
        if kind == "dict":
            values: Iterable[Any] = ({} for _ in range(n))
        elif kind == "float":
            values = [None if v != v else v for v in np.frombuffer(base64.b64decode(data), dtype="<f8").tolist()]
        else:
            values = data
        *parents, last = path
        for i, v in zip(rows, values):
            d = records[i]
            for key in parents:
                d = d[key]
            d[last] = v
    return records
