"""ipykernel 6.x: process the kernel's message queue while a cell waits, replay queued cells after.

ipykernel 6 handles shell messages one at a time from ``kernel.msg_queue``; a waiting cell holds
that queue, so the panel's answer would wait behind it. While a cell waits, :class:`Pump` takes
messages off the queue itself (``kernel.do_one_iteration()``): comm messages are handled at once,
and ``execute_request`` messages (cells queued behind the waiting one, e.g. by *Run All*) are
recorded by :class:`Capture` and replayed, in order, right after the waiting cell ends.

Only on kernels with every private name used here (``can_pump``); ipykernel 7 has none of them
(the other kernels are told in :mod:`ipyask._notebook.cell_wait`).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import signal
import sys
import threading
from typing import Any, ClassVar

__all__ = ["Capture", "Pump", "can_pump"]

log = logging.getLogger("ipyask")

SLICE = 0.1
"""Longest wait, in seconds, between two looks at the shell queue (a message on the shell
socket ends the wait of a blocked cell's pump at once)."""

_NEEDED = (
    "do_one_iteration",
    "schedule_dispatch",
    "msg_queue",
    "shell_stream",
    "set_parent",
    "get_parent",
    "_publish_status",
)


def can_pump(kernel: Any) -> bool:
    """Whether ``kernel`` has the ipykernel 6 message queue this module drives."""
    handlers = getattr(kernel, "shell_handlers", None)
    return (
        getattr(kernel, "shell_channel_thread", None) is None
        and all(hasattr(kernel, name) for name in _NEEDED)
        and isinstance(handlers, dict)
        and "execute_request" in handlers
        and hasattr(getattr(kernel, "msg_queue", None), "qsize")
    )


class _Parent:
    """The shell parent of the waiting cell, restored after each pumped message."""

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel
        idents = getattr(kernel, "_parent_ident", None)
        self.ident = idents.get("shell", b"") if isinstance(idents, dict) else b""
        self.message = kernel.get_parent("shell")
        self.sigint = getattr(kernel, "saved_sigint_handler", None)

    @property
    def in_cell(self) -> bool:
        header = self.message.get("header", {}) if isinstance(self.message, dict) else {}
        return isinstance(header, dict) and header.get("msg_type") == "execute_request"

    def restore(self) -> None:
        self.kernel.set_parent(self.ident, self.message, "shell")
        if self.sigint is not None:
            self.kernel.saved_sigint_handler = self.sigint


async def _drain(kernel: Any, parent: _Parent) -> None:
    """Handle every message waiting on the shell socket or queue, one at a time."""
    while True:
        on_main = threading.current_thread() is threading.main_thread()
        handler = signal.getsignal(signal.SIGINT) if on_main else None
        try:
            await kernel.do_one_iteration()
        finally:
            parent.restore()
            if handler is not None:
                signal.signal(signal.SIGINT, handler)
        if not kernel.msg_queue.qsize():
            return


class Pump:
    """Processes the kernel's shell messages while the main thread waits.

    ``start()`` runs a helper thread (for a blocked main thread; comm handlers then run on it);
    a cell that awaits calls :meth:`drain` on the running loop between short waits instead.
    """

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel
        self.parent = _Parent(kernel)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="ipyask-pump", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.parent.restore()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        socket = self.kernel.shell_stream.socket
        try:
            while not self._stop.is_set():
                loop.run_until_complete(_drain(self.kernel, self.parent))
                if not self.kernel.msg_queue.qsize():
                    socket.poll(round(SLICE * 1000))
        except Exception:
            log.exception("ipyask: pumping the kernel's messages failed")
        finally:
            loop.close()

    async def drain(self) -> None:
        """Handle what is waiting now, on the running loop (for a cell that awaits)."""
        await _drain(self.kernel, self.parent)


class Capture:
    """Records queued cell executions while a cell waits; replays them after it, in order.

    One per kernel (``Capture.of(kernel)``); nested waits share it. When the cell ends
    (``post_run_cell``) the replay is put on ipykernel's own queue, behind that cell and ahead of
    anything arriving later; the recorder stays installed until the replay starts, so cells that
    arrive meanwhile are recorded behind the others and nothing overtakes.
    """

    _instances: ClassVar[dict[int, Capture]] = {}

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel
        self.depth = 0
        self.captured: list[tuple[Any, Any, Any]] = []
        self._original: Any = None
        self._scheduled = False
        self._events: Any = None

    @classmethod
    def of(cls, kernel: Any) -> Capture:
        found = cls._instances.get(id(kernel))
        if found is None or found.kernel is not kernel:
            found = cls._instances[id(kernel)] = cls(kernel)
        return found

    def enter(self) -> None:
        """A wait starts: record ``execute_request`` messages from now on."""
        if self._original is None:
            self._original = self.kernel.shell_handlers["execute_request"]
            self.kernel.shell_handlers["execute_request"] = self._record
            events = getattr(getattr(self.kernel, "shell", None), "events", None)
            if events is not None:
                events.register("post_run_cell", self._after_cell)
                self._events = events
        self.depth += 1

    def exit(self, cell_running: bool) -> None:
        """A wait ended; ``cell_running``: its cell goes on (the replay waits for its end)."""
        self.depth -= 1
        if self.depth or self._scheduled:
            return
        if not self.captured:
            self._uninstall()
        elif not cell_running or self._events is None:
            self._schedule()

    def _record(self, stream: Any, ident: Any, parent: Any) -> None:
        self.captured.append((stream, ident, parent))

    def _after_cell(self, *_: object) -> None:
        if self.captured and not self._scheduled:
            self._schedule()

    def _schedule(self) -> None:
        self._scheduled = True
        self.kernel.schedule_dispatch(self._replay)

    def _uninstall(self) -> None:
        handlers = self.kernel.shell_handlers
        if self._original is not None and handlers.get("execute_request") == self._record:
            handlers["execute_request"] = self._original
        self._original = None
        if self._events is not None:
            self._events.unregister("post_run_cell", self._after_cell)
            self._events = None

    async def _replay(self) -> None:
        # Runs from ipykernel's queue once the waiting cell has ended. Any wait still going on
        # belongs to a task that outlived its cell and no longer pumps: stop recording now.
        self._scheduled = False
        original = self._original or self.kernel.shell_handlers["execute_request"]
        batch, self.captured = self.captured, []
        self._uninstall()
        for stream, ident, parent in batch:
            await self._execute(original, stream, ident, parent)

    async def _execute(self, handler: Any, stream: Any, ident: Any, parent: Any) -> None:
        # What ipykernel 6's dispatch_shell does for an execute_request it takes off its queue.
        kernel = self.kernel
        kernel.set_parent(ident, parent, "shell")
        if getattr(kernel, "_aborting", False) and hasattr(kernel, "_send_abort_reply"):
            kernel._send_abort_reply(stream, parent, ident)  # an earlier cell failed
            kernel._publish_status("idle", "shell")
            return
        kernel._publish_status("busy", "shell")
        try:
            kernel.pre_handler_hook()
        except Exception:
            log.debug("ipyask: pre_handler_hook failed", exc_info=True)
        try:
            result = handler(stream, ident, parent)
            if inspect.isawaitable(result):
                await result
        except Exception:
            log.exception("ipyask: replaying a queued cell failed")
        except KeyboardInterrupt:
            log.error("ipyask: KeyboardInterrupt while replaying a queued cell")
        finally:
            try:
                kernel.post_handler_hook()
            except Exception:
                log.debug("ipyask: post_handler_hook failed", exc_info=True)
        for stream_out in (sys.stdout, sys.stderr):
            if stream_out is not None:
                stream_out.flush()
        kernel._publish_status("idle", "shell")
