"""Crash-safe per-sample storage for run folders (SQLite, WAL, one transaction per batch).

Every scored (or predicted, or judged) sample is written the moment its batch finishes, keyed by
its stable ``sample_id``. A killed process loses at most the batch in flight; the next run reads
what is there and skips it. (The scoring driver hands over the batches of up to 0.2 s at once:
``scenebench.runtime.scoring.FLUSH_SECONDS``.)

Records are stored one row per sample (``records``: :meth:`SampleStore.put_many`), read back in
insertion order.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from scenebench.errors import InputError
from scenebench.io.sqlite import connect_durable, connect_readonly

SCORE_KIND = "score"  # the per-sample score records of a run (runtime.scoring writes them)
STATE_KIND = "run-state"  # bookkeeping records of the run itself, next to the samples
FINISHED_KEY = "scores-finished"  # {"finished": bool, "n": int, "ids": digest}: whether results.json covers the stored scores


LOCK_NAME = ".lock"  # RUN_DIR/.lock: the flock of the process writing the folder, holding its pid (runtime.rundir)


def lock_holder(folder: str | Path) -> str | None:
    """The pid of another process holding ``folder``'s lock (``"?"`` when it wrote none), else None.
    Only tried, never kept: a free lock is given back at once. Here, not in ``rundir``, so that
    ``Results.samples()`` (a base module) can ask without importing the run-folder layer."""

    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no advisory lock
        return None
    try:
        fd = os.open(Path(folder) / LOCK_NAME, os.O_RDONLY)
    except OSError:
        return None  # no lock file: nobody ever locked it, or it is not readable (nobody we know writes it)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            other = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
            if other == str(os.getpid()):
                return None  # this process holds it (a command that scored it, now exporting)
            return other if other.isdigit() else "?"
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def score_ids_digest(ids: Iterable[str]) -> str:
    """One digest of a set of sample ids (order-free): what ``FINISHED_KEY`` records and export checks."""
    import hashlib

    h = hashlib.sha256()
    for sid in sorted(ids):
        h.update(sid.encode("utf-8", "surrogatepass") + b"\x1f")
    return h.hexdigest()


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


class DamagedStoreError(InputError):
    """The run folder's store is not a readable SQLite database (damaged, truncated, not ours)."""


@contextlib.contextmanager
def _readable(path: Path) -> Iterator[None]:
    """Turn SQLite's "file is not a database" / "database disk image is malformed" into one line
    naming the file. Only the plain ``DatabaseError`` means damage: its subclasses (a locked or full
    disk is ``OperationalError``) keep their own handling."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        if type(exc) is not sqlite3.DatabaseError:
            raise
        raise DamagedStoreError(
            path,
            f"is damaged ({exc}): the run's stored records cannot be read; rerun with --overwrite to reset "
            "the run folder (everything is computed again)",
        ) from None


class SampleStore:
    """A table of JSON records keyed by ``(kind, sample_id)``; ``kind`` separates predictions from scores."""

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self.readonly = readonly
        if readonly:  # export, report, compare: a finished run on a read-only mount must still be readable
            with _readable(self.path):
                self._db = connect_readonly(self.path)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _readable(self.path):
            self._db = connect_durable(self.path)
        try:
            with _readable(self.path):
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS records ("
                    " kind TEXT NOT NULL, sample_id TEXT NOT NULL, seq INTEGER NOT NULL,"
                    " body TEXT NOT NULL, PRIMARY KEY (kind, sample_id))"
                )
                # Each batch asks for MAX(seq) of its kind: without this index a full scan per batch, quadratic
                # in runs of many scenes (2,000 rescans of 100 poses: minutes). Added to older stores on open.
                self._db.execute("CREATE INDEX IF NOT EXISTS records_kind_seq ON records(kind, seq)")
        except BaseException:
            self._db.close()
            raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> SampleStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _next_seq(self, kind: str) -> int:
        """The first free insertion number of ``kind``; call inside a transaction."""
        return int(self._db.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM records WHERE kind=?", (kind,)).fetchone()[0])

    def put_many(self, kind: str, items: Iterable[tuple[str, dict[str, Any]]]) -> int:
        rows = [(kind, sid, _encode(body)) for sid, body in items]
        if not rows:
            return 0
        with self._lock, _readable(self.path):
            self._db.execute("BEGIN IMMEDIATE")
            try:
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

    def ids(self, kind: str) -> set[str]:
        with self._lock, _readable(self.path):
            return {r[0] for r in self._db.execute("SELECT sample_id FROM records WHERE kind=?", (kind,))}

    def get(self, kind: str, sample_id: str) -> dict[str, Any] | None:
        with self._lock, _readable(self.path):
            row = self._db.execute("SELECT body FROM records WHERE kind=? AND sample_id=?", (kind, sample_id)).fetchone()
        return json.loads(row[0]) if row else None

    def iter(self, kind: str) -> Iterator[tuple[str, dict[str, Any]]]:
        with self._lock, _readable(self.path):
            rows = self._db.execute("SELECT sample_id, body FROM records WHERE kind=? ORDER BY seq", (kind,)).fetchall()
        for sid, body in rows:
            yield sid, json.loads(body)

    def count(self, kind: str) -> int:
        with self._lock, _readable(self.path):
            return int(self._db.execute("SELECT COUNT(*) FROM records WHERE kind=?", (kind,)).fetchone()[0])

    def clear(self, kind: str | None = None) -> None:
        with self._lock, _readable(self.path):
            if kind is None:
                self._db.execute("DELETE FROM records")
            else:
                self._db.execute("DELETE FROM records WHERE kind=?", (kind,))
