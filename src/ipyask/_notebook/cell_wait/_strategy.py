"""Which strategy helps a waiting cell in the running kernel, by feature detection.

The strategies and the kernels they serve are told once, in :mod:`ipyask._notebook.cell_wait`.
A strategy whose private names are missing is not offered; the caller then raises a clear error.
"""

from __future__ import annotations

import inspect
from typing import Any, Literal

from ._ipykernel6_pump import can_pump
from ._subshells import PanelComm, can_route, subshell_manager

__all__ = ["Strategy", "await_strategy", "blocking_strategy"]

Strategy = Literal["owned-subshell", "frontend-subshell", "pump", "native", "unsupported"]
"""How a waiting cell gets the panel's messages (each is described in the package docstring)."""


def _has_subshells(kernel: Any) -> bool:
    return getattr(kernel, "shell_channel_thread", None) is not None


def _dispatches_comms_concurrently(kernel: Any) -> bool:
    dispatch = getattr(kernel, "dispatch_shell", None)
    try:
        return dispatch is not None and "concurrent" in inspect.signature(dispatch).parameters
    except (TypeError, ValueError):
        return False


def blocking_strategy(kernel: Any, panel: PanelComm) -> Strategy:
    """How a call that blocks the kernel's main thread can still receive the panel's messages."""
    if _has_subshells(kernel):
        if can_route(panel):
            return "owned-subshell" if subshell_manager(kernel) is not None else "unsupported"
        return "frontend-subshell"
    return "pump" if can_pump(kernel) else "unsupported"


def await_strategy(kernel: Any) -> Strategy:
    """How a cell's top-level ``await`` can receive the panel's messages."""
    if _dispatches_comms_concurrently(kernel):
        return "native"
    if _has_subshells(kernel):
        return "frontend-subshell"
    return "pump" if can_pump(kernel) else "native"
