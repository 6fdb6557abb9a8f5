"""Which program hosts this Python process, told by the signals each host leaves.

The kernel sees no name of the front end, only what the host put into the process: modules it
imported, variables in the environment or in the user's namespace. Each host below is told by
the first signal of its row that is present (checked top to bottom):

============== ========================================================================
``marimo``     ``marimo.running_in_notebook()`` (marimo's runtime context of a notebook)
``colab``      the module ``google.colab`` is imported, or ``COLAB_RELEASE_TAG`` is set
``vscode``     ``__vsc_ipynb_file__`` in the user namespace (VS Code's Jupyter extension
               sets it), or ``VSCODE_PID`` set in a kernel no Jupyter server started
``voila``      ``SERVER_SOFTWARE=voila/...`` or ``VOILA_*`` variables (Voila sets them
               in its kernels' environment)
``jupyter``    ``JPY_SESSION_NAME`` (a Jupyter server started the kernel for a notebook:
               JupyterLab or Notebook 7, which the kernel cannot tell apart)
``kernel``     an IPython kernel with none of the above (nbclient, a script's kernel)
``ipython``    IPython without a kernel (the terminal)
``python``     none of these
============== ========================================================================

Nothing here imports a host's package: a module counts only when it is already imported.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any, Literal

from ._kernel import current_kernel

__all__ = [
    "HOST_NAMES",
    "SENDS_ON_MAIN_SHELL",
    "Host",
    "HostName",
    "colab_widget_manager",
    "detect_host",
    "enable_colab_widget_manager",
]

HostName = Literal["marimo", "colab", "vscode", "voila", "jupyter", "kernel", "ipython", "python"]

HOST_NAMES: dict[HostName, str] = {
    "marimo": "marimo",
    "colab": "Google Colab",
    "vscode": "VS Code",
    "voila": "Voila",
    "jupyter": "JupyterLab or Notebook 7",
    "kernel": "an IPython kernel (front end unknown)",
    "ipython": "IPython without a kernel",
    "python": "plain Python",
}
"""How each host is named in messages and in :func:`ipyask.diagnose`'s report."""

SENDS_ON_MAIN_SHELL: frozenset[HostName] = frozenset({"vscode", "colab"})
"""Hosts whose front end sends widget messages on the kernel's main shell, never over subshells:
VS Code's Jupyter extension renders widgets itself; Colab's front end has no subshells."""


@dataclass(frozen=True)
class Host:
    """The host of this process: ``name``, and ``signal``, the evidence it was told by."""

    name: HostName
    signal: str

    @property
    def label(self) -> str:
        """The host's name for people."""
        return HOST_NAMES[self.name]


def _marimo_notebook() -> bool:
    marimo = sys.modules.get("marimo")
    running = getattr(marimo, "running_in_notebook", None)
    if not callable(running):
        return False
    try:
        return bool(running())
    except Exception:  # a marimo that changed: not marimo then, for ipyask
        return False


def _user_ns() -> dict[str, Any]:
    shell = getattr(current_kernel(), "shell", None)
    namespace = getattr(shell, "user_ns", None)
    return namespace if isinstance(namespace, dict) else {}


def _ipython_shell() -> bool:
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    return callable(get_ipython) and get_ipython() is not None


def detect_host() -> Host:
    """The host of this process, by the signals in the module docstring's table."""
    env = os.environ
    if _marimo_notebook():
        return Host("marimo", "marimo.running_in_notebook() is true")
    if "google.colab" in sys.modules:
        return Host("colab", "the module google.colab is imported")
    if "COLAB_RELEASE_TAG" in env:
        return Host("colab", "COLAB_RELEASE_TAG is set")
    kernel = current_kernel()
    if kernel is not None and "__vsc_ipynb_file__" in _user_ns():
        return Host("vscode", "__vsc_ipynb_file__ is in the user namespace")
    if env.get("SERVER_SOFTWARE", "").startswith("voila"):
        return Host("voila", f"SERVER_SOFTWARE={env['SERVER_SOFTWARE']}")
    voila = sorted(name for name in env if name.startswith("VOILA_"))
    if voila:
        return Host("voila", f"{voila[0]} is set")
    if kernel is not None and "JPY_SESSION_NAME" in env:
        return Host("jupyter", "JPY_SESSION_NAME is set (a Jupyter server started the kernel)")
    if kernel is not None and "VSCODE_PID" in env:
        return Host("vscode", "VSCODE_PID is set")
    if kernel is not None:
        return Host("kernel", f"an IPython kernel ({type(kernel).__name__}), no host signal")
    if _ipython_shell():
        return Host("ipython", "an IPython shell without a kernel")
    return Host("python", "no IPython shell")


# -- Colab's custom widget manager --------------------------------------------------------


def colab_widget_manager() -> bool | None:
    """In Colab: whether its custom widget manager (needed for any widget outside ipywidgets)
    is enabled; ``None`` outside Colab or when Colab's module does not say."""
    output = sys.modules.get("google.colab.output")
    widgets = getattr(output, "_widgets", None)
    if widgets is None or not hasattr(widgets, "_installed_url"):
        return None
    return bool(widgets._installed_url)


def enable_colab_widget_manager() -> bool:
    """In Colab, enable its custom widget manager (Colab's public call); whether it is enabled.

    anywidget enables it once when a widget is made; a notebook that disabled it since would
    show no panel, so ipyask enables it again before it shows one.
    """
    output = sys.modules.get("google.colab.output")
    enable = getattr(output, "enable_custom_widget_manager", None)
    if colab_widget_manager() is False and callable(enable):
        try:
            enable()
        except Exception:  # Colab refused: diagnose() reports it as disabled
            return False
    return colab_widget_manager() is True
