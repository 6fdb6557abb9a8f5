"""Wire shapes of the Jupyter messaging and widget protocols, as a front end sees them.

Only what the headless front end needs: the message envelope, the widget comm constants
(ipywidgets protocol 2.1.0) and the helpers that move binary buffers in and out of a state
dict by ``buffer_paths``.
"""

from __future__ import annotations

import re
from typing import Any, TypedDict

WIDGET_TARGET = "jupyter.widget"
"""``target_name`` of a widget model's comm."""
CONTROL_TARGET = "jupyter.widget.control"
"""``target_name`` of the comm a front end opens to ask for every model's state."""
WIDGET_PROTOCOL_VERSION = "2.1.0"
"""ipywidgets protocol version put in the ``metadata`` of widget comm messages."""
CONTROL_PROTOCOL_VERSION = "1.0.0"
"""Version the kernel requires in the ``metadata`` of the control comm's ``comm_open``."""
VIEW_MIME = "application/vnd.jupyter.widget-view+json"
"""Mime type of display data that shows a view of a widget model."""

JSONPath = list[str | int]
"""A path into a JSON value: dict keys and list indices."""


class Message(TypedDict):
    """A deserialized Jupyter message, plus the channel it arrived on."""

    header: dict[str, Any]
    parent_header: dict[str, Any]
    metadata: dict[str, Any]
    content: dict[str, Any]
    buffers: list[bytes]
    channel: str
    """``"iopub"``, ``"shell"`` or ``"control"``."""


def msg_type(msg: Message) -> str:
    """The message's ``msg_type``."""
    return str(msg["header"].get("msg_type", ""))


def parent_id(msg: Message) -> str | None:
    """The ``msg_id`` of the request this message answers, if any."""
    value = msg["parent_header"].get("msg_id")
    return str(value) if value else None


def put_buffers(state: Any, paths: list[JSONPath], buffers: list[bytes]) -> None:
    """Put each buffer into ``state`` (in place) at the path with the same index.

    Raises
    ------
    ValueError
        A path does not lead into ``state``, or paths and buffers differ in number.
    """
    if len(paths) != len(buffers):
        raise ValueError(f"{len(paths)} buffer_paths but {len(buffers)} buffers")
    for path, buffer in zip(paths, buffers, strict=True):
        if not path:
            raise ValueError("empty buffer path")
        target = state
        try:
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = buffer
        except (KeyError, IndexError, TypeError) as exc:
            raise ValueError(f"buffer path {path!r} does not fit the state") from exc


def remove_buffers(state: dict[str, Any]) -> tuple[dict[str, Any], list[JSONPath], list[bytes]]:
    """Split binary values out of ``state`` like a widget front end does before sending.

    Returns a copy of the state without them (dict entries removed, list items ``None``), the
    path of each and the bytes. The input is not modified.
    """
    paths: list[JSONPath] = []
    buffers: list[bytes] = []

    def walk(value: Any, path: JSONPath) -> Any:
        if isinstance(value, dict):
            out: dict[str, Any] = {}
            for key, item in value.items():
                if isinstance(item, bytes | bytearray | memoryview):
                    paths.append([*path, key])
                    buffers.append(bytes(item))
                else:
                    out[key] = walk(item, [*path, key])
            return out
        if isinstance(value, list | tuple):
            items: list[Any] = []
            for index, item in enumerate(value):
                if isinstance(item, bytes | bytearray | memoryview):
                    paths.append([*path, index])
                    buffers.append(bytes(item))
                    items.append(None)
                else:
                    items.append(walk(item, [*path, index]))
            return items
        return value

    return walk(state, []), paths, buffers


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def strip_ansi(text: str) -> str:
    """Remove terminal colour codes (tracebacks from IPython carry them)."""
    return _ANSI.sub("", text)


def short_repr(value: Any, limit: int = 200) -> str:
    """``repr`` clipped to ``limit`` characters, for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
