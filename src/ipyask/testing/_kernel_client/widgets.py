"""The front end's mirror of the kernel's widget models, fed from iopub messages.

``WidgetTracker`` knows nothing about sockets: give it every iopub message and it keeps one
``WidgetModel`` per ``jupyter.widget`` comm (state with buffers put back, ``custom`` messages
received, closed or not) and the order in which views of models were displayed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .wire import (
    VIEW_MIME,
    WIDGET_TARGET,
    JSONPath,
    Message,
    msg_type,
    parent_id,
    put_buffers,
)


@dataclass(frozen=True)
class CustomMessage:
    """A ``custom`` comm message the kernel sent to a model (``widget.send(content, buffers)``)."""

    content: Any
    """The JSON content."""
    buffers: tuple[bytes, ...] = ()
    """Binary buffers sent along."""
    parent_msg_id: str | None = None
    """``msg_id`` of the request the kernel was handling when it sent this, if any."""


@dataclass
class WidgetModel:
    """What the front end knows about one widget model."""

    model_id: str
    """The comm id, which is also the model id."""
    state: dict[str, Any] = field(default_factory=dict)
    """Current synced state; binary values are ``bytes``."""
    custom: list[CustomMessage] = field(default_factory=list)
    """``custom`` messages received from the kernel, oldest first."""
    closed: bool = False
    """Whether the kernel closed the comm (``widget.close()``)."""

    @property
    def model_name(self) -> str | None:
        """``_model_name`` from the state, e.g. ``"AnyModel"`` for an anywidget."""
        value = self.state.get("_model_name")
        return value if isinstance(value, str) else None


class WidgetTracker:
    """Applies iopub messages to a table of widget models."""

    def __init__(self) -> None:
        self.models: dict[str, WidgetModel] = {}
        """Every widget model seen, by model id, in order of ``comm_open``."""
        self.open: dict[str, WidgetModel] = {}
        """The models not closed, in the same order: what a front end reads most, kept apart
        so that reading it costs the same after thousands of closed widgets."""
        self.displayed: list[str] = []
        """Model ids of displayed views, in display order (repeats kept)."""
        self.control_comm_ids: set[str] = set()
        """Ids of control comms this front end opened (``update_states`` replies arrive there)."""
        self.state_syncs = 0
        """How many ``update_states`` replies were applied."""

    def handle(self, msg: Message) -> None:
        """Update the table from one iopub message; other messages are ignored."""
        kind = msg_type(msg)
        content = msg["content"]
        if kind == "comm_open" and content.get("target_name") == WIDGET_TARGET:
            self._open(str(content.get("comm_id")), _data(content), msg["buffers"])
        elif kind == "comm_msg":
            self._comm_msg(msg)
        elif kind == "comm_close":
            self.close(str(content.get("comm_id")))
        elif kind in ("display_data", "execute_result", "update_display_data"):
            view = content.get("data", {}).get(VIEW_MIME)
            if isinstance(view, dict) and isinstance(view.get("model_id"), str):
                self.displayed.append(view["model_id"])

    def close(self, model_id: str) -> None:
        """Mark the model closed (the kernel or the front end closed its comm)."""
        model = self.open.pop(model_id, None)
        if model is not None:
            model.closed = True

    def apply_local(self, model_id: str, patch: dict[str, Any]) -> None:
        """Apply a state patch the front end itself sent (front ends update optimistically)."""
        model = self.models.get(model_id)
        if model is not None:
            model.state.update(patch)

    def _open(self, comm_id: str, data: dict[str, Any], buffers: list[bytes]) -> None:
        state = dict(data.get("state") or {})
        put_buffers(state, _paths(data), buffers)
        model = WidgetModel(model_id=comm_id, state=state)
        self.models[comm_id] = self.open[comm_id] = model

    def _comm_msg(self, msg: Message) -> None:
        comm_id = str(msg["content"].get("comm_id"))
        data = _data(msg["content"])
        method = data.get("method")
        if comm_id in self.control_comm_ids and method == "update_states":
            self._update_states(data, msg["buffers"])
            return
        model = self.models.get(comm_id)
        if model is None:
            return
        if method in ("update", "echo_update"):
            patch = dict(data.get("state") or {})
            put_buffers(patch, _paths(data), msg["buffers"])
            model.state.update(patch)
        elif method == "custom":
            model.custom.append(
                CustomMessage(data.get("content"), tuple(msg["buffers"]), parent_id(msg))
            )

    def _update_states(self, data: dict[str, Any], buffers: list[bytes]) -> None:
        states = dict(data.get("states") or {})
        put_buffers(states, _paths(data), buffers)
        for model_id, entry in states.items():
            model = self.models.get(model_id)
            if model is None:
                model = self.models[model_id] = self.open[model_id] = WidgetModel(model_id)
            model.state.update(entry.get("state") or {})
        self.state_syncs += 1


def _data(content: dict[str, Any]) -> dict[str, Any]:
    data = content.get("data")
    return data if isinstance(data, dict) else {}


def _paths(data: dict[str, Any]) -> list[JSONPath]:
    paths = data.get("buffer_paths")
    return list(paths) if isinstance(paths, list) else []
