"""The running kernel and its cells, looked up over ipykernel's private names.

Every private name is looked up with ``getattr`` / ``hasattr``, so these work (or answer
``None``) on any kernel; see :mod:`ipyask._notebook.cell_wait` for what each ipykernel offers.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

__all__ = [
    "cell_of_ask",
    "current_kernel",
    "in_cell_task",
    "ipykernel_version",
    "on_main_thread",
    "shell_parent",
    "track_cells",
]


def current_kernel() -> Any | None:
    """The kernel of the running IPython shell, or ``None`` outside a kernel."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return None
    shell = get_ipython()
    return getattr(shell, "kernel", None) if shell is not None else None


def ipykernel_version() -> str:
    """The installed ipykernel version, for messages."""
    try:
        import ipykernel
    except ImportError:  # pragma: no cover - only called inside a kernel
        return "unknown"
    return str(getattr(ipykernel, "__version__", "unknown"))


def on_main_thread(kernel: Any) -> bool:
    """Whether this thread is the kernel's main shell thread (the one a running cell blocks)."""
    channel = getattr(kernel, "shell_channel_thread", None)
    main = getattr(channel, "parent_thread", None) or threading.main_thread()
    return threading.current_thread() is main


def in_cell_task() -> bool:
    """Whether the running task is a cell's own top-level ``await`` (IPython's run_cell_async)."""
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return False
    code = getattr(task.get_coro(), "cr_code", None) if task is not None else None
    return getattr(code, "co_name", "") == "run_cell_async"


class _Cells:
    """The ``msg_id`` of the cell running now (IPython's pre/post_run_cell), once tracked."""

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel
        self.running: str | None = None

    def pre(self, *_: object) -> None:
        self.running = _parent_msg_id(self.kernel)

    def post(self, *_: object) -> None:
        self.running = None


_cells: dict[int, _Cells] = {}


def _parent_msg_id(kernel: Any) -> str | None:
    header = shell_parent(kernel).get("header", {})
    msg_id = header.get("msg_id") if isinstance(header, dict) else None
    return msg_id if isinstance(msg_id, str) else None


def track_cells(kernel: Any) -> _Cells | None:
    """Start tracking the running cell (``import ipyask`` does, inside a kernel)."""
    cells = _cells.get(id(kernel))
    events = getattr(getattr(kernel, "shell", None), "events", None)
    if cells is None and events is not None:
        cells = _cells[id(kernel)] = _Cells(kernel)
        events.register("pre_run_cell", cells.pre)
        events.register("post_run_cell", cells.post)
    return cells


def cell_of_ask(kernel: Any) -> Callable[[], bool] | None:
    """For an ask on behalf of the cell running now, a function telling whether it still runs.

    That is the cell's own top-level ``await``, or a task the cell started (``asyncio.wait_for``,
    ``gather``) whose parent message is that cell; ``None`` for anything else, e.g. an agent
    task started by an earlier cell, which needs no help. Cells are tracked (IPython's
    ``pre_run_cell`` / ``post_run_cell``) from :func:`track_cells` on.
    """
    cells = track_cells(kernel)
    if in_cell_task():
        return lambda: True  # the cell itself: it cannot end while it awaits
    running = cells.running if cells is not None else None
    if running is None or _parent_msg_id(kernel) != running:
        return None
    tracked = cells
    return lambda: tracked is not None and tracked.running == running


def shell_parent(kernel: Any) -> dict[str, Any]:
    """The kernel's current shell parent message (``{}`` if there is none)."""
    get_parent = getattr(kernel, "get_parent", None)
    if get_parent is None:
        return {}
    try:
        parent = get_parent("shell")
    except TypeError:  # a kernel whose get_parent takes no channel
        parent = get_parent()
    return parent if isinstance(parent, dict) else {}
