"""``ipyask.diagnose()``: what ipyask sees of its host, the first thing to paste into a bug report.

It reads and never changes: it makes no panel and shows nothing. How each host is told is
listed in :mod:`ipyask._notebook.cell_wait._front_ends`; how each kernel helps a waiting cell in
:mod:`ipyask._notebook.cell_wait`.
"""

from __future__ import annotations

import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import IO, Any, Literal

from .._version import __version__
from ..widget import ViewMessage
from ._one_liners import panel_if_made
from .cell_wait import (
    HOST_NAMES,
    HostName,
    Strategy,
    await_strategy,
    blocking_strategy,
    colab_widget_manager,
    current_kernel,
    detect_host,
    front_end_seen,
)

__all__ = ["Diagnosis", "diagnose"]

FrontEnd = Literal["subshells", "main shell"]
PanelState = Literal["not made", "open", "closed"]

STRATEGIES: dict[Strategy, str] = {
    "native": "works: the kernel handles widget messages while the cell waits",
    "owned-subshell": "works: the panel's messages go to a subshell the kernel owns",
    "frontend-subshell": "works only if the front end sends widget messages over subshells "
    "(else BlockingUnsupportedError)",
    "pump": "works: ipyask pumps the kernel's message queue while the cell waits",
    "unsupported": "BlockingUnsupportedError at once: start the agent as a task",
}


@dataclass(frozen=True)
class Diagnosis:
    """What :func:`diagnose` found. Versions are ``None`` when the package is not installed."""

    python: str
    ipyask: str
    ipykernel: str | None
    ipywidgets: str | None
    anywidget: str | None
    marimo: str | None
    host: HostName
    host_signal: str
    kernel: str | None
    """The kernel's class name; ``None`` outside an IPython kernel."""
    subshells: bool
    """Whether the kernel has subshells (ipykernel ≥ 7)."""
    front_end: FrontEnd | None
    """How the front end sent the default panel's first view message; ``None``: none seen yet."""
    await_strategy: Strategy | None
    """How ``await ipyask.ask(...)`` in a cell gets its answer; ``None``: no kernel, it waits for
    the default service's answerers."""
    blocking_strategy: Strategy | None
    """The same for ``ipyask.ask_blocking(...)``."""
    colab_widget_manager: bool | None
    """In Colab, whether its custom widget manager is enabled; ``None`` elsewhere."""
    panel: PanelState
    panel_shown_in: int
    """In how many cells the default panel, or a cell's view of its questions, was shown."""
    panel_cards: int
    panel_pending: int

    def report(self) -> str:
        """The report :func:`diagnose` prints."""
        rows = [
            ("Python", self.python),
            ("ipykernel", self.ipykernel or "not installed"),
            ("ipywidgets", self.ipywidgets or "not installed"),
            ("anywidget", self.anywidget or "not installed"),
            ("marimo", self.marimo or "not installed"),
            ("host", f"{HOST_NAMES[self.host]} ({self.host_signal})"),
            ("kernel", self._kernel_line()),
            ("front end", self._front_end_line()),
            ("await in a cell", self._strategy_line(self.await_strategy)),
            ("blocking call", self._strategy_line(self.blocking_strategy)),
        ]
        if self.colab_widget_manager is not None:
            enabled = "enabled" if self.colab_widget_manager else "DISABLED: no panel can show"
            rows.append(("Colab widgets", f"custom widget manager {enabled}"))
        rows.append(("default panel", self._panel_line()))
        lines = [f"ipyask {self.ipyask} diagnosis"]
        lines += [f"  {name:<17}{value}" for name, value in rows]
        return "\n".join(lines)

    def _kernel_line(self) -> str:
        if self.kernel is None:
            return "none (no IPython kernel)"
        return f"{self.kernel}, " + ("with subshells" if self.subshells else "no subshells")

    def _front_end_line(self) -> str:
        if self.front_end is not None:
            return f"sends widget messages on the {self.front_end} (the panel's first message)"
        if self.host == "marimo":
            return "marimo's own (no IPython kernel)"
        if self.kernel is None:
            return "none"
        return "not seen yet: show the panel (ipyask.show_panel()), then diagnose in a new cell"

    def _strategy_line(self, strategy: Strategy | None) -> str:
        if self.host == "marimo":
            return "BlockingUnsupportedError at once in a marimo cell: start the agent as a task"
        if strategy is None:
            return "no kernel: waits for the answerers of ipyask.default_service()"
        return f"{strategy}: {STRATEGIES[strategy]}"

    def _panel_line(self) -> str:
        if self.panel == "not made":
            return "not made yet (the first ask or ipyask.show_panel() makes it)"
        cells = "cell" if self.panel_shown_in == 1 else "cells"
        return (
            f"{self.panel}, shown in {self.panel_shown_in} {cells}, "
            f"{self.panel_cards} cards ({self.panel_pending} waiting)"
        )

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # diagnose() printed the report already: the value echoed by a cell stays one line.
        printer.text(
            f"Diagnosis(host={self.host!r}, kernel={self.kernel!r}, "
            f"await_strategy={self.await_strategy!r}, "
            f"blocking_strategy={self.blocking_strategy!r}, front_end={self.front_end!r})"
        )


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


class _DefaultPanelComm:
    """What the blocking strategy asks of a panel, before the default panel is made: a comm of
    the class the kernel makes."""

    def __init__(self) -> None:
        ipykernel_comm = sys.modules.get("ipykernel.comm")
        self.comm: Any = getattr(ipykernel_comm, "Comm", None)

    def on_view_message(self, callback: Callable[[ViewMessage], object]) -> None:
        del callback  # never called: the stand-in has no views


def diagnose(*, file: IO[str] | None = None) -> Diagnosis:
    """Print what ipyask detected about this host (to ``file``, default stdout) and return it.

    Versions, the host and the signal it was told by, the kernel and its subshells, how the
    front end sends widget messages (seen in the default panel's first view message), the
    strategy each cell form gets, Colab's widget manager, the default panel's state.
    """
    kernel = current_kernel()
    host = detect_host()
    panel, shown_in = panel_if_made()
    front_end: FrontEnd | None = None
    if panel is not None:
        seen = front_end_seen(panel)
        front_end = None if seen is None else ("subshells" if seen == "subshell" else "main shell")
    await_form: Strategy | None = None
    blocking_form: Strategy | None = None
    if host.name == "marimo":
        await_form = blocking_form = "unsupported"
    elif kernel is not None:
        await_form = await_strategy(kernel)
        live = panel if panel is not None and not panel.closed else _DefaultPanelComm()
        blocking_form = blocking_strategy(kernel, live)
    cards = panel.get_cards() if panel is not None else []
    diagnosis = Diagnosis(
        python=platform.python_version(),
        ipyask=__version__,
        ipykernel=_version("ipykernel"),
        ipywidgets=_version("ipywidgets"),
        anywidget=_version("anywidget"),
        marimo=_version("marimo"),
        host=host.name,
        host_signal=host.signal,
        kernel=type(kernel).__name__ if kernel is not None else None,
        subshells=getattr(kernel, "shell_channel_thread", None) is not None,
        front_end=front_end,
        await_strategy=await_form,
        blocking_strategy=blocking_form,
        colab_widget_manager=colab_widget_manager(),
        panel="not made" if panel is None else ("closed" if panel.closed else "open"),
        panel_shown_in=shown_in,
        panel_cards=len(cards),
        panel_pending=sum(card.status == "pending" for card in cards),
    )
    print(diagnosis.report(), file=file if file is not None else sys.stdout)
    return diagnosis
