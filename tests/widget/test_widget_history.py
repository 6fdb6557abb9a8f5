"""The split card state: live cards in ``cards``, settled ones in history pages; a change costs the
same however long the history is (counted, not timed)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import ipyask.widget._card_store as store_module
from ipyask.testing import ManualClock
from ipyask.testing._card_mirror import CardMirror
from ipyask.widget import Card, QuestionWidget
from ipyask.widget._card_store import PAGE_SIZE
from ipyask.widget._sync import FULL_SYNC_DELAY_MS

from .test_widget_sync import Recorder
from .widget_cardkit import generic

ANSWER = {"answers": [{"id": "q1", "selected": ["SQLite"]}]}


def _answered(key: str) -> Card:
    return generic(key).model_copy(update={"status": "answered"})


def _state(widget: QuestionWidget) -> dict[str, Any]:
    return {
        name: json.loads(text)
        for name, text in widget.get_state().items()
        if name == "cards" or name.startswith("history_")
    }


def test_settled_cards_fill_history_pages_in_order() -> None:
    widget = QuestionWidget()
    for i in range(PAGE_SIZE + 3):
        widget.set_card(generic(f"c{i}"))
        widget.update_card(f"c{i}", status="answered", answer=ANSWER)
    widget.set_card(generic("live"))
    state = _state(widget)
    assert state["cards"]["pages"] == 2 and [c["key"] for c in state["cards"]["cards"]] == ["live"]
    assert [c["key"] for c in state["history_0"]] == [f"c{i}" for i in range(PAGE_SIZE)]
    second = [f"c{i}" for i in range(PAGE_SIZE, PAGE_SIZE + 3)]
    assert [c["key"] for c in state["history_1"]] == second
    assert {"history_0", "history_1"} <= set(widget.keys)  # synced to every new front end
    # The kernel's own order is unchanged: first added first.
    assert [card.key for card in widget.get_cards()][:2] == ["c0", "c1"]
    widget.close()


def test_a_card_moves_between_the_live_cards_and_the_history() -> None:
    widget = QuestionWidget(cards=[generic("a"), generic("b")])
    widget.update_card("a", status="cancelled")
    assert [c["key"] for c in _state(widget)["history_0"]] == ["a"]
    widget.set_card(generic("a"))  # pending again: live, after the live cards
    state = _state(widget)
    assert [c["key"] for c in state["cards"]["cards"]] == ["b", "a"] and state["history_0"] == []
    widget.remove_card("b")
    assert [c["key"] for c in _state(widget)["cards"]["cards"]] == ["a"]
    widget.close()


def test_a_new_view_gets_every_card_from_the_state_alone() -> None:
    widget = QuestionWidget(cards=[_answered(f"h{i}") for i in range(2 * PAGE_SIZE + 1)])
    widget.set_card(generic("p"))
    mirror = CardMirror()  # as a front end that connects now: the state, no messages
    cards = mirror.cards(widget.get_state(), [])
    assert [c["key"] for c in cards] == ["p", *(f"h{i}" for i in range(2 * PAGE_SIZE + 1))]
    assert [c["key"] for c in cards[1:]] == [c["key"] for c in widget.cards[:-1]]
    widget.close()


def test_one_change_among_ten_thousand_serializes_one_card(monkeypatch, clock) -> None:
    history = [_answered(f"h{i}") for i in range(10_000)]
    widget = QuestionWidget(cards=[*history, generic("p")], clock=clock)
    widget.get_state()  # every page serialized once, as for the first front end
    comm = Recorder(widget, monkeypatch)
    dumped: list[object] = []
    real_dump = store_module._dump

    def counting(value: object) -> str:
        dumped.append(value)
        return real_dump(value)

    monkeypatch.setattr(store_module, "_dump", counting)
    widget.update_card("p", status="answered", answer=ANSWER)
    assert len(dumped) == 1  # only the changed card
    clock.advance(FULL_SYNC_DELAY_MS)
    (message, (kind, state)) = comm.take()
    assert message[0] == "message" and [c["key"] for c in message[1]["upsert"]] == ["p"]
    # The sync sends the live cards and the one page that took the card, not the history.
    last = f"history_{10_000 // PAGE_SIZE}"
    assert kind == "state" and set(state) == {"cards", last}
    assert state["cards"]["cards"] == [] and [c["key"] for c in state[last]] == ["p"]
    assert len(dumped) == 1  # the page reuses its other cards' text


def test_a_forged_update_of_a_history_page_is_refused_and_answered(monkeypatch) -> None:
    widget = QuestionWidget(cards=[_answered("h")])
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(widget, "_send", lambda msg, buffers=None: sent.append(msg))
    forged = {"method": "update", "state": {"history_0": "[]"}, "buffer_paths": []}
    widget._handle_msg({"content": {"data": forged}})
    ((reply,),) = [[m for m in sent if m["method"] == "update"]]
    assert [c["key"] for c in json.loads(reply["state"]["history_0"])] == ["h"]
    widget.close()


def test_the_mirror_applies_messages_newer_than_the_state(clock, monkeypatch) -> None:
    widget = QuestionWidget(cards=[generic("a"), generic("b")], clock=clock)
    state = dict(widget.get_state())
    comm = Recorder(widget, monkeypatch)
    widget.update_card("a", status="answered", answer=ANSWER)
    widget.remove_card("b")
    widget.set_card(generic("c"))
    messages = [_Custom(content) for kind, content in comm.take() if kind == "message"]
    mirror = CardMirror()
    cards = mirror.cards(state, messages)
    assert [(c["key"], c["status"]) for c in cards] == [("c", "pending"), ("a", "answered")]
    widget.close()


class _Custom:
    def __init__(self, content: dict[str, Any]) -> None:
        self.content = content


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()
