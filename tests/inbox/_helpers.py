"""Waiting for what another thread or process does, and the question every test asks."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

DEPLOY = {
    "questions": [
        {"id": "q1", "question": "Deploy?", "options": [{"label": "Yes"}, {"label": "No"}]}
    ]
}
YES = {"answers": [{"id": "q1", "selected": ["Yes"]}]}
NO = {"answers": [{"id": "q1", "selected": ["No"]}]}


async def until(check: Callable[[], Any], timeout: float = 10.0) -> Any:
    """``check()``'s first truthy value, polled on the running loop (the test's only poll)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout} s: {check}")
        await asyncio.sleep(0.01)


class View:
    """One view of a panel: sends through its real comm message path, records what it gets."""

    def __init__(self, panel: Any, view_id: str = "view-1") -> None:
        self.panel = panel
        self.view_id = view_id
        self.received: list[dict[str, Any]] = []
        panel.send = lambda content, buffers=None: self.received.append(content)

    def answer(self, key: str, answer: dict[str, Any]) -> None:
        content = {
            "kind": "answer",
            "viewId": self.view_id,
            "protocolVersion": 2,
            "key": key,
            "answer": answer,
        }
        self.panel.comm.handle_msg(
            {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
        )

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [m for m in self.received if m.get("kind") == "error"]
