"""``PostgresStore``: one inbox shared across machines, through PostgreSQL (psycopg 3).

Needs the ``postgres`` extra (``pip install 'ipyask[postgres]'``); psycopg is imported only when
a PostgreSQL store is opened. Each session a commit changed is notified on ``ipyask_changes``
and on the session's own channel (:func:`session_channel`), so a waiting process wakes as the
answer commits: each store keeps one connection that ``LISTEN``s, and its change feeds wait on
it. An ask's and a claim's notification carries a note of what it wrote
(:class:`~ipyask.store._records.ChangeNote`, one per question), which the feeds hand on so that
nobody reads it back; every other notification is the bare session id.

Asks and claims notify inside their own transactions, so the other side wakes as they commit.
The other writes hand their sessions to the listening connection's thread, which notifies those
of every commit made while it sent the previous ones in one statement (the server wakes every
listening connection at each notifying commit); a store with no listener notifies inside each
write transaction. The connection listens on ``ipyask_changes`` only while a feed follows every
session (an inbox); otherwise on the channels of the sessions its feeds follow, so an agent's
process is not woken by other agents' commits; with no feed, on nothing.

Faults heal by themselves: a statement that finds its connection lost (a server restart, a
terminated backend, a dropped network) runs once more on a new connection, and a store that
cannot be reached raises :class:`StoreUnavailableError`; the listening connection reconnects with
bounded exponential backoff, ``LISTEN``s again and wakes every feed, so its waiters re-read what
changed during the outage.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import re
import selectors
import socket
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

from .._backoff import Backoff, Pause
from .._clock import Clock, ThreadClock
from ._faults import StoreClosedError, StoreUnavailableError
from ._follow import EverySession
from ._migrations import ELSEWHERE, POSTGRES_STEPS, SCHEMA_VERSION, StoreOpenError, check_version
from ._records import (
    Asker,
    ChangeNote,
    ClaimResult,
    QuestionRecord,
    Terminal,
    accepted,
    answered_event,
    asked_event,
    claim_of,
)
from ._sql import OUTSIDE_TURN, Position, SQLStore, _first_claims, queries

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "ANY_SESSION",
    "CHANNEL",
    "CONNECTION_DEFAULTS",
    "SHOWN_POSTGRES",
    "ChangeListener",
    "PostgresChangeFeed",
    "PostgresStore",
    "connect",
    "import_psycopg",
    "session_channel",
]

CHANNEL = "ipyask_changes"
"""The ``LISTEN``/``NOTIFY`` channel of every change; a notification's payload is the changed
session's id."""

MOST_SESSION_CHANNELS = 256
"""Past this many followed sessions a listener listens on :data:`CHANNEL` instead."""


def session_channel(session_id: str) -> str:
    """The channel of one session's changes (a hash: a channel name is at most 63 bytes)."""
    return "ipyask_s_" + hashlib.sha256(session_id.encode()).hexdigest()[:32]


def notify_statement(sessions: Collection[str]) -> tuple[str, tuple[list[str], list[str]]]:
    """The statement (and its parameters) that notifies each of ``sessions`` once on
    :data:`CHANNEL` and once on its own channel; a transaction sends them as it commits."""
    ordered = sorted(sessions)
    channels = [CHANNEL] * len(ordered) + [session_channel(s) for s in ordered]
    return (_NOTIFY, (channels, ordered * 2))


_NOTIFY = "SELECT pg_notify(c, p) FROM unnest(%s::text[], %s::text[]) AS n(c, p)"


_LOCK_SESSION = "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))"
"""Serialise the writes of one session for the rest of the transaction."""

_QUERIES = queries("%s", "body->>'type'")


def _append_event_of(rows: str) -> str:
    """An insert of one event (its body the next parameter) for each session of ``rows`` (a
    CTE with a ``session_id``), at the next position of that session's log."""
    return (
        "INSERT INTO ipyask_events (session_id, seq, body) SELECT session_id,"
        " COALESCE((SELECT MAX(seq) + 1 FROM ipyask_events AS e"
        f" WHERE e.session_id = {rows}.session_id), 0), %s FROM {rows}"
    )


_SESSION_CHANNEL_SQL = "'ipyask_s_' || left(encode(sha256(convert_to({}, 'UTF8')), 'hex'), 32)"
""":func:`session_channel` computed by the server (a claim learns its session there)."""

NOTE_LIMIT = 8000
"""A notification's payload is shorter than this many bytes (the server's limit)."""


def _noted(asker: str = "") -> str:
    """A CTE of the note (:class:`~ipyask.store._records.ChangeNote`) of each row of ``event``
    (an insert ``RETURNING session_id, seq, body``); ``asker`` adds who asked."""
    return (
        "noted AS (SELECT session_id, seq, jsonb_build_object('sessionId', session_id, 'seq',"
        f" seq, 'event', body{asker})::text AS note FROM event)"
    )


_NOTIFY_NOTED = (  # each note on CHANNEL and on its session's channel; too long: the bare id
    f"SELECT pg_notify(channel, CASE WHEN octet_length(note) < {NOTE_LIMIT} THEN note"
    " ELSE session_id END) FROM noted,"
    f" LATERAL (VALUES ('{CHANNEL}'), ({_SESSION_CHANNEL_SQL.format('session_id')}))"
    " AS channels(channel)"
)

_ASKER = ", 'asker', %s::jsonb"
"""The ``asker`` of an ask's note: the ask statement's last parameter."""

_OPEN_QUESTION = (  # a record and its ``asked`` event unless the call has one or the turn ended
    "WITH turn AS (SELECT %s::bigint IS NOT NULL AND"
    f" ({_QUERIES.turn_ended_after.removeprefix('SELECT ')}) AS ended),"
    " asked AS (INSERT INTO ipyask_questions (id, session_id, agent_id, call_id, questions,"
    "  asked_at, origin, assignee) SELECT %s, %s, %s, %s, %s, %s, %s, %s FROM turn"
    "  WHERE NOT ended ON CONFLICT (session_id, call_id) DO NOTHING RETURNING session_id),"
    f" event AS ({_append_event_of('asked')} RETURNING session_id, seq, body),"
    f" {_noted(_ASKER)}"
    f" SELECT ended, (SELECT seq FROM event), (SELECT count(*) FROM ({_NOTIFY_NOTED}) AS sent)"
    " FROM turn"
)

_LOCK_CLAIMED_RECORDS = (  # in one order (by id), as every claim takes them
    "SELECT id FROM ipyask_questions WHERE id = ANY(%s::text[]) AND outcome IS NULL"
    " ORDER BY id FOR UPDATE"
)
_LOCK_CLAIMED_SESSIONS = (  # then their sessions' locks, in one order (by id)
    "SELECT pg_advisory_xact_lock(hashtextextended(session_id, 0)) FROM"
    " (SELECT DISTINCT session_id FROM ipyask_questions"
    "  WHERE id = ANY(%s::text[]) AND outcome IS NULL ORDER BY session_id OFFSET 0) AS held"
)
_LOCK_CLAIMED_RECORD = (  # one record's lock, then its session's: a single claim, one statement
    "SELECT pg_advisory_xact_lock(hashtextextended(session_id, 0)) FROM"
    " (SELECT session_id FROM ipyask_questions WHERE id = %s AND outcome IS NULL FOR UPDATE)"
    " AS held"
)
_SETTLE_AND_NOTIFY = (  # a record settled, its ``answered`` event (where), its note notified
    f"WITH settled AS ({_QUERIES.resolve_question}),"
    f" event AS ({_append_event_of('settled')} RETURNING session_id, seq, body),"
    f" {_noted()} SELECT session_id, seq, (SELECT count(*) FROM ({_NOTIFY_NOTED}) AS sent)"
    " FROM noted"
)


def _told(notes: Iterable[ChangeNote]) -> Heard:
    """What a store's own commit of ``notes`` tells its feeds."""
    heard = Heard()
    for note in notes:
        heard.take(note)
    return heard


def _asker(record: QuestionRecord) -> Asker:
    """The ``asker`` of an ask's note."""
    return Asker(agent_id=record.agent_id, asked_at=record.asked_at, origin=record.origin)


@dataclass(frozen=True)
class _Prepared:
    """A statement each store connection prepares once (the server plans it once), run as
    ``EXECUTE`` in a string of statements (:meth:`PostgresStore._in_one_trip`)."""

    name: str
    sql: str

    @cached_property
    def prepare(self) -> str:
        numbered = iter(range(1, self.sql.count("%s") + 1))
        return f"PREPARE {self.name} AS " + re.sub("%s", lambda _: f"${next(numbered)}", self.sql)

    @cached_property
    def execute(self) -> str:
        return f"EXECUTE {self.name}({', '.join(['%s'] * self.sql.count('%s'))})"


_ONE_TRIP = {
    statement.name: statement
    for statement in (
        _Prepared("ipyask_lock_session", _LOCK_SESSION),
        _Prepared("ipyask_open_question", _OPEN_QUESTION),
        _Prepared("ipyask_lock_claimed_records", _LOCK_CLAIMED_RECORDS),
        _Prepared("ipyask_lock_claimed_sessions", _LOCK_CLAIMED_SESSIONS),
        _Prepared("ipyask_lock_claimed_record", _LOCK_CLAIMED_RECORD),
        _Prepared("ipyask_settle_and_notify", _SETTLE_AND_NOTIFY),
    )
}
"""The statements of the store's one-round-trip writes, by name."""

_MIGRATION_LOCK = 0x1BA5_0001  # an advisory lock key: one migrating process at a time

log = logging.getLogger("ipyask")

T = TypeVar("T")


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


CONNECTION_DEFAULTS: dict[str, str] = {
    "connect_timeout": "10",
    "keepalives": "1",
    "keepalives_idle": "30",
    "keepalives_interval": "10",
    "keepalives_count": "3",
    "tcp_user_timeout": "60000",
}
"""libpq parameters every store connection gets unless its conninfo sets them: a connection
attempt gives up after 10 s, and a dropped network is noticed within about a minute (TCP
keepalives, and a limit on unacknowledged data), instead of leaving a statement or the listening
connection waiting forever. They do nothing on a Unix socket."""


def connect(conninfo: str) -> psycopg.Connection[Any]:
    """An autocommit connection to ``conninfo``, with :data:`CONNECTION_DEFAULTS` it lacks."""
    pg = import_psycopg()
    given = pg.conninfo.conninfo_to_dict(conninfo)
    defaults = {key: value for key, value in CONNECTION_DEFAULTS.items() if key not in given}
    connection: psycopg.Connection[Any] = pg.connect(conninfo, autocommit=True, **defaults)
    return connection


SHOWN_POSTGRES = "postgresql: "
"""How a PostgreSQL store's ``location`` starts: its connection parameters (``key=value``, no
password) follow, which ``open_store`` takes back."""


def _safe_location(conninfo: str) -> str:
    psycopg = import_psycopg()
    try:
        parts = psycopg.conninfo.conninfo_to_dict(conninfo)
    except psycopg.ProgrammingError:
        return _URL_PASSWORD.sub(r"\1***@", conninfo)  # as given, without its password
    parts.pop("password", None)
    # Quoted where a value needs it, so that open_store reads it back.
    shown: str = psycopg.conninfo.make_conninfo("", **dict(sorted(parts.items())))
    return SHOWN_POSTGRES + shown


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

    ``conninfo`` is a libpq connection string or URL (``postgresql://user@host/db``). ``clock``
    times the listening connection's reconnects (a thread clock by default; tests pass a
    :class:`~ipyask._clock.ManualClock`).
    """

    QUERIES = _QUERIES

    def __init__(self, conninfo: str, *, clock: Clock | None = None) -> None:
        pg = import_psycopg()
        self._pg = pg
        self._jsonb = pg.types.json.Jsonb
        self._listener: ChangeListener | None = None
        self._clock: Clock = clock if clock is not None else ThreadClock()
        self._closed = False
        self.conninfo = conninfo
        self._location = _safe_location(conninfo)
        self._lock = threading.RLock()
        self._touched: set[str] = set()
        """The sessions the current write transaction changed."""
        self._locked: set[str] = set()
        """The sessions the current write transaction holds the lock of."""
        self._prepared_on: Any = None
        """The connection the statements of :data:`_ONE_TRIP` were prepared on."""
        try:
            self._db: psycopg.Connection[Any] = connect(conninfo)
        except pg.OperationalError as error:  # a server down or restarting: a fault that passes
            reason = _without_password(str(error), conninfo)
            raise StoreUnavailableError(self._location, "unreachable", reason) from error
        except pg.Error as error:  # a location that can never work as given
            reason = _without_password(str(error).strip(), conninfo)
            raise StoreOpenError(
                f"the ipyask store at {self._location} cannot be opened ({reason}): check the "
                f"PostgreSQL URL, or {ELSEWHERE}."
            ) from error
        self.own_backend = self._db.info.backend_pid
        """The server process of the store's connection: the listener drops the notifications
        of its commits, which the store hands to its feeds itself (:meth:`_tell_feeds`)."""
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

    def _lost(self) -> bool:
        return bool(self._db.closed or self._db.broken)

    def _attempt(self, operation: Callable[[], T]) -> T:
        # A lost connection rolled back whatever it held: the operation runs once more, whole,
        # on a new one. Only a COMMIT whose reply was lost is in doubt: a question's second run
        # finds it by its call id, a claim's reports it already-resolved with its own answer.
        with self._lock:
            if self._closed:
                raise StoreClosedError(self.location)
            if self._lost():
                self._reconnect()
            try:
                return operation()
            except self._pg.OperationalError as error:
                if not self._lost():
                    raise
                log.warning(
                    "ipyask: the store %s lost its connection (%s)",
                    self.location,
                    _without_password(str(error), self.conninfo),
                )
            self._reconnect()
            try:
                return operation()
            except self._pg.OperationalError as error:
                if not self._lost():
                    raise
                raise StoreUnavailableError(
                    self.location, "unreachable", _without_password(str(error), self.conninfo)
                ) from error

    def _reconnect(self) -> None:
        try:
            self._db = connect(self.conninfo)
            self.own_backend = self._db.info.backend_pid
        except self._pg.OperationalError as error:
            raise StoreUnavailableError(
                self.location, "unreachable", _without_password(str(error), self.conninfo)
            ) from error

    @contextmanager
    def _write(self) -> Iterator[psycopg.Connection[Any]]:
        # With a listener, the changed sessions are handed to it once the transaction commits:
        # it notifies for every commit that came meanwhile at once (see ChangeListener.notify).
        # Without one (a process that only writes) the transaction notifies itself.
        with self._lock:
            listener = self._listener if self._listener and not self._listener.broken else None
            with self._db.transaction():
                self._touched = set()
                self._locked = set()
                yield self._db
                if listener is None and self._touched:
                    self._db.execute(*notify_statement(self._touched))
            if listener is not None and self._touched:
                listener.notify(self._touched)

    def _append_body(self, db: psycopg.Connection[Any], session_id: str, body: Any) -> int:
        seq = super()._append_body(db, session_id, body)
        self._touched.add(session_id)  # notified once, at the end of the transaction
        return seq

    def _in_one_trip(self, statements: list[tuple[str, tuple[Any, ...]]]) -> list[list[Any]]:
        """Run ``statements`` (names of :data:`_ONE_TRIP` with their parameters) as one
        transaction in one round trip to the server; each one's rows.

        They go as one string of ``EXECUTE`` statements, their parameters bound by psycopg on
        this side, the statements prepared once per connection: the server runs a string of
        statements as one transaction (all of them or none), each seeing what the ones before
        it wrote and what others committed before it began. A pipeline of server-bound
        statements costs psycopg a wait per statement, and two round trips where a result
        decides the next statement."""
        db = self._db
        if self._prepared_on is not db:  # a new connection (the first, or after a fault)
            for statement in _ONE_TRIP.values():
                db.execute(statement.prepare)
            self._prepared_on = db
        cursor = self._pg.ClientCursor(db)
        try:
            cursor.execute(
                "; ".join(_ONE_TRIP[name].execute for name, _ in statements),
                [value for _, params in statements for value in params],
                prepare=False,
            )
        except BaseException:
            # It may have committed all the same (the connection was lost after): this
            # process's feeds, which do not hear the server's notifications of it, read.
            self._tell_feeds(Heard({ANY_SESSION}, bare=True))
            raise
        rows: list[list[Any]] = []
        while True:
            rows.append(cursor.fetchall() if cursor.description is not None else [])
            if not cursor.nextset():
                return rows

    def _insert_questions(
        self, records: list[QuestionRecord], turns: list[int | None]
    ) -> list[Position]:
        # One round trip for a group of asks: the sessions' locks (in one order), then one
        # statement per ask that checks its turn (once the lock is held, no turn can end
        # meanwhile), writes the record and its ``asked`` event, reads its session's last
        # position and notifies the ask's note. The transaction notifies itself, not through
        # the listening connection's thread: the inbox hears of the ask as it commits, without
        # that thread's wake-up and statement in between, and shows its card from the note.
        # An ask that wrote nothing (a repeat, or refused) notifies nothing.
        sessions = sorted({r.session_id for r in records})
        statements: list[tuple[str, tuple[Any, ...]]]
        statements = [("ipyask_lock_session", (session_id,)) for session_id in sessions]
        events = [asked_event(r) for r in records]
        askers = [_asker(r) for r in records]
        statements += [
            (
                "ipyask_open_question",
                (
                    turn,
                    r.session_id,
                    turn,
                    *self._question_row(r),
                    self._to_json(event),
                    self._to_json(asker.to_wire()),
                ),
            )
            for r, turn, event, asker in zip(records, turns, events, askers, strict=True)
        ]
        with self._lock:  # the feeds are told of the commits in their order
            rows = self._in_one_trip(statements)[len(sessions) :]
            positions: list[Position] = [
                OUTSIDE_TURN if ended else None if seq is None else int(seq)
                for ((ended, seq, _),) in rows
            ]
            written = zip(records, positions, events, askers, strict=True)
            self._tell_feeds(
                _told(
                    ChangeNote.model_construct(
                        session_id=r.session_id, seq=seq, event=event, asker=asker
                    )
                    for r, seq, event, asker in written
                    if isinstance(seq, int)
                )
            )
        return positions

    def _resolve_question(self, request_id: str, terminal: Terminal) -> ClaimResult:
        return self._resolve_questions([(request_id, terminal)])[0]

    def _resolve_questions(self, claims: list[tuple[str, Terminal]]) -> list[ClaimResult]:
        # One round trip whatever the batch's size: the open records' locks (by id), their
        # sessions' locks (by id; the order every claim takes them in; a single claim takes
        # its record's, then its session's, in one statement), then per record one
        # statement that settles it, appends its ``answered`` event and notifies its session.
        # The transaction notifies itself: the waiting agent wakes as the claim commits. A
        # record another claim settled first is read after, to report how it was settled.
        first = _first_claims(claims)
        order = sorted(first)
        statements: list[tuple[str, tuple[Any, ...]]] = (
            [("ipyask_lock_claimed_record", (order[0],))]
            if len(order) == 1
            else [
                ("ipyask_lock_claimed_records", (order,)),
                ("ipyask_lock_claimed_sessions", (order,)),
            ]
        )
        locks = len(statements)
        events = {request_id: answered_event(request_id, first[request_id]) for request_id in order}
        statements += [
            (
                "ipyask_settle_and_notify",
                (
                    *self._settle_params(request_id, first[request_id]),
                    self._to_json(events[request_id]),
                ),
            )
            for request_id in order
        ]
        notes: list[ChangeNote] = []
        with self._lock:
            settled = self._in_one_trip(statements)[locks:]
            results: dict[str, ClaimResult] = {}
            for request_id, written in zip(order, settled, strict=True):
                if written:
                    [(session_id, seq, _)] = written
                    results[request_id] = accepted(first[request_id])
                    event = events[request_id]
                    notes.append(
                        ChangeNote.model_construct(session_id=session_id, seq=seq, event=event)
                    )
                else:
                    found = self._select(self.QUERIES.by_id, (request_id,))
                    results[request_id] = claim_of(found[0] if found else None)
            self._tell_feeds(_told(notes))
        return self._in_claim_order(results, claims)

    def _tell_feeds(self, heard: Heard) -> None:
        """Hand this store's own asks and claims to its feeds: its listener drops the server's
        notifications of them (they would wake this process a second time, later)."""
        listener = self._listener
        if listener is not None:
            listener.deliver(heard)

    def _to_json(self, value: Any) -> Any:
        return self._jsonb(value)

    def _event_from(self, body: Any) -> dict[str, Any]:
        return dict(body)

    def _lock_session(self, db: psycopg.Connection[Any], session_id: str) -> None:
        if session_id in self._locked:  # held until the transaction ends: once is enough
            return
        db.execute(_LOCK_SESSION, (session_id,))
        self._locked.add(session_id)

    def changes(self, sessions: Callable[[], Collection[str]] | None = None) -> PostgresChangeFeed:
        with self._lock:
            if self._closed:
                raise StoreClosedError(self.location)
            if self._listener is None:
                self._listener = ChangeListener(
                    self.conninfo, self._clock, self.location, own=lambda: self.own_backend
                )
            return PostgresChangeFeed(self._listener, sessions)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            listener, self._listener = self._listener, None
            self._db.close()
        if listener is not None:
            listener.close()

    def __repr__(self) -> str:
        return f"<PostgresStore {self.location}>"


ANY_SESSION = ""
"""The payload of a notification that names no session (every feed wakes for it)."""


def _note_of(payload: str) -> ChangeNote | None:
    """The note a notification's payload carries, or ``None`` when it is a bare session id
    (every write but asks and claims, a note too long for a notification, an earlier ipyask)."""
    if not payload.startswith("{"):
        return None
    try:
        return ChangeNote.model_validate_json(payload)
    except ValueError:  # a session id that starts with a brace
        return None


@dataclass
class Heard:
    """What the notifications of one wake-up of a listener told."""

    sessions: set[str] = field(default_factory=set)
    """The sessions they name."""
    notes: list[ChangeNote] = field(default_factory=list)
    """The notes they carried, in commit order."""
    bare: bool = False
    """Whether some named a session and nothing more (what changed there is not told)."""

    def add(self, payload: str) -> None:
        """Take in a notification's payload: a note, or a bare session id."""
        note = _note_of(payload)
        if note is None:
            self.sessions.add(payload)
            self.bare = True
        else:
            self.take(note)

    def take(self, note: ChangeNote) -> None:
        self.sessions.add(note.session_id)
        self.notes.append(note)

    def __ior__(self, other: Heard) -> Heard:
        self.sessions |= other.sessions
        self.notes += other.notes
        self.bare = self.bare or other.bare
        return self


class ChangeListener:
    """One ``LISTEN`` connection of a store, shared by all its change feeds.

    A thread blocks on the connection's socket (and on a socket pair that wakes it), so an idle
    listener costs no CPU and no wake-ups; each batch of notifications is handed to every feed,
    which decides whether it concerns its waiter. One connection per store, opened with its
    first feed: opening one per wait cost a connection set-up on every question.

    It listens on :data:`CHANNEL` while some feed follows every session, else on the channels of
    the sessions its feeds follow (:func:`session_channel`), brought up to date by the thread
    when a feed opens or says its sessions changed (:meth:`listen_for_feeds`, which returns once
    the thread listens).

    A lost connection is opened again by the same thread, at backed-off delays on ``clock``; once
    it listens again every feed wakes (as for a change that names no session), so its waiter
    reads what it may have missed meanwhile.
    """

    SYNC_WAIT = 5.0
    """Longest wait for the thread to listen for new sessions (a slow server: the feeds' waiters
    read their sessions once a quiet second anyway)."""

    def __init__(
        self,
        conninfo: str,
        clock: Clock,
        location: str = "<postgresql>",
        own: Callable[[], int | None] = lambda: None,
    ) -> None:
        pg = import_psycopg()
        self._pg = pg
        self._own = own
        """The server process whose notes its store hands to the feeds itself."""
        self._error: type[Exception] = pg.Error
        self._conninfo = conninfo
        self._location = location
        self._backoff = Backoff()
        self._pause = Pause(clock)
        self.changed = threading.Condition()
        """Guards the feeds' pending sessions and wakes their waiters."""
        self.failure: Exception | None = None
        """Why the connection is down, while it is (the thread is opening it again)."""
        self.reconnects = 0
        """How many times the connection was opened again after a fault."""
        self.closed = False
        self.channels: set[str] = set()
        """The channels the connection listens on (read by the listener's thread)."""
        self.notifications = 0
        """How many notifications the connection received (each woke this process)."""
        self.own = 0
        """How many of them it dropped: notes of its own store's commits, which the store
        hands to the feeds itself."""
        self.sent = 0
        """How many notifying statements the connection sent (each for every commit handed
        to :meth:`notify` since the one before)."""
        self._outbox: set[str] = set()
        """Sessions changed by commits of this process, not yet notified."""
        self._feeds: set[PostgresChangeFeed] = set()
        self._requested = 0  # listen_for_feeds calls, and how many the thread has served
        self._served = 0
        self._db: psycopg.Connection[Any] | None = None
        try:
            self._db = connect(conninfo)
        except (self._error, OSError) as error:  # the thread keeps trying
            self.failure = error
        # A socket pair, not a pipe: selectors on Windows wait on sockets only.
        self._wake_read, self._wake_write = socket.socketpair()
        self._thread = threading.Thread(target=self._run, name="ipyask-listen", daemon=True)
        self._thread.start()

    @property
    def broken(self) -> bool:
        """Whether the connection is down now (the listener is opening it again)."""
        return self.failure is not None

    def subscribe(self, feed: PostgresChangeFeed) -> None:
        with self.changed:
            self._feeds.add(feed)
        self.listen_for_feeds()

    def unsubscribe(self, feed: PostgresChangeFeed) -> None:
        """Stop handing changes to ``feed``; the thread stops listening for what no feed
        follows any more (without waiting for it), so commits nobody here waits for no longer
        wake this process."""
        with self.changed:
            self._feeds.discard(feed)
            self.changed.notify_all()
            if self.closed or self._db is None:
                return
            self._requested += 1
        with contextlib.suppress(OSError):  # closed meanwhile: it listens for nothing
            self._wake_write.send(b"s")

    def notify(self, sessions: Collection[str]) -> None:
        """Notify ``sessions`` (changed by a commit of this process) from the listening
        connection's thread, together with every session handed on while it sends: a burst of
        commits costs the server one notifying transaction per batch, not one per commit (each
        wakes every listening connection of the database). Sent once the connection is back if
        it is down."""
        with self.changed:
            if self.closed:
                return
            waiting = bool(self._outbox)
            self._outbox.update(sessions)
        if not waiting:  # else the thread is woken already and sends these with the rest
            self._wake_write.send(b"n")

    def listen_for_feeds(self) -> None:
        """Have the thread listen on the channels the feeds follow now; returns once it does
        (at once while the connection is down: reopening it listens for them)."""
        if threading.current_thread() is self._thread:
            return
        with self.changed:
            if self.closed or self._db is None:
                return
            self._requested += 1
            ticket = self._requested
        self._wake_write.send(b"s")
        with self.changed:
            served = self.changed.wait_for(
                lambda: self._served >= ticket or self.closed or self._db is None,
                self.SYNC_WAIT,
            )
        if not served:
            log.warning("ipyask: the store %s did not listen for new sessions yet", self._location)

    def _wanted(self) -> set[str]:
        """The channels the feeds follow (their sessions are read outside the lock)."""
        with self.changed:
            feeds = list(self._feeds)
        sessions: set[str] = set()
        for feed in feeds:
            followed = feed.followed()
            if followed is None:
                return {CHANNEL}
            sessions.update(followed)
        if len(sessions) > MOST_SESSION_CHANNELS:
            return {CHANNEL}
        return {session_channel(session) for session in sessions}

    def _sync(self, db: psycopg.Connection[Any]) -> Heard:
        """Listen on what the feeds follow now; what was notified meanwhile."""
        with self.changed:
            ticket = self._requested
        wanted = self._wanted()
        received = self._run_statements(
            db,
            [(f'LISTEN "{channel}"', None) for channel in sorted(wanted - self.channels)]
            + [(f'UNLISTEN "{channel}"', None) for channel in sorted(self.channels - wanted)],
        )
        self.channels = wanted
        with self.changed:
            self._served = max(self._served, ticket)
            self.changed.notify_all()
        return received

    def _run_statements(
        self, db: psycopg.Connection[Any], statements: list[tuple[str, Any]]
    ) -> Heard:
        """Run ``statements``; what was notified meanwhile (psycopg hands a notification that
        arrives while a statement runs to the connection's handlers)."""
        received = Heard()

        def keep(notification: Any) -> None:
            self._heard(received, notification.pid, notification.payload)

        db.add_notify_handler(keep)
        try:
            for statement, params in statements:
                db.execute(statement, params)
        finally:
            db.remove_notify_handler(keep)
        return received

    def _send(self, db: psycopg.Connection[Any]) -> Heard:
        """Notify the sessions waiting in the outbox (put back if the connection fails); what
        was notified meanwhile."""
        with self.changed:
            sessions, self._outbox = self._outbox, set()
        if not sessions:
            return Heard()
        try:
            received = self._run_statements(db, [notify_statement(sessions)])
        except BaseException:
            with self.changed:
                self._outbox |= sessions  # sent once the connection is back
            raise
        self.sent += 1
        return received

    def _run(self) -> None:
        while not self.closed:
            db = self._db
            if db is None:
                db = self._reopen()
                if db is None:
                    return  # closed while waiting to retry
            try:
                self._listen(db)
                return  # woken by close
            except (self._error, OSError) as error:
                self._lost(db, error)

    def _lost(self, db: psycopg.Connection[Any], error: Exception) -> None:
        db.close()
        with self.changed:
            self._db = None
            self.channels = set()
            if self.closed:
                return
            self.failure = error
            self.changed.notify_all()  # a listen_for_feeds in progress returns
        log.warning(
            "ipyask: listening to the store %s lost its connection (%s); reconnecting",
            self._location,
            error,
        )

    def _reopen(self) -> psycopg.Connection[Any] | None:
        """A new listening connection, retried at backed-off delays; ``None`` once closed."""
        while self._pause.sleep(self._backoff.next_ms()):
            try:
                db = connect(self._conninfo)
                self._sync(db)
            except (self._error, OSError) as error:
                with self.changed:
                    self.failure = error
                    self.channels = set()
                continue
            with self.changed:
                if self.closed:
                    db.close()
                    return None
                self._db = db
                self.failure = None
                self.reconnects += 1
                for feed in self._feeds:  # what changed while it was down is not known
                    feed.heard(Heard({ANY_SESSION}, bare=True))
                self.changed.notify_all()
            self._backoff.reset()
            log.info("ipyask: listening to the store %s again", self._location)
            return db
        return None

    def _heard(self, heard: Heard, pid: int, payload: str, own: int | None = None) -> None:
        """Count a notification and add it to ``heard``, unless it is a note of the store's own
        commit (from ``own``, its connection's server process: the store told its feeds)."""
        self.notifications += 1
        if pid == (self._own() if own is None else own) and _note_of(payload) is not None:
            self.own += 1
        else:
            heard.add(payload)

    def deliver(self, heard: Heard) -> None:
        """Hand ``heard`` to every feed (from any thread)."""
        if heard.sessions:
            with self.changed:
                for feed in self._feeds:
                    feed.heard(heard)
                self.changed.notify_all()

    def _listen(self, db: psycopg.Connection[Any]) -> None:
        pgconn = db.pgconn
        encoding = db.info.encoding
        heard = self._sync(db)
        heard |= self._send(db)
        self.deliver(heard)
        with selectors.DefaultSelector() as selector:
            selector.register(pgconn.socket, selectors.EVENT_READ)
            selector.register(self._wake_read, selectors.EVENT_READ)
            while True:
                ready = selector.select()
                heard = Heard()
                if any(key.fileobj is self._wake_read for key, _ in ready):
                    self._wake_read.recv(4096)
                    if self.closed:
                        return
                    with self.changed:
                        syncing = self._requested > self._served
                    if syncing:
                        heard = self._sync(db)
                    heard |= self._send(db)
                pgconn.consume_input()
                own = self._own()
                while (notification := pgconn.notifies()) is not None:
                    payload = notification.extra.decode(encoding, "replace")
                    self._heard(heard, notification.be_pid, payload, own)
                self.deliver(heard)

    def close(self) -> None:
        """Stop listening and close the connection (idempotent, from any thread)."""
        with self.changed:
            if self.closed:
                return
            self.closed = True
            self.changed.notify_all()
        self._pause.wake()
        self._wake_write.send(b"x")
        if self._thread is not threading.current_thread():
            self._thread.join()
        with self.changed:
            db, self._db = self._db, None
        if db is not None:
            try:  # the last commits' notifications, if the thread had not sent them yet
                self._send(db)
            except (self._error, OSError) as error:
                log.warning(
                    "ipyask: the store %s could not notify its last changes (%s)",
                    self._location,
                    error,
                )
            db.close()
        self._wake_read.close()
        self._wake_write.close()


class PostgresChangeFeed:
    """A waiter on its store's :class:`ChangeListener`: wakes on the commit, idle costs nothing.

    With ``sessions``, it wakes only for changes to the sessions that callable returns when the
    change arrives (and for notifications that name no session); its listener listens for them
    when the feed opens and after each :meth:`sessions_changed`.
    """

    def __init__(
        self, listener: ChangeListener, sessions: Callable[[], Collection[str]] | None = None
    ) -> None:
        self._listener = listener
        self._sessions = sessions
        self._closed = False
        self.pending: set[str] = set()
        """Sessions changed since the last :meth:`wait` returned (filled by the listener)."""
        self._notes: list[ChangeNote] | None = []
        """The notes of those changes; ``None`` once a change came that no note told."""
        self.notes: Sequence[ChangeNote] | None = None
        """What the changes the last :meth:`wait` returned ``True`` for wrote, as their
        notifications told (to every session the listener hears of, in commit order), or
        ``None`` when some change was not told (read the store)."""
        self.sessions: frozenset[str] | None = None
        """The sessions of those changes, or ``None`` when some change did not say its session
        (a write of the store's own that failed to tell, a listener that reconnected)."""
        listener.subscribe(self)

    def followed(self) -> Collection[str] | None:
        """The sessions the feed follows now; ``None`` for every session."""
        if self._sessions is None:
            return None
        followed = self._sessions()  # outside the listener's lock: it takes its owner's locks
        return None if isinstance(followed, EverySession) else followed

    def sessions_changed(self) -> None:
        """The feed follows sessions it did not: listen for them before this returns."""
        self._listener.listen_for_feeds()

    def heard(self, heard: Heard) -> None:
        """Take in what the listener heard (it holds its lock)."""
        self.pending |= heard.sessions
        if heard.bare:
            self._notes = None
        elif self._notes is not None:
            self._notes += heard.notes

    def _concerns(self, changed: set[str]) -> bool:
        if ANY_SESSION in changed:
            return True
        followed = self.followed()
        return followed is None or any(session in followed for session in changed)

    @property
    def ended(self) -> bool:
        """Whether its store was closed (the listener with it): every wait returns ``False`` at
        once from then on, and no change will wake one."""
        return self._listener.closed

    def wait(self, timeout: float | None) -> bool:
        listener = self._listener
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            with listener.changed:
                listener.changed.wait_for(
                    lambda: self._closed or listener.closed or bool(self.pending), left
                )
                if self._closed or listener.closed:
                    return False
                changed, self.pending = self.pending, set()
                notes, self._notes = self._notes, []
            if not changed:
                return False  # the timeout passed
            if self._concerns(changed):
                self.notes = notes
                self.sessions = None if ANY_SESSION in changed else frozenset(changed)
                return True

    def close(self) -> None:
        """Stop waiting (from any thread); the listener stays open for the store's other feeds."""
        self._closed = True
        self._listener.unsubscribe(self)
