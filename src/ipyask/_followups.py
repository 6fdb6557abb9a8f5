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
from contextvars import ContextVar

__all__ = ["Followups", "after_answer", "open_followups"]

log = logging.getLogger("ipyask")


class Followups:
    """The follow-ups of one ask; :meth:`run_soon` closes it (later ones run at once)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], object]] = []
        self._closed = False

    def add(self, callback: Callable[[], object]) -> None:
        """Keep ``callback`` for later, or run it now when the ask has already returned."""
        with self._lock:
            if not self._closed:
                self._callbacks.append(callback)
                return
        _run(callback)

    def run_soon(self, loop: asyncio.AbstractEventLoop) -> None:
        """Close, and run the kept follow-ups in order on ``loop`` once the asker yields."""
        with self._lock:
            self._closed = True
            callbacks, self._callbacks = self._callbacks, []
        if callbacks:
            loop.call_soon(_run_all, callbacks)


_current: ContextVar[Followups | None] = ContextVar("ipyask_followups", default=None)


def after_answer(callback: Callable[[], object]) -> None:
    """Run ``callback`` once the ask being answered has returned to the agent.

    Call it from an answerer (on the event loop that runs it) just before returning its answer,
    for work the agent need not wait for, such as updating a view. Outside an ask it runs
    ``callback`` at once. An exception ``callback`` raises is logged, never raised.
    """
    followups = _current.get()
    if followups is None:
        _run(callback)
    else:
        followups.add(callback)


def open_followups() -> tuple[Followups, Callable[[], None]]:
    """Make a new :class:`Followups` current (tasks created now inherit it): it, and the reset."""
    followups = Followups()
    token = _current.set(followups)
    return followups, lambda: _current.reset(token)


def _run_all(callbacks: list[Callable[[], object]]) -> None:
    for callback in callbacks:
        _run(callback)


def _run(callback: Callable[[], object]) -> None:
    try:
        callback()
    except Exception:
        log.exception("ipyask: a follow-up of an answer failed")
