"""Subshells (ipykernel 7): routing the panel to one the kernel owns (≥ 7.4), telling whether
the front end sends over them and keeping the shell socket read (7.0–7.3).

Private ipykernel names are looked up with ``getattr`` / ``hasattr``; callers fall back to a clear
error when a function here reports that it cannot help. Which kernel needs what is told once, in
:mod:`ipyask._notebook.cell_wait`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import suppress
from typing import Any, Literal, Protocol
from weakref import WeakKeyDictionary

from ...widget import ViewMessage
from ._kernel import current_kernel, shell_parent

__all__ = [
    "PanelComm",
    "SubshellProbe",
    "can_route",
    "front_end_seen",
    "probe_of",
    "route_to_owned_subshell",
    "share_route",
    "shell_unsticker",
    "subshell_manager",
]

CREATE_TIMEOUT = 5.0
"""Seconds the shell channel thread has to create the kernel-owned subshell."""


class PanelComm(Protocol):
    """What the cell wait needs of the question panel: its comm and its view messages.

    ``comm`` is the widget's comm (routed to a subshell where the kernel allows it);
    ``on_view_message`` registers a callback for every view message.
    """

    comm: Any

    def on_view_message(self, callback: Callable[[ViewMessage], object]) -> None: ...


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


def can_route(panel: PanelComm) -> bool:
    """Whether the panel's comm can be routed to a subshell (``comm._reply_subshell_for``)."""
    return callable(getattr(getattr(panel, "comm", None), "_reply_subshell_for", None))


def subshell_manager(kernel: Any) -> Any | None:
    """The kernel's subshell manager, when it has what creating a subshell needs."""
    manager = getattr(getattr(kernel, "shell_channel_thread", None), "manager", None)
    needed = ("_create_subshell", "list_subshell")
    if manager is None or not all(callable(getattr(manager, name, None)) for name in needed):
        return None
    io_loop = getattr(manager, "_shell_channel_io_loop", None)
    return manager if callable(getattr(io_loop, "add_callback", None)) else None


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


def route_to_owned_subshell(kernel: Any, panel: PanelComm) -> bool:
    """Route the panel's view messages to the kernel-owned subshell; whether that worked.

    The route stays: later messages (an ``await`` in a cell, an agent task) are handled on the
    subshell thread too, which the panel supports (it hands them to the loop it answers on).
    """
    manager = subshell_manager(kernel)
    if manager is None or not can_route(panel) or _owned_subshell(manager) is None:
        return False
    key = id(manager)

    def route(data: object, default: str | None) -> str | None:
        return _owned.get(key, default)

    panel.comm._reply_subshell_for = route
    return True


def share_route(panel: PanelComm, other: PanelComm) -> None:
    """Route ``other``'s view messages as ``panel``'s are, once :func:`route_to_owned_subshell`
    routed them: ``other`` shows some of the panel's questions (a cell's view of them), and its
    messages must reach the kernel while a blocking call waits just as the panel's do."""
    routed = getattr(getattr(panel, "comm", None), "__dict__", {}).get("_reply_subshell_for")
    if routed is not None and can_route(other):
        other.comm._reply_subshell_for = routed


# -- ipykernel 7.0-7.3: which way do the views' messages come? ----------------------------


class SubshellProbe:
    """Records over which shell the view messages of one panel reached the kernel.

    ``last`` is ``"subshell"`` when the latest view message carried a ``subshell_id`` (JupyterLab
    ≥ 4.4 sends comms over subshells), ``"main"`` when it came on the main shell, ``None`` before
    any. :attr:`over_subshell` is set by the first message that came over a subshell.
    :attr:`first` is what the first view message's header said (``subshell_id`` or none): how
    the front end sends, even where the kernel then routes the comm to a subshell of its own.
    """

    def __init__(self) -> None:
        self.last: Literal["subshell", "main"] | None = None
        self.first: Literal["subshell", "main"] | None = None
        self.over_subshell = threading.Event()

    def __call__(self, message: ViewMessage) -> None:
        kernel = current_kernel()
        header = shell_parent(kernel).get("header", {}) if kernel is not None else {}
        tagged = isinstance(header, dict) and bool(header.get("subshell_id"))
        if self.first is None:
            self.first = "subshell" if tagged else "main"
        subshell = tagged or threading.current_thread().name.startswith("subshell-")
        self.last = "subshell" if subshell else "main"
        if subshell:
            self.over_subshell.set()


_probes: WeakKeyDictionary[PanelComm, SubshellProbe] = WeakKeyDictionary()
_probe_lock = threading.Lock()


def probe_of(panel: PanelComm) -> SubshellProbe:
    """The :class:`SubshellProbe` of ``panel`` (recording from now on)."""
    with _probe_lock:
        probe = _probes.get(panel)
        if probe is None:
            probe = _probes[panel] = SubshellProbe()
            panel.on_view_message(probe)
        return probe


def front_end_seen(panel: PanelComm) -> Literal["subshell", "main"] | None:
    """How the front end sent the first view message of ``panel`` (``None``: none yet).

    The first call starts recording; call it when the panel is made so that no message is missed.
    """
    return probe_of(panel).first
