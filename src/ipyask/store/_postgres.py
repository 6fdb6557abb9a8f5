"""``PostgresStore``: one inbox shared across machines, through PostgreSQL (psycopg 3).

Needs the ``postgres`` extra (``pip install 'ipyask[postgres]'``); psycopg is imported only when
a PostgreSQL store is opened. A write that changes a session's log notifies ``ipyask_changes``
with the session's id when it commits, so a waiting process wakes as the answer commits: each
store keeps one connection that ``LISTEN``s, and its change feeds wait on it (a feed that follows
some sessions only wakes for theirs).
"""

from __future__ import annotations

import re
import selectors
import socket
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ._migrations import ELSEWHERE, POSTGRES_STEPS, SCHEMA_VERSION, StoreOpenError, check_version
from ._sql import SQLStore, queries

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "ANY_SESSION",
    "CHANNEL",
    "ChangeListener",
    "PostgresChangeFeed",
    "PostgresStore",
    "import_psycopg",
]

CHANNEL = "ipyask_changes"
"""The ``LISTEN``/``NOTIFY`` channel; a notification's payload is the changed session's id."""

_MIGRATION_LOCK = 0x1BA5_0001  # an advisory lock key: one migrating process at a time


def import_psycopg() -> Any:
    """psycopg 3, or an ImportError that names the extra to install."""
    try:
        import psycopg
    except ImportError as error:
        raise ImportError(
            "a PostgreSQL store needs psycopg 3, which ipyask installs with its 'postgres' "
            "extra: pip install 'ipyask[postgres]'"
        ) from error
    return psycopg


_URL_PASSWORD = re.compile(r"(://[^/@:]*:)(?P<password>[^/@]*)@")


def _safe_location(conninfo: str) -> str:
    psycopg = import_psycopg()
    try:
        parts = psycopg.conninfo.conninfo_to_dict(conninfo)
    except psycopg.ProgrammingError:
        return _URL_PASSWORD.sub(r"\1***@", conninfo)  # as given, without its password
    parts.pop("password", None)
    return "postgresql: " + " ".join(f"{key}={value}" for key, value in sorted(parts.items()))


def _without_password(text: str, conninfo: str) -> str:
    """``text`` (a driver's message) with the password of ``conninfo`` masked, if it is there."""
    psycopg = import_psycopg()
    try:
        password = psycopg.conninfo.conninfo_to_dict(conninfo).get("password")
    except psycopg.ProgrammingError:  # malformed: the URL's password is all there is to mask
        match = _URL_PASSWORD.search(conninfo)
        password = match.group("password") if match else None
    return text.replace(password, "***") if password else text


class PostgresStore(SQLStore):
    """A :class:`~ipyask.store.Store` in a PostgreSQL database (tables ``ipyask_*``).

    ``conninfo`` is a libpq connection string or URL (``postgresql://user@host/db``).
    """

    QUERIES = queries("%s")

    def __init__(self, conninfo: str) -> None:
        pg = import_psycopg()
        self._pg = pg
        self._jsonb = pg.types.json.Jsonb
        self._listener: ChangeListener | None = None
        self.conninfo = conninfo
        self._location = _safe_location(conninfo)
        self._lock = threading.RLock()
        try:
            self._db: psycopg.Connection[Any] = pg.connect(conninfo, autocommit=True)
        except pg.Error as error:
            reason = _without_password(str(error).strip(), conninfo)
            raise StoreOpenError(
                f"the ipyask store at {self._location} cannot be reached ({reason}): check that "
                "the PostgreSQL server runs and that the URL names an existing database and a "
                f"user allowed to connect to it, or {ELSEWHERE}."
            ) from error
        try:
            self._migrate()
        except BaseException:
            self._db.close()
            raise

    @property
    def location(self) -> str:
        return self._location

    def _version(self) -> int:
        row = self._db.execute("SELECT to_regclass('ipyask_meta')").fetchone()
        if row is None or row[0] is None:
            return 0
        found = self._db.execute(
            "SELECT value FROM ipyask_meta WHERE key = 'schema_version'"
        ).fetchone()
        return int(found[0]) if found else 0

    def _stored_version(self) -> int:
        """The schema version, read before any DDL; a table that does not say one is refused."""
        try:
            return self._version()
        except (ValueError, self._pg.ProgrammingError, self._pg.DataError) as error:
            raise StoreOpenError(
                f"the ipyask store at {self.location} has an ipyask_meta table this ipyask "
                f"cannot read ({str(error).strip()}); the database was not changed: {ELSEWHERE}, "
                "or, after saving what they hold, rename its ipyask_* tables "
                "(ALTER TABLE ... RENAME TO ...) so that ipyask starts a new store there."
            ) from error

    def _migrate(self) -> None:
        with self._lock:
            check_version(self._stored_version(), self.location)
            with self._db.transaction():
                self._db.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
                found = self._version()
                check_version(found, self.location)
                if found == SCHEMA_VERSION:
                    return
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS ipyask_meta (key TEXT PRIMARY KEY,"
                    " value TEXT NOT NULL)"
                )
                for step in POSTGRES_STEPS[found:]:
                    for statement in step:
                        self._db.execute(statement)
                self._db.execute(
                    "INSERT INTO ipyask_meta (key, value) VALUES ('schema_version', %s)"
                    " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                    (str(SCHEMA_VERSION),),
                )

    @contextmanager
    def _write(self) -> Iterator[psycopg.Connection[Any]]:
        with self._lock, self._db.transaction():
            yield self._db

    def _append(
        self, db: psycopg.Connection[Any], session_id: str, event: Mapping[str, Any]
    ) -> int:
        seq = super()._append(db, session_id, event)
        db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, session_id))  # sent at the commit
        return seq

    def _to_json(self, value: Any) -> Any:
        return self._jsonb(value)

    def _event_from(self, body: Any) -> dict[str, Any]:
        return dict(body)

    def _lock_session(self, db: psycopg.Connection[Any], session_id: str) -> None:
        db.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (session_id,))

    def changes(self, sessions: Callable[[], Collection[str]] | None = None) -> PostgresChangeFeed:
        with self._lock:
            if self._db.closed:
                raise self._pg.OperationalError("the store is closed")
            if self._listener is None or self._listener.broken:
                if self._listener is not None:
                    self._listener.close()
                self._listener = ChangeListener(self.conninfo)
            return PostgresChangeFeed(self._listener, sessions)

    def close(self) -> None:
        with self._lock:
            listener, self._listener = self._listener, None
            self._db.close()
        if listener is not None:
            listener.close()

    def __repr__(self) -> str:
        return f"<PostgresStore {self.location}>"


ANY_SESSION = ""
"""The payload of a notification that names no session (every feed wakes for it)."""


class ChangeListener:
    """One ``LISTEN ipyask_changes`` connection of a store, shared by all its change feeds.

    A thread blocks on the connection's socket (and on a socket pair that :meth:`close` wakes), so
    an idle listener costs no CPU and no wake-ups; each batch of notifications is handed to every
    feed, which decides whether it concerns its waiter. One connection per store, opened with its
    first feed: opening one per wait cost a connection set-up on every question.
    """

    def __init__(self, conninfo: str) -> None:
        pg = import_psycopg()
        self._error: type[Exception] = pg.Error
        self._db: psycopg.Connection[Any] = pg.connect(conninfo, autocommit=True)
        try:
            self._db.execute(f"LISTEN {CHANNEL}")
        except BaseException:
            self._db.close()
            raise
        self.changed = threading.Condition()
        """Guards the feeds' pending sessions and wakes their waiters."""
        self.failure: Exception | None = None
        """Why the connection stopped listening, if it did (feeds raise it)."""
        self.closed = False
        self._feeds: set[PostgresChangeFeed] = set()
        # A socket pair, not a pipe: selectors on Windows wait on sockets only.
        self._wake_read, self._wake_write = socket.socketpair()
        self._thread = threading.Thread(target=self._listen, name="ipyask-listen", daemon=True)
        self._thread.start()

    @property
    def broken(self) -> bool:
        """Whether the connection failed (a new listener is needed)."""
        return self.failure is not None

    def subscribe(self, feed: PostgresChangeFeed) -> None:
        with self.changed:
            self._feeds.add(feed)

    def unsubscribe(self, feed: PostgresChangeFeed) -> None:
        with self.changed:
            self._feeds.discard(feed)
            self.changed.notify_all()

    def _listen(self) -> None:
        pgconn = self._db.pgconn
        encoding = self._db.info.encoding
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(pgconn.socket, selectors.EVENT_READ)
                selector.register(self._wake_read, selectors.EVENT_READ)
                while True:
                    ready = selector.select()
                    if any(key.fileobj is self._wake_read for key, _ in ready):
                        return
                    pgconn.consume_input()
                    sessions: set[str] = set()
                    while (notification := pgconn.notifies()) is not None:
                        sessions.add(notification.extra.decode(encoding, "replace"))
                    if sessions:
                        with self.changed:
                            for feed in self._feeds:
                                feed.pending |= sessions
                            self.changed.notify_all()
        except (self._error, OSError) as error:
            with self.changed:
                if not self.closed:
                    self.failure = error
                self.changed.notify_all()

    def close(self) -> None:
        """Stop listening and close the connection (idempotent, from any thread)."""
        with self.changed:
            if self.closed:
                return
            self.closed = True
            self.changed.notify_all()
        self._wake_write.send(b"x")
        if self._thread is not threading.current_thread():
            self._thread.join()
        self._db.close()
        self._wake_read.close()
        self._wake_write.close()


class PostgresChangeFeed:
    """A waiter on its store's :class:`ChangeListener`: wakes on the commit, idle costs nothing.

    With ``sessions``, it wakes only for changes to the sessions that callable returns when the
    change arrives (and for notifications that name no session).
    """

    def __init__(
        self, listener: ChangeListener, sessions: Callable[[], Collection[str]] | None = None
    ) -> None:
        self._listener = listener
        self._sessions = sessions
        self._closed = False
        self.pending: set[str] = set()
        """Sessions changed since the last :meth:`wait` returned (filled by the listener)."""
        listener.subscribe(self)

    def _concerns(self, changed: set[str]) -> bool:
        if self._sessions is None or ANY_SESSION in changed:
            return True
        followed = self._sessions()  # outside the listener's lock: it takes its owner's locks
        return any(session in followed for session in changed)

    def wait(self, timeout: float | None) -> bool:
        listener = self._listener
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            with listener.changed:
                listener.changed.wait_for(
                    lambda: (
                        self._closed
                        or listener.closed
                        or listener.failure is not None
                        or bool(self.pending)
                    ),
                    left,
                )
                if self._closed or listener.closed:
                    return False
                if listener.failure is not None:
                    raise listener.failure
                changed, self.pending = self.pending, set()
            if not changed:
                return False  # the timeout passed
            if self._concerns(changed):
                return True

    def close(self) -> None:
        """Stop waiting (from any thread); the listener stays open for the store's other feeds."""
        self._closed = True
        self._listener.unsubscribe(self)
