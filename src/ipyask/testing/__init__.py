"""Tools for testing agent code that asks a human.

In process, with the core install alone:

- :class:`ScriptedAnswerer` answers from a script (unit tests of agent code), including tool
  approvals (:class:`Approve`, :class:`AlwaysAllow`, :class:`Edit`, :class:`Reject`,
  :class:`Respond`, :class:`AlwaysReject`, :class:`RejectAndStop`) and forms (a ``dict`` of
  values, :class:`Decline`, :class:`Cancel`).
- :class:`ManualClock` makes deadlines deterministic.
- :func:`throwaway_postgres` starts a temporary PostgreSQL cluster (Debian's server package)
  for tests of a PostgreSQL store; :func:`new_database` makes an empty database in it.

Against a **real kernel** (the ``ipyask[testing]`` extra: ``ipykernel``, ``jupyter_client``):

- :class:`HeadlessFrontend` plays a person at the question panel over the real widget comm
  protocol; :class:`KernelFrontend` is the generic headless Jupyter client under it.
- :class:`NotebookRunner` executes a notebook while a scripted person answers its cards.
- pytest fixtures ``headless_frontend`` and ``headless_frontend_factory`` come with the package.

The kernel tools are imported on first use, so a core install can import this module (and its
pytest plugin loads) without the kernel client's dependencies.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .._clock import ManualClock, drain_loop
from ._browser import find_chromium, launch_chromium
from ._postgres import (
    find_postgres_bin,
    new_database,
    postgres_stopped,
    restart_postgres,
    throwaway_postgres,
)
from ._scripted import (
    SKIP,
    TIME_OUT,
    AlwaysAllow,
    AlwaysReject,
    Approve,
    Cancel,
    Decline,
    Edit,
    Other,
    Reject,
    RejectAndStop,
    Reply,
    Respond,
    ScriptedAnswerer,
)

if TYPE_CHECKING:
    from ._headless import HeadlessFrontend
    from ._kernel_client import (
        CellAborted,
        CustomMessage,
        Execution,
        FrontendError,
        FrontendTimeout,
        KernelDied,
        KernelError,
        KernelFrontend,
        WidgetModel,
    )
    from ._notebook import LEAVE_PENDING, RESTART_TAG, NotebookEvent, NotebookRunner, Step

__all__ = [
    "LEAVE_PENDING",
    "RESTART_TAG",
    "SKIP",
    "TIME_OUT",
    "AlwaysAllow",
    "AlwaysReject",
    "Approve",
    "Cancel",
    "CellAborted",
    "CustomMessage",
    "Decline",
    "Edit",
    "Execution",
    "FrontendError",
    "FrontendTimeout",
    "HeadlessFrontend",
    "KernelDied",
    "KernelError",
    "KernelFrontend",
    "ManualClock",
    "NotebookEvent",
    "NotebookRunner",
    "Other",
    "Reject",
    "RejectAndStop",
    "Reply",
    "Respond",
    "ScriptedAnswerer",
    "Step",
    "WidgetModel",
    "drain_loop",
    "find_chromium",
    "find_postgres_bin",
    "launch_chromium",
    "new_database",
    "postgres_stopped",
    "restart_postgres",
    "throwaway_postgres",
]

_KERNEL_EXTRA = "ipyask[testing]"
"""The extra that brings the kernel client's dependencies."""

_KERNEL_TOOLS = {
    "HeadlessFrontend": "._headless",
    "LEAVE_PENDING": "._notebook",
    "RESTART_TAG": "._notebook",
    "NotebookEvent": "._notebook",
    "NotebookRunner": "._notebook",
    "Step": "._notebook",
    **dict.fromkeys(
        (
            "CellAborted",
            "CustomMessage",
            "Execution",
            "FrontendError",
            "FrontendTimeout",
            "KernelDied",
            "KernelError",
            "KernelFrontend",
            "WidgetModel",
        ),
        "._kernel_client",
    ),
}


def __getattr__(name: str) -> Any:
    module = _KERNEL_TOOLS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        value = getattr(importlib.import_module(module, __name__), name)
    except ImportError as error:
        raise ImportError(
            f"ipyask.testing.{name} drives a real kernel and needs {error.name or 'a package'} "
            f"which is not installed: pip install '{_KERNEL_EXTRA}'"
        ) from error
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
