"""``ipyask.connect``: ask a person from any Python process, through a shared store.

An agent in a worker process, a script or another kernel opens the store every inbox reads and
asks there: its questions are durable records, the asking call waits until some process
connected to the store answers (a notebook's panel, a script), and a re-run of the agent that
asks again with the same call id gets the recorded answer at once.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Mapping
from typing import Any

from ._agents import Agent
from ._clock import Clock
from ._events import TurnStartEvent
from ._service import RequestLike, UserQuestions, _as_request
from ._vocabulary import (
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    PendingAnswer,
    TimedUserQuestionResult,
)
from .store import ClaimResult, QuestionRecord, Store, open_store

__all__ = ["Connection", "connect"]


def connect(
    store: Store | str | os.PathLike[str] | None = None,
    *,
    agent: str = "agent",
    session: str | None = None,
    clock: Clock | None = None,
) -> Connection:
    """Connect an agent to ``store`` (a :class:`~ipyask.store.Store`, a path or a
    ``postgresql://`` URL; default: :func:`ipyask.store.open_store`'s default).

    ``agent`` names the agent and ``session`` its session log (default: the agent's name). Use
    a stable, distinct name per agent: re-running it under the same name finds its questions.
    A turn is opened in the session when none is open (durable asks need one).
    """
    opened = store if isinstance(store, Store) else open_store(store)
    return Connection(opened, agent=agent, session=session, clock=clock)


def _checked_assignee(assignee: object) -> str:
    if not isinstance(assignee, str) or not assignee.strip():
        raise ValueError(f"assignee must name a person (a non-empty string), not {assignee!r}")
    return assignee


class Connection:
    """An agent's connection to a shared store: ``ask``, ``ask_timed``, and the inbox side
    (``pending``, ``answer``, ``cancel``)."""

    def __init__(
        self, store: Store, *, agent: str, session: str | None, clock: Clock | None
    ) -> None:
        self.store = store
        self.service = UserQuestions(clock=clock, store=store)
        log = self.service.open_session(session if session is not None else agent)
        self.agent = self.service.agents.enter(Agent(agent, session=log))
        if log.open_turn_at() is None:
            turns = sum(isinstance(event, TurnStartEvent) for event in log.events)
            log.append(TurnStartEvent(turn=turns + 1))

    def _durable(
        self, request: RequestLike, call_id: str | None, assignee: str | None = None
    ) -> AskUserQuestionRequest:
        parsed = _as_request(request)
        update: dict[str, Any] = {"agent": self.agent}
        if assignee is not None:
            update["assignee"] = _checked_assignee(assignee)
        if call_id is not None:
            update["durable_call_id"] = call_id
        elif parsed.durable_call_id is None:
            update["durable_call_id"] = uuid.uuid4().hex  # recorded, but no re-run finds it
        return parsed.model_copy(update=update)

    async def ask(
        self, request: RequestLike, call_id: str | None = None, *, assignee: str | None = None
    ) -> AskUserQuestionAnswer:
        """Ask and wait until a process connected to the store answers.

        ``request`` is ``{questions, callId?, assignee?}`` (or the model); ``call_id`` overrides
        its ``callId``. Asking again with a call id that was answered returns that answer at
        once. ``assignee`` (overriding the request's): everyone sees the question, but only that
        person may answer it through a claim (``answer``, the inbox widget, the inbox page).
        """
        return await self.service.ask(self._durable(request, call_id, assignee))

    async def ask_timed(
        self, request: RequestLike, call_id: str, timeout_ms: int
    ) -> TimedUserQuestionResult:
        """Ask, waiting at most ``timeout_ms``: the answer, or :class:`PendingAnswer`.

        Pending means the question stays in the inbox: ask again with the same ``call_id``
        (with :meth:`ask` or this method) to get the answer once it is given.
        """
        if not isinstance(timeout_ms, int) or isinstance(timeout_ms, bool) or timeout_ms < 1:
            raise ValueError("timeout_ms must be a positive integer")
        asking = asyncio.ensure_future(self.ask(request, call_id))
        expired: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def expire() -> None:
            if not expired.done():
                expired.set_result(None)

        timer = self.service.clock.call_later(timeout_ms, expire)
        try:
            either: set[asyncio.Future[Any]] = {asking, expired}
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        finally:
            timer.cancel()
        if asking.done():
            return asking.result()
        asking.cancel()  # the record stays open
        await asyncio.gather(asking, return_exceptions=True)
        return PendingAnswer(call_id=call_id)

    # -- the inbox side -----------------------------------------------------------------------
    def pending(self) -> list[QuestionRecord]:
        """Every open question in the store, of every agent and process, oldest first."""
        return self.service.pending(self.store)

    def answer(
        self,
        request_id: str,
        answer: AskUserQuestionAnswer | Mapping[str, Any],
        *,
        who: str | None = None,
    ) -> ClaimResult:
        """Answer an open question of any process (first answer wins); ``BAD_ANSWER`` when the
        answer does not fit the question, ``NOT_ASSIGNEE`` when it is assigned to someone other
        than ``who`` (it stays open), as :meth:`UserQuestions.respond`. The record keeps
        ``who`` (default: this process's user) and the ``store-claim`` door."""
        return self.service.respond(self.store, request_id, answer, who=who, door="store-claim")

    def cancel(self, request_id: str, *, who: str | None = None) -> ClaimResult:
        """Cancel an open question of any process (its asker gets ``ASK_CANCELLED``)."""
        return self.service.cancel(self.store, request_id, who=who, door="store-claim")

    async def aclose(self) -> None:
        """Stop asking (waiting asks end with ``ASK_ABORTED``; their questions stay open) and
        close the store."""
        await self.service.aclose()
        self.store.close()

    async def __aenter__(self) -> Connection:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
