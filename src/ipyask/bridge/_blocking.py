"""Asking from a cell: ``ipyask.ask_blocking`` (sync) and the guard behind ``await ipyask.ask``.

A running cell holds the kernel's shell, so the panel's answer (a comm message) may wait behind
it. What helps depends on the kernel and is found by feature detection (``_kernel_features``):

- ipykernel ≥ 7.4: ``await`` works as is; a blocking call routes the panel's comm to a subshell
  the kernel owns, whose thread handles the answer while the main thread waits.
- ipykernel 7.0–7.3: both forms work when the front end sends comms over subshells (JupyterLab
  ≥ 4.4 does), which the first view message tells; otherwise they fail with
  ``BLOCKING_UNSUPPORTED`` — at once when known, else after ``_waiting.PROBE_SECONDS``.
- ipykernel 6.x: the waiting call pumps the kernel's message queue and replays queued cells
  after the waiting one, in order (``_pump``).

A blocking call runs the ask on the ipyask loop (``_background``) and waits on an event in short
slices (``_waiting``), so Ctrl-C / a kernel interrupt ends it with ``ASK_ABORTED`` (the card is
marked cancelled). Outside a kernel, or on another thread than the kernel's main one, it just
waits.
"""

from __future__ import annotations

import asyncio
import math
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar
from weakref import WeakKeyDictionary

from .._agents import Agent
from .._errors import UserQuestionError
from .._service import MAX_TIMEOUT_MS, UserQuestions
from .._vocabulary import AskUserQuestionRequest, PendingAnswer
from ._kernel_features import (
    await_strategy,
    blocking_strategy,
    cell_of_ask,
    current_kernel,
    on_main_thread,
    track_cells,
)
from ._pump import Capture, Pump
from ._quick import _approval_item, _question_item, _show, _value, default_panel, default_service
from ._subshells import route_to_owned_subshell, shell_unsticker, watch
from ._unsupported import BlockingUnsupportedError, main_shell_error, unsupported_kernel
from ._waiting import sliced, wait_for_job

__all__ = ["BlockingUnsupportedError", "approve_blocking", "ask_blocking", "in_cell"]

T = TypeVar("T")

if (_kernel := current_kernel()) is not None:
    track_cells(_kernel)  # so that tasks a cell starts to ask are known as the cell's

# -- the public calls ----------------------------------------------------------------------


def ask_blocking(
    question: str,
    options: Sequence[str] = (),
    *,
    multi_select: bool = False,
    header: str | None = None,
    detail: str | None = None,
    timeout: float | None = None,
) -> str | list[str] | PendingAnswer | None:
    """Ask one question on the default panel and block until the person answers.

    Returns what :func:`ipyask.ask` returns. With ``timeout`` (seconds, > 0) the question is a
    timed one, like ``UserQuestions.ask_timed``: a view showing the card counts down (and pauses
    while the person takes time), and when the window runs out the call returns
    ``PendingAnswer(call_id=...)`` and the card expires. Raises ``UserQuestionError``:
    ``ASK_ABORTED`` on Ctrl-C or a kernel interrupt (the card is marked cancelled),
    ``NO_PROVIDER`` outside Jupyter with no answerer registered, ``BAD_TIMEOUT``, or
    :class:`BlockingUnsupportedError` where the kernel cannot deliver the answer meanwhile.
    """
    item = _question_item(question, options, multi_select, header, detail)
    timeout_ms = _timeout_ms(timeout)
    service = default_service()
    if timeout_ms is None:
        request = AskUserQuestionRequest.model_validate({"questions": [item]})
        answer = run_blocking(lambda: service.ask(request))
    else:
        timed = AskUserQuestionRequest.model_validate(
            {"questions": [item], "agent": _cell_agent(service)}
        )
        call_id = f"cell-{uuid.uuid4().hex[:12]}"
        result = run_blocking(lambda: service.ask_timed(timed, call_id, timeout_ms))
        if isinstance(result, PendingAnswer):
            return result
        answer = result
    return _value(answer.answers[0], multi_select)


def approve_blocking(
    question: str,
    *,
    detail: str = "",
    subject: str | None = None,
    icon: str | None = None,
    approve: str = "Approve",
    reject: str = "Reject",
    always: str | None = None,
) -> str:
    """:func:`ipyask.approve`, blocking: returns the chosen label (see :func:`ask_blocking`)."""
    item = _approval_item(question, detail, subject, icon, approve, reject, always)
    request = AskUserQuestionRequest.model_validate({"questions": [item]})
    service = default_service()
    answer = run_blocking(lambda: service.ask(request))
    return answer.answers[0].selected[0]


def _timeout_ms(timeout: object) -> int | None:
    if timeout is None:
        return None
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or timeout <= 0
        or math.ceil(timeout * 1000) > MAX_TIMEOUT_MS
    ):
        raise UserQuestionError.of("BAD_TIMEOUT")
    return math.ceil(timeout * 1000)


_cell_agents: WeakKeyDictionary[UserQuestions, Agent] = WeakKeyDictionary()


def _cell_agent(service: UserQuestions) -> Agent:
    """The live agent that timed questions asked from cells belong to (one per service)."""
    agent = _cell_agents.get(service)
    if agent is None or not service.agents.is_live(agent):
        agent = _cell_agents[service] = service.agents.enter(Agent("notebook-cell"))
    return agent


# -- blocking ------------------------------------------------------------------------------


def run_blocking(make: Callable[[], Awaitable[T]]) -> T:
    """Run the ask ``make()`` on the ipyask loop and block until it ends (see the module)."""
    kernel = current_kernel()
    nudge = shell_unsticker(kernel) if kernel is not None else None
    if kernel is None or not on_main_thread(kernel):
        if kernel is not None and blocking_strategy(kernel, default_panel()) == "owned-subshell":
            route_to_owned_subshell(kernel, default_panel())  # in case the main thread blocks too
        _show()
        return wait_for_job(make, None, nudge)
    panel = default_panel()
    routes = watch(panel)
    strategy = blocking_strategy(kernel, panel)
    if strategy == "frontend-subshell" and routes.last == "main":
        raise main_shell_error("ipyask.ask_blocking", None)
    if strategy == "unsupported" or (
        strategy == "owned-subshell" and not route_to_owned_subshell(kernel, panel)
    ):
        raise unsupported_kernel(kernel)
    _show()
    if strategy != "pump":
        return wait_for_job(make, routes if strategy == "frontend-subshell" else None, nudge)
    capture, pump = Capture.of(kernel), Pump(kernel)
    capture.enter()
    try:
        pump.start()
        try:
            return wait_for_job(make)
        finally:
            pump.stop()
    finally:
        capture.exit(cell_running=pump.parent.in_cell)


# -- await in a cell -----------------------------------------------------------------------


async def in_cell(make: Callable[[], Awaitable[T]]) -> T:
    """Await the ask ``make()``, helping a cell's ``await`` where the kernel needs it.

    On behalf of a running cell the ask is awaited in slices (``_waiting``): a kernel interrupt
    (SIGINT) may land on any of the kernel's threads, and the main thread runs ipykernel's handler
    (which cancels the cell) only when it wakes.
    """
    kernel = current_kernel()
    running = cell_of_ask(kernel) if kernel is not None and on_main_thread(kernel) else None
    nudge = shell_unsticker(kernel) if kernel is not None else None
    if kernel is None or running is None:
        _show()
        if nudge is None:
            return await make()
        return await sliced(asyncio.ensure_future(make()), None, nudge=nudge)
    strategy = await_strategy(kernel)
    routes = watch(default_panel()) if strategy == "frontend-subshell" else None
    if routes is not None and routes.last == "main":
        raise main_shell_error("await ipyask.ask(...)", None)
    _show()
    if strategy != "pump":
        return await sliced(asyncio.ensure_future(make()), routes, nudge=nudge)
    capture, pump = Capture.of(kernel), Pump(kernel)
    capture.enter()
    try:
        return await sliced(asyncio.ensure_future(make()), None, pump, running)
    finally:
        if running():
            pump.parent.restore()
        capture.exit(running())
