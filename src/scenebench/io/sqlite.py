"""The one way scenebench opens its SQLite files (run stores, the judge cache)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


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
