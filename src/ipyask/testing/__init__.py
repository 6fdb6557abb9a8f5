"""Tools for testing agent code that asks a human.

- :class:`ScriptedAnswerer` answers from a script, in process (unit tests of agent code).
- :class:`HeadlessFrontend` plays a person at the question panel of a **real kernel**, over the
  real widget comm protocol; :class:`KernelFrontend` is the generic layer under it.
- :class:`ManualClock` makes deadlines deterministic.
- :class:`NotebookRunner` executes a notebook while a scripted person answers its cards.
- pytest fixtures ``headless_frontend`` and ``headless_frontend_factory`` come with the package.
"""

from .._clock import ManualClock, drain_loop
from ._browser import CHROMIUM, CHROMIUM_ARGS, launch_chromium
from ._headless import HeadlessFrontend
from ._kernel import KernelFrontend
from ._kernel_errors import CellAborted, FrontendError, FrontendTimeout, KernelDied, KernelError
from ._kernel_execution import Execution
from ._kernel_widgets import CustomMessage, WidgetModel
from ._notebook import NotebookEvent, NotebookRunner, Step
from ._scripted import SKIP, TIME_OUT, Other, Reply, ScriptedAnswerer

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "SKIP",
    "TIME_OUT",
    "CellAborted",
    "CustomMessage",
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
    "Reply",
    "ScriptedAnswerer",
    "Step",
    "WidgetModel",
    "drain_loop",
    "launch_chromium",
]
