"""Subshells: routing the panel to one the kernel owns (ipykernel ≥ 7.4), telling whether the
front end sends over them and keeping the shell socket read (ipykernel 7.0–7.3).

Private ipykernel names are looked up with ``getattr`` / ``hasattr``; callers fall back to a clear
error when a function here reports that it cannot help.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import suppress
from typing import Any, Literal
from weakref import WeakKeyDictionary

from ..widget import ViewMessage
from ._kernel_features import can_route, current_kernel, shell_parent, subshell_manager
from ._panel import QuestionPanel

__all__ = ["ViewRoutes", "route_to_owned_subshell", "shell_unsticker", "watch"]

CREATE_TIMEOUT = 5.0
"""Seconds the shell channel thread has to create the kernel-owned subshell."""


def shell_unsticker(kernel: Any) -> Callable[[], None] | None:
    """ipykernel 7.0–7.3: a function that makes the shell channel thread read its socket now.

    Those kernels send shell replies raw on the shell socket from the thread that reads it; a
    request arriving at that moment can be left unread for good, and then every later one too
    (7.4 sends through the stream instead). While a question waits, flushing the stream on its
    own thread now and then reads what was stranded. ``None`` on kernels without the bug.
    """
    channel = getattr(kernel, "shell_channel_thread", None)
    manager = getattr(channel, "manager", None)
    if not hasattr(manager, "_shell_socket") or hasattr(manager, "_shell_stream"):
        return None
    stream: Any = getattr(kernel, "shell_stream", None)
    io_loop: Any = getattr(channel, "io_loop", None)
    if not callable(getattr(stream, "flush", None)) or not callable(
        getattr(io_loop, "add_callback", None)
    ):
        return None

    def flush() -> None:  # on the shell channel thread, which owns the stream
        with suppress(Exception):
            stream.flush(1)  # zmq.POLLIN: read (and dispatch) whatever is waiting

    return lambda: io_loop.add_callback(flush)


# -- ipykernel >= 7.4: a kernel-owned subshell ---------------------------------------------

_owned: dict[int, str] = {}


def _owned_subshell(manager: Any) -> str | None:
    known = _owned.get(id(manager))
    if known is not None and known in manager.list_subshell():
        return known
    box: list[object] = []
    created = threading.Event()

    def create() -> None:  # on the shell channel thread, as the manager requires
        try:
            box.append(manager._create_subshell())
        except Exception as error:
            box.append(error)
        finally:
            created.set()

    manager._shell_channel_io_loop.add_callback(create)
    if not created.wait(CREATE_TIMEOUT) or not isinstance(box[0], str):
        return None
    _owned[id(manager)] = box[0]
    return box[0]


def route_to_owned_subshell(kernel: Any, panel: QuestionPanel) -> bool:
    """Route the panel's view messages to the kernel-owned subshell; whether that worked.

    The route stays: later messages (an ``await`` in a cell, an agent task) are handled on the
    subshell thread too, which the panel supports (it hands them to the waiting loop).
    """
    manager = subshell_manager(kernel)
    if manager is None or not can_route(panel) or _owned_subshell(manager) is None:
        return False
    key = id(manager)

    def route(data: object, default: str | None) -> str | None:
        return _owned.get(key, default)

    panel.comm._reply_subshell_for = route
    return True


# -- ipykernel 7.0-7.3: which way do the views' messages come? ----------------------------


class ViewRoutes:
    """Records how the views' messages of one panel reached the kernel.

    ``last`` is ``"subshell"`` when the latest view message carried a ``subshell_id`` (JupyterLab
    ≥ 4.4 sends comms over subshells), ``"main"`` when it came on the main shell, ``None`` before
    any. :attr:`over_subshell` is set by the first message that came over a subshell.
    """

    def __init__(self) -> None:
        self.last: Literal["subshell", "main"] | None = None
        self.over_subshell = threading.Event()

    def __call__(self, message: ViewMessage) -> None:
        kernel = current_kernel()
        header = shell_parent(kernel).get("header", {}) if kernel is not None else {}
        subshell = isinstance(header, dict) and bool(header.get("subshell_id"))
        subshell = subshell or threading.current_thread().name.startswith("subshell-")
        self.last = "subshell" if subshell else "main"
        if subshell:
            self.over_subshell.set()


_watches: WeakKeyDictionary[QuestionPanel, ViewRoutes] = WeakKeyDictionary()
_watch_lock = threading.Lock()


def watch(panel: QuestionPanel) -> ViewRoutes:
    """The :class:`ViewRoutes` of ``panel`` (recording from now on)."""
    with _watch_lock:
        routes = _watches.get(panel)
        if routes is None:
            routes = _watches[panel] = ViewRoutes()
            panel.on_view_message(routes)
        return routes
