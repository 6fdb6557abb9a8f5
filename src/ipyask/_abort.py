"""``AbortController`` / ``AbortSignal``: cancellation of one request, wait or turn.

Modelled on the web platform's classes. A controller created while an event loop runs is bound
to that loop: ``abort()`` called from another thread (a comm handler on a subshell thread, a worker)
records the abort at once and runs the listeners on the loop thread.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

from .errors import AbortError

__all__ = ["AbortController", "AbortError", "AbortSignal"]

AbortListener = Callable[[], object]


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class AbortSignal:
    """Tells whether an operation was aborted, why, and whom to notify."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._aborted = False
        self._reason: BaseException | None = None
        self._listeners: list[AbortListener] = []

    @property
    def aborted(self) -> bool:
        """Whether the signal was aborted."""
        return self._aborted

    @property
    def reason(self) -> BaseException | None:
        """The abort reason, or ``None`` while not aborted."""
        return self._reason

    def throw_if_aborted(self) -> None:
        """Raise the abort reason if the signal was aborted."""
        if self._aborted and self._reason is not None:
            raise self._reason

    def add_listener(self, listener: AbortListener) -> Callable[[], None]:
        """Call ``listener()`` once when the signal aborts; returns a function that removes it.

        A listener added to an already aborted signal is not called: check :attr:`aborted`.
        """
        with self._lock:
            if not self._aborted:
                self._listeners.append(listener)
        return lambda: self.remove_listener(listener)

    def remove_listener(self, listener: AbortListener) -> None:
        """Forget ``listener`` (by identity); unknown listeners are ignored."""
        with self._lock:
            for index, known in enumerate(self._listeners):
                if known is listener:
                    del self._listeners[index]
                    return

    async def wait(self) -> BaseException | None:
        """Wait until the signal aborts; returns the reason."""
        if self._aborted:
            return self._reason
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not future.done():
                future.set_result(None)

        remove = self.add_listener(wake)
        try:
            if not self._aborted:
                await future
        finally:
            remove()
        return self._reason

    @classmethod
    def any(cls, signals: list[AbortSignal]) -> AbortSignal:
        """A signal that aborts as soon as one of ``signals`` does, with its reason."""
        controller = AbortController()
        for signal in signals:
            if signal.aborted:
                controller.abort(signal.reason)
                return controller.signal
        for signal in signals:
            signal.add_listener(_forward(signal, controller))
        return controller.signal

    def _abort(self, reason: BaseException) -> bool:
        with self._lock:
            if self._aborted:
                return False
            self._aborted = True
            self._reason = reason
            listeners, self._listeners = self._listeners, []
        loop = self._loop
        if loop is not None and loop.is_running() and _running_loop() is not loop:
            loop.call_soon_threadsafe(_notify, listeners)
        else:
            _notify(listeners)
        return True

    def __repr__(self) -> str:
        state = f"aborted, reason={self._reason!r}" if self._aborted else "live"
        return f"<AbortSignal {state}>"


def _forward(source: AbortSignal, target: AbortController) -> AbortListener:
    return lambda: target.abort(source.reason)


def _notify(listeners: list[AbortListener]) -> None:
    # One failing listener must not keep the others from hearing about the abort.
    for listener in listeners:
        try:
            listener()
        except Exception:
            logging.getLogger("ipyask").exception("an abort listener failed")


class AbortController:
    """Owns an :class:`AbortSignal` and aborts it."""

    def __init__(self) -> None:
        self._signal = AbortSignal(_running_loop())

    @property
    def signal(self) -> AbortSignal:
        """The controlled signal."""
        return self._signal

    def abort(self, reason: BaseException | None = None) -> bool:
        """Abort the signal with ``reason`` (default :class:`AbortError`); idempotent.

        Returns whether this call aborted it. Safe to call from any thread.
        """
        return self._signal._abort(reason if reason is not None else AbortError())

    def __repr__(self) -> str:
        return f"<AbortController {self._signal!r}>"
