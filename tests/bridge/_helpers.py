"""A fake view of a panel (its real comm message path) and small lookups for the bridge tests."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import ipyask
from ipyask.protocol import AskUserQuestionAnswer, AskUserQuestionItem
from ipyask.testing import drain_loop

drain = drain_loop


class FakeView:
    """Speaks to a panel through its real comm message path, and records what it sends."""

    def __init__(
        self, panel: ipyask.QuestionPanel, sent: list[dict[str, Any]], view_id: str
    ) -> None:
        self.panel = panel
        self.view_id = view_id
        self._sent = sent

    def send(self, kind: str, **fields: Any) -> None:
        content = {"kind": kind, "viewId": self.view_id, "protocolVersion": 2, **fields}
        self.raw(content)

    def raw(self, content: object) -> None:
        self.panel.comm.handle_msg(
            {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
        )

    def answer(self, key: str, *items: tuple[str, list[str]] | tuple[str, list[str], str]) -> None:
        answers = []
        for item in items:
            entry: dict[str, Any] = {"id": item[0], "selected": item[1]}
            if len(item) == 3:
                entry["custom"] = item[2]
            answers.append(entry)
        self.send("answer", key=key, answer={"answers": answers})

    @property
    def errors(self) -> list[dict[str, Any]]:
        return [m for m in self._sent if m.get("kind") == "error"]

    @property
    def frames(self) -> list[dict[str, Any]]:
        return [m for m in self._sent if m.get("kind") == "frame"]


def only_key(panel: ipyask.QuestionPanel) -> str:
    (card,) = panel.cards
    return str(card["key"])


def item(**wire: Any) -> AskUserQuestionItem:
    """A question with id ``q`` and the other wire fields ``wire``."""
    return AskUserQuestionItem.model_validate({"id": "q", **wire})


def chose(*selected: str, custom: str | None = None) -> AskUserQuestionAnswer:
    """The answer to question ``q``: ``selected`` labels and optional ``custom`` text."""
    answer: dict[str, Any] = {"id": "q", "selected": list(selected)}
    if custom is not None:
        answer["custom"] = custom
    return AskUserQuestionAnswer.model_validate({"answers": [answer]})


async def asked_then_stopped(svc: ipyask.UserQuestions, request: dict[str, Any]) -> None:
    """Ask ``request``, let its card show, then stop the asking task (the agent stopped waiting)."""
    task = asyncio.ensure_future(svc.ask(request))
    await drain()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await drain()
