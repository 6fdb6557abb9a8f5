"""Waiting that an interrupt can end: in short slices, never spinning.

:func:`block_on_job` blocks a thread on an event (the ask runs on ipyask's loop thread);
:func:`await_in_slices` awaits an ask task on the running loop. Both wake every :data:`SLICE` so
that a kernel interrupt is noticed (SIGINT may land on any of the kernel's threads; the main
thread runs Python's handler only when it wakes), and both can give up after
:data:`PROBE_SECONDS` when no view message came over a subshell and make the kernel read its
shell socket now and then (ipykernel 7.0–7.3; see :mod:`ipyask._notebook.cell_wait`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..._errors import MESSAGES, AskCancelledError, UserQuestionError
from ...errors import _INTERRUPTED, InterruptedAskError
from ._blocking_unsupported import main_shell_error
from ._ipykernel6_pump import SLICE as PUMP_SLICE
from ._ipykernel6_pump import Pump
from ._loop_thread import Job, new_job
from ._subshells import SubshellProbe

__all__ = [
    "INTERRUPTED",
    "PROBE_SECONDS",
    "SLICE",
    "InterruptedAskError",
    "await_in_slices",
    "block_on_job",
    "cancel_ask",
]

T = TypeVar("T")

INTERRUPTED = _INTERRUPTED
"""What a cell shows when the person interrupts a waiting question (``InterruptedAskError``)."""


PROBE_SECONDS = 5.0
"""ipykernel 7.0–7.3: how long a wait gives the panel's views to show that their messages come
over a subshell (a view says ``hello`` when it is mounted) before it gives up."""
SLICE = 0.1
"""Longest single wait, in seconds: an interrupt is noticed at least this often."""
UNWIND_SECONDS = 5.0
"""How long an interrupted wait lets the ask unwind (and mark its card) before raising."""
UNSTICK_SECONDS = 0.5
"""ipykernel 7.0–7.3: how often a wait makes the kernel read its shell socket."""

Nudge = Callable[[], None]


class _Every:
    """Calls ``action`` when called, at most once per ``seconds`` (nothing when it is None)."""

    def __init__(self, seconds: float, action: Nudge | None) -> None:
        self.seconds, self.action = seconds, action
        self.due = time.monotonic() + seconds

    def __call__(self) -> None:
        if self.action is not None and time.monotonic() >= self.due:
            self.due = time.monotonic() + self.seconds
            self.action()


def block_on_job(
    make: Callable[[], Awaitable[T]],
    probe: SubshellProbe | None = None,
    nudge: Nudge | None = None,
) -> T:
    """Run the ask ``make()`` on ipyask's loop thread and block this thread until it ends.

    Ctrl-C / a kernel interrupt from the moment the job exists cancels it (its card is marked
    cancelled) and raises ``ASK_ABORTED``; no ``CancelledError`` reaches the caller.
    """
    job: Job[T] | None = None
    try:
        job = new_job()
        job.start(make)
        deadline = time.monotonic() + PROBE_SECONDS
        unstick = _Every(UNSTICK_SECONDS, nudge)
        while not job.done.wait(SLICE):
            unstick()
            unconfirmed = probe is not None and not probe.over_subshell.is_set()
            if unconfirmed and time.monotonic() >= deadline:
                _unwind(job)
                raise main_shell_error("ipyask.ask_blocking", PROBE_SECONDS)
    except KeyboardInterrupt as interrupt:
        if job is not None:
            _unwind(job)
        error = InterruptedAskError(MESSAGES["ASK_ABORTED"], "ASK_ABORTED")
        raise error from interrupt
    try:
        return job.result()
    except asyncio.CancelledError as cancelled:
        raise UserQuestionError.of("ASK_ABORTED", cause=cancelled) from None


def _unwind(job: Job[Any]) -> None:
    job.cancel()
    job.done.wait(UNWIND_SECONDS)


async def await_in_slices(
    task: asyncio.Future[T],
    probe: SubshellProbe | None = None,
    pump: Pump | None = None,
    running: Callable[[], bool] = lambda: True,
    nudge: Nudge | None = None,
) -> T:
    """Await the ask ``task`` in slices; ``pump`` drains the kernel's queue while ``running()``.

    If this task is cancelled (a kernel interrupt cancels the cell) the ask is cancelled too and
    ``ASK_ABORTED`` is raised as :class:`~ipyask.AskCancelledError`.
    """
    deadline = time.monotonic() + PROBE_SECONDS
    unstick = _Every(UNSTICK_SECONDS, nudge)
    try:
        while not task.done():
            unstick()
            pumping = pump is not None and running()  # never once the cell has ended
            if pumping and pump is not None:
                await pump.drain()
            unconfirmed = probe is not None and not probe.over_subshell.is_set()
            if unconfirmed and time.monotonic() >= deadline:
                await cancel_ask(task)
                raise main_shell_error("await ipyask.ask(...)", PROBE_SECONDS)
            await asyncio.wait({task}, timeout=PUMP_SLICE if pumping else SLICE)
    except asyncio.CancelledError:
        raise await cancel_ask(task) from None
    return task.result()


async def cancel_ask(task: asyncio.Future[Any]) -> AskCancelledError:
    """Cancel the ask and let it unwind (its card is marked cancelled); the error to raise."""
    task.cancel()
    await asyncio.wait({task}, timeout=UNWIND_SECONDS)
    if task.done() and not task.cancelled():
        task.exception()  # retrieved: the ask's own error is replaced by the one returned
    error = AskCancelledError.of("ASK_ABORTED")
    assert isinstance(error, AskCancelledError)
    return error
