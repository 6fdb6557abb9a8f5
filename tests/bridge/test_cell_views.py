"""Cell views in process: which cards a cell view gets, and that it stays in step with the panel
(the kernel-level behaviour is in tests/notebook_kernel/test_cell_views.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ipyask import _answered_by
from ipyask._answered_by import card_digest
from ipyask._notebook.panel import CellView
from ipyask.host import QuestionAnsweredEvent, TurnStartEvent

from ._helpers import FakeView, drain

DB = {"id": "db", "question": "Which database?", "options": [{"label": "SQLite"}]}


@pytest.fixture
def cell(panel, monkeypatch) -> tuple[CellView, list[dict[str, Any]]]:
    view = panel.cell_view()
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(view, "send", lambda content, buffers=None: sent.append(content))
    return view, sent


async def _ask(svc, question: dict[str, Any], view: CellView | None = None) -> asyncio.Future:
    async def asking() -> Any:
        if view is None:
            return await svc.ask({"questions": [question]})
        with view.collecting():
            return await svc.ask({"questions": [question]})

    task = asyncio.ensure_future(asking())
    await drain()
    return task


async def test_a_cell_view_holds_only_the_cards_asked_inside_it(svc, panel, cell) -> None:
    view, _ = cell
    outside = await _ask(svc, {**DB, "question": "Asked elsewhere?"})
    inside = await _ask(svc, DB, view)
    assert [c.questions[0].question for c in panel.get_cards()] == [
        "Asked elsewhere?",
        "Which database?",
    ]
    (card,) = view.get_cards()
    assert card.questions[0].question == "Which database?"
    outside.cancel()
    inside.cancel()
    await drain()


async def test_an_answer_from_the_cell_view_settles_the_panel_card(svc, panel, cell) -> None:
    view, sent = cell
    task = await _ask(svc, DB, view)
    key = view.get_cards()[0].key
    in_cell = FakeView(view, sent, "cell-view-1")  # type: ignore[arg-type]
    in_cell.answer(key, ("db", ["SQLite"]))
    assert (await task).answers[0].selected == ["SQLite"]
    await drain()
    assert panel.get_card(key).status == view.get_card(key).status == "answered"
    in_cell.answer(key, ("db", ["SQLite"]))  # again: refused, to the view that sent it
    await drain()
    assert [e["code"] for e in in_cell.errors] == ["NOT_PENDING"]
    assert view.get_card(key).answer == panel.get_card(key).answer


async def test_a_removed_card_leaves_the_cell_view_and_closing_the_panel_closes_it(
    svc, panel, cell
) -> None:
    view, _ = cell
    task = await _ask(svc, DB, view)
    key = view.get_cards()[0].key
    panel.remove_card(key)
    assert view.get_cards() == []
    task.cancel()
    await drain()
    panel.close()
    assert view.comm is None  # closed with the panel


@pytest.mark.parametrize("door", ["cell-view", "panel"])
async def test_a_durable_question_records_the_view_it_was_answered_in(
    svc, panel, cell, agent, door
) -> None:
    view, sent = cell
    agent.session.append(TurnStartEvent(turn=1))
    request = {"questions": [DB], "agent": agent, "callId": "call-1"}
    with view.collecting():
        task = asyncio.ensure_future(svc.ask(request))
    await drain()
    key = view.get_cards()[0].key
    answering = (
        FakeView(view, sent, "cell-view-1")
        if door == "cell-view"
        else FakeView(panel, sent, "panel-view-1")
    )
    answering.answer(key, ("db", ["SQLite"]))  # type: ignore[arg-type]
    await task
    await drain()
    (answered,) = [e for e in agent.session.events if isinstance(e, QuestionAnsweredEvent)]
    by = answered.answered_by
    assert by is not None and (by.who, by.door) == ("ada", door)
    assert by.digest == card_digest([DB])
    words = "the cell view" if door == "cell-view" else "the panel"
    assert panel.records == [f"**Answered** by ada in {words}: Which database? → **SQLite**"]


async def test_an_answer_nothing_keeps_makes_its_record_only_when_it_is_read(
    svc, panel, sent, monkeypatch
) -> None:
    # A question that is not durable keeps no record: its transcript line says who answered
    # and the door, and the card's digest is made only if the settlement's record is read.
    digests: list[object] = []
    monkeypatch.setattr(
        _answered_by, "card_digest", lambda questions: digests.append(questions) or "sha256:x"
    )
    task = await _ask(svc, DB)
    key = panel.get_cards()[0].key
    settlement = panel._held[key].settlement
    FakeView(panel, sent, "panel-view-1").answer(key, ("db", ["SQLite"]))
    assert (await task).answers[0].selected == ["SQLite"]
    await drain()
    assert panel.records == ["**Answered** by ada in the panel: Which database? → **SQLite**"]
    assert digests == []
    by = settlement.answered_by
    assert by is not None and (by.who, by.host, by.door, by.digest) == (
        "ada",
        None,
        "panel",
        "sha256:x",
    )
    assert digests == [[DB]]  # the card's questions in wire form
    assert settlement.answered_by is by  # made once
    assert len(digests) == 1
