"""Real SQLite faults on an open store, each returning what undoes it.

A write lock held by another connection beyond a short busy timeout, a connection that cannot
write (``mode=ro``: a read-only file, which root's permission bits alone would not make), and a
file not allowed to grow (SQLite's full-disk error).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from ipyask.store import SQLiteStore

__all__ = ["SQLITE_FAULTS", "full", "lock", "read_only"]


def lock(store: SQLiteStore) -> Callable[[], None]:
    """Another connection holds the file's write lock; the store gives up after 50 ms."""
    store._db.execute("PRAGMA busy_timeout = 50")
    other = sqlite3.connect(store.path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")

    def undo() -> None:
        other.execute("ROLLBACK")
        other.close()

    return undo


def read_only(store: SQLiteStore) -> Callable[[], None]:
    """Swap the store's connection for a read-only one."""
    writable = store._db
    store._db = sqlite3.connect(
        f"file:{store.path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
    )

    def undo() -> None:
        store._db.close()
        store._db = writable

    return undo


def full(store: SQLiteStore) -> Callable[[], None]:
    """Let the file grow no more (SQLite then fails as on a full disk)."""
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")
    return lambda: store._db.execute("PRAGMA max_page_count = 1073741823")


SQLITE_FAULTS: dict[str, Callable[[SQLiteStore], Callable[[], None]]] = {
    "locked": lock,
    "read-only": read_only,
    "full": full,
}
"""Each fault by the name a store gives it (``StoreUnavailableError.fault``)."""
