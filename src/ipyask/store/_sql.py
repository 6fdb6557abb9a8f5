"""``SQLStore``: the session-log and question methods the SQLite and PostgreSQL stores share.

Both stores keep the same tables and run the same statements; they differ in how a connection
is opened, how a write transaction begins and ends (and tells waiters), how JSON is stored and
which placeholder the driver takes. A subclass gives those; the statements are written once, with
``?`` placeholders, and rewritten for the driver by :func:`queries`.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal, TypeVar

from ._protocol import StoredEvent
from ._records import (
    ClaimResult,
    QuestionRecord,
    Terminal,
    accepted,
    answered_event,
    asked_event,
    claim_of,
)
from ._rows import QUESTION_COLUMNS, origin, record_from_row

__all__ = ["OUTSIDE_TURN", "Position", "Queries", "SQLStore", "queries"]

T = TypeVar("T")

OUTSIDE_TURN: Literal["outside-turn"] = "outside-turn"
"""The result of an ask :meth:`SQLStore.open_questions_at` refused: its session's turn ended
after the position its asker judged by."""

Position = int | None | Literal["outside-turn"]
"""What writing an ask did: the position of its ``asked`` event; ``None``: the session had a
record of the call already (nothing written); :data:`OUTSIDE_TURN`: refused."""


@dataclass(frozen=True)
class Queries:
    """Every statement of :class:`SQLStore`, in one driver's placeholder style."""

    insert_event: str = (  # the next position of the session's log, in the same statement
        "INSERT INTO ipyask_events (session_id, seq, body)"
        " SELECT ?, COALESCE(MAX(seq) + 1, 0), ? FROM ipyask_events WHERE session_id = ?"
        " RETURNING seq"
    )
    read_events: str = (
        "SELECT seq, body FROM ipyask_events WHERE session_id = ? AND seq > ? ORDER BY seq"
    )
    select_questions: str = f"SELECT {QUESTION_COLUMNS} FROM ipyask_questions WHERE "
    by_id: str = "id = ?"
    by_call: str = "session_id = ? AND call_id = ?"
    pending: str = "outcome IS NULL ORDER BY asked_at, id"
    pending_in_session: str = "outcome IS NULL AND session_id = ? ORDER BY asked_at, id"
    settled: str = "outcome IS NOT NULL ORDER BY resolved_at, id"
    insert_question: str = (
        "INSERT INTO ipyask_questions (id, session_id, agent_id, call_id, questions, asked_at,"
        " origin, assignee) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (session_id, call_id) DO NOTHING"
    )
    resolve_question: str = (
        "UPDATE ipyask_questions SET outcome = ?, answer = ?, error = ?, resolved_at = ?,"
        " answered_by = ? WHERE id = ? AND outcome IS NULL RETURNING session_id"
    )
    turn_ended_after: str = (  # whether the session's last turn event after a position ends it
        "SELECT COALESCE((SELECT {type} FROM ipyask_events WHERE session_id = ? AND seq > ?"
        " AND {type} IN ('turn/start', 'turn/end') ORDER BY seq DESC LIMIT 1), '') = 'turn/end'"
    )


def queries(placeholder: str, event_type: str) -> Queries:
    """The statements with ``placeholder`` (``?`` for sqlite3, ``%s`` for psycopg) and
    ``event_type``, the driver's expression of an event body's ``type``."""
    written = Queries()
    return Queries(
        **{
            f.name: getattr(written, f.name).replace("?", placeholder).replace("{type}", event_type)
            for f in fields(Queries)
        }
    )


def _first_claims(claims: list[tuple[str, Terminal]]) -> dict[str, Terminal]:
    """Each record a batch claims, with the terminal of its first claim."""
    first: dict[str, Terminal] = {}
    for request_id, terminal in claims:
        first.setdefault(request_id, terminal)
    return first


def _repeats(claims: list[tuple[str, Terminal]]) -> list[tuple[str, bool]]:
    """Each claim's record id, and whether an earlier claim of the batch named it."""
    seen: set[str] = set()
    marked = []
    for request_id, _ in claims:
        marked.append((request_id, request_id in seen))
        seen.add(request_id)
    return marked


class SQLStore(ABC):
    """A :class:`~ipyask.store.Store` over one SQL connection guarded by ``_lock``.

    Subclasses set ``_db`` and ``_lock`` and give :attr:`QUERIES`, :meth:`_write` (one write
    transaction that tells waiters when it commits), the JSON encoding of a column and of an
    event body, and :meth:`_lock_session`. Every public method runs through :meth:`_attempt`,
    where a subclass turns a fault of the store into :class:`StoreUnavailableError` (and may run
    the method again on a new connection).
    """

    QUERIES: ClassVar[Queries]
    _db: Any
    _lock: threading.RLock

    @property
    @abstractmethod
    def location(self) -> str: ...

    @abstractmethod
    def _write(self) -> AbstractContextManager[Any]:
        """One write transaction on the connection, held under ``_lock``; yields the connection."""

    @abstractmethod
    def _to_json(self, value: Any) -> Any:
        """A JSON value as the driver stores it in a JSON column."""

    @abstractmethod
    def _event_from(self, body: Any) -> dict[str, Any]:
        """An event body as read back from the database."""

    @abstractmethod
    def _lock_session(self, db: Any, session_id: str) -> None:
        """Serialise writes to one session across processes for the rest of the transaction."""

    def _attempt(self, operation: Callable[[], T]) -> T:
        """Run one public method's work (the whole of it: a retry repeats every statement)."""
        return operation()

    # -- session logs -------------------------------------------------------------------------
    def _append(self, db: Any, session_id: str, event: Mapping[str, Any]) -> int:
        return self._append_body(db, session_id, self._to_json(dict(event)))

    def _append_body(self, db: Any, session_id: str, body: Any) -> int:
        """Append an event already encoded for the driver; its position in the session."""
        self._lock_session(db, session_id)
        row = db.execute(self.QUERIES.insert_event, (session_id, body, session_id)).fetchone()
        return int(row[0])

    def append_event(self, session_id: str, event: Mapping[str, Any]) -> int:
        return self._attempt(lambda: self._append_event(session_id, event))

    def _append_event(self, session_id: str, event: Mapping[str, Any]) -> int:
        with self._write() as db:
            return self._append(db, session_id, event)

    def read_events(self, session_id: str, after: int = -1) -> list[StoredEvent]:
        return self._attempt(lambda: self._read_events(session_id, after))

    def _read_events(self, session_id: str, after: int) -> list[StoredEvent]:
        with self._lock:
            rows = self._db.execute(self.QUERIES.read_events, (session_id, after)).fetchall()
        return [(int(seq), self._event_from(body)) for seq, body in rows]

    # -- durable questions --------------------------------------------------------------------
    def _select(self, where: str, params: Sequence[Any]) -> list[QuestionRecord]:
        with self._lock:
            rows = self._db.execute(self.QUERIES.select_questions + where, params).fetchall()
        return [record_from_row(row) for row in rows]

    def open_question(
        self,
        session_id: str,
        call_id: str,
        questions: Sequence[Mapping[str, Any]],
        *,
        request_id: str,
        agent_id: str | None = None,
        assignee: str | None = None,
    ) -> tuple[QuestionRecord, bool]:
        record, seq = self.open_question_at(
            session_id,
            call_id,
            questions,
            request_id=request_id,
            agent_id=agent_id,
            assignee=assignee,
        )
        return record, seq is not None

    def open_question_at(
        self,
        session_id: str,
        call_id: str,
        questions: Sequence[Mapping[str, Any]],
        *,
        request_id: str,
        agent_id: str | None = None,
        assignee: str | None = None,
    ) -> tuple[QuestionRecord, int | None]:
        return self._attempt(
            lambda: self._open_question(
                session_id, call_id, questions, request_id, agent_id, assignee
            )
        )

    def _open_question(
        self,
        session_id: str,
        call_id: str,
        questions: Sequence[Mapping[str, Any]],
        request_id: str,
        agent_id: str | None,
        assignee: str | None,
    ) -> tuple[QuestionRecord, int | None]:
        record = QuestionRecord(
            id=request_id,
            call_id=call_id,
            questions=[dict(q) for q in questions],
            session_id=session_id,
            agent_id=agent_id,
            asked_at=time.time(),
            origin=origin(),
            assignee=assignee,
        )
        seq = self._insert_question(record)
        if seq is None:
            return self._asked_before(session_id, call_id), None
        return record, seq

    def _question_row(self, record: QuestionRecord) -> tuple[Any, ...]:
        """The parameters of ``insert_question`` for ``record``."""
        return (
            record.id,
            record.session_id,
            record.agent_id,
            record.call_id,
            self._to_json(record.questions),
            record.asked_at,
            record.origin,
            record.assignee,
        )

    def _insert_question(self, record: QuestionRecord) -> int | None:
        """Insert ``record`` and its ``asked`` event in one write transaction (as a group of
        one, turn unchecked); the event's position, or ``None`` when the session has a record of
        the call already (nothing is written then)."""
        position = self._insert_questions([record], [None])[0]
        assert position != OUTSIDE_TURN  # no turn was checked
        return position

    def open_questions_at(
        self, records: Sequence[QuestionRecord], turns: Sequence[int | None] | None = None
    ) -> list[Position]:
        """Write ``records`` (new asks, built by the caller) in one write transaction: each
        inserted with its ``asked`` event as :meth:`open_question_at` inserts one, in order;
        each one's :data:`Position`.

        ``turns`` (one per record) checks the turn as the transaction writes: a record is
        written only if no ``turn/end`` followed its turn position in its session's log (the
        last event its asker saw an open turn at), else it is :data:`OUTSIDE_TURN`; ``None``
        does not check. An asker whose log is current needs no read before its ask."""
        records = list(records)
        if not records:
            return []
        checked: list[int | None] = list(turns) if turns is not None else [None] * len(records)
        if len(checked) != len(records):
            raise ValueError("open_questions_at needs one turn position per record")
        return self._attempt(lambda: self._insert_questions(records, checked))

    def _insert_questions(
        self, records: list[QuestionRecord], turns: list[int | None]
    ) -> list[Position]:
        # Everything is encoded before the transaction begins: other writers wait for it only
        # while its statements run.
        rows = [(self._question_row(r), self._to_json(asked_event(r))) for r in records]
        positions: list[Position] = []
        with self._write() as db:
            for session_id in sorted({r.session_id for r in records}):  # one lock order
                self._lock_session(db, session_id)
            for record, turn, (row, body) in zip(records, turns, rows, strict=True):
                if turn is not None and self._turn_ended_after(db, record.session_id, turn):
                    positions.append(OUTSIDE_TURN)
                elif db.execute(self.QUERIES.insert_question, row).rowcount == 1:
                    positions.append(self._append_body(db, record.session_id, body))
                else:
                    positions.append(None)
        return positions

    def _turn_ended_after(self, db: Any, session_id: str, seq: int) -> bool:
        """Whether a ``turn/end`` is the last turn event of ``session_id`` after ``seq``."""
        row = db.execute(self.QUERIES.turn_ended_after, (session_id, seq)).fetchone()
        return bool(row[0])

    def _asked_before(self, session_id: str, call_id: str) -> QuestionRecord:
        """The record a call's earlier ask committed (records are never deleted)."""
        found = self._select(self.QUERIES.by_call, (session_id, call_id))
        if not found:
            raise RuntimeError(
                f"the store refused the question of call {call_id!r} of "
                f"session {session_id!r} but holds no record of it"
            )
        return found[0]

    def resolve_question(self, request_id: str, terminal: Terminal) -> ClaimResult:
        return self._attempt(lambda: self._resolve_question(request_id, terminal))

    def _resolve_question(self, request_id: str, terminal: Terminal) -> ClaimResult:
        with self._write() as db:
            return self._claim(db, request_id, terminal)

    def resolve_questions(self, claims: Sequence[tuple[str, Terminal]]) -> list[ClaimResult]:
        claims = list(claims)
        if not claims:
            return []
        return self._attempt(lambda: self._resolve_questions(claims))

    def _resolve_questions(self, claims: list[tuple[str, Terminal]]) -> list[ClaimResult]:
        # Every batch takes its locks in one order (the records by id, then the sessions by
        # id), so two batches claiming the same records at once wait for each other instead of
        # deadlocking; a single claim takes one record's lock, then its session's.
        first = _first_claims(claims)
        results: dict[str, ClaimResult] = {}
        with self._write() as db:
            settled: list[tuple[str, str, Terminal]] = []
            for request_id in sorted(first):
                terminal = first[request_id]
                session_id = self._settle(db, request_id, terminal)
                if session_id is None:
                    found = self._select(self.QUERIES.by_id, (request_id,))
                    results[request_id] = claim_of(found[0] if found else None)
                else:
                    settled.append((session_id, request_id, terminal))
                    results[request_id] = accepted(terminal)
            for session_id in sorted({session for session, _, _ in settled}):
                self._lock_session(db, session_id)
            for session_id, request_id, terminal in settled:
                self._append(db, session_id, answered_event(request_id, terminal))
        return self._in_claim_order(results, claims)

    def _in_claim_order(
        self, results: Mapping[str, ClaimResult], claims: list[tuple[str, Terminal]]
    ) -> list[ClaimResult]:
        """A batch's result per claim, in the claims' order (a repeat: ``already-resolved``)."""
        return [self._again(results[request_id], seen) for request_id, seen in _repeats(claims)]

    @staticmethod
    def _again(result: ClaimResult, repeated: bool) -> ClaimResult:
        """The result of a claim of a record an earlier claim of the same batch settled."""
        if not repeated or result.status != "accepted":
            return result
        return result.model_copy(update={"status": "already-resolved"})

    def _claim(self, db: Any, request_id: str, terminal: Terminal) -> ClaimResult:
        """Settle ``request_id`` inside the open write transaction, if it is open."""
        session_id = self._settle(db, request_id, terminal)
        if session_id is None:
            found = self._select(self.QUERIES.by_id, (request_id,))
            return claim_of(found[0] if found else None)
        self._append(db, session_id, answered_event(request_id, terminal))
        return accepted(terminal)

    def _settle(self, db: Any, request_id: str, terminal: Terminal) -> str | None:
        """Write ``terminal`` into the record if it is open; its session, else ``None``."""
        row = db.execute(
            self.QUERIES.resolve_question, self._settle_params(request_id, terminal)
        ).fetchone()
        return None if row is None else str(row[0])

    def _settle_params(self, request_id: str, terminal: Terminal) -> tuple[Any, ...]:
        """The parameters of ``resolve_question`` settling ``request_id`` with ``terminal``."""
        by = terminal.answered_by
        return (
            terminal.outcome,
            None if terminal.answer is None else self._to_json(terminal.answer),
            None if terminal.error is None else self._to_json(terminal.error.to_wire()),
            time.time(),
            None if by is None else self._to_json(by.to_wire()),
            request_id,
        )

    def question(self, request_id: str) -> QuestionRecord | None:
        found = self._attempt(lambda: self._select(self.QUERIES.by_id, (request_id,)))
        return found[0] if found else None

    def question_for_call(self, session_id: str, call_id: str) -> QuestionRecord | None:
        where = self.QUERIES.by_call
        found = self._attempt(lambda: self._select(where, (session_id, call_id)))
        return found[0] if found else None

    def settled_questions(self) -> list[QuestionRecord]:
        return self._attempt(lambda: self._select(self.QUERIES.settled, ()))

    def pending_questions(self, session_id: str | None = None) -> list[QuestionRecord]:
        if session_id is None:
            return self._attempt(lambda: self._select(self.QUERIES.pending, ()))
        where = self.QUERIES.pending_in_session
        return self._attempt(lambda: self._select(where, (session_id,)))
