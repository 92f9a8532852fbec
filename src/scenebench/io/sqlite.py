"""The one way scenebench opens its SQLite files (run stores, the judge cache)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import quote


def connect_durable(path: str | Path) -> sqlite3.Connection:
    """A connection threads may share (callers hold their own lock), in autocommit mode so each
    ``BEGIN ... COMMIT`` is explicit, with a write-ahead log fsynced at every commit: a process
    killed at any moment loses at most the transaction in flight, and readers never block the
    writer. Raises :class:`sqlite3.DatabaseError` when the file is not a database (the caller
    names the file in its message); the connection is closed then."""
    db = sqlite3.connect(path, timeout=60, check_same_thread=False, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
    except BaseException:
        db.close()
        raise
    return db


def connect_readonly(path: str | Path) -> sqlite3.Connection:
    """A read-only connection: ``mode=ro``, else (when SQLite cannot open it so, e.g. it cannot create
    the ``-shm`` index of a write-ahead-log database on a read-only mount: "unable to open database
    file") ``immutable=1``, which reads the database file alone. Raises :class:`sqlite3.DatabaseError` when the file is not a database; a missing file is
    ``sqlite3.OperationalError`` (never created)."""
    p = Path(path)
    if not p.is_file():
        raise sqlite3.OperationalError(f"unable to open database file {p}: it does not exist")
    uri = "file:" + quote(str(p.resolve()))
    # mode=ro first: it reads a write-ahead log a killed writer left (immutable=1 would not see it)
    modes = ("?mode=ro", "?mode=ro&immutable=1")
    last: sqlite3.Error | None = None
    for mode in modes:
        db = sqlite3.connect(uri + mode, uri=True, timeout=60, check_same_thread=False, isolation_level=None)
        try:
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # opens the file for real
            return db
        except sqlite3.DatabaseError as exc:
            db.close()
            if type(exc) is sqlite3.DatabaseError:  # not a database: no other mode will read it
                raise
            last = exc
    assert last is not None
    raise last
