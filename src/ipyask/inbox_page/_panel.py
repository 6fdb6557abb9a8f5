"""``PagePanel``: the store's inbox panel in the Jupyter server, its comm's front ends the pages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from comm.base_comm import BaseComm

from .._notebook.panel import QuestionPanel
from .._service import UserQuestions
from ..widget import CardStore

__all__ = ["PageEvent", "PagePanel"]

PageEvent = Callable[[str, Any], None]
"""Receives what the panel sends to its views: ``("update", changed state entries)`` or
``("custom", a message)``."""

_PAGE_STATE = ("language", "image_hosts", "protocol_version")
"""The panel's traits a page's view reads; the cards' entries besides (no code, no layout)."""


def _page_entry(name: str) -> bool:
    return name in _PAGE_STATE or CardStore.owns(name)


class _PageComm(BaseComm):
    """The panel's comm: what the panel sends goes to ``deliver`` (its ``data``), not to a
    kernel's front end."""

    def __init__(self, deliver: Callable[[dict[str, Any]], None], **kwargs: Any) -> None:
        self._deliver = deliver
        super().__init__(**kwargs)

    def publish_msg(
        self,
        msg_type: str,
        data: dict[str, Any] | None = None,
        metadata: object = None,
        buffers: object = None,
        **keys: object,
    ) -> None:
        if msg_type == "comm_msg" and data is not None:
            self._deliver(data)


class PagePanel(QuestionPanel):
    """A panel whose views are the pages: what its comm would send to them goes to
    ``deliver`` (the state entries a page's view reads, the messages)."""

    def __init__(self, service: UserQuestions, deliver: PageEvent) -> None:
        self._deliver = deliver  # before the widget opens its comm
        super().__init__(service, transcript=False)

    def open(self) -> None:
        """Open the comm (the widget's constructor calls this): one to the pages."""
        if getattr(self, "comm", None) is None:
            self.page_comm = _PageComm(self._relay, target_name="jupyter.widget")
            self.set_trait("comm", self.page_comm)

    def _relay(self, data: dict[str, Any]) -> None:
        method = data.get("method")
        if method == "custom":
            self._deliver("custom", data.get("content"))
        elif method == "update":
            state = data.get("state") or {}
            changed = {name: value for name, value in state.items() if _page_entry(name)}
            if changed:
                self._deliver("update", changed)

    def page_state(self) -> dict[str, Any]:
        """The synced state a page's view reads."""
        return self.get_state([name for name in self.keys if _page_entry(name)])
