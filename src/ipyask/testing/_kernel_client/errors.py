"""Errors raised by the headless front end.

``FrontendError``
    Base of everything below.
``KernelError``
    A cell raised; carries ``ename``, ``evalue`` and the traceback as plain text.
``CellAborted``
    The kernel skipped a queued cell because an earlier one failed.
``FrontendTimeout``
    A wait ran out of time; the message says what was awaited and what the kernel did last.
``KernelDied``
    The kernel process exited while the front end was waiting for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .wire import msg_type, short_repr, strip_ansi

if TYPE_CHECKING:
    from .wire import Message


class FrontendError(Exception):
    """Base class of the headless front end's errors."""


class KernelError(FrontendError):
    """A cell raised an exception in the kernel."""

    def __init__(self, ename: str, evalue: str, traceback: list[str], code: str) -> None:
        self.ename = ename
        """Exception class name, e.g. ``"KeyboardInterrupt"``."""
        self.evalue = evalue
        """``str()`` of the exception."""
        self.traceback = strip_ansi("\n".join(traceback))
        """The traceback IPython printed, without colour codes."""
        self.code = code
        """The cell's source."""
        super().__init__(
            f"{ename}: {evalue}\n--- cell ---\n{_clip(code)}\n--- traceback ---\n{self.traceback}"
        )


class CellAborted(FrontendError):
    """The kernel aborted a queued cell (an earlier cell in the queue failed)."""

    def __init__(self, code: str) -> None:
        self.code = code
        super().__init__(f"the kernel aborted this cell after an earlier error:\n{_clip(code)}")


class FrontendTimeout(FrontendError, TimeoutError):
    """A wait ran out of time."""


class KernelDied(FrontendError):
    """The kernel process exited."""


def _clip(code: str, limit: int = 2000) -> str:
    return code if len(code) <= limit else code[:limit] + "\n[...]"


def describe_wait(
    headline: str, what: str, execution_state: str, recent: list[Message], kernel_log: str
) -> str:
    """The text of a failed wait: what was awaited, the last iopub messages, the kernel log."""
    lines = [f"  {msg_type(m)} {short_repr(m['content'])}" for m in recent] or ["  (none)"]
    return "\n".join(
        [
            f"{headline} {what or 'a condition'}",
            f"kernel execution_state: {execution_state}",
            "last iopub messages:",
            *lines,
            "kernel log (tail):",
            kernel_log or "  (empty)",
        ]
    )
