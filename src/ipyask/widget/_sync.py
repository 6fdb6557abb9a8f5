"""Deferred state syncs: card changes reach views as small ``cards`` messages at once, and the
state entries they touched follow a moment later, once for a burst of changes.

The state stays the truth: it is what a new front end receives, what a saved notebook keeps,
and what repairs a view that missed a message.
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from .._clock import Clock, TimerHandle

if TYPE_CHECKING:
    from collections.abc import Callable

    import ipywidgets

__all__ = ["FULL_SYNC_DELAY_MS", "HeldSync"]

FULL_SYNC_DELAY_MS = 500.0
"""How long the state may lag behind the ``cards`` messages."""


class HeldSync:
    """Holds a widget's state syncs (``Widget.hold_sync``) until a timer on ``clock`` fires."""

    def __init__(
        self,
        widget: ipywidgets.Widget,
        clock: Clock,
        delay_ms: float = FULL_SYNC_DELAY_MS,
        *,
        before_release: Callable[[], object] | None = None,
    ) -> None:
        self._widget = widget
        self._before_release = before_release
        self._clock = clock
        self._delay_ms = delay_ms
        self._lock = threading.RLock()
        self._held: AbstractContextManager[None] | None = None
        self._timer: TimerHandle | None = None

    def hold(self) -> bool:
        """Hold state syncs from now until the timer fires; ``False`` when they cannot be held
        (no front end to send to, or no event loop to run the timer)."""
        with self._lock:
            if self._held is not None:
                return True
            if self._widget.comm is None:
                return False
            try:
                timer = self._clock.call_later(self._delay_ms, self.release)
            except RuntimeError:  # no running event loop: nothing would release the hold
                return False
            held = self._widget.hold_sync()
            held.__enter__()
            self._held, self._timer = held, timer
            return True

    def add(self, names: list[str]) -> None:
        """Send the state entries ``names`` with the held sync (call while holding)."""
        with self._lock:
            if self._held is not None:
                # ipywidgets sends the names its hold collected when the hold ends.
                self._widget._states_to_send.update(names)
            else:
                self._widget.send_state(names)

    def release(self) -> None:
        """Send the held state now (nothing when nothing is held), after ``before_release()``
        (the widget sends the card changes it holds)."""
        if self._before_release is not None:
            self._before_release()
        with self._lock:
            held, timer = self._held, self._timer
            self._held = self._timer = None
            if timer is not None:
                timer.cancel()
            if held is not None:
                held.__exit__(None, None, None)
