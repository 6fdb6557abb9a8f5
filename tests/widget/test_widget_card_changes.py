"""Cards that settle in a burst reach views in one ``cards`` message; every other change at once."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest

from ipyask.testing import ManualClock
from ipyask.testing._card_mirror import CardMirror
from ipyask.widget import QuestionWidget
from ipyask.widget._card_changes import SETTLED_BURST_DELAY_MS, SETTLED_CARD_DELAY_MS
from ipyask.widget._protocol import KERNEL_MESSAGE
from ipyask.widget._sync import FULL_SYNC_DELAY_MS

from .test_widget_sync import Recorder
from .widget_cardkit import generic, timed

ANSWER = {"answers": [{"id": "q1", "selected": ["SQLite"]}]}


@dataclass(frozen=True)
class Sent:
    """A custom message as the kernel client records it: the mirror reads its content."""

    content: Any


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def recorded(clock, monkeypatch) -> tuple[QuestionWidget, Recorder]:
    widget = QuestionWidget(cards=[generic(f"p{i}") for i in range(100)], clock=clock)
    return widget, Recorder(widget, monkeypatch)


def _messages(log: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    return [content for kind, content in log if kind == "message"]


def test_a_burst_of_answers_is_one_message_a_moment_later(recorded, clock):
    widget, comm = recorded
    for i in range(100):
        widget.update_card(f"p{i}", status="answered", answer=ANSWER)
    assert comm.take() == []  # held: nothing per answer
    clock.advance(SETTLED_BURST_DELAY_MS - 1)
    assert comm.take() == []
    clock.advance(1)
    (message,) = _messages(comm.take())
    KERNEL_MESSAGE.validate_python(message)
    assert message["rev"] == widget.store.rev == 101 and message["remove"] == []
    assert [c["key"] for c in message["upsert"]] == [f"p{i}" for i in range(100)]
    assert all(c["status"] == "answered" for c in message["upsert"])
    widget.close()


def test_a_card_that_settles_alone_goes_a_moment_later(recorded, clock):
    widget, comm = recorded
    widget.update_card("p1", status="answered", answer=ANSWER)
    clock.advance(SETTLED_CARD_DELAY_MS - 0.5)
    assert comm.take() == []
    clock.advance(0.5)
    (message,) = _messages(comm.take())
    assert [c["key"] for c in message["upsert"]] == ["p1"] and message["rev"] == 2
    # The next one starts anew: alone again, it does not wait for a burst either.
    widget.update_card("p2", status="answered", answer=ANSWER)
    clock.advance(SETTLED_CARD_DELAY_MS)
    (message,) = _messages(comm.take())
    assert [c["key"] for c in message["upsert"]] == ["p2"] and message["rev"] == 3
    widget.close()


def test_cards_that_keep_settling_go_once_per_burst_window(recorded, clock):
    widget, comm = recorded
    sent_at = []
    for i in range(100):
        widget.update_card(f"p{i}", status="answered", answer=ANSWER)
        clock.advance(SETTLED_CARD_DELAY_MS / 2)  # the next card settles well within the delay
        if _messages(comm.take()):
            sent_at.append(clock.now_ms())
    window = SETTLED_BURST_DELAY_MS
    assert sent_at == [window * k for k in range(1, len(sent_at) + 1)]
    assert len(sent_at) == 100 * SETTLED_CARD_DELAY_MS / 2 // window
    widget.close()


def test_a_card_that_changes_again_while_held_goes_once_in_its_place(recorded, clock):
    widget, comm = recorded
    widget.update_card("p1", status="answered", answer=ANSWER)
    widget.update_card("p2", status="cancelled", notice="stopped")
    widget.update_card("p1", notice="late")
    clock.advance(SETTLED_BURST_DELAY_MS)
    (message,) = _messages(comm.take())
    assert [(c["key"], c.get("notice")) for c in message["upsert"]] == [
        ("p1", "late"),
        ("p2", "stopped"),
    ]
    assert message["rev"] == 4
    widget.close()


def test_a_new_card_goes_out_at_once_after_the_held_ones(recorded, clock):
    widget, comm = recorded
    widget.update_card("p3", status="answered", answer=ANSWER)
    widget.set_card(generic("new"))
    (message,) = _messages(comm.take())  # at once, before any timer
    assert [c["key"] for c in message["upsert"]] == ["p3", "new"]
    assert message["rev"] == 3 and message["remove"] == []
    widget.set_card(generic("newer"))  # nothing held: alone
    (message,) = _messages(comm.take())
    assert [c["key"] for c in message["upsert"]] == ["newer"] and message["rev"] == 4
    clock.advance(SETTLED_BURST_DELAY_MS)
    assert comm.take() == []  # the timer of the held card was stopped
    widget.close()


def test_a_held_card_that_is_removed_is_only_removed(recorded, clock):
    widget, comm = recorded
    widget.update_card("p3", status="answered", answer=ANSWER)
    widget.update_card("p4", status="answered", answer=ANSWER)
    widget.remove_card("p3")
    (message,) = _messages(comm.take())
    assert [c["key"] for c in message["upsert"]] == ["p4"] and message["remove"] == ["p3"]
    assert message["rev"] == 4
    widget.close()


def test_a_held_card_that_turns_live_again_is_taken_out_of_the_history_first(recorded, clock):
    widget, comm = recorded
    widget.update_card("p3", status="answered", answer=ANSWER)
    widget.update_card("p3", status="continued", answer=None)
    (message,) = _messages(comm.take())
    assert message["remove"] == ["p3"] and [c["key"] for c in message["upsert"]] == ["p3"]
    # Applied as views apply it, it ends last among the live cards, where the kernel put it.
    state = widget.get_state()
    assert CardMirror().live(state, [])[-1]["key"] == "p3"
    widget.close()


def test_a_frame_or_an_error_goes_after_the_held_cards(recorded, clock):
    widget, comm = recorded
    widget.set_card(timed("t"))
    comm.take()
    widget.update_card("p1", status="answered", answer=ANSWER)
    widget.send_error("NOT_PENDING", "settled", key="p1")
    kinds = [content["kind"] for content in _messages(comm.take())]
    assert kinds == ["cards", "error"]
    widget.update_card("p2", status="answered", answer=ANSWER)
    widget.send_frame("t", 5_000)  # a live card's change, then the frame
    contents = _messages(comm.take())
    assert [c["kind"] for c in contents] == ["cards", "frame"]
    assert [c["key"] for c in contents[0]["upsert"]] == ["p2", "t"]
    widget.close()


def test_the_state_sync_sends_the_held_cards_first(recorded, clock):
    widget, comm = recorded
    widget.set_card(generic("a"))  # the state sync is held from now until FULL_SYNC_DELAY_MS
    comm.take()
    clock.advance(FULL_SYNC_DELAY_MS - 1)
    widget.update_card("a", status="answered", answer=ANSWER)
    clock.advance(1)
    log = comm.take()
    assert [kind for kind, _ in log] == ["message", "state"]
    assert log[0][1]["rev"] == log[1][1]["cards"]["rev"] == widget.store.rev
    clock.advance(SETTLED_BURST_DELAY_MS)
    assert comm.take() == [] and clock.pending == []
    widget.close()


def test_closing_sends_the_held_cards(recorded, clock):
    widget, comm = recorded
    widget.update_card("p1", status="answered", answer=ANSWER)
    widget.close()
    log = comm.take()
    assert [kind for kind, _ in log] == ["message", "state"]
    assert clock.pending == []


def test_views_applying_the_messages_end_with_the_kernels_cards(clock, monkeypatch):
    # Random bursts of every kind of change: a view that had the first state and then only the
    # messages shows, after every burst, what a view that loads the state now shows.
    widget = QuestionWidget(cards=[generic(f"c{i}") for i in range(30)], clock=clock)
    comm = Recorder(widget, monkeypatch)
    first = widget.get_state()
    mirror, received = CardMirror(), []
    rng = random.Random(18)
    made = 30
    for _ in range(40):
        for _ in range(rng.randint(1, 12)):
            cards = widget.get_cards()
            card = rng.choice(cards) if cards else None
            roll = rng.random()
            if card is None or roll < 0.2:
                widget.set_card(generic(f"c{made}"))
                made += 1
            elif roll < 0.55:
                widget.update_card(card.key, status="answered", answer=ANSWER)
            elif roll < 0.7:
                widget.update_card(card.key, status="cancelled", answer=None, notice="stopped")
            elif roll < 0.85:
                widget.update_card(card.key, status="pending", answer=None, notice=None)
            else:
                widget.remove_card(card.key)
        clock.advance(SETTLED_BURST_DELAY_MS)
        received += [Sent(c) for c in _messages(comm.take())]
        reloaded = CardMirror().cards(widget.get_state(), [])
        assert mirror.cards(first, received) == reloaded
        assert len(reloaded) == len(widget.store)
    assert len(received) < 40 * 6  # fewer messages than changes
    widget.close()
