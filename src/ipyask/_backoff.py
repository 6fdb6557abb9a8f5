"""Retrying after a store fault: bounded exponential backoff, timed by an injectable clock.

A lost database connection, a restarting server or a locked file is retried by itself: the first
retry soon, each next one twice as late, never later than :attr:`Backoff.most_ms`, back to the
first delay after a success. The delays run on a :class:`~ipyask._clock.Clock`, so tests drive
them with a :class:`~ipyask._clock.ManualClock` instead of waiting.
"""

from __future__ import annotations

import threading

from ._clock import Clock

__all__ = ["Backoff", "Pause"]


class Backoff:
    """Delays between retries: ``first_ms``, doubling, capped at ``most_ms``."""

    def __init__(self, first_ms: float = 100.0, most_ms: float = 5_000.0) -> None:
        if not 0 < first_ms <= most_ms:
            raise ValueError(f"expected 0 < first_ms <= most_ms, got {first_ms}, {most_ms}")
        self.first_ms = first_ms
        self.most_ms = most_ms
        self._next = first_ms

    def next_ms(self) -> float:
        """The delay before the next retry (each call doubles the one after, up to the cap)."""
        delay = self._next
        self._next = min(self._next * 2, self.most_ms)
        return delay

    def reset(self) -> None:
        """A retry succeeded: the next fault starts again from ``first_ms``."""
        self._next = self.first_ms


class Pause:
    """Lets a thread sleep on ``clock`` until a delay passes, unless :meth:`wake` ends it."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._changed = threading.Condition()
        self._woken = False

    def sleep(self, delay_ms: float) -> bool:
        """Sleep ``delay_ms``; ``False`` when woken (at once, if it was woken before)."""
        due: list[bool] = []

        def ring() -> None:
            with self._changed:
                due.append(True)
                self._changed.notify_all()

        with self._changed:
            if self._woken:
                return False
        timer = self._clock.call_later(delay_ms, ring)
        with self._changed:
            self._changed.wait_for(lambda: bool(due) or self._woken)
            woken = self._woken
        timer.cancel()
        return not woken

    def wake(self) -> None:
        """End the current and every later :meth:`sleep` (from any thread)."""
        with self._changed:
            self._woken = True
            self._changed.notify_all()
