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

Hosts (``_front_ends`` lists the signals each leaves in the process, and tells them apart) add
what the kernel cannot see. VS Code's and Colab's front ends send widget messages on the main
shell: on 7.0–7.3 the cell forms fail at once there, before any view message has shown it.
marimo has no IPython kernel and handles a widget's message only after the running cell has
finished, so both cell forms fail at once in a marimo cell (``_marimo``); an agent task works.
In Colab, the panel needs Colab's custom widget manager, which ipyask enables before showing it.

Only an ask on behalf of the running cell needs help (its own ``await``, or a task it started);
an agent task started by an earlier cell just awaits. A blocking call runs the ask on ipyask's
loop thread (``_loop_thread``). Both forms wait in short slices (``_interruptible``), so Ctrl-C /
a kernel interrupt ends them with ``ASK_ABORTED``. Outside a kernel, or on another thread than
the kernel's main one, a call just waits.

The cell wait knows the panel only as a :class:`PanelComm`; it never imports the panel package.
"""

from ._blocking_unsupported import BlockingUnsupportedError
from ._forms import CellWait
from ._front_ends import (
    HOST_NAMES,
    Host,
    HostName,
    colab_widget_manager,
    detect_host,
    enable_colab_widget_manager,
)
from ._kernel import current_kernel
from ._marimo import marimo_cell
from ._strategy import Strategy, await_strategy, blocking_strategy
from ._subshells import PanelComm, front_end_seen, share_route

__all__ = [
    "HOST_NAMES",
    "BlockingUnsupportedError",
    "CellWait",
    "Host",
    "HostName",
    "PanelComm",
    "Strategy",
    "await_strategy",
    "blocking_strategy",
    "colab_widget_manager",
    "current_kernel",
    "detect_host",
    "enable_colab_widget_manager",
    "front_end_seen",
    "marimo_cell",
    "share_route",
]
