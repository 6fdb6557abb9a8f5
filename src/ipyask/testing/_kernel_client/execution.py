"""One executed cell as the front end sees it: its outputs, reply and completion."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from .errors import CellAborted, KernelError
from .wire import VIEW_MIME, Message, msg_type


class DisplayTable:
    """Outputs shown with a ``display_id``, across cells, as a notebook front end keeps them.

    ``update_display_data`` (whichever message it answers) replaces the data of every output
    with its id, and so does a new ``display_data`` with an id already shown.
    """

    def __init__(self) -> None:
        self._outputs: dict[str, list[dict[str, Any]]] = {}

    def shown(self, display_id: str, output: dict[str, Any]) -> None:
        """``output`` was just appended to a cell under ``display_id``."""
        self.update(display_id, output)
        self._outputs.setdefault(display_id, []).append(output)

    def update(self, display_id: str, bundle: dict[str, Any]) -> None:
        """Replace ``data`` and ``metadata`` of every output shown under ``display_id``."""
        for output in self._outputs.get(display_id, []):
            output["data"] = dict(bundle["data"])
            output["metadata"] = dict(bundle["metadata"])


def display_id_of(content: dict[str, Any]) -> str | None:
    """The ``transient.display_id`` of a display message, if any."""
    transient = content.get("transient")
    display_id = transient.get("display_id") if isinstance(transient, dict) else None
    return display_id if isinstance(display_id, str) else None


IDLE_GRACE = 0.5
"""Seconds to wait for the ``idle`` status after the ``execute_reply`` before calling a cell done.

ipykernel 7.1 to 7.3 may publish a cell's final ``idle`` with the parent header of a comm message
handled during the cell, so the cell's own ``idle`` never arrives.
"""


class _Waiter(Protocol):
    def wait_for(
        self, predicate: Callable[[], object], *, timeout: float | None = None, what: str = ""
    ) -> None: ...


class Execution:
    """A cell sent with ``execute_request``; outputs keep arriving while the front end pumps.

    Outputs are stored like notebook outputs (``output_type`` ``stream``, ``display_data``,
    ``execute_result``, ``error``); consecutive stream text of one name is merged and
    ``clear_output`` is honoured. Outputs shown with a ``display_id`` are updated in place by
    ``update_display_data`` from anywhere (``displays``), as in a notebook. Output the kernel
    parents to this cell after it finished (background tasks) is appended too.
    """

    def __init__(
        self, frontend: _Waiter, msg_id: str, code: str, displays: DisplayTable | None = None
    ) -> None:
        self._frontend = frontend
        self._displays = displays if displays is not None else DisplayTable()
        self.msg_id = msg_id
        """``msg_id`` of the ``execute_request``."""
        self.code = code
        """The cell's source."""
        self.outputs: list[dict[str, Any]] = []
        """Outputs in arrival order, shaped like nbformat outputs."""
        self.started = False
        """Whether the kernel began executing (``execute_input`` or ``busy`` seen)."""
        self.execution_count: int | None = None
        self.reply: dict[str, Any] | None = None
        """Content of the ``execute_reply``, once received."""
        self._idle = False
        self._reply_at = 0.0
        self._clear_on_next = False

    @property
    def done(self) -> bool:
        """Whether the reply arrived and the kernel went idle for this cell."""
        if self.reply is None:
            return False
        return self._idle or time.monotonic() - self._reply_at >= IDLE_GRACE

    @property
    def status(self) -> str | None:
        """``"ok"``, ``"error"`` or ``"aborted"`` once replied, else ``None``."""
        return None if self.reply is None else str(self.reply.get("status"))

    def wait(self, timeout: float | None = None, *, raise_on_error: bool = True) -> Execution:
        """Pump messages until the cell is done; return ``self``.

        Raises
        ------
        KernelError
            The cell raised (unless ``raise_on_error`` is false).
        CellAborted
            The kernel skipped the cell because an earlier cell failed.
        FrontendTimeout
            The cell did not finish within ``timeout`` seconds.
        """
        self._frontend.wait_for(
            lambda: self.done, timeout=timeout, what=f"cell to finish:\n{self.code[:500]}"
        )
        if raise_on_error:
            self.raise_for_status()
        return self

    def raise_for_status(self) -> None:
        """Raise ``KernelError`` or ``CellAborted`` if the cell failed."""
        if self.status == "aborted":
            raise CellAborted(self.code)
        error = self.error
        if error is not None:
            raise error

    @property
    def error(self) -> KernelError | None:
        """The cell's exception, if its reply says it raised (error outputs stay in ``outputs``)."""
        if self.status != "error":
            return None
        source = self.reply or {}
        errors = self._of_type("error")
        if "traceback" not in source and errors:  # some kernels put it only on iopub
            source = errors[-1]
        return KernelError(
            str(source.get("ename", "")),
            str(source.get("evalue", "")),
            [str(line) for line in source.get("traceback", [])],
            self.code,
        )

    @property
    def stdout(self) -> str:
        """All text the cell wrote to stdout."""
        return "".join(o["text"] for o in self._of_type("stream") if o["name"] == "stdout")

    @property
    def stderr(self) -> str:
        """All text the cell wrote to stderr."""
        return "".join(o["text"] for o in self._of_type("stream") if o["name"] == "stderr")

    @property
    def result(self) -> dict[str, Any] | None:
        """Mime bundle of the cell's value (``execute_result``), if any."""
        results = self._of_type("execute_result")
        return dict(results[-1]["data"]) if results else None

    @property
    def text(self) -> str | None:
        """``text/plain`` of the cell's value, e.g. ``"2"`` for ``1 + 1``."""
        result = self.result
        return None if result is None else str(result.get("text/plain", ""))

    @property
    def displayed_models(self) -> list[str]:
        """Model ids of widget views among the outputs, in order."""
        ids: list[str] = []
        for output in self.outputs:
            view = output.get("data", {}).get(VIEW_MIME)
            if isinstance(view, dict) and isinstance(view.get("model_id"), str):
                ids.append(view["model_id"])
        return ids

    def handle(self, msg: Message) -> None:
        """Take one message whose parent is this cell (iopub, or the shell reply)."""
        kind = msg_type(msg)
        content = msg["content"]
        if kind == "execute_reply":
            self.reply = content
            self._reply_at = time.monotonic()
            self.execution_count = content.get("execution_count", self.execution_count)
        elif kind == "status":
            state = content.get("execution_state")
            self.started = self.started or state == "busy"
            self._idle = self._idle or state == "idle"
        elif kind == "execute_input":
            self.started = True
            self.execution_count = content.get("execution_count")
        elif kind == "clear_output":
            self._clear_on_next = bool(content.get("wait"))
            if not self._clear_on_next:
                self.outputs.clear()
        elif kind in _OUTPUT_TYPES:
            self._add_output(kind, content)

    def _add_output(self, kind: str, content: dict[str, Any]) -> None:
        if self._clear_on_next:
            self.outputs.clear()
            self._clear_on_next = False
        if kind == "stream":
            self._add_stream(str(content.get("name")), str(content.get("text", "")))
        elif kind == "display_data":
            output = {"output_type": "display_data", **bundle_of(content)}
            self.outputs.append(output)
            display_id = display_id_of(content)
            if display_id is not None:
                self._displays.shown(display_id, output)
        elif kind == "execute_result":
            count = content.get("execution_count")
            self.outputs.append(
                {"output_type": kind, "execution_count": count, **bundle_of(content)}
            )
        else:
            self.outputs.append({"output_type": "error", **content})

    def _add_stream(self, name: str, text: str) -> None:
        last = self.outputs[-1] if self.outputs else None
        if last is not None and last["output_type"] == "stream" and last["name"] == name:
            last["text"] += text
        else:
            self.outputs.append({"output_type": "stream", "name": name, "text": text})

    def _of_type(self, output_type: str) -> list[dict[str, Any]]:
        return [o for o in self.outputs if o["output_type"] == output_type]

    def __repr__(self) -> str:
        first = self.code.strip().splitlines()[0] if self.code.strip() else ""
        return f"<Execution {self.msg_id[:8]} status={self.status} {first[:40]!r}>"


_OUTPUT_TYPES = frozenset({"stream", "display_data", "execute_result", "error"})
"""Output messages a cell appends (``update_display_data`` changes outputs in place instead)."""


def bundle_of(content: dict[str, Any]) -> dict[str, Any]:
    """The ``data`` and ``metadata`` of a display message, copied."""
    return {"data": dict(content.get("data", {})), "metadata": dict(content.get("metadata", {}))}
