"""Follow-ups: work an answerer puts off until the asker has its answer.

An answerer that also keeps a view (a card to mark answered, a transcript to extend) would make
the agent wait for that bookkeeping if it did it before returning. With :func:`after_answer` it
returns the answer first; :meth:`UserQuestions.ask` runs the follow-ups on its event loop right
after it has handed the answer (or the error) back, when the asking task next yields.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from contextvars import ContextVar, copy_context
from typing import TypeVar

__all__ = ["Followups", "after_answer", "current_followups", "run_after", "with_followups"]

T = TypeVar("T")

log = logging.getLogger("ipyask")

_LOCK = threading.Lock()
"""One lock for every ask's follow-ups (held for a list operation only): one per pending question
would cost more memory than the contention it saves."""


class Followups:
    """The follow-ups of one ask; :meth:`run_soon` closes it (later ones run at once)."""

    __slots__ = ("_callbacks", "_closed")

    def __init__(self) -> None:
        self._callbacks: list[Callable[[], object]] | None = None  # made by the first one
        self._closed = False

    def add(self, callback: Callable[[], object]) -> None:
        """Keep ``callback`` for later, or run it now when the ask has already returned."""
        with _LOCK:
            if not self._closed:
                if self._callbacks is None:
                    self._callbacks = [callback]
                else:
                    self._callbacks.append(callback)
                return
        _run(callback)

    def run_soon(self, loop: asyncio.AbstractEventLoop) -> None:
        """Close, and run the kept follow-ups in order on ``loop`` once the asker yields."""
        with _LOCK:
            self._closed = True
            callbacks, self._callbacks = self._callbacks, None
        if callbacks:
            loop.call_soon(_run_all, callbacks)


_current: ContextVar[Followups | None] = ContextVar("ipyask_followups", default=None)


def after_answer(callback: Callable[[], object]) -> None:
    """Run ``callback`` once the ask being answered has returned to the agent.

    Call it from an answerer (on the event loop that runs it) just before returning its answer,
    for work the agent need not wait for, such as updating a view. Outside an ask it runs
    ``callback`` at once. An exception ``callback`` raises is logged, never raised.
    """
    run_after(_current.get(), callback)


def current_followups() -> Followups | None:
    """The follow-ups of the ask being answered now (``None`` outside an ask): kept by an
    answerer whose callback later runs outside the ask's context, for :func:`run_after`."""
    return _current.get()


def run_after(followups: Followups | None, callback: Callable[[], object]) -> None:
    """:func:`after_answer` for the ask whose follow-ups are ``followups`` (``None``: now)."""
    if followups is None:
        _run(callback)
    else:
        followups.add(callback)


def with_followups(followups: Followups, start: Callable[[], T]) -> T:
    """Call ``start()`` in a copy of the current context where ``followups`` is current: what it
    calls, and the tasks it creates, add to them. The caller's own context is left as it was
    (setting and resetting it would keep a changed copy of it for as long as the caller runs)."""

    def run() -> T:
        _current.set(followups)
        return start()

    return copy_context().run(run)


def _run_all(callbacks: list[Callable[[], object]]) -> None:
    for callback in callbacks:
        _run(callback)


def _run(callback: Callable[[], object]) -> None:
    try:
        callback()
    except Exception:
        log.exception("ipyask: a follow-up of an answer failed")
