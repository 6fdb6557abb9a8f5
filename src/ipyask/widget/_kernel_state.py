"""Widget state owned by the kernel: views read it and never write it.

ipywidgets applies an ``update`` comm message from any front end to the widget's traits, and
echoes the sent values to every view. ipyask's views never send one (what a person does travels
as validated custom messages), so a state update can only be forged: it is refused whole,
whatever its shape and without a traceback, and the views get the kernel's values back.
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from ipywidgets import Layout

if TYPE_CHECKING:
    from collections.abc import Callable

    from ipywidgets import Widget

__all__ = ["KernelOwnedLayout", "custom_content", "refuse_view_state"]

log = logging.getLogger("ipyask")

_PASSED_ON = frozenset({"custom", "request_state"})
"""Comm methods that ipywidgets handles: messages to the model, and a view asking for state."""


def custom_content(msg: object) -> tuple[object, object] | None:
    """The content and buffers ipywidgets hands to a widget's message callbacks when ``msg`` is
    a custom message it would hand on (``None`` for any other message): read without a call per
    level, as every view message (each answer) is."""
    content = msg["content"] if type(msg) is dict and "content" in msg else None
    data = content["data"] if type(content) is dict and "data" in content else None
    custom = type(data) is dict and "method" in data and data["method"] == "custom"
    if custom and "content" in data and "buffers" in msg:  # type: ignore[operator]
        return data["content"], msg["buffers"]  # type: ignore[index]
    return None


def _passed_on(msg: object) -> bool:
    """Whether ``msg`` is a dict whose ``content.data.method`` ipywidgets handles: read without a
    call per level, as every view message (each answer) is."""
    content = msg["content"] if type(msg) is dict and "content" in msg else None
    data = content["data"] if type(content) is dict and "data" in content else None
    method = data["method"] if type(data) is dict and "method" in data else None
    return type(method) is str and method in _PASSED_ON


def refuse_view_state(
    widget: Widget,
    msg: object,
    *,
    lock: AbstractContextManager[object] | None = None,
    before_reply: Callable[[], object] | None = None,
) -> bool:
    """Refuse ``msg`` unless it is a custom message or a state request (then ``False``).

    A state update has the kernel's values of the synced traits it names sent back to the views
    (of every synced trait when it names none readably), after ``before_reply()``; any other
    message is dropped. ``lock`` is held while the state is read.
    """
    if _passed_on(msg):  # the usual case, a view's custom message
        return False
    content = msg.get("content") if isinstance(msg, dict) else None
    data = content.get("data") if isinstance(content, dict) else None
    method = data.get("method") if isinstance(data, dict) else None
    if isinstance(method, str) and method in _PASSED_ON:
        return False
    if method != "update" or not isinstance(data, dict):
        log.debug("ipyask: dropped a comm message with method %.40r", method)
        return True
    state: Any = data.get("state")
    synced: list[str] = list(widget.keys)
    names = [name for name in synced if name in state] if isinstance(state, dict) else synced
    log.debug("ipyask: refused a state update from a view (%s)", ", ".join(names))
    if names:
        try:
            with lock if lock is not None else nullcontext():
                if before_reply is not None:
                    before_reply()
                widget.send_state(names)
        except Exception:
            log.exception("ipyask: could not send the kernel's state back to the views")
    return True


class KernelOwnedLayout(Layout):  # type: ignore[misc]  # ipywidgets has no type hints
    """A widget's own ``Layout``, whose state views cannot write either."""

    def _handle_msg(self, msg: object) -> None:
        if not refuse_view_state(self, msg):
            super()._handle_msg(msg)
