"""The scoped answerer waterfall behind ``user-questions/request``.

Listeners run first-registered first (``prepend`` puts one at the front). Each either claims the
request by returning an answer or delegates with ``return await next()``. A listener scoped to an
agent receives only requests of that agent or of an agent it owns, directly or not; unscoped
listeners receive every request, and agentless requests reach every listener.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from pydantic import ValidationError

from ._agents import Agent
from ._vocabulary import AskUserQuestionAnswer, AskUserQuestionRequest

__all__ = ["AnswerFuture", "Answerer", "Next", "Waterfall"]

Next = Callable[[], Awaitable[AskUserQuestionAnswer]]
"""Delegates the request to the rest of the waterfall."""

AnswerLike = AskUserQuestionAnswer | dict[str, Any]


class Answerer(Protocol):
    """``async def answerer(request, next) -> AskUserQuestionAnswer`` (a wire dict also works).

    A plain function may return the answer or an awaitable of it; the first answerer of an ask
    is called before the asking task yields, so its synchronous part runs at once.
    """

    def __call__(
        self, request: AskUserQuestionRequest, next: Next, /
    ) -> Awaitable[AnswerLike] | AnswerLike: ...


class AnswerFuture(asyncio.Future[AskUserQuestionAnswer]):
    """What an answerer may return instead of a coroutine: a future of an answer it has
    validated, which the seam awaits as it is (no task and no wrapping coroutines: a pending
    question holds about 1 KiB less).

    ``on_abandon`` is called once when the asker no longer waits (its ask was aborted or
    cancelled): the answerer stops waiting for the person. An answerer sets its result or
    exception only while the future is not done (the seam may end it first).
    """

    __slots__ = ("_on_abandon",)

    def __init__(self, on_abandon: Callable[[], object] | None = None) -> None:
        super().__init__(loop=asyncio.get_running_loop())
        self._on_abandon = on_abandon

    def when_abandoned(self, on_abandon: Callable[[], object] | None) -> None:
        """Call ``on_abandon`` (instead of the earlier one) when the asker gives up."""
        self._on_abandon = on_abandon

    def cancel(self, msg: Any | None = None) -> bool:
        """Cancel it if it is still pending; either way the asker gives up: ``on_abandon``."""
        cancelled = super().cancel(msg)
        on_abandon, self._on_abandon = self._on_abandon, None
        if on_abandon is not None:
            on_abandon()
        return cancelled


class _Registration:
    __slots__ = ("agent", "answerer")

    def __init__(self, answerer: Answerer, agent: Agent | None) -> None:
        self.answerer = answerer
        self.agent = agent

    def admits(self, agent: Agent | None) -> bool:
        if agent is None or self.agent is None:
            return True
        return self.agent is agent or any(a is self.agent for a in agent.ancestors)


class Waterfall:
    """An ordered list of answerers, dispatched with a scope filter."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # Replaced, never changed in place: a dispatch shares it while every entry admits.
        self._entries: tuple[_Registration, ...] = ()

    def on(
        self, answerer: Answerer, *, agent: Agent | None = None, prepend: bool = False
    ) -> Callable[[], None]:
        """Register ``answerer``; returns an idempotent function that removes it."""
        if not callable(answerer):
            raise TypeError(f"an answerer must be callable, not {type(answerer).__name__}")
        if agent is not None and not isinstance(agent, Agent):
            raise TypeError(f"agent must be an ipyask.Agent or None, not {type(agent).__name__}")
        entry = _Registration(answerer, agent)
        with self._lock:
            if prepend:
                self._entries = (entry, *self._entries)
            else:
                self._entries = (*self._entries, entry)

        def dispose() -> None:
            with self._lock:
                for index, known in enumerate(self._entries):
                    if known is entry:
                        self._entries = self._entries[:index] + self._entries[index + 1 :]
                        return

        return dispose

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def answerers(self) -> tuple[Answerer, ...]:
        """The registered answerers, first asked first."""
        with self._lock:
            return tuple(entry.answerer for entry in self._entries)

    def dispatch(
        self,
        request: AskUserQuestionRequest,
        agent: Agent | None,
        last: Callable[[], Awaitable[AskUserQuestionAnswer]],
    ) -> Awaitable[AskUserQuestionAnswer]:
        """Run the eligible answerers in order; ``last`` runs when every one has delegated.

        The first answerer is called now, before the caller next yields: what it does before
        its first ``await`` (a panel shows its card) is not a loop turn late. What it returns,
        and the rest of the chain, are awaited through the returned awaitable, which also
        carries an exception the call raised. The chain is shared: each ``next()`` call moves
        it on by one, as in the reference.
        """
        with self._lock:
            entries = self._entries
        if not all(entry.admits(agent) for entry in entries):
            entries = tuple(entry for entry in entries if entry.admits(agent))
        return _Chain(request, entries, last).call_next()


class _Chain:
    """One dispatch's way down the answerers: ``next`` moves it on by one."""

    __slots__ = ("_entries", "_last", "_position", "_request")

    def __init__(
        self,
        request: AskUserQuestionRequest,
        entries: tuple[_Registration, ...],
        last: Callable[[], Awaitable[AskUserQuestionAnswer]],
    ) -> None:
        self._request = request
        self._entries = entries
        self._last = last
        self._position = 0

    def call_next(self) -> Awaitable[AskUserQuestionAnswer]:
        if self._position == len(self._entries):
            return self._last()
        entry = self._entries[self._position]
        self._position += 1
        try:
            result = entry.answerer(self._request, self)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:  # raised where the dispatch is awaited
            return _raise(error)
        if isinstance(result, AnswerFuture):
            return result
        return _checked(result, entry.answerer)

    async def __call__(self) -> AskUserQuestionAnswer:
        """``next()``: the chain is the ``next`` its answerers get (no bound method each)."""
        return await self.call_next()


async def _checked(result: object, answerer: object) -> AskUserQuestionAnswer:
    if inspect.isawaitable(result):
        result = await result
    return _as_answer(result, answerer)


async def _raise(error: BaseException) -> AskUserQuestionAnswer:
    raise error


def _as_answer(value: object, answerer: object) -> AskUserQuestionAnswer:
    if isinstance(value, AskUserQuestionAnswer):
        return value
    name = getattr(answerer, "__qualname__", type(answerer).__name__)
    try:
        return AskUserQuestionAnswer.model_validate(value)
    except ValidationError as error:
        raise TypeError(
            f"answerer {name} returned {type(value).__name__}, not an answer batch "
            f"{{answers: [{{id, selected, custom?}}]}}: {error.errors()[0]['msg']}"
        ) from error
