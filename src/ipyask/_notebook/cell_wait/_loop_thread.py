"""ipyask's loop thread: a private event loop on a daemon thread, where blocking calls run asks.

A blocking call cannot run a coroutine on its own thread when that thread's loop is busy (a
notebook cell runs inside the kernel's loop) or absent (plain Python). It starts a :class:`Job`
on this loop instead and waits for it on a ``threading.Event`` in short slices. The loop lives as
long as the process (continued cards, claim watchdogs and late-answer timers keep using it) and
is stopped and closed at interpreter exit.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

__all__ = ["Job", "ipyask_loop", "new_job"]

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None


class Job(Generic[T]):
    """A coroutine running on the ipyask loop, waited for from another thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.done = threading.Event()
        """Set once the coroutine finished, however it finished."""
        self._task: asyncio.Task[None] | None = None
        self._value: T | None = None
        self._error: BaseException | None = None
        self._cancelled = False

    def start(self, make: Callable[[], Awaitable[T]]) -> None:
        """Run ``make()`` on the loop (from any thread); returns at once."""
        self.loop.call_soon_threadsafe(self._start, make)

    def _start(self, make: Callable[[], Awaitable[T]]) -> None:
        if self._cancelled:
            self._finish(None, asyncio.CancelledError())
            return
        self._task = asyncio.ensure_future(self._run(make))

    async def _run(self, make: Callable[[], Awaitable[T]]) -> None:
        # The outcome is kept, never raised out of the task: the waiting thread reads it.
        try:
            value = await make()
        except BaseException as error:  # handed to the waiting thread
            self._finish(None, error)
        else:
            self._finish(value, None)

    def _finish(self, value: T | None, error: BaseException | None) -> None:
        self._value, self._error = value, error
        self.done.set()

    def cancel(self) -> None:
        """Cancel the coroutine (from any thread); :attr:`done` is set once it has unwound."""

        def on_loop() -> None:
            self._cancelled = True
            if self._task is not None:
                self._task.cancel()
            elif not self.done.is_set():  # never started
                self._finish(None, asyncio.CancelledError())

        try:
            self.loop.call_soon_threadsafe(on_loop)
        except RuntimeError:  # the loop was closed at exit
            self._finish(None, asyncio.CancelledError())

    def result(self) -> T:
        """The coroutine's value, or its exception raised; only once :attr:`done` is set."""
        if not self.done.is_set():
            raise RuntimeError("the job has not finished")
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]


def ipyask_loop() -> asyncio.AbstractEventLoop:
    """The ipyask loop, started on first use."""
    global _loop, _thread
    with _lock:
        if _loop is not None and _thread is not None and _thread.is_alive():
            return _loop
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)
            loop.run_forever()

        thread = threading.Thread(target=run, name="ipyask-loop", daemon=True)
        thread.start()
        ready.wait()
        _loop, _thread = loop, thread
        return loop


def new_job() -> Job[Any]:
    """A job on the ipyask loop, not started yet: keep it before :meth:`Job.start`, so that an
    interrupt arriving meanwhile can still cancel it."""
    return Job(ipyask_loop())


@atexit.register
def _stop() -> None:
    global _loop, _thread
    with _lock:
        loop, thread = _loop, _thread
        _loop = _thread = None
    if loop is None or thread is None or loop.is_closed():
        return

    def cancel_all() -> None:
        for task in asyncio.all_tasks(loop):
            task.cancel()
        loop.call_soon(loop.stop)

    loop.call_soon_threadsafe(cancel_all)
    thread.join(timeout=2.0)
    if not thread.is_alive():
        loop.close()
