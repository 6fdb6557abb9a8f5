"""``UserQuestions``: the service that asks the answerer waterfall and tracks timed questions."""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import Any

from ._abort import AbortController, AbortSignal
from ._agents import Agent, AgentRegistry
from ._answer_checks import check_batch
from ._answered_by import AnsweredBy, Door, answered_by
from ._clock import Clock, LoopClock, call_on_loop
from ._durable import BatchClaim, DurableAsks, Target
from ._errors import AskCancelledError, HarnessError, UserQuestionError, restore_error
from ._followups import Followups, with_followups
from ._intents import check_intents
from ._late_readers import ReaderBook, ReaderKind, ReadingHandle, ReplyReader
from ._projection import Projections, UserQuestionProjectionView
from ._replies import ReplyBook, is_reply, reply_message
from ._session import Session
from ._timed_wait import TimedQuestionWait
from ._timeout_decisions import LateAnswer, TimeoutDecisions, timeout_answer
from ._vocabulary import (
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    PendingAnswer,
    QuestionWait,
    TimedUserQuestionResult,
    WaitFrame,
)
from ._waterfall import Answerer, AnswerFuture, Waterfall
from .store import ClaimResult, QuestionRecord, Store

__all__ = ["MAX_TIMEOUT_MS", "UserQuestions"]

MAX_TIMEOUT_MS = 2_147_483_647
"""The longest foreground wait, in milliseconds (a positive 32-bit platform timer)."""

RequestLike = AskUserQuestionRequest | Mapping[str, Any]


def _check_timeout(timeout_ms: object) -> int:
    # bool is an int in Python but never a duration; an integral float (5.0) is the same number
    # as 5, as in the reference; 1.5, NaN, infinities and non-numbers are refused.
    if isinstance(timeout_ms, bool):
        raise UserQuestionError.of("BAD_TIMEOUT")
    if isinstance(timeout_ms, float) and math.isfinite(timeout_ms) and timeout_ms.is_integer():
        timeout_ms = int(timeout_ms)
    if not isinstance(timeout_ms, int) or not 1 <= timeout_ms <= MAX_TIMEOUT_MS:
        raise UserQuestionError.of("BAD_TIMEOUT")
    return timeout_ms


def _as_request(request: RequestLike) -> AskUserQuestionRequest:
    if isinstance(request, AskUserQuestionRequest):
        return request
    if not isinstance(request, Mapping):
        raise TypeError(
            "a request must be an AskUserQuestionRequest or a dict in wire form, "
            f"not {type(request).__name__}"
        )
    return AskUserQuestionRequest.model_validate(dict(request))


class UserQuestions:
    """The user-questions service.

    Owns the live agent registry (:attr:`agents`), the answerer waterfall, the timed waits of
    ``ask_timed``, the reply reservations of late answers and the askers of durable questions.
    ``clock`` decides deadlines (the running event loop's by default;
    :class:`ipyask.testing.ManualClock` in tests). ``store`` is where :meth:`open_session` keeps
    session logs and durable questions (none: sessions live in memory).
    """

    def __init__(self, *, clock: Clock | None = None, store: Store | None = None) -> None:
        self.clock: Clock = clock if clock is not None else LoopClock()
        self.store = store
        self.agents = AgentRegistry(on_enter=lambda agent: self._replies.watch(agent.session))
        self._waterfall = Waterfall()
        self._projections = Projections()
        self._lock = threading.RLock()
        self._waits: dict[Agent, dict[str, TimedQuestionWait]] = {}
        self._replies = ReplyBook()
        self._readers = ReaderBook(on_ended=self._keep_unread)
        self._collectors: dict[tuple[Session, str], list[asyncio.Future[None]]] = {}
        self._lifetime = AbortController()
        self._durable = DurableAsks(self._waterfall, self._lock)
        self._timeouts = TimeoutDecisions()

    # -- answerers ---------------------------------------------------------------------------
    def on_request(
        self, answerer: Answerer, agent: Agent | None = None, prepend: bool = False
    ) -> Callable[[], None]:
        """Add ``answerer`` to the waterfall; returns an idempotent function that removes it.

        ``agent`` scopes it to that agent and the agents it owns; ``prepend`` puts it first.
        """
        return self._waterfall.on(answerer, agent=agent, prepend=prepend)

    def answerers(self) -> tuple[Answerer, ...]:
        """The answerers of the waterfall, first asked first."""
        return self._waterfall.answerers()

    # -- liveness ----------------------------------------------------------------------------
    def _assert_live_root(self, agent: Agent) -> None:
        if not isinstance(agent, Agent) or not self.agents.is_live(agent):
            raise UserQuestionError.of("CALLER_NOT_LIVE")
        if agent.owner is not None:
            raise UserQuestionError.of("DELEGATED_CALLER")

    # -- ask ---------------------------------------------------------------------------------
    async def ask(self, request: RequestLike) -> AskUserQuestionAnswer:
        """Ask the answerer waterfall and wait for the answer batch.

        ``request`` is an :class:`AskUserQuestionRequest` or the same as a dict in wire form.
        Raises :class:`UserQuestionError` (``ASK_ABORTED``, ``EMPTY_QUESTIONS``,
        ``CALLER_NOT_LIVE``, ``DELEGATED_CALLER``, ``BAD_INTENT``, ``NO_PROVIDER``,
        ``PROVIDER_ERROR`` or a code an answerer raised). Cancelling the awaiting task ends the
        ask as ``ASK_ABORTED`` (an error that is also an ``asyncio.CancelledError``).

        A request with an agent and a ``callId`` but no ``wait`` is durable: it needs an open
        turn in the agent's session (``OUTSIDE_TURN``), is recorded there as
        ``user-questions/asked``, and asking again with the same ``callId`` reuses the record
        (answered: the answer at once; cancelled: ``ASK_CANCELLED``; unavailable:
        ``NO_PROVIDER``; open: waits for it again). Cancelling the awaiting task, or closing
        the service, leaves a durable record open.
        """
        request = _as_request(request)
        signal = request.signal
        if (signal is not None and signal.aborted) or self._lifetime.signal.aborted:
            raise UserQuestionError.of("ASK_ABORTED")
        if not request.questions:
            raise UserQuestionError.of("EMPTY_QUESTIONS")
        agent = request.agent
        if agent is not None:
            self._assert_live_root(agent)
        if request.assignee is not None and not request.durable:
            raise ValueError(
                f"assignee {request.assignee!r} needs a durable ask (an agent and a callId, no "
                "wait): only a question recorded in a store or session can be kept for one "
                "person. Ask with ipyask.connect(...).ask(..., assignee=...) or drop the assignee."
            )
        check_intents(request)
        if agent is not None and request.durable:
            try:
                return await self._durable.ask(agent, request)
            except asyncio.CancelledError as cancelled:
                if isinstance(cancelled, AskCancelledError):
                    raise
                raise AskCancelledError.of("ASK_ABORTED", cause=cancelled) from cancelled

        loop = asyncio.get_running_loop()
        # The answer (or the answerers' error) settles ``outcome``, which wakes this task at
        # once; an abort settles it with _Aborted. The first answerer is called now, and what it
        # starts inherits the follow-ups; they run once this ask has returned.
        followups = Followups()
        # A partial, not a lambda: a closure would keep a cell per captured name while pending.
        outcome, dispatch = with_followups(followups, partial(self._dispatch, loop, request, agent))
        lifetime = self._lifetime.signal
        watches: tuple[_AbortWatch, ...] = (_AbortWatch(loop, outcome, lifetime),)
        if signal is not None:
            watches = (_AbortWatch(loop, outcome, signal), *watches)
        try:
            for watch in watches:
                watch.source.add_listener(watch)
            for watch in watches:
                if watch.source.aborted:
                    watch()
            try:
                return await outcome
            except _Aborted as aborted:
                reason = aborted.reason
            except asyncio.CancelledError:
                dispatch.cancel()
                raise
            finally:
                for watch in watches:
                    watch.source.remove_listener(watch)
            dispatch.cancel()  # an answerer that ignores it does not hold the ask
            dispatch.add_done_callback(_consume)
            raise UserQuestionError.of("ASK_ABORTED", cause=reason)
        except asyncio.CancelledError as cancelled:
            if isinstance(cancelled, AskCancelledError):
                raise
            raise AskCancelledError.of("ASK_ABORTED", cause=cancelled) from cancelled
        except Exception as error:
            restored = restore_error(error)
            if isinstance(restored, UserQuestionError):
                raise restored from restored.__cause__
            if (signal is not None and signal.aborted) or lifetime.aborted:
                raise UserQuestionError.of("ASK_ABORTED", cause=error) from error
            if isinstance(error, HarnessError):
                raise
            provider = UserQuestionError(str(error) or type(error).__name__, "PROVIDER_ERROR")
            raise provider from error
        finally:
            followups.run_soon(loop)

    def _dispatch(
        self, loop: asyncio.AbstractEventLoop, request: AskUserQuestionRequest, agent: Agent | None
    ) -> tuple[asyncio.Future[AskUserQuestionAnswer], asyncio.Future[Any]]:
        """Start the waterfall: the future the ask awaits, and what cancelling stops it.

        An :class:`AnswerFuture` is both (no task: the answerer settles it); anything else is
        awaited in a dispatch task that settles a future of the ask's own.
        """
        answering = self._waterfall.dispatch(request, agent, _no_answerer)
        if isinstance(answering, AnswerFuture):
            return answering, answering
        outcome: asyncio.Future[AskUserQuestionAnswer] = loop.create_future()
        return outcome, asyncio.ensure_future(_dispatch_to(answering, outcome))

    # -- timed questions ---------------------------------------------------------------------
    async def ask_timed(
        self,
        request: RequestLike,
        call_id: str,
        timeout_ms: int | float,
        *,
        on_timeout: str = "pending",
    ) -> TimedUserQuestionResult:
        """Ask with a foreground wait of ``timeout_ms``; returns the answer or pending.

        The request needs an agent. Pending (:class:`PendingAnswer`) means the question can still
        be answered as a late reply. ``timeout_ms`` must be an integer from 1 to 2_147_483_647:
        ``True``/``False``, ``1.5``, NaN and infinities raise ``BAD_TIMEOUT``; an integral float
        such as ``5.0`` counts as ``5``.

        ``on_timeout`` declares what the question becomes when the window runs out unanswered:
        ``"pending"`` (the default, above), ``"reject"`` (each question's refusal), or a label
        of one of the card's decisions; the answer batch it gives is returned then, and
        :meth:`timeout_decision` tells it apart (see :mod:`ipyask._timeout_decisions`). Any
        other value raises :class:`ValueError` naming the values allowed, before anything is
        asked.
        """
        timeout = _check_timeout(timeout_ms)
        request = _as_request(request)
        decided = timeout_answer(request.questions, on_timeout) if request.questions else None
        if not isinstance(call_id, str) or not call_id:
            raise TypeError("call_id must be a non-empty string")
        agent = request.agent
        if agent is None:
            raise UserQuestionError.of("CALLER_NOT_LIVE")
        self._assert_live_root(agent)
        with self._lock:
            calls = self._waits.get(agent, {})
            if call_id in calls:
                raise UserQuestionError.of("DUPLICATE_WAIT")
            self._waits[agent] = calls
            wait = TimedQuestionWait(
                self.clock.now_ms() + timeout,
                parent=request.signal,
                timeout=UserQuestionError.of("ASK_TIMED_OUT"),
                clock=self.clock,
            )
            calls[call_id] = wait
            self._timeouts.plan(agent, call_id, decided)
        forwarded = request.model_copy(
            update={"signal": wait.signal, "wait": QuestionWait(call_id=call_id, timed=True)}
        )
        try:
            try:
                return await self.ask(forwarded)
            except AskCancelledError:
                raise
            except Exception as error:
                if wait.signal.aborted:
                    raise _reason(wait.signal) from error
                if isinstance(error, UserQuestionError) and error.code == "NO_PROVIDER":
                    await wait.done()
                    raise _reason(wait.signal) from error
                raise
        except AskCancelledError:
            raise
        except asyncio.CancelledError as cancelled:
            raise AskCancelledError.of("ASK_ABORTED", cause=cancelled) from cancelled
        except Exception as error:
            if isinstance(error, UserQuestionError) and error.code == "ASK_TIMED_OUT":
                if decided is not None:
                    return decided
                asker = asyncio.current_task()
                if asker is not None:  # whether it still runs is what a card can tell
                    self._readers.note_asker(agent.session, call_id, asker)
                return PendingAnswer(call_id=call_id)
            if wait.signal.aborted:
                raise UserQuestionError.of("ASK_ABORTED", cause=error) from error
            raise
        finally:
            wait.close(UserQuestionError.of("ASK_ABORTED"))
            with self._lock:
                calls.pop(call_id, None)
                if not calls and self._waits.get(agent) is calls:
                    del self._waits[agent]

    def timeout_decision(self, agent: Agent, call_id: str) -> AskUserQuestionAnswer | None:
        """The answer batch the timeout gives timed call ``call_id`` of ``agent`` when its
        window runs out unanswered (asked with an ``on_timeout`` decision); ``None`` when it
        is left pending. Cards and transcripts read it to say the timeout decided."""
        return self._timeouts.planned(agent, call_id)

    def record_late_answer(
        self,
        agent: Agent,
        call_id: str,
        answer: AskUserQuestionAnswer,
        by: AnsweredBy | None = None,
    ) -> LateAnswer | None:
        """Record ``answer`` to timed call ``call_id`` given after its timeout had decided it
        (``by``: who gave it, through which door): kept for :meth:`late_answer` and logged; the
        agent, which went on with the timeout's decision, is not sent it. ``None`` when the
        timeout did not decide the call (a late answer to a pending call is :meth:`answer`)."""
        return self._timeouts.note_late(agent, call_id, answer, by)

    def late_answer(self, agent: Agent, call_id: str) -> LateAnswer | None:
        """The answer given to timed call ``call_id`` after its timeout had decided it: the
        answer, who gave it (:class:`~ipyask.store.AnsweredBy`) and what the timeout had
        decided; ``None`` when there was none."""
        return self._timeouts.late(agent, call_id)

    def live_wait(self, agent: Agent, call_id: str) -> TimedQuestionWait | None:
        """The live foreground wait of ``call_id``, if any (for diagnostics and bridges)."""
        with self._lock:
            return self._waits.get(agent, {}).get(call_id)

    async def attach_wait(
        self, agent: Agent, call_id: str, signal: AbortSignal | None = None
    ) -> AsyncGenerator[WaitFrame, None]:
        """Claim a live timed wait: yields one :class:`WaitFrame`, then ends with the wait.

        While at least one claim exists the host deadline is paused; closing the stream (or
        aborting ``signal``) releases the claim. Yields nothing for an ended or unknown wait.
        """
        self._assert_live_root(agent)
        wait = self.live_wait(agent, call_id)
        if wait is None:
            return
        claim = wait.attach(signal)
        try:
            async for frame in claim:
                yield frame
        finally:
            # Closing this stream must release the claim now, not when the inner one is collected.
            await claim.aclose()

    # -- late replies ------------------------------------------------------------------------
    def answer(
        self,
        agent: Agent,
        call_id: str,
        answer: AskUserQuestionAnswer | Mapping[str, Any],
        *,
        who: str | None = None,
        door: Door = "api",
    ) -> bool:
        """Answer a continued question: steer the reply into the agent's session.

        Returns ``False`` when the call is unknown, still open or settled. Raises
        ``REPLY_QUEUED`` while a reply for it waits, and ``BAD_ANSWER`` when the batch does not
        name each question exactly once or an item does not fit its question (a label not
        offered; per field for a tool approval or a form: :class:`~ipyask.errors.BadAnswerError`).
        Safe to call from any thread.

        When every reader the agent's code declared with :meth:`reading` has ended, nobody
        would take the reply from the inbox: it is *kept* instead, admitted into the session log
        at once (the projection settles the call with it; :meth:`reply_kept` is then true). A
        root agent that has left the registry after its readers ended (a closed MCP server's)
        can still have an answer kept; otherwise a non-live agent raises ``CALLER_NOT_LIVE``.

        The reply's source says who gave it (``who``, default the environment's identity),
        through ``door``, with the digest of the question's card.
        """
        self._assert_may_answer(agent)
        batch = (
            answer
            if isinstance(answer, AskUserQuestionAnswer)
            else AskUserQuestionAnswer.model_validate(answer)
        )
        session = agent.session
        self._replies.watch(session)
        with self._lock:
            row = self._projections.continued(session, call_id)
            if row is None:
                return False
            if self._replies.waiting(session, call_id):
                raise UserQuestionError.of("REPLY_QUEUED")
            check_batch(row.questions, batch, call_id)
            shown = [question.to_wire() for question in row.questions]
            message = reply_message(row, batch, answered_by(door, shown, who=who))
            if self._readers.reader(session) == "nobody":
                self._readers.keep(session, call_id)  # before the event: its views ask
                session.append(message.to_event())
            else:
                self._readers.unkeep(session, call_id)
                self._replies.reserve(session, call_id, message.id)
                try:
                    session.steer(message)
                except BaseException:
                    self._replies.release(session, call_id, message.id)
                    raise
        self._wake_collectors(session, call_id)
        return True

    def _assert_may_answer(self, agent: Agent) -> None:
        """A live root agent, or one that left after every reader it declared had ended: nothing
        goes to that agent then, the answer is only kept in its session's log."""
        try:
            self._assert_live_root(agent)
        except UserQuestionError as error:
            ended = (
                error.code == "CALLER_NOT_LIVE"
                and isinstance(agent, Agent)
                and agent.owner is None
                and self._readers.reader(agent.session) == "nobody"
            )
            if not ended:
                raise

    def reading(self, target: Agent | Session, by: ReaderKind = "next-step") -> ReadingHandle:
        """Declare that the agent's code reads its late replies until the handle is closed
        (use it as ``with svc.reading(agent): ...`` around an agent loop).

        ``by``: ``"next-step"`` for a loop that admits ``session.next_step`` before each step;
        ``"re-ask"`` for a caller that collects a reply by asking the call again
        (:meth:`collect_reply`, as the MCP server's clients do). Cards say who reads a late
        answer accordingly. When the session's last reader ends, its unread late replies are
        kept (see :meth:`answer`), and so is every later one until a reader is declared again.
        """
        session = target.session if isinstance(target, Agent) else target
        if by not in ("next-step", "re-ask"):
            raise ValueError(f"by must be 'next-step' or 're-ask', not {by!r}")
        return self._readers.open(session, by)

    def reply_reader(self, target: Agent | Session) -> ReplyReader | None:
        """Who reads the session's late replies now: ``"next-step"``, ``"re-ask"``,
        ``"nobody"`` (every declared reader ended), or ``None`` when its code declared none."""
        session = target.session if isinstance(target, Agent) else target
        return self._readers.reader(session)

    def reply_kept(self, target: Agent | Session, call_id: str) -> bool:
        """Whether ``call_id``'s late reply was kept (recorded with nobody left to read it)."""
        session = target.session if isinstance(target, Agent) else target
        return self._readers.kept(session, call_id)

    def asker_ended(self, target: Agent | Session, call_id: str) -> bool:
        """Whether the task that asked timed call ``call_id`` (and went on with pending) has
        ended: with no reader declared, nothing then reads a late reply unless the agent's code
        reads the inbox again. ``False`` when the asking task is not known."""
        session = target.session if isinstance(target, Agent) else target
        return self._readers.asker_ended(session, call_id)

    def _keep_unread(self, session: Session) -> None:
        """The last reader ended: keep the late replies it left in the inbox."""
        with self._lock:
            if self._readers.reader(session) != "nobody":
                return  # a reader was declared again meanwhile
            for message in session.next_step + session.next_turn:
                source = message.source
                if source is not None and source.call_id and is_reply(message, source.call_id):
                    self._readers.keep(session, source.call_id)
                    session.admit(message)

    async def collect_reply(
        self, agent: Agent, call_id: str, timeout_ms: int | float | None = None
    ) -> TimedUserQuestionResult | None:
        """The answer to timed call ``call_id`` for a caller that asks it again.

        A late reply waiting in the inbox is admitted (the projection settles the call) and its
        batch returned; a call already settled returns its batch again. A call still continued
        is waited on for up to ``timeout_ms`` (``None``: until answered), then
        :class:`PendingAnswer`. ``None`` when ``call_id`` is no continued or settled timed call
        of the agent.
        """
        self._assert_live_root(agent)
        timeout = None if timeout_ms is None else _check_timeout(timeout_ms)
        session = agent.session
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else self.clock.now_ms() + timeout
        while True:
            if self.closed:
                raise UserQuestionError.of("ASK_ABORTED")
            with self._lock:
                answered = self._collected(session, call_id)
                if answered is not None or self._projections.continued(session, call_id) is None:
                    return answered
                if deadline is not None and self.clock.now_ms() >= deadline:
                    return PendingAnswer(call_id=call_id)
                woken: asyncio.Future[None] = loop.create_future()
                self._collectors.setdefault((session, call_id), []).append(woken)
            timer = None
            if deadline is not None:
                timer = self.clock.call_later(
                    deadline - self.clock.now_ms(), partial(_wake_on, loop, woken)
                )
            try:
                await woken
            finally:
                if timer is not None:
                    timer.cancel()
                with self._lock:
                    waiting = self._collectors.get((session, call_id), [])
                    if woken in waiting:
                        waiting.remove(woken)
                    if not waiting:
                        self._collectors.pop((session, call_id), None)

    def _collected(self, session: Session, call_id: str) -> AskUserQuestionAnswer | None:
        """Admit a queued reply to ``call_id``; the batch that settled it, if it is settled."""
        for message in session.next_step + session.next_turn:
            if is_reply(message, call_id):
                session.admit(message)
                break
        settled = self._projections.view(session).settled
        row = next((row for row in reversed(settled) if row.call_id == call_id), None)
        return None if row is None else AskUserQuestionAnswer(answers=row.answers)

    def _wake_collectors(self, session: Session, call_id: str) -> None:
        with self._lock:
            waiting = list(self._collectors.get((session, call_id), []))
        for woken in waiting:
            _wake_on(woken.get_loop(), woken)

    def projection(self, session: Session | Agent) -> UserQuestionProjectionView:
        """The session's questions: ``active`` (open or continued) and ``settled``."""
        if isinstance(session, Agent):
            session = session.session
        return self._projections.view(session)

    # -- durable questions -------------------------------------------------------------------
    def open_session(self, id: str) -> Session:
        """The session ``id``, on the service's store (its log so far included) when it has one.

        A session on a store outlives the process: open it with the same id after a restart
        and its durable questions are still there.
        """
        return Session(id, store=self.store)

    def pending(self, target: Target | None = None) -> list[QuestionRecord]:
        """The durable questions still open: of an agent's session, of a session, or of a whole
        store (every process's, oldest first). No ``target``: the service's store."""
        return self._durable.pending(self._target(target))

    def respond(
        self,
        target: Target | None,
        request_id: str,
        answer: AskUserQuestionAnswer | Mapping[str, Any],
        *,
        who: str | None = None,
        door: Door = "api",
    ) -> ClaimResult:
        """Answer the durable question ``request_id``: an idempotent claim.

        Returns ``{status: 'accepted'}`` when this call recorded the answer (a waiting asker
        gets it), ``'already-resolved'`` (with the recorded outcome and answer) when the
        question was settled before, ``'not-pending'`` when ``target`` has no such question.
        ``target`` is an agent, a session, or a store (``None``: the service's store).

        The answer is checked as :meth:`answer` checks a late reply: ``BAD_ANSWER`` (per field
        for a tool approval or a form: :class:`~ipyask.errors.BadAnswerError`) when it does not name
        each question exactly once or an item does not fit its question; the question then
        stays open.

        The record keeps who answered (:class:`~ipyask.store.AnsweredBy`): ``who``, the
        answerer's known identity (an inbox page passes the Jupyter user's name; default: the
        JupyterHub user of this process, else its OS user and host), the ``door`` it came
        through (``"api"`` by default) and the digest of the record's card. A question assigned
        to someone else raises :class:`~ipyask.errors.NotAssigneeError` and stays open.
        """
        return self._durable.respond(self._target(target), request_id, answer, who=who, door=door)

    def respond_to(
        self,
        store: Store,
        record: QuestionRecord,
        answer: AskUserQuestionAnswer | Mapping[str, Any],
        *,
        who: str | None = None,
        door: Door = "api",
    ) -> ClaimResult:
        """:meth:`respond` to ``record``, an open question of ``store`` as the caller read it
        (an inbox card's): the claim is the store's one write, with no read of the record
        before it."""
        return self._durable.respond(store, record.id, answer, who=who, door=door, known=record)

    def respond_many(
        self,
        target: Target | None,
        answers: Sequence[tuple[str, AskUserQuestionAnswer | Mapping[str, Any]]],
        *,
        who: str | None = None,
        door: Door = "api",
    ) -> list[BatchClaim]:
        """Answer several durable questions at once (a person answering many cards): each
        ``(request_id, answer)`` checked as :meth:`respond` checks it, and those that pass
        claimed together, in one transaction of the store. A result per answer, in order: its
        :class:`~ipyask.store.ClaimResult`, or the error that refused it (``BAD_ANSWER``,
        ``NOT_ASSIGNEE``; that question stays open) where :meth:`respond` would raise."""
        return self._durable.respond_many(self._target(target), answers, who=who, door=door)

    def cancel(
        self,
        target: Target | None,
        request_id: str,
        *,
        who: str | None = None,
        door: Door = "api",
    ) -> ClaimResult:
        """Cancel the durable question ``request_id`` (its asker gets ``ASK_CANCELLED``); the
        same idempotent claim as :meth:`respond`, recording ``who`` and ``door`` (withdrawing an
        assigned question is not answering it: anyone may)."""
        return self._durable.reject(
            self._target(target),
            request_id,
            "cancelled",
            UserQuestionError.of("ASK_CANCELLED"),
            who=who,
            door=door,
        )

    def attribute(self, request: AskUserQuestionRequest, by: AnsweredBy) -> None:
        """Say who answers ``request`` through the waterfall, before the answer is handed on: a
        durable question's record keeps it (an answerer that says nothing is recorded as code
        answering through the ``"api"`` door). Nothing for a request that is not durable."""
        if request.request_id is not None:
            self._durable.attribute(request.request_id, by)

    def _target(self, target: Target | None) -> Target:
        if target is not None:
            return target
        if self.store is None:
            raise TypeError("this service has no store: name an agent or a session")
        return self.store

    # -- lifetime ----------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        """Whether :meth:`aclose` ran."""
        return self._lifetime.signal.aborted

    async def aclose(self) -> None:
        """Unload: every live wait, ask and :meth:`collect_reply` ends with ``ASK_ABORTED``
        (durable records stay open)."""
        reason = UserQuestionError.of("ASK_ABORTED")
        with self._lock:
            waits = [wait for calls in self._waits.values() for wait in calls.values()]
            self._waits.clear()
        for wait in waits:
            wait.close(reason)
        self._durable.close()
        self._lifetime.abort(reason)
        with self._lock:
            collectors = [woken for waiting in self._collectors.values() for woken in waiting]
        for woken in collectors:  # each sees the service closed and ends with ASK_ABORTED
            _wake_on(woken.get_loop(), woken)
        await asyncio.sleep(0)

    async def __aenter__(self) -> UserQuestions:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


async def _no_answerer() -> AskUserQuestionAnswer:
    raise UserQuestionError.of("NO_PROVIDER")


class _AbortWatch:
    """Listens to one abort signal of an ask: settles its ``outcome`` with :class:`_Aborted`."""

    __slots__ = ("loop", "outcome", "source")

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        outcome: asyncio.Future[AskUserQuestionAnswer],
        source: AbortSignal,
    ) -> None:
        self.loop = loop
        self.outcome = outcome
        self.source = source

    def __call__(self) -> None:
        # Always a loop turn later: an answerer that aborts and then fails in the same step
        # has its own error win, as when both are seen together.
        self.loop.call_soon_threadsafe(self._settle)

    def _settle(self) -> None:
        if not self.outcome.done():
            self.outcome.set_exception(_Aborted(self.source.reason))


def _wake_on(loop: asyncio.AbstractEventLoop, future: asyncio.Future[None]) -> None:
    """Resolve ``future`` on ``loop``'s thread (from any thread), unless it is done."""

    def wake() -> None:
        if not future.done():
            future.set_result(None)

    call_on_loop(loop, wake)


def _reason(signal: AbortSignal) -> BaseException:
    return signal.reason if signal.reason is not None else UserQuestionError.of("ASK_ABORTED")


async def _dispatch_to(
    answering: Awaitable[AskUserQuestionAnswer], outcome: asyncio.Future[AskUserQuestionAnswer]
) -> None:
    """Await the waterfall and settle the asker's ``outcome`` with what it gives."""
    try:
        answer = await answering
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # handed to the asker through ``outcome``
        if not outcome.done():
            outcome.set_exception(error)
    else:
        if not outcome.done():
            outcome.set_result(answer)


class _Aborted(Exception):
    """An abort signal ended the ask before the answerers did (carries the signal's reason)."""

    def __init__(self, reason: BaseException | None) -> None:
        super().__init__(reason)
        self.reason = reason


def _consume(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
