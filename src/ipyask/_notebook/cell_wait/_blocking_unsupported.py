"""``BlockingUnsupportedError``: the clear failure when a kernel cannot deliver an answer to a
waiting cell, with what to do instead."""

from __future__ import annotations

from typing import Any

from ...errors import BlockingUnsupportedError
from ._kernel import ipykernel_version

__all__ = ["BlockingUnsupportedError", "main_shell_error", "unsupported_kernel"]

AS_TASK = (
    "start the agent as a task and let the cell end: `task = asyncio.ensure_future(agent())`; "
    "the panel answers it, and a later cell can `await task`."
)


def main_shell_error(form: str, probed_for: float | None) -> BlockingUnsupportedError:
    """ipykernel 7.0–7.3 with a front end that sends on the main shell (known, or assumed after
    ``probed_for`` seconds without a view message over a subshell)."""
    why = (
        "this front end sends widget messages on the main shell"
        if probed_for is None
        else f"no view of the question panel reached the kernel over a subshell within "
        f"{probed_for:g} s"
    )
    return BlockingUnsupportedError(
        f"{form} cannot get an answer while the cell waits: ipykernel {ipykernel_version()} "
        "handles widget messages during a running cell only when the front end sends them over "
        f"a kernel subshell (JupyterLab and Notebook ≥ 4.4 do by default), and {why}. "
        f"Instead, {AS_TASK} (ipykernel ≥ 7.4 removes this limit.)"
    )


def unsupported_kernel(kernel: Any) -> BlockingUnsupportedError:
    """A kernel without any of the hooks ipyask uses."""
    return BlockingUnsupportedError(
        f"ipyask.ask_blocking cannot get an answer while the cell waits: this kernel "
        f"({type(kernel).__name__}, ipykernel {ipykernel_version()}) offers no way to handle "
        f"widget messages during a blocking call. Instead, {AS_TASK}"
    )
