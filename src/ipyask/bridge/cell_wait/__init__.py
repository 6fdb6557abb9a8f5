"""The cell wait: helping a notebook cell that waits for a question panel's answer.

A running cell holds the kernel's shell, so the panel's answer (a comm message) may wait behind
it. What helps depends on the kernel and is found by feature detection (``_strategy``), never by
version number: every private ipykernel name is looked up with ``getattr`` / ``hasattr``, and a
strategy whose names are missing is not offered (the caller raises
:class:`BlockingUnsupportedError`, saying what to do instead). This is the one place the kernels
and their strategies are told; the modules point here.

ipykernel ≥ 7.4
    ``await`` works as is: comms are dispatched concurrently (strategy ``native``). A blocking
    call routes the panel's comm (``comm._reply_subshell_for``) to a subshell the kernel itself
    owns, whose thread handles the answer while the main thread waits (``owned-subshell``,
    ``_subshells``).
ipykernel 7.0–7.3
    Both forms work only when the front end sends comms over subshells (JupyterLab and Notebook
    ≥ 4.4 do), which the views' messages tell (``frontend-subshell``, ``_subshells.SubshellProbe``);
    otherwise they fail with ``BLOCKING_UNSUPPORTED``: at once when known, else after
    ``_interruptible.PROBE_SECONDS``. These kernels can also leave requests unread on the shell
    socket, so a waiting call makes the kernel read it now and then (``shell_unsticker``).
ipykernel 6.x
    No subshells: the waiting call pumps the kernel's message queue and replays cells queued
    behind the waiting one, in order, after it (``pump``, ``_ipykernel6_pump``).
any other kernel
    ``await`` just waits (``native``); a blocking call is ``unsupported``.

Only an ask on behalf of the running cell needs help (its own ``await``, or a task it started);
an agent task started by an earlier cell just awaits. A blocking call runs the ask on ipyask's
loop thread (``_loop_thread``). Both forms wait in short slices (``_interruptible``), so Ctrl-C /
a kernel interrupt ends them with ``ASK_ABORTED``. Outside a kernel, or on another thread than
the kernel's main one, a call just waits.

The cell wait knows the panel only as a :class:`PanelComm`; it never imports the panel package.
"""

from ._blocking_unsupported import BlockingUnsupportedError
from ._forms import CellWait
from ._kernel import current_kernel
from ._strategy import Strategy, await_strategy, blocking_strategy
from ._subshells import PanelComm

__all__ = [
    "BlockingUnsupportedError",
    "CellWait",
    "PanelComm",
    "Strategy",
    "await_strategy",
    "blocking_strategy",
    "current_kernel",
]
