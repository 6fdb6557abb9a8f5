"""Every synced trait is the kernel's: a view's state update is refused and answered with the
kernel's values, whatever its shape, without an exception."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from ipyask.widget import PROTOCOL_VERSION, QuestionWidget

from .widget_cardkit import generic

Sent = list[dict[str, Any]]
FORGED_CARD = {
    "key": "a",
    "questions": [{"id": "q", "question": "A?", "options": [{"label": "EVIL"}]}],
    "status": "pending",
    "wait": "none",
}


@pytest.fixture
def widget_comm(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[QuestionWidget, Sent]]:
    """A widget with one card whose comm messages (state updates and custom) are recorded."""
    widget = QuestionWidget(cards=[generic("a")])
    sent: Sent = []
    monkeypatch.setattr(widget, "_send", lambda msg, buffers=None: sent.append(msg))
    yield widget, sent
    widget.close()


def comm_msg(data: object, buffers: list[bytes] | None = None) -> dict[str, Any]:
    return {"content": {"comm_id": "x", "data": data}, "buffers": buffers or []}


def update(state: object, **extra: object) -> dict[str, Any]:
    return comm_msg({"method": "update", "state": state, "buffer_paths": [], **extra})


def test_a_forged_card_list_is_refused_and_the_kernel_state_sent_back(widget_comm) -> None:
    widget, sent = widget_comm
    before = (widget.cards, widget.get_cards(), widget.get_state(["cards"]))
    forged = json.dumps({"rev": 99, "cards": [FORGED_CARD]})
    widget._handle_msg(update({"cards": forged}))
    widget._handle_msg(update({"cards": [FORGED_CARD]}))
    widget._handle_msg(update({"cards": json.dumps({"rev": 99, "cards": []})}))
    assert (widget.cards, widget.get_cards(), widget.get_state(["cards"])) == before
    assert "EVIL" not in [
        option.label for option in widget.store.card("a").questions[0].options or []
    ]
    assert sent == [{"method": "update", "state": before[2], "buffer_paths": []}] * 3


@pytest.mark.parametrize(
    ("state", "value"),
    [
        ({"protocol_version": 3}, PROTOCOL_VERSION),
        ({"_esm": "alert(1)"}, None),
        ({"_css": "* { display: none }"}, None),
        ({"_view_name": "EvilView"}, "AnyView"),
        ({"_model_module": "evil"}, "anywidget"),
        ({"language": "zh"}, ""),
        ({"layout": "IPY_MODEL_forged"}, None),
        ({"_dom_classes": ["evil"]}, ()),
        ({"tabbable": False}, None),
    ],
)
def test_every_synced_trait_is_owned_by_the_kernel(widget_comm, state, value) -> None:
    widget, sent = widget_comm
    (name,) = state
    kernel = widget.get_state([name])
    widget._handle_msg(update(state))
    assert widget.get_state([name]) == kernel
    if value is not None:
        assert kernel[name] == value
    assert sent == [{"method": "update", "state": kernel, "buffer_paths": []}]


def test_only_synced_traits_named_are_sent_back(widget_comm) -> None:
    widget, sent = widget_comm
    widget._handle_msg(update({"language": "zh", "comm": "x", "keys": [], "\ud800": 1}))
    assert [message["state"] for message in sent] == [{"language": ""}]
    sent.clear()
    widget._handle_msg(update({"nothing": "synced"}))
    assert sent == []


@pytest.mark.parametrize(
    "msg",
    [
        update({"cards": "{not json"}),
        update({"cards": 5}),
        update({"cards": {"rev": 1}}),
        update({"cards": [{"key": 1}]}),
        update({"protocol_version": "three"}),
        update({"cards": None}, buffer_paths=[["cards", 0, "x"]]),
        comm_msg({"method": "update", "state": {"cards": "x"}, "buffer_paths": [["cards"]]}),
        comm_msg({"method": "update", "state": {"cards": "x"}, "buffer_paths": 7}, [b"1"]),
        comm_msg({"method": "update", "state": {"cards": "x"}, "buffer_paths": [[7, 8]]}, [b"1"]),
    ],
)
def test_malformed_updates_raise_nothing_and_change_nothing(
    widget_comm, msg, caplog: pytest.LogCaptureFixture
) -> None:
    widget, sent = widget_comm
    before = widget.get_state()
    with caplog.at_level(logging.INFO):
        widget._handle_msg(msg)
    assert widget.get_state() == before
    assert [message["method"] for message in sent] == ["update"]
    assert set(sent[0]["state"]) <= set(before)
    assert caplog.records == []


@pytest.mark.parametrize(
    "msg",
    [
        update("garbage"),
        update(None),
        comm_msg({"method": "update"}),
        comm_msg({"method": "update", "state": [["cards", "x"]]}),
    ],
)
def test_an_unreadable_update_gets_the_whole_state_back(widget_comm, msg) -> None:
    widget, sent = widget_comm
    before = widget.get_state()
    widget._handle_msg(msg)
    assert widget.get_state() == before
    assert sent == [{"method": "update", "state": before, "buffer_paths": []}]


@pytest.mark.parametrize(
    "msg",
    [
        comm_msg({"method": "echo_update", "state": {"language": "zh"}}),
        comm_msg({"method": "wave"}),
        comm_msg({"method": ["update"]}),
        comm_msg({}),
        comm_msg("update"),
        comm_msg(None),
        {"content": None},
        {},
        None,
    ],
)
def test_other_messages_are_dropped_quietly(widget_comm, msg, caplog) -> None:
    widget, sent = widget_comm
    before = widget.get_state()
    with caplog.at_level(logging.INFO):
        widget._handle_msg(msg)
    assert widget.get_state() == before
    assert sent == []
    assert caplog.records == []


def test_state_requests_and_custom_messages_still_work(widget_comm) -> None:
    widget, sent = widget_comm
    received: list[object] = []
    widget.on_view_message(received.append)
    widget._handle_msg(comm_msg({"method": "request_state"}))
    assert sent == [{"method": "update", "state": widget.get_state(), "buffer_paths": []}]
    hello = {"kind": "hello", "protocolVersion": PROTOCOL_VERSION, "viewId": "v"}
    widget._handle_msg(comm_msg({"method": "custom", "content": hello}))
    assert len(received) == 1


def test_the_widgets_own_layout_is_owned_by_the_kernel_too(monkeypatch) -> None:
    widget = QuestionWidget()
    layout = widget.layout
    sent: Sent = []
    monkeypatch.setattr(layout, "_send", lambda msg, buffers=None: sent.append(msg))
    layout._handle_msg(update({"display": "none", "width": "1px"}))
    assert (layout.display, layout.width) == (None, None)
    assert sent == [
        {"method": "update", "state": {"display": None, "width": None}, "buffer_paths": []}
    ]
    widget.close()
    assert layout.comm is None  # closed with the widget
