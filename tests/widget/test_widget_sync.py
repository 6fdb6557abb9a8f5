"""Card changes reach views as ``cards`` messages at once; the whole state follows, once a burst."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from ipyask.testing import ManualClock
from ipyask.widget import Card, QuestionWidget
from ipyask.widget._protocol import KERNEL_MESSAGE
from ipyask.widget._sync import FULL_SYNC_DELAY_MS

from .widget_cardkit import generic, plan


class Recorder:
    """The widget's comm traffic: custom messages and state syncs, in order."""

    def __init__(self, widget: QuestionWidget, monkeypatch: pytest.MonkeyPatch) -> None:
        self.log: list[tuple[str, Any]] = []
        monkeypatch.setattr(widget, "_send", self._send)

    def _send(self, msg: dict[str, Any], buffers: object = None) -> None:
        if msg["method"] == "custom":
            self.log.append(("message", msg["content"]))
        else:
            self.log.append(("state", {k: _parse(k, v) for k, v in msg["state"].items()}))

    def take(self) -> list[tuple[str, Any]]:
        taken, self.log = self.log, []
        return taken


def _parse(key: str, value: Any) -> Any:
    return json.loads(value) if key == "cards" or key.startswith(("live_", "history_")) else value


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def recorded(clock, monkeypatch) -> tuple[QuestionWidget, Recorder]:
    widget = QuestionWidget(clock=clock)
    return widget, Recorder(widget, monkeypatch)


def test_a_burst_of_card_changes_is_messages_now_and_one_state_sync_later(recorded, clock):
    widget, comm = recorded
    widget.set_card(generic("a"))
    widget.set_card(plan("b"))
    widget.update_card("a", status="cancelled", notice="stopped")
    widget.remove_card("b")
    messages = comm.take()
    assert [kind for kind, _ in messages] == ["message"] * 3
    contents = [content for _, content in messages]
    assert [c["kind"] for c in contents] == ["cards"] * 3
    for content in contents:  # the shape of CardsMessage, and cards a view accepts
        KERNEL_MESSAGE.validate_python(content)
        for card in content["upsert"]:
            Card.model_validate(card)
    # The cancelled card waited for the next change (the removal) and went with it.
    assert [c["rev"] for c in contents] == [2, 3, 5]
    assert [card["key"] for card in contents[0]["upsert"]] == ["a"]
    assert contents[1]["upsert"][0]["view"]["presentation"]["kind"] == "plan-review"
    (cancelled,) = contents[2]["upsert"]
    assert cancelled["key"] == "a" and cancelled["status"] == "cancelled"
    assert contents[2]["remove"] == ["b"]
    assert widget.get_card("a").status == "cancelled"  # the kernel side is current at once
    clock.advance(FULL_SYNC_DELAY_MS - 1)
    assert comm.take() == []
    clock.advance(1)
    ((kind, state),) = comm.take()
    # Only the entries the burst touched: the live page (no card left in it) and the history
    # page that took the cancelled card.
    assert kind == "state" and state == {
        "cards": {"rev": 5, "live": 1, "pages": 1},
        "live_0": [],
        "history_0": widget.cards,
    }
    assert clock.pending == []


def test_assigning_the_trait_syncs_at_once_after_what_is_held(recorded, clock):
    widget, comm = recorded
    widget.set_card(generic("a"))
    widget.cards = [generic("z").to_wire()]
    revs = [(kind, c["rev"] if kind == "message" else c["cards"]["rev"]) for kind, c in comm.take()]
    assert revs == [("message", 2), ("state", 2), ("state", 3)]
    assert clock.pending == []  # the held sync went out; nothing is due


def test_a_language_change_is_not_held(recorded):
    widget, comm = recorded
    widget.set_card(generic("a"))
    comm.take()
    widget.language = "zh"
    ((kind, state),) = comm.take()
    assert kind == "state" and state["language"] == "zh" and state["cards"]["rev"] == 2


def test_closing_sends_what_is_held_first(recorded, clock):
    widget, comm = recorded
    widget.set_card(generic("a"))
    comm.take()
    widget.close()
    ((kind, state),) = comm.take()
    assert kind == "state" and [c["key"] for c in state["live_0"]] == ["a"]
    assert clock.pending == []


def test_without_a_running_loop_every_change_syncs_the_state_at_once(monkeypatch) -> None:
    widget = QuestionWidget()  # the loop's clock
    comm = Recorder(widget, monkeypatch)

    def change() -> None:  # on a thread of its own: no event loop runs there
        widget.set_card(generic("a"))
        widget.update_card("a", status="expired")

    thread = threading.Thread(target=change)
    thread.start()
    thread.join()
    log = comm.take()
    assert [kind for kind, _ in log] == ["state", "state"]
    assert log[-1][1]["history_0"][0]["status"] == "expired"
    widget.close()


def test_an_invalid_change_sends_nothing(recorded, clock):
    widget, comm = recorded
    widget.set_card(generic("a"))
    comm.take()
    with pytest.raises(ValueError, match="answer"):
        widget.update_card("a", status="pending", notice=None, answer={"answers": []})
    assert comm.take() == [] and widget.store.rev == 2
    clock.advance(FULL_SYNC_DELAY_MS)
    ((_, state),) = comm.take()
    assert state["cards"]["rev"] == 2
