"""A headless Jupyter client: starts a kernel, speaks the messaging and widget comm protocols.

Needs ``jupyter_client`` and ``pyzmq`` (the ``ipyask[testing]`` extra); :mod:`ipyask.testing`
imports this package only when one of its names is first used.
"""

from .errors import CellAborted, FrontendError, FrontendTimeout, KernelDied, KernelError
from .execution import Execution
from .frontend import KernelFrontend
from .widgets import CustomMessage, WidgetModel

__all__ = [
    "CellAborted",
    "CustomMessage",
    "Execution",
    "FrontendError",
    "FrontendTimeout",
    "KernelDied",
    "KernelError",
    "KernelFrontend",
    "WidgetModel",
]
