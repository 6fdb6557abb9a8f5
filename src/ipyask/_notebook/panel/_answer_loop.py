"""``AnswerLoop``: the event loop a panel answers on, where work from other threads is run.

Comm handlers may run on a subshell thread and sessions may be written from an agent's thread;
the panel and its continued cards hand what that triggers to the loop that awaits the card.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ..._clock import call_on_loop

__all__ = ["AnswerLoop", "call_on"]


def call_on(loop: asyncio.AbstractEventLoop | None, callback: Callable[[], object]) -> None:
    """Run ``callback`` on ``loop`` (thread-safe), or now when there is none or it was closed."""
    if loop is None or loop.is_closed():
        callback()
    else:
        call_on_loop(loop, callback)


class AnswerLoop:
    """The event loop the panel last answered a request on (``None`` before the first)."""

    def __init__(self) -> None:
        self.current: asyncio.AbstractEventLoop | None = None

    def remember_running(self) -> None:
        """The panel answers a request on the running loop: remember it."""
        self.current = asyncio.get_running_loop()

    def call(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` on that loop (see :func:`call_on`)."""
        call_on(self.current, callback)
