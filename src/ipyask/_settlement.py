"""``Settlement``: a one-shot result an answerer awaits, settled from any thread."""

from __future__ import annotations

import asyncio
import threading
from asyncio.events import _get_running_loop  # None off a loop, no raise
from collections.abc import Callable, Generator
from contextvars import Context, copy_context
from typing import Any, Generic, TypeVar

from ._answered_by import AnsweredBy, Answerer, Attribution
from ._clock import call_on_loop

__all__ = ["Settlement"]

T = TypeVar("T")

_Callbacks = tuple[tuple[Callable[[asyncio.Future[T]], object], Context | None], ...]

_LOCK = threading.Lock()
"""One lock decides every settlement's winner (held for a flag test only): a lock per pending
question would cost more memory than the contention it saves."""


class Settlement(Generic[T]):
    """Awaited on the event loop that created it; settled once, from any thread.

    Comm handlers may run on a subshell thread, where touching an asyncio future directly is
    unsafe: :meth:`resolve` and :meth:`reject` decide the winner under a lock at once and wake
    the loop thread-safely. The first settlement wins; later ones return ``False``.
    """

    __slots__ = ("_by", "_callbacks", "_future", "_loop", "_settled")

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        # Made when first needed (awaited, settled, cancelled): a settlement that only has
        # callbacks holds no future (and its callback) while it is pending.
        self._future: asyncio.Future[T] | None = None
        self._settled = False
        # A tuple, replaced on each add: most settlements get one callback (a list would hold
        # room for more).
        self._callbacks: _Callbacks[T] | None = None
        self._by: Answerer | None = None

    def _outcome(self) -> asyncio.Future[T]:
        future = self._future
        if future is None:
            future = self._future = self._loop.create_future()
            if self._callbacks is not None:
                future.add_done_callback(self._run_callbacks)
        return future

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The event loop that awaits this settlement."""
        return self._loop

    @property
    def settled(self) -> bool:
        """Whether a result or an error was accepted."""
        return self._settled

    @property
    def answered_by(self) -> AnsweredBy | None:
        """Who settled it, when, through which door, having seen which card (the winner's
        record; made when first read, if the winner gave what it is made from)."""
        by = self._by
        return by.record() if isinstance(by, Attribution) else by

    @property
    def answerer(self) -> Answerer | None:
        """Who settled it and through which door, without making its record."""
        return self._by

    def _claim(self, by: Answerer | None) -> bool:
        with _LOCK:
            if self._settled:
                return False
            self._settled = True
            self._by = by
            return True

    def resolve(self, value: T, by: Answerer | None = None) -> bool:
        """Settle with ``value`` (``by``: who settled it); returns whether this call won."""
        if not self._claim(by):
            return False

        def settle() -> None:
            future = self._outcome()
            if not future.done():
                # The callbacks run at once: no loop turn before the answer, and none after it
                # for the future's own call of them (it would find none left).
                future.remove_done_callback(self._run_callbacks)
                future.set_result(value)
                self._run_callbacks(future)

        if _get_running_loop() is self._loop:  # (what call_on_loop checks first, inline)
            settle()
        else:
            call_on_loop(self._loop, settle)
        return True

    def reject(self, error: BaseException, by: Answerer | None = None) -> bool:
        """Settle with ``error`` (``by``: who ended it); returns whether this call won."""
        if not self._claim(by):
            return False

        def settle() -> None:
            future = self._outcome()
            if not future.done():
                future.set_exception(error)

        call_on_loop(self._loop, settle)
        return True

    def add_done_callback(
        self, callback: Callable[[asyncio.Future[T]], object], *, keep_context: bool = True
    ) -> None:
        """Call ``callback(future)`` on the loop once settled (or cancelled), in the current
        context; the future holds the result or the error. ``keep_context=False``: in the
        context it is settled in instead (no copy of the current one is held meanwhile).

        A result runs the callbacks at once (in :meth:`resolve` on the loop's thread, else when
        the loop takes it); an error or a cancel a loop turn later, as an awaiting task sees them.
        """
        callbacks = self._callbacks
        if callbacks is None:
            callbacks = ()
            if self._future is not None:
                self._future.add_done_callback(self._run_callbacks)
        self._callbacks = (*callbacks, (callback, copy_context() if keep_context else None))

    def _run_callbacks(self, future: asyncio.Future[T]) -> None:
        callbacks, self._callbacks = self._callbacks, None
        for callback, context in callbacks or ():
            if context is None:
                callback(future)
            else:
                context.run(callback, future)

    def cancel(self) -> None:
        """Stop waiting: the awaiting side gets ``CancelledError`` (later settlements still
        return whether they won, and change nothing)."""
        self._outcome().cancel()

    def __await__(self) -> Generator[Any, None, T]:
        return self._outcome().__await__()
