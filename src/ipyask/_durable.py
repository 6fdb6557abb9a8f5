"""Durable asks: questions recorded in the agent's session, answerable after a restart.

A request with an agent and a ``callId`` and no ``wait`` is durable. Its question is recorded as a
``user-questions/asked`` event and settled by one ``user-questions/answered`` event; the records
are what those events say (:class:`LogBook` folds them from the session log) or, for a session
opened on a store, what the store's question table says (:class:`StoreBook`, which writes the
same events in the same transaction). Asking again with the same ``callId`` finds the record: a
settled one gives its outcome at once, an open one is waited on again.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from asyncio import wrap_future
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from pydantic import ValidationError

from ._abort import AbortSignal
from ._agents import Agent
from ._answer_checks import check_batch
from ._answered_by import AnsweredBy, Door, answered_by
from ._backoff import Backoff
from ._clock import Clock, ThreadClock, TimerHandle
from ._errors import UserQuestionError, restore_error
from ._events import (
    EVENT,
    QuestionAnsweredEvent,
    QuestionAskedEvent,
    SessionEvent,
)
from ._session import Session
from ._vocabulary import AskUserQuestionAnswer, AskUserQuestionItem, AskUserQuestionRequest
from ._waterfall import Waterfall
from .errors import NotAssigneeError
from .store import (
    ClaimResult,
    ErrorInfo,
    QuestionRecord,
    Store,
    StoreUnavailableError,
    Terminal,
)
from .store._follow import Subscription, follower_of
from .store._group_commit import TurnCheck, group_of, new_record
from .store._protocol import StoredEvent, is_store
from .store._records import ChangeNote, accepted, asked_event, claim_of

__all__ = [
    "BatchClaim",
    "DurableAsks",
    "LogBook",
    "QuestionBook",
    "StoreBook",
    "book_for",
    "records_of",
]

log = logging.getLogger("ipyask")

Target = Agent | Session | Store
"""Whose questions: an agent's (its session's), a session's, or a whole store's (the inbox)."""


@dataclass(frozen=True)
class BatchClaim:
    """One answer of :meth:`DurableAsks.respond_many`: what its claim did (``result``), or why
    it was refused (``error``: ``BAD_ANSWER``, ``NOT_ASSIGNEE``; the record stays open)."""

    id: str
    result: ClaimResult | None = None
    error: UserQuestionError | None = None


def _checked_answer(
    record: QuestionRecord | None, batch: AskUserQuestionAnswer, who: str | None, door: Door
) -> Terminal:
    """The settlement ``batch`` makes of ``record`` (``None``: not found; the store's claim then
    reports it), checked while the record is open: an answerer other than its assignee raises
    :class:`NotAssigneeError`, a batch that does not fit its questions ``BAD_ANSWER``."""
    by = answered_by(door, None if record is None else record.questions, who=who)
    if record is not None and record.terminal is None:
        check_assignee(record, by)
        questions = [AskUserQuestionItem.model_validate(q) for q in record.questions]
        check_batch(questions, batch, record.call_id)
    return Terminal(outcome="answered", answer=batch.to_wire(), answered_by=by)


def _in_turn(session: Session, read: bool = True) -> int:
    """Refuse (``OUTSIDE_TURN``) a durable ask while ``session`` has no open turn, as its log
    says (brought up to date from its store first if ``read``, or if it shows no open turn);
    the position of the log's last event it judged by (a :data:`TurnCheck`: the store writes
    the ask only if no turn ended after it)."""
    position = None if read else session.open_turn_at()
    if position is None:
        session.sync()
        position = session.open_turn_at()
    if position is None:
        raise UserQuestionError.of("OUTSIDE_TURN")
    return position


def records_of(session: Session) -> list[QuestionRecord]:
    """The durable question records the session's log holds, in ask order."""
    records: dict[str, QuestionRecord] = {}
    for event in session.events:
        if isinstance(event, QuestionAskedEvent):
            records[event.id] = QuestionRecord(
                id=event.id,
                call_id=event.call_id,
                questions=event.questions,
                session_id=session.id,
                assignee=event.assignee,
            )
        elif isinstance(event, QuestionAnsweredEvent) and event.id in records:
            terminal = _terminal_of(event)
            records[event.id] = records[event.id].model_copy(update={"terminal": terminal})
    return list(records.values())


class QuestionBook(Protocol):
    """Durable question records of one session (or of a whole store)."""

    def for_call(self, call_id: str) -> QuestionRecord | None: ...
    def open(
        self,
        call_id: str,
        questions: list[dict[str, Any]],
        agent_id: str | None,
        assignee: str | None = None,
    ) -> QuestionRecord: ...
    def get(self, request_id: str) -> QuestionRecord | None: ...
    def resolve(self, request_id: str, terminal: Terminal) -> ClaimResult: ...
    def resolve_many(self, claims: list[tuple[str, Terminal]]) -> list[ClaimResult]: ...
    def pending(self) -> list[QuestionRecord]: ...


class LogBook:
    """Records folded from an in-memory session log; ``lock`` makes each claim atomic."""

    def __init__(self, session: Session, lock: threading.RLock) -> None:
        self.session = session
        self._lock = lock

    def for_call(self, call_id: str) -> QuestionRecord | None:
        return next((r for r in records_of(self.session) if r.call_id == call_id), None)

    def open(
        self,
        call_id: str,
        questions: list[dict[str, Any]],
        agent_id: str | None,
        assignee: str | None = None,
    ) -> QuestionRecord:
        with self._lock:
            found = self.for_call(call_id)
            if found is not None:
                return found
            event = QuestionAskedEvent(
                id=str(uuid.uuid4()), call_id=call_id, questions=questions, assignee=assignee
            )
            self.session.append(event)
            return QuestionRecord(
                id=event.id,
                call_id=call_id,
                questions=event.questions,
                session_id=self.session.id,
                assignee=assignee,
            )

    def get(self, request_id: str) -> QuestionRecord | None:
        return next((r for r in records_of(self.session) if r.id == request_id), None)

    def resolve(self, request_id: str, terminal: Terminal) -> ClaimResult:
        with self._lock:
            record = self.get(request_id)
            if record is None or record.terminal is not None:
                return claim_of(record)
            self.session.append(
                QuestionAnsweredEvent.model_validate({"id": request_id, **terminal.to_wire()})
            )
            return accepted(terminal)

    def resolve_many(self, claims: list[tuple[str, Terminal]]) -> list[ClaimResult]:
        with self._lock:
            return [self.resolve(request_id, terminal) for request_id, terminal in claims]

    def pending(self) -> list[QuestionRecord]:
        return [record for record in records_of(self.session) if record.terminal is None]


class StoreBook:
    """Records in a store: of one session, or of every session when ``session`` is ``None``."""

    def __init__(self, store: Store, session: Session | None = None) -> None:
        self.store = store
        self.session = session

    def _session(self) -> Session:
        if self.session is None:
            raise TypeError("asking needs a session, not a whole store")
        return self.session

    def for_call(self, call_id: str) -> QuestionRecord | None:
        return self.store.question_for_call(self._session().id, call_id)

    def open(
        self,
        call_id: str,
        questions: list[dict[str, Any]],
        agent_id: str | None,
        assignee: str | None = None,
    ) -> QuestionRecord:
        session = self._session()
        record, seq = self.store.open_question_at(
            session.id,
            call_id,
            questions,
            request_id=str(uuid.uuid4()),
            agent_id=agent_id,
            assignee=assignee,
        )
        return self._taken_in(session, record, seq)

    async def open_together(
        self,
        call_id: str,
        questions: list[dict[str, Any]],
        agent_id: str | None,
        assignee: str | None = None,
        *,
        check: TurnCheck | None = None,
    ) -> tuple[QuestionRecord, int | None]:
        """As :meth:`open`, written together with this process's other asks on the store that
        are in flight (:mod:`ipyask.store._group_commit`); also the position of the ``asked``
        event it wrote (``None``: the call had a record already). Returns once the record is
        committed. ``check`` runs before the write and may refuse it (see
        :meth:`~ipyask.store._group_commit.AskGroup.submit`)."""
        session = self._session()
        group = group_of(self.store)
        record = new_record(
            session.id,
            call_id,
            questions,
            request_id=str(uuid.uuid4()),
            agent_id=agent_id,
            assignee=assignee,
        )
        done, lead = group.submit(record, check)
        if lead:
            try:
                await asyncio.sleep(0)  # the asks started with this one (a gather) join it
            finally:
                group.drain()  # even when cancelled: the asks queued behind it wait for it
        # Shielded: a cancelled asker must not cancel the result the leader sets.
        record, seq = done.result() if done.done() else await asyncio.shield(wrap_future(done))
        if seq is None:  # asked before: the log takes what its call wrote since (the check,
            try:  # which judged by the log as it was, read nothing)
                session.sync()
            except StoreUnavailableError:  # the store watch syncs it once the store is back
                log.info("ipyask: the session %s syncs when its store is back", session.id)
        return self._taken_in(session, record, seq), seq

    @staticmethod
    def _taken_in(session: Session, record: QuestionRecord, seq: int | None) -> QuestionRecord:
        if seq is None:  # recorded before: nothing written now
            return record
        try:  # the log takes the event this wrote, without reading it back
            session.written(seq, EVENT.validate_python(asked_event(record)))
        except StoreUnavailableError:  # recorded: the store watch syncs it once the store is back
            log.info("ipyask: the session %s syncs when its store is back", session.id)
        return record

    def get(self, request_id: str) -> QuestionRecord | None:
        record = self.store.question(request_id)
        if record is None or (self.session is not None and record.session_id != self.session.id):
            return None
        return record

    def resolve(self, request_id: str, terminal: Terminal) -> ClaimResult:
        # A whole store's claim needs no read first: the store's claim finds the record.
        if self.session is not None and self.get(request_id) is None:
            return ClaimResult(status="not-pending")
        result = self.store.resolve_question(request_id, terminal)
        if self.session is not None:
            self.session.sync()
        return result

    def resolve_many(self, claims: list[tuple[str, Terminal]]) -> list[ClaimResult]:
        """Every claim in one transaction (the caller checked that each record is this book's)."""
        results = self.store.resolve_questions(claims)
        if self.session is not None:
            self.session.sync()
        return results

    def pending(self) -> list[QuestionRecord]:
        return self.store.pending_questions(None if self.session is None else self.session.id)


def book_for(target: Target, lock: threading.RLock) -> QuestionBook:
    """The records of ``target``: an agent's session, a session, or a whole store."""
    if isinstance(target, Agent):
        target = target.session
    if isinstance(target, Session):
        if target.store is not None:
            return StoreBook(target.store, target)
        return LogBook(target, lock)
    if is_store(target):
        return StoreBook(target)
    raise TypeError(f"expected an Agent, a Session or a Store, not {type(target).__name__}")


def _terminal_error(terminal: Terminal) -> UserQuestionError:
    stored = terminal.error
    if stored is not None:
        return UserQuestionError(stored.message, stored.code)
    return UserQuestionError.of(
        "ASK_CANCELLED" if terminal.outcome == "cancelled" else "NO_PROVIDER"
    )


def _failed(outcome: str, error: UserQuestionError, by: AnsweredBy | None = None) -> Terminal:
    info = ErrorInfo(name=error.name, code=error.code, message=error.message)
    return Terminal.model_validate({"outcome": outcome, "error": info, "answered_by": by})


def _terminal_of(event: QuestionAnsweredEvent) -> Terminal:
    """The settlement an ``answered`` event records."""
    error = event.error
    return Terminal(
        outcome=event.outcome,
        answer=event.answer,
        error=None if error is None else ErrorInfo.model_validate(error.to_wire()),
        answered_by=event.answered_by,
    )


def check_assignee(record: QuestionRecord, by: AnsweredBy) -> None:
    """Refuse (:class:`NotAssigneeError`) a claim by anyone but the record's assignee."""
    if record.assignee is not None and by.who != record.assignee:
        raise NotAssigneeError(record.id, record.assignee, by.name)


def _settled(record: QuestionRecord) -> AskUserQuestionAnswer:
    """The recorded answer of a settled record, or its error raised."""
    terminal = record.terminal
    assert terminal is not None
    if terminal.outcome == "answered" and terminal.answer is not None:
        return AskUserQuestionAnswer.model_validate(terminal.answer)
    raise _terminal_error(terminal)


class _Waiter:
    """The askers of one open record, on one event loop, and the dispatch answering it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, session: Session) -> None:
        self.loop = loop
        self.session = session
        self.future: asyncio.Future[AskUserQuestionAnswer] = loop.create_future()
        self.future.add_done_callback(_consume)
        self.dispatch: asyncio.Future[None] | None = None
        self.forget_signal: Callable[[], None] | None = None

    def settle(self, terminal: Terminal) -> None:
        """Settle the askers with ``terminal`` (from any thread)."""
        self.loop.call_soon_threadsafe(self._settle_on_loop, terminal, None)

    def fail(self, error: BaseException) -> None:
        """End the askers with ``error`` without settling the record (from any thread)."""
        self.loop.call_soon_threadsafe(self._settle_on_loop, None, error)

    def _settle_on_loop(self, terminal: Terminal | None, error: BaseException | None) -> None:
        if self.future.done():
            return
        if terminal is not None and terminal.outcome == "answered" and terminal.answer is not None:
            self.future.set_result(AskUserQuestionAnswer.model_validate(terminal.answer))
        else:
            self.future.set_exception(error or _terminal_error(terminal))  # type: ignore[arg-type]
        if self.dispatch is not None:
            self.dispatch.cancel()  # the question is settled: its cards go
        if self.forget_signal is not None:
            self.forget_signal()


class DurableAsks:
    """The durable asks of one service: records, the askers waiting on them, store watches."""

    def __init__(
        self, waterfall: Waterfall, lock: threading.RLock, clock: Clock | None = None
    ) -> None:
        self._waterfall = waterfall
        self._lock = lock
        self._clock: Clock = clock if clock is not None else ThreadClock()  # store watches
        self._waiters: dict[str, _Waiter] = {}
        self._watches: dict[int, _StoreWatch] = {}
        self._attributions: dict[str, AnsweredBy] = {}

    def book(self, target: Target) -> QuestionBook:
        return book_for(target, self._lock)

    # -- asking -------------------------------------------------------------------------------
    async def ask(self, agent: Agent, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """The durable branch of ``ask`` (the request is already validated)."""
        session = agent.session
        call_id = request.durable_call_id
        assert call_id is not None
        # ``open`` finds the call's record when there is one (in the store: in the same
        # transaction), so asking does not read it first.
        questions = [item.to_wire() for item in request.questions]
        book = self.book(session)
        seq: int | None = None
        if isinstance(book, StoreBook):  # a process's concurrent asks share a transaction
            record, seq = await book.open_together(
                call_id, questions, agent.id, request.assignee, check=partial(_in_turn, session)
            )
        else:
            _in_turn(session)
            record = book.open(call_id, questions, agent.id, request.assignee)
        if record.terminal is not None:
            return _settled(record)
        with self._lock:
            waiter = self._waiters.get(record.id)
            if waiter is None:
                waiter = self._waiters[record.id] = _Waiter(asyncio.get_running_loop(), session)
                start = True
            else:
                start = False
        if start:
            self._start(waiter, agent, request, record, seq)
        return await asyncio.shield(waiter.future)

    def _start(
        self,
        waiter: _Waiter,
        agent: Agent,
        request: AskUserQuestionRequest,
        record: QuestionRecord,
        seq: int | None = None,
    ) -> None:
        """Start answering ``record`` (its ``asked`` event at ``seq`` in the session, if this
        ask wrote it)."""
        request_id = record.id
        waiter.future.add_done_callback(lambda _: self._forget(request_id))
        forwarded = request.model_copy(
            update={
                "questions": [AskUserQuestionItem.model_validate(q) for q in record.questions],
                "request_id": request_id,
                "agent": agent,
            }
        )
        store = agent.session.store
        last: Callable[[], Awaitable[AskUserQuestionAnswer]]
        if store is not None:
            # On a store the shared inbox is the last answerer: a question no answerer here
            # claims waits there for any process connected to the store.
            last = _wait_in_inbox
            if not self._watch(store).add(waiter, seq):
                self._settle_if_answered(store, waiter, request_id)
        else:
            last = _no_answerer
        waiter.dispatch = asyncio.ensure_future(
            self._answer(agent, request_id, forwarded, request.signal, last)
        )
        signal = request.signal
        if signal is not None:

            def abort() -> None:
                cause = signal.reason
                self.reject(
                    agent,
                    request_id,
                    "cancelled",
                    UserQuestionError.of(
                        "ASK_ABORTED", cause=cause if isinstance(cause, BaseException) else None
                    ),
                )

            waiter.forget_signal = signal.add_listener(abort)
            if signal.aborted:
                abort()

    @staticmethod
    def _settle_if_answered(store: Store, waiter: _Waiter, request_id: str) -> None:
        """Settle ``waiter`` if its record is answered: an answer committed before the watch
        started following the session is in the store. A store unreachable now (the question
        is recorded) leaves it to the watch, which reads the session again once it is back."""
        try:
            current = store.question(request_id)
        except StoreUnavailableError as error:
            log.warning("ipyask: durable question %s waits for the store: %s", request_id, error)
        else:
            if current is not None and current.terminal is not None:
                waiter.settle(current.terminal)

    async def _answer(
        self,
        agent: Agent,
        request_id: str,
        request: AskUserQuestionRequest,
        signal: AbortSignal | None,
        last: Callable[[], Awaitable[AskUserQuestionAnswer]],
    ) -> None:
        try:
            answer = await self._waterfall.dispatch(request, agent, last)
        except asyncio.CancelledError:
            return
        except Exception as failure:
            error = restore_error(failure)
            code = error.code if isinstance(error, UserQuestionError) else None
            if (signal is not None and signal.aborted) or code == "ASK_ABORTED":
                self.reject(
                    agent,
                    request_id,
                    "cancelled",
                    UserQuestionError.of("ASK_ABORTED", cause=failure),
                )
            elif code == "ASK_CANCELLED" and isinstance(error, UserQuestionError):
                self.reject(agent, request_id, "cancelled", error)
            elif code == "NO_PROVIDER" and isinstance(error, UserQuestionError):
                self.reject(agent, request_id, "unavailable", error)
            else:
                # A transport failure: the record stays open for a reconnecting answerer.
                log.info("ipyask: durable question %s stays pending after %r", request_id, failure)
            self._take_attribution(request_id)
            return
        # What the waterfall's answerers give is settled as given, as a non-durable ask's is;
        # an answerer that did not say who answered is code answering through the API.
        by = self._take_attribution(request_id) or answered_by("api", _wire(request))
        self._answered(agent, request_id, answer, by)

    # -- claims -------------------------------------------------------------------------------
    def respond(
        self,
        target: Target,
        request_id: str,
        answer: AskUserQuestionAnswer | Mapping[str, Any],
        *,
        who: str | None = None,
        door: Door = "api",
        known: QuestionRecord | None = None,
    ) -> ClaimResult:
        """Claim the open record ``request_id`` with ``answer``, checked as ``answer()`` checks a
        late reply: a batch that does not fit the record's questions raises ``BAD_ANSWER``, and
        an answerer other than its assignee :class:`NotAssigneeError`; the record then stays
        open. ``who`` (default: the environment's identity) answers through ``door``.

        ``known`` is the open record as the caller read it from the store (an inbox card's):
        the claim then writes without reading the record again (the store's claim still
        refuses a record settled meanwhile)."""
        batch = (
            answer
            if isinstance(answer, AskUserQuestionAnswer)
            else AskUserQuestionAnswer.model_validate(answer)
        )
        record = known if known is not None else self.book(target).get(request_id)
        return self._claim(target, request_id, _checked_answer(record, batch, who, door))

    def respond_many(
        self,
        target: Target,
        answers: Sequence[tuple[str, AskUserQuestionAnswer | Mapping[str, Any]]],
        *,
        who: str | None = None,
        door: Door = "api",
    ) -> list[BatchClaim]:
        """Claim several records at once: each answer checked as :meth:`respond` checks it (a
        refused one is reported with its error, its record left open), the others claimed in
        one transaction of the store; a result per answer, in order."""
        book = self.book(target)
        claims: list[BatchClaim] = []
        ready: list[tuple[int, str, Terminal]] = []
        for request_id, answer in answers:
            try:
                terminal = self._checked(book, request_id, answer, who, door)
            except UserQuestionError as error:
                claims.append(BatchClaim(request_id, error=error))
                continue
            if terminal is None:
                claims.append(BatchClaim(request_id, ClaimResult(status="not-pending")))
                continue
            ready.append((len(claims), request_id, terminal))
            claims.append(BatchClaim(request_id))
        with self._lock:  # as in _claim: local askers are settled before a store watch sees it
            results = book.resolve_many([(request_id, t) for _, request_id, t in ready])
            for (index, request_id, terminal), result in zip(ready, results, strict=True):
                claims[index] = BatchClaim(request_id, result)
                waiter = self._waiters.get(request_id) if result.status == "accepted" else None
                if waiter is not None:
                    waiter.settle(terminal)
        return claims

    def _checked(
        self,
        book: QuestionBook,
        request_id: str,
        answer: AskUserQuestionAnswer | Mapping[str, Any],
        who: str | None,
        door: Door,
    ) -> Terminal | None:
        """The settlement ``answer`` makes of ``request_id`` as :meth:`respond` checks it
        (raises ``BAD_ANSWER`` or :class:`NotAssigneeError`); ``None`` for a record
        ``book`` does not hold."""
        try:
            batch = (
                answer
                if isinstance(answer, AskUserQuestionAnswer)
                else AskUserQuestionAnswer.model_validate(answer)
            )
        except ValidationError as error:
            message = f"the answer to {request_id} is not an answer batch: {error}"
            raise UserQuestionError(message, "BAD_ANSWER") from error
        record = book.get(request_id)
        return None if record is None else _checked_answer(record, batch, who, door)

    def attribute(self, request_id: str, by: AnsweredBy) -> None:
        """Say who answers the durable question ``request_id`` through the waterfall (a panel
        calls this before it hands the person's answer on); kept until that answer settles."""
        with self._lock:
            self._attributions[request_id] = by

    def _take_attribution(self, request_id: str) -> AnsweredBy | None:
        with self._lock:
            return self._attributions.pop(request_id, None)

    def _answered(
        self, target: Target, request_id: str, batch: AskUserQuestionAnswer, by: AnsweredBy
    ) -> ClaimResult:
        terminal = Terminal(outcome="answered", answer=batch.to_wire(), answered_by=by)
        return self._claim(target, request_id, terminal)

    def reject(
        self,
        target: Target,
        request_id: str,
        outcome: str,
        error: UserQuestionError,
        *,
        who: str | None = None,
        door: Door = "api",
    ) -> ClaimResult:
        """Settle ``request_id`` as ``outcome`` with ``error`` (who ends it, through ``door``)."""
        record = self.book(target).get(request_id)
        by = answered_by(door, None if record is None else record.questions, who=who)
        return self._claim(target, request_id, _failed(outcome, error, by), error)

    def _claim(
        self,
        target: Target,
        request_id: str,
        terminal: Terminal,
        error: UserQuestionError | None = None,
    ) -> ClaimResult:
        # Under the lock, so that a store watch that sees the new event settles the askers
        # only after this claim has (with its own error, cause included).
        with self._lock:
            result = self.book(target).resolve(request_id, terminal)
            waiter = self._waiters.get(request_id) if result.status == "accepted" else None
            if waiter is not None:
                if error is not None:
                    waiter.fail(error)
                else:
                    waiter.settle(terminal)
        return result

    def pending(self, target: Target) -> list[QuestionRecord]:
        return self.book(target).pending()

    # -- bookkeeping --------------------------------------------------------------------------
    def _forget(self, request_id: str) -> None:
        with self._lock:
            waiter = self._waiters.pop(request_id, None)
            self._attributions.pop(request_id, None)  # settled elsewhere before its answerer
        store = waiter.session.store if waiter is not None else None
        if waiter is not None and store is not None:
            watch = self._watches.get(id(store))
            if watch is not None:
                watch.remove(waiter)

    def _watch(self, store: Store) -> _StoreWatch:
        with self._lock:
            watch = self._watches.get(id(store))
            if watch is None:
                watch = _StoreWatch(store, self.settle_from, self._clock, self._unwatch)
                self._watches[id(store)] = watch
            return watch

    def _unwatch(self, watch: _StoreWatch) -> None:
        """Forget ``watch`` (stopped: its store was closed)."""
        with self._lock:
            if self._watches.get(id(watch.store)) is watch:
                del self._watches[id(watch.store)]

    def settle_from(self, events: tuple[SessionEvent, ...]) -> None:
        """Settle the askers of records that ``events`` (new in a session's log) settle."""
        for event in events:
            if isinstance(event, QuestionAnsweredEvent):
                with self._lock:
                    waiter = self._waiters.get(event.id)
                if waiter is not None:
                    waiter.settle(_terminal_of(event))

    def close(self) -> None:
        """End every waiting asker with ``ASK_ABORTED``; their records stay open."""
        with self._lock:
            waiters = list(self._waiters.values())
            watches = list(self._watches.values())
            self._watches.clear()
        for waiter in waiters:
            waiter.fail(UserQuestionError.of("ASK_ABORTED"))
        for watch in watches:
            watch.stop()


class _StoreWatch:
    """While askers wait on a store, reads their sessions' new events as the store changes.

    It subscribes to the store's one :class:`~ipyask.store._follow.StoreFollower` of this process
    (shared with the inbox): at each change, and after each quiet second, it brings each waiting
    session up to date and hands the events it had not yet read to ``on_events`` (whoever brought
    them in). A store that cannot be reached (:class:`StoreUnavailableError`) is read again at
    backed-off delays on ``clock``, for as long as askers wait: what was committed meanwhile is
    in the sessions it reads then.

    A session whose last asker got its answer is followed a moment longer (:attr:`KEEP_MS` on
    ``clock``): an agent asking one question after another finds its session followed and read
    up to its new question, so the ask needs no read of its record and no new subscription.
    """

    KEEP_MS = 1000.0
    """How long a session stays followed after its last asker stopped waiting."""

    def __init__(
        self,
        store: Store,
        on_events: Callable[[tuple[SessionEvent, ...]], None],
        clock: Clock | None = None,
        on_end: Callable[[_StoreWatch], None] | None = None,
    ) -> None:
        self.store = store
        self._on_events = on_events
        self._on_end = on_end
        self._backoff = Backoff()
        self._clock: Clock = clock if clock is not None else ThreadClock()
        self.outages = 0
        """How many times the store could not be read (each retried after a backed-off pause)."""
        self._lock = threading.Lock()
        self._reading = threading.Lock()  # one read at a time: the follower's or a retry's
        self._waiters: set[_Waiter] = set()
        self._read: dict[int, int] = {}
        self._kept: dict[int, tuple[Session, float]] = {}
        """Sessions no asker waits in, followed until a time on the clock (ms)."""
        self._subscription = Subscription(
            self._changed,
            self._sessions,
            also_when_idle=True,
            on_notes=self._noted,
            on_end=self._ended,
        )
        self._unsubscribe: Callable[[], None] | None = None
        self._retry: TimerHandle | None = None
        self._subscribing = False
        self._stopped = False

    def add(self, waiter: _Waiter, seq: int | None = None) -> bool:
        """Follow ``waiter``'s session; whether the watch followed it already and will hand on
        every event after the waiter's ``asked`` event (at ``seq``) from now on: its feed is
        open and listening for the session, and it has handed on no event after that one yet
        (an ask written together with others may be committed before its waiter exists, and
        the watch may have read the session meanwhile). Then the caller need not look for an
        answer itself."""
        key = id(waiter.session)
        with self._lock:
            handed = self._read.get(key)
            followed = (
                self._unsubscribe is not None
                and seq is not None
                and handed is not None
                and handed <= seq + 1
                and (key in self._kept or any(w.session is waiter.session for w in self._waiters))
            )
            self._kept.pop(key, None)
            self._waiters.add(waiter)
            self._read.setdefault(key, len(waiter.session.events))
            first = self._unsubscribe is None and not self._stopped and not self._subscribing
            self._subscribing = self._subscribing or first
        if followed:
            return True
        follower = follower_of(self.store)
        if not first:  # a PostgreSQL feed listens for the asker's session before this returns
            follower.sessions_changed()
            return False
        # Outside the lock (the feed reads the sessions): its feed is open, listening for the
        # asker's session, when this returns, so no change committed after it is missed.
        unsubscribe = follower.subscribe(self._subscription)
        with self._lock:
            self._subscribing = False
            stopped = self._stopped or not (self._waiters or self._kept)
            if not stopped:
                self._unsubscribe = unsubscribe
        if stopped:
            unsubscribe()
        return False

    def _followed(self) -> dict[int, Session]:
        """The sessions the askers wait in, and those kept (hold ``_lock``)."""
        followed = {id(w.session): w.session for w in self._waiters}
        followed.update((key, session) for key, (session, _) in self._kept.items())
        return followed

    def _sessions(self) -> set[str]:
        """The ids of the sessions followed (their changes wake the watch)."""
        with self._lock:
            return {session.id for session in self._followed().values()}

    def remove(self, waiter: _Waiter) -> None:
        with self._lock:
            self._waiters.discard(waiter)
            key = id(waiter.session)
            if not any(w.session is waiter.session for w in self._waiters):
                self._kept[key] = (waiter.session, self._clock.now_ms() + self.KEEP_MS)

    def _release(self) -> None:
        """Stop following the kept sessions whose time is up, and the store once the watch
        follows nothing."""
        now = self._clock.now_ms()
        with self._lock:
            for key, (_, until) in list(self._kept.items()):
                if until <= now:
                    del self._kept[key]
                    self._read.pop(key, None)
            idle = not self._waiters and not self._kept and not self._subscribing
            unsubscribe = self._unsubscribe if idle else None
            if unsubscribe is not None:
                self._unsubscribe = None
        if unsubscribe is not None:
            unsubscribe()

    def _changed(self, written: Mapping[str, list[StoredEvent]] | None = None) -> None:
        """The store changed (or a quiet second passed): bring the sessions up to date (from
        what its notes say was ``written``, if given), unless a retry after a fault is due (it
        reads them then)."""
        self._release()
        with self._lock:
            if self._retry is not None:
                return
        self._read_now(written)

    def _noted(self, notes: Sequence[ChangeNote]) -> None:
        """The store changed and its notes tell what was written: the sessions take their
        new events from them, and only one they leave a gap in is read."""
        written: dict[str, list[StoredEvent]] = {}
        for note in notes:
            written.setdefault(note.session_id, []).append((note.seq, note.event))
        self._changed(written)

    def _read_now(self, written: Mapping[str, list[StoredEvent]] | None = None) -> None:
        """Bring the followed sessions up to date and hand on their new events: from the
        store, or from what its notes say was ``written`` (by session id; a session they do
        not name did not change)."""
        with self._reading:
            with self._lock:
                sessions = self._followed()
                if self._stopped or not sessions:
                    return
            try:
                self._read_sessions(sessions, written)
            except StoreUnavailableError as error:
                self._wait_out(error)
                return
            self._backoff.reset()

    def _read_sessions(
        self,
        sessions: Mapping[int, Session],
        written: Mapping[str, list[StoredEvent]] | None,
    ) -> None:
        for key, session in sessions.items():
            if written is None:
                session.sync()
            elif session.id in written and not session.noted(written[session.id]):
                session.sync()  # the notes skipped events: read them
            events = session.events
            with self._lock:
                start = self._read.get(key, len(events))
                self._read[key] = len(events)
            self._on_events(events[start:])

    def _wait_out(self, error: StoreUnavailableError) -> None:
        """Read the store again after a backed-off pause on the clock."""
        self.outages += 1
        delay = self._backoff.next_ms()
        # One warning an outage; its retries at debug level.
        level = logging.WARNING if delay == self._backoff.first_ms else logging.DEBUG
        log.log(
            level,
            "ipyask: watching the store %s: %s (retrying in %.1f s)",
            self.store.location,
            error,
            delay / 1000,
        )
        with self._lock:
            if not self._stopped:
                self._retry = self._clock.call_later(delay, self._retried)

    def _retried(self) -> None:
        with self._lock:
            self._retry = None
        self._read_now()

    def _ended(self) -> None:
        """The store was closed under the watch: it stops (``on_end(self)``), and every asker
        still waiting on it ends with ``ASK_ABORTED``; their records stay open in the store."""
        with self._lock:
            waiters = list(self._waiters)
        self.stop()
        if self._on_end is not None:
            self._on_end(self)
        for waiter in waiters:
            waiter.fail(
                UserQuestionError(
                    f"the store {self.store.location} was closed while this question waited"
                    " for its answer; the question stays open in the store (open the store"
                    " again and ask with the same call id to wait for it)",
                    "ASK_ABORTED",
                )
            )

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            retry, self._retry = self._retry, None
            unsubscribe, self._unsubscribe = self._unsubscribe, None
        if retry is not None:
            retry.cancel()
        if unsubscribe is not None:
            unsubscribe()


def _wire(request: AskUserQuestionRequest) -> list[dict[str, Any]]:
    """The questions of ``request`` in wire form (the card its answerers present)."""
    return [item.to_wire() for item in request.questions]


async def _no_answerer() -> AskUserQuestionAnswer:
    raise UserQuestionError.of("NO_PROVIDER")


async def _wait_in_inbox() -> AskUserQuestionAnswer:
    await asyncio.get_running_loop().create_future()  # cancelled when the question settles
    raise AssertionError("unreachable")


def _consume(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
