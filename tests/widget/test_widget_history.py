"""The split card state: live cards in live pages, settled ones in history pages, ``cards`` only
their counts; a change costs the same however many cards there are (counted, not timed)."""

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
        if name == "cards" or name.startswith(("live_", "history_"))
    }


def _live(state: dict[str, Any]) -> list[str]:
    """The keys of the live cards, page after page."""
    pages = (state[f"live_{index}"] for index in range(state["cards"]["live"]))
    return [card["key"] for page in pages for card in page]


def test_settled_cards_fill_history_pages_in_order() -> None:
    widget = QuestionWidget()
    for i in range(PAGE_SIZE + 3):
        widget.set_card(generic(f"c{i}"))
        widget.update_card(f"c{i}", status="answered", answer=ANSWER)
    widget.set_card(generic("live"))
    state = _state(widget)
    assert state["cards"]["pages"] == 2 and _live(state) == ["live"]
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
    assert _live(state) == ["b", "a"] and state["history_0"] == []
    widget.remove_card("b")
    assert _live(_state(widget)) == ["a"]
    widget.close()


def test_a_new_view_gets_every_card_from_the_state_alone() -> None:
    widget = QuestionWidget(cards=[_answered(f"h{i}") for i in range(2 * PAGE_SIZE + 1)])
    widget.set_card(generic("p"))
    mirror = CardMirror()  # as a front end that connects now: the state, no messages
    cards = mirror.cards(widget.get_state(), [])
    assert [c["key"] for c in cards] == ["p", *(f"h{i}" for i in range(2 * PAGE_SIZE + 1))]
    assert [c["key"] for c in cards[1:]] == [c["key"] for c in widget.cards[:-1]]
    widget.close()


def test_one_change_among_ten_thousand_serializes_one_card(
    monkeypatch, clock, record_calls
) -> None:
    history = [_answered(f"h{i}") for i in range(10_000)]
    widget = QuestionWidget(cards=[*history, generic("p")], clock=clock)
    widget.get_state()  # every page serialized once, as for the first front end
    comm = Recorder(widget, monkeypatch)
    dumped = record_calls(store_module, "_dump")
    widget.update_card("p", status="answered", answer=ANSWER)
    assert len(dumped) == 1  # only the changed card
    clock.advance(FULL_SYNC_DELAY_MS)
    (message, (kind, state)) = comm.take()
    assert message[0] == "message" and [c["key"] for c in message[1]["upsert"]] == ["p"]
    # The sync sends the page the card left and the one that took it, not the history.
    last = f"history_{10_000 // PAGE_SIZE}"
    assert kind == "state" and set(state) == {"cards", "live_0", last}
    assert state["live_0"] == [] and [c["key"] for c in state[last]] == ["p"]
    assert len(dumped) == 1  # the page reuses its other cards' text


def test_live_cards_fill_live_pages_in_order() -> None:
    widget = QuestionWidget(cards=[generic(f"p{i}") for i in range(2 * PAGE_SIZE + 1)])
    state = _state(widget)
    assert state["cards"] == {"rev": 1, "live": 3, "pages": 0}
    assert [len(state[f"live_{i}"]) for i in range(3)] == [PAGE_SIZE, PAGE_SIZE, 1]
    assert _live(state) == [f"p{i}" for i in range(2 * PAGE_SIZE + 1)]
    assert {"live_0", "live_1", "live_2"} <= set(widget.keys)
    widget.close()


def test_a_new_live_card_goes_after_the_last_live_card_reusing_emptied_pages() -> None:
    widget = QuestionWidget(cards=[generic(f"p{i}") for i in range(PAGE_SIZE + 1)])
    widget.update_card(f"p{PAGE_SIZE}", status="answered", answer=ANSWER)  # live_1 empties
    widget.update_card("p0", status="answered", answer=ANSWER)  # a hole in live_0
    widget.set_card(generic("new"))
    state = _state(widget)
    # live_1 is empty and live_0 has room again: the card goes last in live_0, after every
    # other live card; no page is added.
    assert state["cards"]["live"] == 2 and state["live_1"] == []
    assert [c["key"] for c in state["live_0"]][-1] == "new"
    assert _live(state) == [*(f"p{i}" for i in range(1, PAGE_SIZE)), "new"]
    widget.remove_card("new")
    for i in range(1, PAGE_SIZE):
        widget.update_card(f"p{i}", status="answered", answer=ANSWER)
    widget.set_card(generic("again"))  # every live page empty: the first one takes it
    state = _state(widget)
    assert state["cards"]["live"] == 2 and [c["key"] for c in state["live_0"]] == ["again"]
    widget.close()


def test_one_change_among_ten_thousand_live_cards_syncs_one_live_page(monkeypatch, clock) -> None:
    widget = QuestionWidget(cards=[generic(f"p{i}") for i in range(10_000)], clock=clock)
    widget.get_state()  # every page serialized once, as for the first front end
    comm = Recorder(widget, monkeypatch)
    widget.update_card("p7", status="answered", answer=ANSWER)
    widget.set_card(generic("new"))
    clock.advance(FULL_SYNC_DELAY_MS)
    ((_, message), (kind, state)) = comm.take()
    # The answered card waited for the next change and went with it, in the kernel's order.
    assert [c["key"] for c in message["upsert"]] == ["p7", "new"] and message["rev"] == 3
    # The page p7 left, the history page that took it, and the page the new card went to.
    last = f"live_{10_000 // PAGE_SIZE}"
    assert kind == "state" and set(state) == {"cards", "live_0", "history_0", last}
    assert len(state["live_0"]) == PAGE_SIZE - 1 and "p7" not in [c["key"] for c in state["live_0"]]
    assert [c["key"] for c in state[last]] == ["new"]
    assert state["cards"] == {"rev": 3, "live": 10_000 // PAGE_SIZE + 1, "pages": 1}
    widget.close()


def test_a_reload_renders_live_pages_and_history_from_the_state_alone() -> None:
    widget = QuestionWidget(cards=[generic(f"p{i}") for i in range(PAGE_SIZE + 2)])
    for i in range(0, PAGE_SIZE + 2, 3):
        widget.update_card(f"p{i}", status="answered", answer=ANSWER)
    widget.set_card(generic("last"))
    cards = CardMirror().cards(widget.get_state(), [])
    live = [c.key for c in widget.get_cards() if c.status == "pending"]
    settled = [c.key for c in widget.get_cards() if c.status != "pending"]
    assert [c["key"] for c in cards] == [k for k in widget.store.live_keys()] + settled
    assert widget.store.live_keys() == [k for k in live if k != "last"] + ["last"]
    widget.close()


def test_a_forged_update_of_a_history_page_is_refused_and_answered(monkeypatch) -> None:
    widget = QuestionWidget(cards=[_answered("h")])
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(widget, "_send", lambda msg, buffers=None: sent.append(msg))
    forged = {"method": "update", "state": {"history_0": "[]"}, "buffer_paths": []}
    widget._handle_msg({"content": {"data": forged}})
    ((reply,),) = [[m for m in sent if m["method"] == "update"]]
    assert [c["key"] for c in json.loads(reply["state"]["history_0"])] == ["h"]
    widget.close()


def test_a_refused_update_sends_what_is_held_first(clock, monkeypatch) -> None:
    widget = QuestionWidget(clock=clock)
    comm = Recorder(widget, monkeypatch)
    widget.set_card(generic("a"))  # a new live page, its sync held
    comm.take()
    forged = {"method": "update", "state": {"cards": "[]"}, "buffer_paths": []}
    widget._handle_msg({"content": {"data": forged}})
    (_, held), (_, reply) = comm.take()
    # The echo of ``cards`` alone would count a live page the views do not have yet.
    assert [c["key"] for c in held["live_0"]] == ["a"] and set(reply) == {"cards"}
    mirror = CardMirror()  # a front end with the model from now on: these states only
    assert [c["key"] for c in mirror.cards({**held, **reply}, [])] == ["a"]
    assert clock.pending == []
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


def test_the_store_keeps_each_card_as_its_text_and_reads_it_back_whole() -> None:
    widget = QuestionWidget(cards=[generic("p")])
    widget.update_card("p", status="answered", answer=ANSWER)
    card = widget.get_card("p")
    assert card.status == "answered" and card.answer is not None
    assert card.answer.answers[0].selected == ["SQLite"]
    assert card == Card.model_validate_json(widget.get_state()["history_0"][1:-1])
    assert widget.get_card("p") is not card  # parsed anew: no model is kept per card
    widget.set_card(generic("q"))
    assert widget.store.keys() == ["p", "q"] == [c.key for c in widget.get_cards()]
    assert widget.store.live_keys() == ["q"]


def test_the_mirror_reads_the_live_cards_without_parsing_the_history(monkeypatch) -> None:
    import ipyask.testing._card_mirror as mirror_module

    history = [_answered(f"h{i}") for i in range(10 * PAGE_SIZE)]
    widget = QuestionWidget(cards=[*history, generic("p")])
    mirror = CardMirror()
    assert [c["key"] for c in mirror.live(dict(widget.get_state()), [])] == ["p"]
    parsed: list[object] = []
    real = mirror_module.parse_card_state
    monkeypatch.setattr(
        mirror_module, "parse_card_state", lambda raw: parsed.append(raw) or real(raw)
    )
    widget.update_card("p", status="answered", answer=ANSWER)  # to the last history page
    widget.set_card(generic("q"))
    state = dict(widget.get_state())
    assert [c["key"] for c in mirror.live(state, [])] == ["q"]
    assert parsed and not any('"answered"' in str(raw) for raw in parsed)  # no history page
    cards = mirror.cards(state, [])  # every card: the history pages are taken in now
    assert [c["key"] for c in cards][:1] == ["q"] and cards[-1]["key"] == "p"
    assert len(cards) == len(history) + 2
    widget.close()
