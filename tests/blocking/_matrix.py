"""The support matrix's cells and the kernel of one ipykernel series that the matrix tests use."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import zmq

from helpers import venvs
from ipyask.testing import (
    CellAborted,
    Execution,
    FrontendTimeout,
    HeadlessFrontend,
    KernelFrontend,
)

SETUP = """
import asyncio, sys, ipykernel, ipyask
import ipyask._notebook.cell_wait._interruptible as interruptible
from ipyask._notebook import cell_wait
interruptible.PROBE_SECONDS = 2.0
order = []
"""
RESET = "ipyask.default_panel().close()\norder = []"
POKE_EVERY = 3.0
"""Seconds a wait goes without its condition before the front end pokes the kernel."""


class WedgeSafeFrontend(KernelFrontend):
    """A front end whose every wait pokes the kernel now and then while nothing comes.

    ipykernel 7.0–7.3 can leave requests unread on the shell socket for good when one arrives
    while it sends a reply (7.4 fixed this "wedge" in ``_send_on_shell_channel``): a cell that was
    sent never starts, or a view's message is never handled. A message on a new pipe makes the
    shell channel thread read again. ipyask does the same from inside while a question waits;
    this covers the moments between questions, for any wait of a test (a cell, a card, a status).
    Other kernels answer the poke's ``kernel_info_request`` and carry on.
    """

    def wait_for(
        self, predicate: Callable[[], object], *, timeout: float | None = None, what: str = ""
    ) -> None:
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        pokes = 0
        while True:
            remaining = deadline - time.monotonic()
            try:
                super().wait_for(predicate, timeout=max(0.0, min(POKE_EVERY, remaining)), what=what)
                return
            except FrontendTimeout as timeout_error:
                if remaining <= POKE_EVERY:  # the report names the last slice's length only
                    raise FrontendTimeout(
                        f"(the whole wait: {limit:g} s, {pokes} pokes) {timeout_error}"
                    ) from None
                self.poke()
                pokes += 1

    def poke(self) -> None:
        """Send a ``kernel_info_request`` over a new connection."""
        info = self._process.manager.get_connection_info()
        context: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        try:
            sock = context.socket(zmq.DEALER)
            sock.connect(f"{info['transport']}://{info['ip']}:{info['shell_port']}")
            self._session.send(sock, "kernel_info_request", {})
            sock.close(linger=1000)
        finally:
            context.term()


@dataclass(frozen=True)
class Cell:
    """One cell of the support matrix: a kernel series, a front-end mode and a form."""

    series: str
    frontend: str  # "main": comms on the main shell; "subshell": comms over a subshell
    form: str  # "await" or "blocking"

    def __str__(self) -> str:
        return f"{self.series}-{self.frontend}-{self.form}"


CELLS = [
    Cell(series, frontend, form)
    for series in venvs.SERIES
    for frontend in ("main", "subshell")
    for form in ("await", "blocking")
    if not (series == "6.x" and frontend == "subshell")  # ipykernel 6 has no subshells
]


@dataclass
class Kernel:
    """A kernel of one series, with the helpers the matrix tests share."""

    series: str
    python: Path
    fe: KernelFrontend = field(init=False)
    version: str = ""
    subshell_id: str | None = None

    def start(self) -> None:
        self.fe = WedgeSafeFrontend(python=self.python, timeout=20).start()
        self.subshell_id = None
        self.run(SETUP)
        self.version = self.text("print(ipykernel.__version__)")

    def reset(self) -> None:
        """A new default panel (so nothing is known about its views) and an empty ``order``.

        A cell that a failed test left queued may still fail and make the kernel skip this one;
        then it runs again. Should the kernel not answer at all: a fresh kernel for later tests.
        """
        try:
            self.run(RESET)
        except CellAborted:
            self.run(RESET)
        except FrontendTimeout:
            self.fe.close(now=True)
            self.start()
            self.run(RESET)

    def run(self, code: str, *, raise_on_error: bool = True) -> Execution:
        """Run a cell and wait for it (see :meth:`settle`)."""
        return self.settle(self.fe.execute_nowait(code), raise_on_error=raise_on_error)

    def settle(
        self, execution: Execution, timeout: float = 20.0, *, raise_on_error: bool = True
    ) -> Execution:
        """Wait for a cell (the front end pokes the kernel while it stalls)."""
        return execution.wait(timeout, raise_on_error=raise_on_error)

    def view(self, frontend: str) -> HeadlessFrontend:
        """A view of the panels that sends over a subshell when ``frontend == "subshell"``."""
        view = HeadlessFrontend(self.fe, timeout=15)
        if frontend == "subshell":
            if self.subshell_id is None:
                self.subshell_id = self.fe.create_subshell()
            view.subshell_id = self.subshell_id
        return view

    def strategy(self, form: str) -> str:
        """How ipyask helps that form in this kernel (recorded in the matrix)."""
        code = (
            "print(cell_wait.blocking_strategy(cell_wait.current_kernel(), ipyask.default_panel()))"
            if form == "blocking"
            else "print(cell_wait.await_strategy(cell_wait.current_kernel()))"
        )
        return self.text(code)

    def text(self, code: str) -> str:
        return self.run(code).stdout.strip()
