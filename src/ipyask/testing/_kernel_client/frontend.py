"""``KernelFrontend``: a headless Jupyter front end that drives a real kernel.

It starts an ipykernel, talks to it over the real sockets and speaks the ipywidgets comm
protocol 2.1.0 like a browser does: it mirrors every ``jupyter.widget`` model (state, ``custom``
messages, close) and which models were displayed, and sends ``update`` and ``custom`` messages
to them, optionally over a kernel subshell as JupyterLab ≥ 4.4 does.

Synchronous and single-threaded: messages are processed whenever a method pumps, i.e. in every
``wait*`` method, ``execute`` and every accessor (``widget_state``, ``models``, ...).

Example
-------
>>> with KernelFrontend() as fe:  # doctest: +SKIP
...     fe.execute("import ipywidgets; s = ipywidgets.IntSlider(); display(s)")
...     (model,) = fe.displayed_models("IntSliderModel")
...     fe.send_update(model.model_id, {"value": 3})
...     assert fe.execute("s.value").text == "3"  # cells and comm messages queue in order
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

from .channels import KernelConnection
from .errors import FrontendError, KernelError
from .execution import DisplayTable, Execution, bundle_of, display_id_of
from .widgets import CustomMessage, WidgetModel, WidgetTracker
from .wire import (
    CONTROL_PROTOCOL_VERSION,
    CONTROL_TARGET,
    Message,
    msg_type,
    remove_buffers,
    short_repr,
)


class KernelFrontend(KernelConnection):
    """A fake Jupyter front end attached to a kernel it starts; use it as a context manager.

    Takes the parameters of ``KernelConnection`` (``python``, ``kernel_name``, ``cwd``, ``env``,
    ``extra_arguments``, ``timeout``, ``startup_timeout``, ``log_size``).
    """

    _control_comm: str | None = None

    @cached_property
    def handler_errors(self) -> list[KernelError]:
        """Exceptions the kernel reported while handling a ``comm_msg`` this front end sent.

        ipywidgets publishes an ``error`` on iopub when a widget's message handler or a trait
        validation raises; the message's ``code`` is the ``data`` that was sent.
        """
        return []

    @cached_property
    def _widgets(self) -> WidgetTracker:
        return WidgetTracker()

    def restart(self, *, now: bool = False) -> None:
        """Restart the kernel (see ``KernelConnection.restart``); every widget model of the old
        kernel is closed with it, and the widget control comm is opened again when needed."""
        super().restart(now=now)
        for model_id in list(self._widgets.open):
            self._widgets.close(model_id)
        if self._control_comm is not None:
            self._widgets.control_comm_ids.discard(self._control_comm)
            self._control_comm = None

    # ----------------------------------------------------------------- cells

    def execute_nowait(
        self, code: str, *, subshell_id: str | None = None, stop_on_error: bool = True
    ) -> Execution:
        """Send a cell and return at once; cells queue in order like in a notebook."""
        content = {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": stop_on_error,
        }
        msg_id = self.send("shell", "execute_request", content, subshell_id=subshell_id)
        execution = Execution(self, msg_id, code, self._displays)
        self._watch(msg_id, execution.handle)
        return execution

    def execute(
        self,
        code: str,
        *,
        timeout: float | None = None,
        subshell_id: str | None = None,
        raise_on_error: bool = True,
    ) -> Execution:
        """Run a cell and wait for it; raises ``KernelError`` if it raised."""
        execution = self.execute_nowait(code, subshell_id=subshell_id)
        return execution.wait(timeout, raise_on_error=raise_on_error)

    # ----------------------------------------------------------------- subshells

    @property
    def supports_subshells(self) -> bool:
        """Whether the kernel announces ``"kernel subshells"`` in ``supported_features``."""
        return "kernel subshells" in self.kernel_info.get("supported_features", [])

    def create_subshell(self, *, timeout: float | None = None) -> str:
        """Create a kernel subshell (``create_subshell_request`` on control); return its id."""
        if not self.supports_subshells:
            raise FrontendError("this kernel does not support subshells (ipykernel >= 7 does)")
        reply = self.request("create_subshell_request", channel="control", timeout=timeout)
        return str(_ok(reply)["subshell_id"])

    def delete_subshell(self, subshell_id: str, *, timeout: float | None = None) -> None:
        """Delete a subshell made by ``create_subshell``."""
        content = {"subshell_id": subshell_id}
        _ok(self.request("delete_subshell_request", content, channel="control", timeout=timeout))

    def list_subshells(self, *, timeout: float | None = None) -> list[str]:
        """Ids of the kernel's subshells."""
        reply = self.request("list_subshell_request", channel="control", timeout=timeout)
        return [str(s) for s in _ok(reply).get("subshell_id", [])]

    # ----------------------------------------------------------------- sending to widgets

    def send_update(
        self, model_id: str, state: dict[str, Any], *, subshell_id: str | None = None
    ) -> str:
        """Send a state patch like a view after user input; return the ``msg_id``.

        ``bytes`` anywhere in ``state`` travel as binary buffers named by ``buffer_paths``.
        The patch is applied to this front end's copy at once, as a real front end does.
        """
        clean, paths, buffers = remove_buffers(state)
        data = {"method": "update", "state": clean, "buffer_paths": paths}
        self._widgets.apply_local(model_id, state)
        return self.send_comm_msg(model_id, data, buffers, subshell_id=subshell_id)

    def send_custom(
        self,
        model_id: str,
        content: Any,
        buffers: Sequence[bytes] | None = None,
        *,
        subshell_id: str | None = None,
    ) -> str:
        """Send what ``model.send(content, callbacks, buffers)`` sends; return the ``msg_id``."""
        data = {"method": "custom", "content": content}
        return self.send_comm_msg(model_id, data, buffers, subshell_id=subshell_id)

    def request_state(self, model_id: str, *, subshell_id: str | None = None) -> str:
        """Ask the kernel to resend the model's full state (it answers with an ``update``)."""
        return self.send_comm_msg(model_id, {"method": "request_state"}, subshell_id=subshell_id)

    def send_comm_msg(
        self,
        comm_id: str,
        data: dict[str, Any],
        buffers: Sequence[bytes] | None = None,
        *,
        subshell_id: str | None = None,
    ) -> str:
        """Send a raw ``comm_msg`` (e.g. a malformed one); return its ``msg_id``."""
        content = {"comm_id": comm_id, "data": data}
        msg_id = self.send("shell", "comm_msg", content, subshell_id=subshell_id, buffers=buffers)
        self._watch(msg_id, lambda msg: self._record_handler_error(msg, data))
        return msg_id

    def close_comm(self, model_id: str, *, subshell_id: str | None = None) -> str:
        """Close a model's comm from the front end (``comm_close``); return the ``msg_id``."""
        self._widgets.close(model_id)
        content = {"comm_id": model_id, "data": {}}
        return self.send("shell", "comm_close", content, subshell_id=subshell_id)

    def request_states(self, *, timeout: float | None = None) -> None:
        """Fetch every model's state over the widget control comm, as a reloaded page does."""
        if self._control_comm is None:
            self._control_comm = uuid.uuid4().hex
            self._widgets.control_comm_ids.add(self._control_comm)
            content = {"comm_id": self._control_comm, "target_name": CONTROL_TARGET, "data": {}}
            meta = {"version": CONTROL_PROTOCOL_VERSION}
            self.send("shell", "comm_open", content, metadata=meta)
        before = self._widgets.state_syncs
        self.send_comm_msg(self._control_comm, {"method": "request_states"})
        self.wait_for(
            lambda: self._widgets.state_syncs > before, timeout=timeout, what="update_states"
        )

    # ----------------------------------------------------------------- what the kernel sent

    def widget(self, model_id: str) -> WidgetModel:
        """The model with this id; the ``KeyError`` lists the known ids if there is none."""
        self.pump()
        try:
            return self._widgets.models[model_id]
        except KeyError:
            known = ", ".join(self._widgets.models) or "none"
            raise KeyError(f"no widget model {model_id!r}; known models: {known}") from None

    def widget_state(self, model_id: str) -> dict[str, Any]:
        """The model's current state as this front end knows it (live, not a copy)."""
        return self.widget(model_id).state

    def custom_messages(self, model_id: str) -> list[CustomMessage]:
        """``custom`` messages the kernel sent to the model, oldest first."""
        return list(self.widget(model_id).custom)

    def models(self, model_name: str | None = None, *, closed: bool = False) -> list[WidgetModel]:
        """Open models (and closed ones if ``closed``), optionally of one ``_model_name``."""
        self.pump()
        found = self._widgets.models if closed else self._widgets.open
        return [m for m in found.values() if model_name in (None, m.model_name)]

    def displayed_models(self, model_name: str | None = None) -> list[WidgetModel]:
        """Models a view was displayed for, in order of first display, each once."""
        self.pump()
        ids = dict.fromkeys(self._widgets.displayed)
        found = [self._widgets.models[i] for i in ids if i in self._widgets.models]
        return [m for m in found if model_name in (None, m.model_name)]

    def wait_for_custom(
        self,
        model_id: str,
        match: Callable[[Any], object] | None = None,
        *,
        since: int = 0,
        timeout: float | None = None,
    ) -> CustomMessage:
        """The first ``custom`` message to the model at index ≥ ``since`` whose content matches.

        Pass ``since=len(fe.custom_messages(model_id))`` before sending to see only new ones.
        """
        found: list[CustomMessage] = []

        def check() -> bool:
            model = self._widgets.models.get(model_id)
            for message in model.custom[since:] if model is not None else []:
                if match is None or match(message.content):
                    found.append(message)
                    return True
            return False

        self.wait_for(check, timeout=timeout, what=f"a custom message to model {model_id}")
        return found[0]

    @cached_property
    def _displays(self) -> DisplayTable:
        return DisplayTable()

    def _handle_iopub(self, msg: Message) -> None:
        self._widgets.handle(msg)
        if msg_type(msg) == "update_display_data":
            display_id = display_id_of(msg["content"])
            if display_id is not None:
                self._displays.update(display_id, bundle_of(msg["content"]))

    def _record_handler_error(self, msg: Message, data: dict[str, Any]) -> None:
        if msg["channel"] == "iopub" and msg_type(msg) == "error":
            content = msg["content"]
            traceback = [str(line) for line in content.get("traceback", [])]
            error = KernelError(
                str(content.get("ename")), str(content.get("evalue")), traceback, repr(data)
            )
            self.handler_errors.append(error)


def _ok(reply: Message) -> dict[str, Any]:
    content = reply["content"]
    if content.get("status") != "ok":
        raise FrontendError(f"{msg_type(reply)} failed: {short_repr(content)}")
    return content
