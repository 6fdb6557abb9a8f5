"""Answers are checked against the kernel's own record of each request, never against state a
view can write (a forged ``cards`` update is refused, and would not be read anyway)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import ipyask
from ipyask.testing import drain_loop

DB = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}
EVIL_CARD = {
    "key": "k",
    "questions": [{"id": "db", "question": "Which database?", "options": [{"label": "EVIL"}]}],
    "status": "pending",
    "wait": "none",
}


def forge_state(panel: ipyask.QuestionPanel, state: dict[str, Any]) -> None:
    """Send an ipywidgets state update as a front end would, through the panel's comm."""
    data = {"method": "update", "state": state, "buffer_paths": []}
    panel.comm.handle_msg({"content": {"data": data}, "buffers": []})


async def test_a_forged_card_cannot_offer_an_option(svc, panel, view) -> None:
    task = asyncio.ensure_future(svc.ask({"questions": [DB]}))
    await drain_loop()
    (key,) = [card.key for card in panel.get_cards()]
    forged = {**EVIL_CARD, "key": key}
    forge_state(panel, {"cards": json.dumps({"rev": 99, "cards": [forged]})})
    forge_state(panel, {"cards": [forged]})
    view.answer(key, ("db", ["EVIL"]))
    await drain_loop()
    assert not task.done()
    assert [error["code"] for error in view.errors] == ["BAD_ANSWER"]
    assert [o.label for o in panel.store.card(key).questions[0].options or []] == [
        "Postgres",
        "SQLite",
    ]
    view.answer(key, ("db", ["SQLite"]))
    assert (await asyncio.wait_for(task, 5)).answers[0].selected == ["SQLite"]


async def test_a_forged_empty_card_list_leaves_the_question_answerable(svc, panel, view) -> None:
    task = asyncio.ensure_future(svc.ask({"questions": [DB]}))
    await drain_loop()
    (key,) = [card.key for card in panel.get_cards()]
    forge_state(panel, {"cards": json.dumps({"rev": 99, "cards": []})})
    forge_state(panel, {"cards": "{broken"})
    view.answer(key, ("db", ["Postgres"]))
    assert (await asyncio.wait_for(task, 5)).answers[0].selected == ["Postgres"]
    assert view.errors == []


async def test_a_held_request_is_checked_against_the_request_as_asked(svc, panel, view) -> None:
    # Even kernel code emptying the cards trait leaves the held request answerable.
    task = asyncio.ensure_future(svc.ask({"questions": [DB]}))
    await drain_loop()
    (key,) = [card.key for card in panel.get_cards()]
    panel.cards = []
    view.answer(key, ("db", ["EVIL"]))
    await drain_loop()
    assert [error["code"] for error in view.errors] == ["BAD_ANSWER"]
    view.answer(key, ("db", ["SQLite"]))
    assert (await asyncio.wait_for(task, 5)).answers[0].selected == ["SQLite"]
