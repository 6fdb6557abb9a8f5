"""``SQLiteStore``: the default store, one SQLite file shared by the processes of one machine.

The file is opened in WAL mode (readers never block the writer), every write runs in a
``BEGIN IMMEDIATE`` transaction (one writer at a time across processes, waiting up to
``busy_timeout``), and ``synchronous=NORMAL``: a committed answer survives a crash of any
process (a kernel restart, a killed agent); only a power cut may lose the last commits.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from ._faults import Fault, StoreClosedError, StoreUnavailableError
from ._file_watch import FileWatch, open_file_watch
from ._migrations import ELSEWHERE, SCHEMA_VERSION, SQLITE_STEPS, StoreOpenError, check_version
from ._sql import SQLStore, queries

T = TypeVar("T")

__all__ = ["DEFAULT_SQLITE_PATH", "SQLiteChangeFeed", "SQLiteStore"]

DEFAULT_SQLITE_PATH = Path(".ipyask") / "questions.sqlite3"
"""The default store file, relative to the working directory (a kernel's is its notebook's)."""

_BUSY_TIMEOUT_MS = 30_000
# Bursts from many processes leave a large write-ahead log; a checkpoint that resets it then
# truncates the file to this size, instead of keeping it as large as the burst was.
_WAL_SIZE_LIMIT = 16 * 1024 * 1024


_FAULTS: dict[str, Fault] = {
    "SQLITE_BUSY": "locked",
    "SQLITE_LOCKED": "locked",
    "SQLITE_READONLY": "read-only",
    "SQLITE_FULL": "full",
}
"""SQLite's result codes (primary, extended ones start with them) that are the file's state."""


def _fault(error: sqlite3.Error) -> Fault | None:
    name = getattr(error, "sqlite_errorname", "")
    return next((fault for code, fault in _FAULTS.items() if name.startswith(code)), None)


def _connect(path: Path) -> sqlite3.Connection:
    # isolation_level=None: no implicit transactions; each write opens BEGIN IMMEDIATE itself.
    connection = sqlite3.connect(
        path, timeout=_BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    connection.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
    return connection


def _check_ours(location: str, version: int, tables: list[str]) -> None:
    """Refuse a database another application keeps, and one a newer ipyask wrote."""
    if not any(name.startswith("ipyask_") for name in tables) and (tables or version):
        kept = ", ".join(sorted(tables)) or f"none, user_version {version}"
        raise StoreOpenError(
            f"the file at {location} is an SQLite database that is not an ipyask store (its "
            f"tables: {kept}); ipyask does not write into it. Point $IPYASK_STORE (or the "
            "location you open) at another file, or move this one aside."
        )
    check_version(version, location)


def _read_checked(path: Path) -> sqlite3.Connection:
    """A connection to ``path`` once its version and tables were read (reads only) and fit."""
    db = _connect(path)
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        _check_ours(str(path), version, tables)
    except BaseException:
        db.close()
        raise
    return db


def _open_unchanged(path: Path) -> sqlite3.Connection:
    """A connection to the store file at ``path``, checked before anything writes to it.

    A directory, a file SQLite cannot open or read, another application's database and a newer
    ipyask's store are refused (:class:`StoreOpenError`) with the file as it was: the version
    and the tables are read before any pragma or statement that writes (``journal_mode = WAL``
    rewrites the header of a rollback-journal file).
    """
    location = str(path)
    if path.is_dir():
        raise StoreOpenError(
            f"the ipyask store at {location} is a directory, not a store file: point "
            "$IPYASK_STORE (or the location you open) at a file in it, e.g. "
            f"{path / 'questions.sqlite3'}."
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        why = (
            "a file is in its way"
            if isinstance(error, (FileExistsError, NotADirectoryError))
            else error.strerror or str(error)
        )
        raise StoreOpenError(
            f"the ipyask store at {location} cannot be created: its folder {path.parent} "
            f"cannot be made ({why}); {ELSEWHERE}."
        ) from error
    try:
        return _read_checked(path)
    except sqlite3.OperationalError as error:
        if "unable to open" not in str(error):
            raise  # a fault of the moment (busy, I/O), not of what the file is
        raise StoreOpenError(
            f"the ipyask store at {location} cannot be opened ({error}): check that it is a "
            f"file this user may read and write, in a folder it may write, or {ELSEWHERE}."
        ) from error
    except sqlite3.DatabaseError as error:  # SQLite's "not a database" and "malformed"
        raise StoreOpenError(
            f"the ipyask store at {location} is not an SQLite database or is damaged ({error}); "
            "ipyask did not change it. Move it aside (ipyask then starts an empty store there) "
            f"or {ELSEWHERE}."
        ) from error


class SQLiteStore(SQLStore):
    """A :class:`~ipyask.store.Store` in one SQLite file (created with its folder if missing)."""

    QUERIES = queries("?", "json_extract(body, '$.type')")

    def __init__(self, path: str | Path = DEFAULT_SQLITE_PATH) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._changed = threading.Condition()
        self._local_changes = 0
        self._writes_seen = 0
        self._blocked = 0  # feeds whose wait a write notice ends
        """File-change notices so far: another process (or this one) wrote the store's files."""
        self._files: FileWatch | None = None
        self._files_tried = False
        self.closed = False
        """Whether :meth:`close` ran: its change feeds have ended."""
        self._db = _open_unchanged(self.path)
        try:
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._db.execute(f"PRAGMA journal_size_limit = {_WAL_SIZE_LIMIT}")
            self._migrate()
        except BaseException:
            self._db.close()
            raise

    @property
    def location(self) -> str:
        return str(self.path)

    def _migrate(self) -> None:
        found = int(self._db.execute("PRAGMA user_version").fetchone()[0])
        if found == SCHEMA_VERSION:
            return
        with self._write() as db:
            found = int(db.execute("PRAGMA user_version").fetchone()[0])  # under the lock now
            check_version(found, self.location)
            for step in SQLITE_STEPS[found:]:
                for statement in step:
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _attempt(self, operation: Callable[[], T]) -> T:
        if self.closed:
            raise StoreClosedError(self.location)
        try:
            return operation()
        except sqlite3.Error as error:
            if self.closed:  # closed by another thread meanwhile
                raise StoreClosedError(self.location) from error
            fault = _fault(error)
            if fault is None:
                raise
            raise StoreUnavailableError(self.location, fault, str(error)) from error

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:  # a failed COMMIT (a full disk) leaves it open
                    self._db.execute("ROLLBACK")
                raise
        with self._changed:
            self._local_changes += 1
            self._changed.notify_all()

    def _to_json(self, value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    def _event_from(self, body: Any) -> dict[str, Any]:
        return dict(json.loads(body))

    def _lock_session(self, db: sqlite3.Connection, session_id: str) -> None:
        pass  # BEGIN IMMEDIATE already excludes every other writer

    def changes(self, sessions: Callable[[], Collection[str]] | None = None) -> SQLiteChangeFeed:
        if self.closed:
            raise StoreClosedError(self.location)
        self.file_watch()  # before the feed reads its first version: no write after it is missed
        return SQLiteChangeFeed(self)  # a change does not say its session: every one wakes

    def file_watch(self) -> FileWatch | None:
        """The store's one watch of its files (opened with the first feed), or ``None`` where
        the kernel gives no notices or it ended: the feeds then check on a timer."""
        with self._changed:
            if not self._files_tried:
                self._files_tried = True
                self._files = open_file_watch(self.path, self._written)
            files = self._files
        return files if files is not None and files.alive else None

    def _written(self) -> None:
        with self._changed:
            self._writes_seen += 1
            if self._blocked:  # a feed in the timer's first pause after a change is not woken
                self._changed.notify_all()

    def close(self) -> None:
        with self._changed:
            files, self._files = self._files, None
            self._files_tried = True  # a closed store opens no new watch
            self.closed = True
            self._changed.notify_all()  # its feeds' waits end: they have ended
        if files is not None:
            files.close()
        with self._lock:
            self._db.close()

    def __repr__(self) -> str:
        return f"<SQLiteStore {self.path}>"


class SQLiteChangeFeed:
    """Notices commits by any process with ``PRAGMA data_version`` on its own connection.

    The check is a read of a counter in shared memory (no disk access). Where the store's
    :class:`~ipyask.store._file_watch.FileWatch` runs, the feed checks only when the kernel says
    the store's files were written, after checking on its timer for 0.4 s after a change (a
    burst of commits is followed as the timer says, a commit whose counter moves just after its
    write is not missed): an idle feed costs nothing. A notice also ends the timer's pauses but
    the first after a change (that one too after a commit of this store object), with a check,
    so a commit a few milliseconds after a change is seen at once. A commit writes its log
    before its counter moves, so a notice can come a moment before the change shows: a check
    after a notice that finds none is followed by a few more within about 3 ms
    (:attr:`AFTER_NOTICE`) before the feed waits again. Elsewhere it checks at an interval that
    starts at 2 ms after a change and backs off to 200 ms while nothing happens. Commits
    through the same :class:`SQLiteStore` object wake it at once either way.
    """

    MIN_INTERVAL = 0.002
    MAX_INTERVAL = 0.2
    AFTER_WRITE = 0.4
    """How long after a change or a write notice the feed keeps checking on its timer (as
    often as before, in a burst of commits) before it waits for the next notice."""
    AFTER_NOTICE = (0.0001, 0.0002, 0.0004, 0.0008, 0.0016)
    """The pauses (seconds) before each further check after a write notice whose first check
    found no change: the commit it told of shows a moment after its log was written."""

    def __init__(self, store: SQLiteStore) -> None:
        self._store = store
        self._db = _connect(store.path)
        self._closed = False
        self._waiting = False
        self.checks = 0
        """How many times the feed read ``data_version`` (what an idle feed costs)."""
        self._version = self._data_version()
        with store._changed:
            self._local = store._local_changes
        self._interval = self.MIN_INTERVAL
        self._checked_for = 0.0  # seconds of short checks since the last notice
        self._own = False
        """Whether the last change seen was a commit of this store object (with any others)."""

    @property
    def _stopped(self) -> bool:
        """Whether a wait is to end: the feed or its store was closed."""
        return self._closed or self._store.closed

    @property
    def ended(self) -> bool:
        """Whether its store was closed: every wait returns ``False`` at once from then on (the
        store's readers can no longer read what a change would tell of)."""
        return self._store.closed

    def _data_version(self) -> int:
        self.checks += 1
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    def _seen(self) -> bool:
        version = self._data_version()
        with self._store._changed:
            local = self._store._local_changes
        if version != self._version or local != self._local:
            self._own = local != self._local
            self._version, self._local = version, local
            return True
        return False

    def _seen_after_notice(self, ends: float | None) -> bool:
        """Whether a change shows after a write notice: checked at once and, while none does,
        again after each pause of :attr:`AFTER_NOTICE` that ends before ``ends``."""
        if self._seen():
            return True
        for pause in self.AFTER_NOTICE:
            if ends is not None and time.monotonic() + pause > ends:
                return False
            self._sleep_until(time.monotonic() + pause)
            if self._stopped:
                return False
            if self._seen():
                return True
        return False

    def wait(self, timeout: float | None) -> bool:
        # A connection must never be closed while another thread uses it (SQLite crashes the
        # process): ``close`` from another thread only marks the feed closed and wakes it, and
        # the waiting thread closes the connection on its way out.
        with self._store._changed:
            if self._stopped:
                return False
            self._waiting = True
        try:
            return self._wait(timeout)
        finally:
            with self._store._changed:
                self._waiting = False
                closed = self._closed
            if closed:
                self._db.close()

    def _pause(self, deadline: float | None) -> tuple[float | None, bool]:
        """How long to wait before the next check (``None``: until woken, ``0``: time is up),
        and whether the feed waits for a write notice (else it checks on its timer)."""
        blocked = self._store.file_watch() is not None and self._checked_for >= self.AFTER_WRITE
        pause: float | None = None if blocked else self._interval
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                return 0.0, blocked
            pause = left if pause is None else min(pause, left)
        return pause, blocked

    def _listens(self) -> FileWatch | None:
        """The watch whose notice ends the coming pause early, if any.

        Every pause but the timer's first after a change (2 ms) listens: in a burst of commits
        a check finds one at nearly every pause, so the feed follows the burst at the timer's
        pace and the watch sleeps through it, as before; a lone commit a few milliseconds after
        a change (an answer after its ask) is checked for at its notice. The first pause after
        a commit of this store object listens too: its own commit tells of no burst of others,
        and the next ask often follows an answer within 2 ms."""
        files = self._store.file_watch()
        if files is None or self._interval > self.MIN_INTERVAL or self._own:
            return files
        return files if self._checked_for + self._interval >= self.AFTER_WRITE else None

    def _wait(self, timeout: float | None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        store = self._store
        while not self._stopped:
            files = self._listens()
            if files is not None:
                files.arm()  # before the check: it covers the writes whose notices arm drops
            with store._changed:
                writes = store._writes_seen  # a notice after this may be of a later commit
            if self._seen():
                self._interval, self._checked_for = self.MIN_INTERVAL, 0.0
                return True
            pause, blocked = self._pause(deadline)
            if pause == 0.0:
                return False
            if blocked:
                if self._wait_for_notice(writes, pause):
                    # Check at once and a few times shortly after, then on the timer for a
                    # moment (a commit's counter may move just after its write), then wait
                    # for the next notice again.
                    self._interval, self._checked_for = self.MIN_INTERVAL, 0.0
                    if self._seen_after_notice(deadline):
                        return True
                    self._own = False  # the coming first pause follows a notice, not a commit
                continue
            assert pause is not None  # the timer's pauses are never endless
            if self._timer_pause(writes, pause, files):
                self._interval, self._checked_for = self.MIN_INTERVAL, 0.0
                return True
            self._checked_for += pause
            self._interval = min(self._interval * 2, self.MAX_INTERVAL)
        return False

    def _timer_pause(self, writes: int, pause: float, files: FileWatch | None) -> bool:
        """Wait out one pause of the timer; whether a write notice during it led to a change.

        A notice (from ``files``, armed before the last check) ends the pause early with a
        check. The notice can come before the commit's counter moves (the log is written before
        the commit shows): the feed checks again a few times shortly after it, then listens
        again for the rest of the pause, and the check after the pause covers the commit; never
        a longer wait than the timer's."""
        ends = time.monotonic() + pause
        while files is not None:
            left = ends - time.monotonic()
            if left <= 0 or not self._wait_for_notice(writes, left):
                break
            files.arm()  # before the check, as at every check
            with self._store._changed:
                writes = self._store._writes_seen
            if self._seen_after_notice(ends):
                return True
        self._sleep_until(ends)
        return False

    def _sleep_until(self, ends: float) -> None:
        """Wait until ``ends`` (monotonic) unless this store object commits or the feed closes."""
        store = self._store
        with store._changed:
            while store._local_changes == self._local and not self._stopped:
                left = ends - time.monotonic()
                if left <= 0 or not store._changed.wait(left):
                    return

    def _wait_for_notice(self, writes: int, pause: float | None) -> bool:
        """Wait (at most ``pause`` seconds) for a write notice after ``writes``, a commit of
        this store object, or :meth:`close`; whether a notice came. The caller armed the watch
        before its last check."""
        store = self._store
        with store._changed:
            store._blocked += 1
            try:
                while (
                    store._writes_seen == writes
                    and store._local_changes == self._local
                    and not self._stopped
                ):
                    if not store._changed.wait(pause):
                        break
            finally:
                store._blocked -= 1
            return store._writes_seen != writes

    def close(self) -> None:
        """Close the feed, from any thread; a ``wait`` in progress returns ``False`` soon."""
        with self._store._changed:
            already = self._closed
            self._closed = True
            self._store._changed.notify_all()
            if already or self._waiting:
                return  # the waiting thread closes the connection
        self._db.close()
