"""A burst of answers: the agents get their answers at once; the panel settles the burst's cards
in one pass just before the burst's ``cards`` message, and every read sees them settled."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import ipyask
from ipyask.widget._card_changes import SETTLED_BURST_DELAY_MS
from ipyask.widget._card_store import CardStore

from ._helpers import FakeView, drain


def _question(i: int) -> dict[str, Any]:
    return {"id": "q", "question": f"Question {i}?", "options": [{"label": "A"}, {"label": "B"}]}


async def _ask_many(svc: ipyask.UserQuestions, n: int) -> list[asyncio.Future[Any]]:
    tasks = [asyncio.ensure_future(svc.ask({"questions": [_question(i)]})) for i in range(n)]
    await drain()
    return tasks


def _live_keys(panel: ipyask.QuestionPanel) -> list[str]:
    return [card["key"] for card in panel.cards if card["status"] == "pending"]


async def _answer_each(view: FakeView, keys: list[str], label: str) -> None:
    """Answer every card, each in a message of its own (the loop turns in between)."""
    for key in keys:
        view.answer(key, ("q", [label]))
        await drain()


async def _burst(
    svc: ipyask.UserQuestions, panel: ipyask.QuestionPanel, view: FakeView, n: int, label: str
) -> tuple[list[asyncio.Future[Any]], list[str]]:
    """Ask ``n`` questions, then answer them all as one burst; the asks and the cards' keys."""
    tasks = await _ask_many(svc, n)
    keys = _live_keys(panel)
    await _answer_each(view, keys, label)
    return tasks, keys


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What happened, in order: ``settle <key>`` for each card the store settles."""
    seen: list[str] = []
    settle = CardStore.settle

    def recorded(self: CardStore, key: str, fields: Any) -> Any:
        seen.append(f"settle {key}")
        return settle(self, key, fields)

    monkeypatch.setattr(CardStore, "settle", recorded)
    return seen


async def test_a_burst_is_settled_in_one_pass_before_its_message(
    svc, panel, view: FakeView, sent: list[dict[str, Any]], events: list[str]
) -> None:
    tasks = await _ask_many(svc, 5)
    keys = _live_keys(panel)
    sent.clear()
    for key in keys:
        events.append(f"answer {key}")
        view.answer(key, ("q", ["A"]))
        await drain()  # each answer is a message of its own: the loop turns in between
    # Every agent has its answer while the burst is still held.
    assert [(await task).answers[0].selected for task in tasks] == [["A"]] * 5
    # The first card settles alone; the second starts the burst, whose message waits: the
    # cards after it wait with it, and are settled together when it goes.
    assert events == [
        f"answer {keys[0]}",
        f"settle {keys[0]}",
        f"answer {keys[1]}",
        f"settle {keys[1]}",
        *(f"answer {key}" for key in keys[2:]),
    ]
    assert [m for m in sent if m.get("kind") == "cards"] == []
    await asyncio.sleep(SETTLED_BURST_DELAY_MS / 1000 + 0.05)
    assert events[-3:] == [f"settle {key}" for key in keys[2:]]
    (message,) = [m for m in sent if m.get("kind") == "cards"]
    assert [card["key"] for card in message["upsert"]] == keys
    assert {card["status"] for card in message["upsert"]} == {"answered"}
    assert message["rev"] == panel.store.rev
    assert panel.records == [
        f"**Answered** by ada in the panel: Question {i}? → **A**" for i in range(5)
    ]


@pytest.mark.parametrize(
    "read",
    [
        lambda panel, key: panel.get_card(key).status,
        lambda panel, key: panel.store.card(key).status,
        lambda panel, key: next(c["status"] for c in panel.cards if c["key"] == key),
        lambda panel, key: next(c.status for c in panel.get_cards() if c.key == key),
        lambda panel, key: "answered" if panel.live(key) is None else "pending",
    ],
    ids=["get_card", "store", "cards", "get_cards", "live"],
)
async def test_a_read_during_the_burst_sees_every_card_settled(
    svc, panel, view: FakeView, read: Any
) -> None:
    tasks, keys = await _burst(svc, panel, view, 4, "B")
    await asyncio.gather(*tasks)
    assert [read(panel, key) for key in keys] == ["answered"] * 4
    assert len(panel.records) == 4  # and their records are written


async def test_a_second_answer_in_the_burst_is_refused_as_already_answered(
    svc, panel, view: FakeView
) -> None:
    tasks, keys = await _burst(svc, panel, view, 3, "A")
    view.answer(keys[-1], ("q", ["B"]))  # its settlement still waits for the burst
    assert view.errors[-1]["code"] == "ALREADY_ANSWERED"
    assert [(await task).answers[0].selected for task in tasks] == [["A"]] * 3
    assert panel.get_card(keys[-1]).answer.answers[0].selected == ["A"]  # type: ignore[union-attr]


async def test_a_card_asked_during_the_burst_comes_after_the_settled_ones(
    svc, panel, view: FakeView, sent: list[dict[str, Any]]
) -> None:
    tasks = await _ask_many(svc, 3)
    keys = _live_keys(panel)
    sent.clear()
    await _answer_each(view, keys, "A")
    late = asyncio.ensure_future(svc.ask({"questions": [_question(9)]}))
    await drain()
    # The new card goes at once, with the burst's settled cards in front of it (kernel order).
    (message,) = [m for m in sent if m.get("kind") == "cards"]
    assert [card["status"] for card in message["upsert"]] == ["answered"] * 3 + ["pending"]
    assert message["rev"] == panel.store.rev
    await asyncio.gather(*tasks)
    late.cancel()


async def test_closing_the_panel_during_the_burst_keeps_its_cards_answered(
    svc, panel, view: FakeView
) -> None:
    tasks, keys = await _burst(svc, panel, view, 3, "A")
    panel.close()
    assert [(await task).answers[0].selected for task in tasks] == [["A"]] * 3
    assert [panel.get_card(key).status for key in keys] == ["answered"] * 3
    assert len(panel.records) == 3


async def test_a_cell_view_of_the_burst_shows_its_cards_settled(svc, panel, sent) -> None:
    cell = panel.cell_view()
    with cell.collecting():
        tasks = await _ask_many(svc, 3)
    answering = FakeView(cell, sent, "cell-view-1")
    await _answer_each(answering, [card.key for card in cell.get_cards()], "A")
    await asyncio.gather(*tasks)
    assert [card.status for card in cell.get_cards()] == ["answered"] * 3
