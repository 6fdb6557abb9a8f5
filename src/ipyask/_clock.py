"""Time for deadlines: the event loop's clock by default, a manual clock in tests."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
import time
from collections.abc import Callable
from typing import Protocol

__all__ = [
    "Clock",
    "LoopClock",
    "ManualClock",
    "ThreadClock",
    "TimerHandle",
    "call_on_loop",
    "drain_loop",
]


class TimerHandle(Protocol):
    """A scheduled callback that can be cancelled."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """Milliseconds and timers. All deadlines in ipyask are read from one of these."""

    def now_ms(self) -> float:
        """The current time in milliseconds (monotonic; only differences matter)."""
        ...

    def call_later(self, delay_ms: float, callback: Callable[[], object]) -> TimerHandle:
        """Run ``callback`` once, ``delay_ms`` from now, on the event loop thread."""
        ...


class LoopClock:
    """The running event loop's clock and timers."""

    def now_ms(self) -> float:
        try:
            return asyncio.get_running_loop().time() * 1000.0
        except RuntimeError:
            return time.monotonic() * 1000.0

    def call_later(self, delay_ms: float, callback: Callable[[], object]) -> TimerHandle:
        return asyncio.get_running_loop().call_later(max(0.0, delay_ms) / 1000.0, callback)


class ThreadClock:
    """Monotonic time and timers on threads of their own: for code that runs off any event loop
    (a store's listening thread, a watch that waits on a store)."""

    def now_ms(self) -> float:
        return time.monotonic() * 1000.0

    def call_later(self, delay_ms: float, callback: Callable[[], object]) -> TimerHandle:
        timer = threading.Timer(max(0.0, delay_ms) / 1000.0, callback)
        timer.daemon = True
        timer.start()
        return timer


class _ManualTimer:
    def __init__(self, clock: ManualClock, due: float, callback: Callable[[], object]) -> None:
        self.clock = clock
        self.due = due
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock that moves only when told to: deterministic tests of deadlines.

    ``advance(ms)`` runs every timer that falls due, in due order, with :meth:`now_ms` reading
    each timer's due time while it runs.
    """

    def __init__(self, start_ms: float = 0.0) -> None:
        self._now = start_ms
        self._lock = threading.Lock()
        self._order = itertools.count()
        self._timers: list[tuple[float, int, _ManualTimer]] = []

    def now_ms(self) -> float:
        return self._now

    def call_later(self, delay_ms: float, callback: Callable[[], object]) -> TimerHandle:
        timer = _ManualTimer(self, self._now + max(0.0, delay_ms), callback)
        with self._lock:
            heapq.heappush(self._timers, (timer.due, next(self._order), timer))
        return timer

    @property
    def pending(self) -> list[float]:
        """Due times of the timers still armed."""
        with self._lock:
            return sorted(t.due for _, _, t in self._timers if not t.cancelled)

    def advance(self, ms: float) -> None:
        """Move time forward by ``ms``, running the timers that fall due on the way."""
        self.advance_to(self._now + ms)

    def advance_to(self, target_ms: float) -> None:
        """Move time to ``target_ms`` (never backwards), running due timers in order."""
        while True:
            with self._lock:
                if not self._timers or self._timers[0][0] > target_ms:
                    break
                _, _, timer = heapq.heappop(self._timers)
            if timer.cancelled:
                continue
            self._now = max(self._now, timer.due)
            timer.callback()
        self._now = max(self._now, target_ms)


def call_on_loop(loop: asyncio.AbstractEventLoop, callback: Callable[[], object]) -> None:
    """Run ``callback`` on ``loop``'s thread: now when already there, else thread-safely."""
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop or not loop.is_running():
        callback()
    else:
        loop.call_soon_threadsafe(callback)


async def drain_loop(rounds: int = 20) -> None:
    """Let the callbacks and tasks that are ready on the running loop run (tests with a
    :class:`ManualClock`: advance the clock, then drain, then assert)."""
    for _ in range(rounds):
        await asyncio.sleep(0)
