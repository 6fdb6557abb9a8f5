"""``KernelConnection``: a started kernel, its sockets and the message pump.

Synchronous and single-threaded: messages are read whenever a method pumps. Waits block in
``zmq`` poll in slices of at most ``_SLICE`` seconds (to notice a dead kernel), never spin.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import zmq

from .errors import FrontendError, FrontendTimeout, KernelDied, describe_wait
from .launch import KernelProcess
from .wire import Message, msg_type, parent_id

if TYPE_CHECKING:
    import os
    from types import TracebackType

    from jupyter_client.session import Session
    from typing_extensions import Self

_SLICE = 0.25
"""Longest single poll; between slices the connection checks that the kernel still lives."""


class KernelConnection:
    """A kernel process this object starts, owns and shuts down; a context manager.

    Parameters
    ----------
    python
        Python interpreter whose ``ipykernel`` to run; default ``sys.executable``.
    kernel_name
        Run this installed kernel spec instead of ``python``.
    cwd, env
        Working directory of the kernel, and environment variables added to this process's.
    extra_arguments
        Appended to the kernel's command line.
    timeout
        Default timeout in seconds of every wait.
    startup_timeout
        Seconds the kernel has to answer ``kernel_info_request`` after launch.
    log_size
        How many recent iopub messages ``iopub_log`` keeps.
    """

    def __init__(
        self,
        *,
        python: str | os.PathLike[str] | None = None,
        kernel_name: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        extra_arguments: Sequence[str] = (),
        timeout: float = 30.0,
        startup_timeout: float = 60.0,
        log_size: int = 10_000,
    ) -> None:
        self.timeout = timeout
        """Default timeout in seconds of every wait."""
        self.kernel_info: dict[str, Any] = {}
        """Content of the kernel's ``kernel_info_reply``, once started."""
        self.execution_state = "unknown"
        """Last ``execution_state`` the kernel published (``busy``, ``idle``, ...)."""
        self.iopub_log: deque[Message] = deque(maxlen=log_size)
        """The most recent iopub messages, oldest first."""
        self._startup_timeout = startup_timeout
        self._process = KernelProcess(
            python=python,
            kernel_name=kernel_name,
            cwd=cwd,
            env=env,
            extra_arguments=extra_arguments,
        )
        self._session: Session = self._process.manager.session
        self._context: zmq.Context[zmq.Socket[bytes]] | None = None
        self._sockets: dict[str, zmq.Socket[bytes]] = {}
        self._poller = zmq.Poller()
        self._watchers: dict[str, Callable[[Message], object]] = {}
        self._replies: dict[str, Message] = {}
        self._started = False
        self._closed = False

    # ----------------------------------------------------------------- lifecycle

    def start(self) -> Self:
        """Launch the kernel and wait until it answers; return ``self``."""
        if self._started:
            return self
        self._started = True
        try:
            self._process.start()
            self._context = zmq.Context()
            self._sockets = self._process.connect(self._context)
            for sock in self._sockets.values():
                self._poller.register(sock, zmq.POLLIN)
            self.kernel_info = self._wait_ready()
        except BaseException:
            self.close(now=True)
            raise
        return self

    def close(self, *, now: bool = False) -> None:
        """Shut the kernel down (politely unless ``now``) and release every resource."""
        if self._closed:
            return
        self._closed = True
        try:
            self._process.shutdown(now=now)
        finally:
            for sock in self._sockets.values():
                sock.close(linger=0)
            self._sockets.clear()
            if self._context is not None:
                self._context.term()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def kernel_pid(self) -> int | None:
        """Process id of the kernel."""
        return self._process.pid

    def kernel_log(self) -> str:
        """The end of what the kernel process wrote to its stdout and stderr."""
        return self._process.log_tail()

    def interrupt(self) -> None:
        """Interrupt the kernel (``SIGINT`` or ``interrupt_request``, as its spec says)."""
        self._process.interrupt()

    def restart(self, *, now: bool = False) -> None:
        """Restart the kernel through its kernel manager (a new process on the same ports, as
        *Restart kernel* in a front end) and wait until the new kernel answers.

        Replies still awaited from the old kernel are dropped: it will not send them.
        """
        self._process.restart(now=now)
        self._watchers.clear()
        self._replies.clear()
        self.execution_state = "unknown"
        self.kernel_info = self._wait_ready()

    # ----------------------------------------------------------------- messaging

    def send(
        self,
        channel: str,
        msg_type: str,
        content: dict[str, Any],
        *,
        subshell_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        buffers: Sequence[bytes] | None = None,
    ) -> str:
        """Send a message on ``"shell"`` or ``"control"``; return its ``msg_id``.

        With ``subshell_id`` the header names that subshell, as JupyterLab ≥ 4.4 does.
        """
        if channel not in ("shell", "control"):
            raise ValueError(f"cannot send on {channel!r}; use 'shell' or 'control'")
        if not self._sockets:
            raise FrontendError("not connected: call start() or use `with` first")
        msg = self._session.msg(msg_type, content, metadata=metadata)
        if subshell_id is not None:
            msg["header"]["subshell_id"] = subshell_id
        self._session.send(self._sockets[channel], msg, buffers=list(buffers or []))
        return str(msg["header"]["msg_id"])

    def request(
        self,
        msg_type: str,
        content: dict[str, Any] | None = None,
        *,
        channel: str = "shell",
        subshell_id: str | None = None,
        timeout: float | None = None,
    ) -> Message:
        """Send a request (e.g. ``"comm_info_request"``) and wait for its reply."""
        msg_id = self.send(channel, msg_type, content or {}, subshell_id=subshell_id)
        self.wait_for(lambda: msg_id in self._replies, timeout=timeout, what=f"{msg_type} reply")
        return self._replies.pop(msg_id)

    def pump(self, timeout: float = 0.0) -> int:
        """Process received messages; if there are none, wait up to ``timeout`` s for some.

        Returns how many messages were processed.
        """
        count = self._drain()
        if count or timeout <= 0 or not self._sockets:
            return count
        if self._poller.poll(round(timeout * 1000)):
            count = self._drain()
        return count

    def wait_for(
        self, predicate: Callable[[], object], *, timeout: float | None = None, what: str = ""
    ) -> None:
        """Pump messages until ``predicate()`` is true.

        Raises
        ------
        FrontendTimeout
            Not true within ``timeout`` seconds (default ``self.timeout``); the message names
            ``what`` and shows the kernel's last iopub messages and log.
        KernelDied
            The kernel process exited first.
        """
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        self.pump()
        while not predicate():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                headline = f"timed out after {limit:g} s waiting for"
                raise FrontendTimeout(self._report(headline, what))
            if not self.pump(min(remaining, _SLICE)) and not self._process.is_alive():
                self.pump()
                if predicate():
                    return
                raise KernelDied(self._report("the kernel died while waiting for", what))

    # ----------------------------------------------------------------- for subclasses

    def _watch(self, msg_id: str, handler: Callable[[Message], object]) -> None:
        """Give ``handler`` every later message (iopub or reply) whose parent is ``msg_id``."""
        self._watchers[msg_id] = handler

    def _handle_iopub(self, msg: Message) -> None:
        """Called with every iopub message, before any watcher."""

    # ----------------------------------------------------------------- internals

    def _wait_ready(self) -> dict[str, Any]:
        """Send ``kernel_info_request`` until its reply and its iopub status both arrive.

        An iopub subscription takes a moment to reach the kernel; what it publishes before
        is lost, hence the retries.
        """
        deadline = time.monotonic() + self._startup_timeout
        while True:
            reply = self._probe(max(0.0, min(1.0, deadline - time.monotonic())))
            if reply is not None:
                return reply
            if time.monotonic() >= deadline:
                raise FrontendTimeout(self._report("the kernel did not answer", "kernel_info"))

    def _probe(self, timeout: float) -> dict[str, Any] | None:
        msg_id = self.send("shell", "kernel_info_request", {})
        seen: dict[str, Message] = {}
        self._watch(msg_id, lambda msg: seen.setdefault(msg["channel"], msg))
        try:
            self.wait_for(lambda: len(seen) == 2, timeout=timeout, what="kernel_info")
        except FrontendTimeout:
            return None
        finally:
            self._watchers.pop(msg_id, None)
        return seen["shell"]["content"]

    def _drain(self) -> int:
        # One poll tells whether any socket has a message; receiving from each socket in turn
        # to find out costs an exception per empty socket, and a pump runs on every read.
        if not self._sockets or not self._poller.poll(0):
            return 0
        count = 0
        for channel, sock in self._sockets.items():
            while True:
                _, raw = self._session.recv(sock, mode=zmq.NOBLOCK)
                if raw is None:
                    break
                self._dispatch(channel, raw)
                count += 1
        return count

    def _dispatch(self, channel: str, raw: dict[str, Any]) -> None:
        msg = Message(
            header=raw["header"],
            parent_header=raw["parent_header"],
            metadata=raw["metadata"],
            content=raw["content"],
            buffers=[bytes(b) for b in raw.get("buffers", [])],
            channel=channel,
        )
        parent = parent_id(msg)
        watcher = self._watchers.get(parent) if parent else None
        if channel == "iopub":
            self.iopub_log.append(msg)
            if msg_type(msg) == "status":
                self.execution_state = str(msg["content"].get("execution_state"))
            self._handle_iopub(msg)
        elif watcher is None and parent is not None:
            self._replies[parent] = msg
        if watcher is not None:
            watcher(msg)

    def _report(self, headline: str, what: str) -> str:
        recent = list(self.iopub_log)[-8:]
        return describe_wait(headline, what, self.execution_state, recent, self.kernel_log())
