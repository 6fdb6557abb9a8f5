"""marimo: which cell runs now, and whether an ask is that cell's own wait.

marimo runs a notebook without an IPython kernel. Its kernel takes the front end's messages one
at a time and handles the next one (a widget's message too) only when the running cell has
finished; asyncio tasks run between them. So a cell that waits for a panel's answer (``await``
in the cell, or a blocking call) would wait forever: ipyask raises
:class:`BlockingUnsupportedError` at once instead, and an agent started as a task gets its
answers. marimo's private names are looked up guarded; a marimo without them counts as "no cell
running", where asks just wait.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from ._blocking_unsupported import AS_TASK, BlockingUnsupportedError

__all__ = ["marimo_cell", "marimo_error", "waits_in_marimo_cell"]


def marimo_cell() -> Any | None:
    """The execution context of the marimo cell running on this thread, or ``None``.

    A new object for every run of a cell, so it tells two runs of the same cell apart.
    """
    if "marimo" not in sys.modules:
        return None
    try:
        from marimo._runtime.context import get_context

        return get_context().execution_context
    except Exception:  # no context on this thread, or a marimo without these names
        return None


def _marimo_root() -> Path | None:
    marimo = sys.modules.get("marimo")
    file = getattr(marimo, "__file__", None)
    return Path(file).parent if isinstance(file, str) else None


def _task_started_by_marimo() -> bool:
    """Whether the running task's outermost coroutine is marimo's own (a cell it evaluates),
    not one the notebook started (``asyncio.ensure_future(agent())``)."""
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return False
    code = getattr(task.get_coro(), "cr_code", None) if task is not None else None
    root = _marimo_root()
    filename = getattr(code, "co_filename", None)
    return root is not None and isinstance(filename, str) and Path(filename).is_relative_to(root)


def waits_in_marimo_cell(form: str) -> bool:
    """Whether this ask would hold a running marimo cell: the cell's own ``await`` (``form`` is
    ``"await"``) or a blocking call on the thread that runs the cell (``"blocking"``)."""
    if marimo_cell() is None:
        return False
    if form == "await":
        return _task_started_by_marimo()
    return asyncio._get_running_loop() is not None  # the cell runs inside marimo's loop


def marimo_error(form: str) -> BlockingUnsupportedError:
    """The error for a cell that would wait forever in marimo."""
    return BlockingUnsupportedError(
        f"{form} cannot get an answer while a marimo cell waits: marimo handles the panel's "
        "messages only after the running cell has finished. Instead, show the panel "
        "(`mo.ui.anywidget(ipyask.QuestionPanel(svc))`, or `ipyask.show_panel()`) and "
        f"{AS_TASK}"
    )
