"""The two forms a cell waits in, helped: a blocking call and a top-level ``await``.

:class:`CellWait` picks the strategy for the running kernel (:mod:`._strategy`; the kernels and
their strategies are told in :mod:`ipyask._notebook.cell_wait`), shows the panel, and waits in
slices that an interrupt can end (:mod:`._interruptible`). Ctrl-C / a kernel interrupt ends the
wait with ``ASK_ABORTED`` (the card is marked cancelled). Outside a kernel, or on another thread
than the kernel's main one, it just waits; in a running marimo cell it fails at once
(:mod:`._marimo`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ._blocking_unsupported import main_shell_error, unsupported_kernel
from ._front_ends import SENDS_ON_MAIN_SHELL, detect_host
from ._interruptible import await_in_slices, block_on_job
from ._ipykernel6_pump import Capture, Pump
from ._kernel import cell_of_ask, current_kernel, on_main_thread, track_cells
from ._marimo import marimo_error, waits_in_marimo_cell
from ._strategy import await_strategy, blocking_strategy
from ._subshells import (
    PanelComm,
    SubshellProbe,
    probe_of,
    route_to_owned_subshell,
    shell_unsticker,
)

__all__ = ["CellWait"]

T = TypeVar("T")

if (_kernel := current_kernel()) is not None:
    track_cells(_kernel)  # so that tasks a cell starts to ask are known as the cell's


def _sends_on_main_shell(probe: SubshellProbe) -> bool:
    """Whether the panel's front end is known to send on the main shell: its latest view message
    came so, or, before any, the host is one whose front end always does (VS Code, Colab)."""
    if probe.last is not None:
        return probe.last == "main"
    return detect_host().name in SENDS_ON_MAIN_SHELL


class CellWait:
    """Helps a cell wait for an answer that comes from a question panel.

    ``panel()`` returns that panel (it may make it on first use; it is called only inside a
    kernel); ``show()`` shows the questions in the running cell's output (once per cell: the
    panel, or a view of the panel's questions whose messages are routed as the panel's are).
    """

    def __init__(self, panel: Callable[[], PanelComm], show: Callable[[], None]) -> None:
        self._panel = panel
        self._show = show

    def run_blocking(self, make: Callable[[], Awaitable[T]]) -> T:
        """Run the ask ``make()`` on ipyask's loop thread and block until it ends.

        Raises :class:`~ipyask.errors.BlockingUnsupportedError` where the kernel cannot deliver the
        panel's answer while this thread blocks.
        """
        if waits_in_marimo_cell("blocking"):
            raise marimo_error("ipyask.ask_blocking")
        kernel = current_kernel()
        nudge = shell_unsticker(kernel) if kernel is not None else None
        if kernel is None or not on_main_thread(kernel):
            if kernel is not None and blocking_strategy(kernel, self._panel()) == "owned-subshell":
                route_to_owned_subshell(kernel, self._panel())  # in case the main thread blocks
            self._show()
            return block_on_job(make, None, nudge)
        panel = self._panel()
        probe = probe_of(panel)
        strategy = blocking_strategy(kernel, panel)
        if strategy == "frontend-subshell" and _sends_on_main_shell(probe):
            raise main_shell_error("ipyask.ask_blocking", None)
        if strategy == "unsupported" or (
            strategy == "owned-subshell" and not route_to_owned_subshell(kernel, panel)
        ):
            raise unsupported_kernel(kernel)
        self._show()
        if strategy != "pump":
            return block_on_job(make, probe if strategy == "frontend-subshell" else None, nudge)
        capture, pump = Capture.of(kernel), Pump(kernel)
        capture.enter()
        try:
            pump.start()
            try:
                return block_on_job(make)
            finally:
                pump.stop()
        finally:
            capture.exit(cell_running=pump.parent.in_cell)

    async def await_in_cell(self, make: Callable[[], Awaitable[T]]) -> T:
        """Await the ask ``make()``, helping a cell's ``await`` where the kernel needs it.

        On behalf of a running cell the ask is awaited in slices: a kernel interrupt (SIGINT) may
        land on any of the kernel's threads, and the main thread runs ipykernel's handler (which
        cancels the cell) only when it wakes.
        """
        if waits_in_marimo_cell("await"):
            raise marimo_error("await ipyask.ask(...)")
        kernel = current_kernel()
        running = cell_of_ask(kernel) if kernel is not None and on_main_thread(kernel) else None
        nudge = shell_unsticker(kernel) if kernel is not None else None
        if kernel is None or running is None:
            self._show()
            if nudge is None:
                return await make()
            return await await_in_slices(asyncio.ensure_future(make()), None, nudge=nudge)
        strategy = await_strategy(kernel)
        probe = probe_of(self._panel()) if strategy == "frontend-subshell" else None
        if probe is not None and _sends_on_main_shell(probe):
            raise main_shell_error("await ipyask.ask(...)", None)
        self._show()
        if strategy != "pump":
            return await await_in_slices(asyncio.ensure_future(make()), probe, nudge=nudge)
        capture, pump = Capture.of(kernel), Pump(kernel)
        capture.enter()
        try:
            return await await_in_slices(asyncio.ensure_future(make()), None, pump, running)
        finally:
            if running():
                pump.parent.restore()
            capture.exit(running())
