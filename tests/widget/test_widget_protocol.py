"""The message schema and the widget's inbound message handling."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from ipyask.widget import (
    AnswerMessage,
    CancelMessage,
    ClaimMessage,
    ErrorMessage,
    FrameMessage,
    HeartbeatMessage,
    HelloMessage,
    ReleaseMessage,
    TimedOutMessage,
)
from ipyask.widget._protocol import KERNEL_MESSAGE, VIEW_MESSAGE

VIEW = {"protocolVersion": 2, "viewId": "v1"}
VALID: list[tuple[dict[str, Any], type]] = [
    ({"kind": "hello", **VIEW}, HelloMessage),
    (
        {
            "kind": "answer",
            **VIEW,
            "key": "k",
            "answer": {"answers": [{"id": "q", "selected": ["A"], "custom": "x"}]},
        },
        AnswerMessage,
    ),
    ({"kind": "cancel", **VIEW, "key": "k"}, CancelMessage),
    ({"kind": "claim", **VIEW, "key": "k"}, ClaimMessage),
    ({"kind": "release", **VIEW, "key": "k"}, ReleaseMessage),
    ({"kind": "timed_out", **VIEW, "key": "k"}, TimedOutMessage),
    ({"kind": "heartbeat", **VIEW, "keys": ["a", "b"]}, HeartbeatMessage),
]


@pytest.mark.parametrize(("wire", "model"), VALID)
def test_view_messages_round_trip(wire: dict[str, Any], model: type) -> None:
    message = VIEW_MESSAGE.validate_python(wire)
    assert isinstance(message, model)
    assert message.to_wire() == wire
    assert VIEW_MESSAGE.validate_json(VIEW_MESSAGE.dump_json(message, by_alias=True)) == message


def test_kernel_messages_round_trip() -> None:
    frame = FrameMessage(key="k", remaining_ms=1500, seq=3)
    assert frame.to_wire() == {
        "kind": "frame",
        "protocolVersion": 2,
        "key": "k",
        "remainingMs": 1500,
        "seq": 3,
    }
    error = ErrorMessage(code="BAD_ANSWER", message="m", key="k", view_id="v")
    for message in (frame, error):
        assert KERNEL_MESSAGE.validate_python(message.to_wire()) == message


BAD: list[object] = [
    None,
    "hello",
    [1, 2],
    {},
    {"kind": "hello"},
    {"kind": "hello", "viewId": ""},
    {"kind": "hello", "viewId": "v", "protocolVersion": 3},
    {"kind": "wave", **VIEW},
    {"kind": "answer", **VIEW, "key": "k"},
    {"kind": "answer", **VIEW, "key": "k", "answer": {"answers": [{"id": "q"}]}},
    {"kind": "answer", **VIEW, "key": "k", "answer": {"answers": [{"id": "q", "selected": "A"}]}},
    {"kind": "cancel", **VIEW},
    {"kind": "claim", **VIEW, "key": ""},
    {"kind": "claim", **VIEW, "key": 5},
    {"kind": "heartbeat", **VIEW, "keys": "k"},
    {"kind": "hello", **VIEW, "surprise": True},
    {"kind": "frame", "protocolVersion": 2, "key": "k", "remainingMs": 1, "seq": 1},
    {"kind": "hello", "viewId": "v"},  # protocolVersion is required of views
    {"kind": "claim", "viewId": "v", "key": "k"},
    {"kind": "claim", **VIEW, "key": "\ud800"},  # a lone surrogate: not sendable text
    {"kind": "hello", **VIEW, "viewId": "v\udfff"},
    {
        "kind": "answer",
        **VIEW,
        "key": "k",
        "answer": {"answers": [{"id": "q", "selected": ["\ud800"]}]},
    },
    {"kind": "hello", **VIEW, "\ud800": 1},
]


@pytest.mark.parametrize("content", BAD)
def test_invalid_view_messages_are_rejected(content: object) -> None:
    with pytest.raises(ValidationError):
        VIEW_MESSAGE.validate_python(content)


@pytest.mark.parametrize(("wire", "model"), VALID)
def test_valid_messages_reach_callbacks(widget_sends, wire: dict[str, Any], model: type) -> None:
    widget, sent = widget_sends
    received: list[object] = []
    widget.on_view_message(received.append)
    widget._handle_custom_msg_content(widget, wire, [])
    assert len(received) == 1 and isinstance(received[0], model)
    assert sent == []


@pytest.mark.parametrize("content", BAD)
def test_invalid_messages_get_an_error_reply_and_no_callback(widget_sends, content: object) -> None:
    widget, sent = widget_sends
    received: list[object] = []
    widget.on_view_message(received.append)
    widget._handle_custom_msg_content(widget, content, [])
    assert received == []
    assert len(sent) == 1
    reply = KERNEL_MESSAGE.validate_python(sent[0])
    assert isinstance(reply, ErrorMessage) and reply.code == "BAD_MESSAGE"
    assert reply.message.startswith("invalid view message")


def test_error_reply_names_the_card_and_view(widget_sends) -> None:
    widget, sent = widget_sends
    widget._handle_custom_msg_content(widget, {"kind": "answer", **VIEW, "key": "k7"}, [])
    assert sent[0]["key"] == "k7" and sent[0]["viewId"] == "v1"


def test_a_message_without_protocol_version_gets_bad_message(widget_sends) -> None:
    widget, sent = widget_sends
    received: list[object] = []
    widget.on_view_message(received.append)
    widget._handle_custom_msg_content(widget, {"kind": "claim", "viewId": "v9", "key": "k"}, [])
    assert received == []
    assert [(m["code"], m["key"], m["viewId"]) for m in sent] == [("BAD_MESSAGE", "k", "v9")]
    assert "protocolVersion" in sent[0]["message"]


@pytest.mark.parametrize(
    "content",
    [
        {"kind": "claim", **VIEW, "key": "\ud800"},
        {"kind": "claim", **VIEW, "viewId": "\ud800", "key": "k"},
        {"kind": "\ud800", **VIEW, "key": "k"},
        {"kind": "hello", **VIEW, "\udc80": 1},
        {"kind": "claim", "protocolVersion": 2, "viewId": "\ud800", "key": "\udfff"},
    ],
)
def test_a_lone_surrogate_gets_bad_message_and_is_never_echoed(widget_sends, content) -> None:
    widget, sent = widget_sends
    received: list[object] = []
    widget.on_view_message(received.append)
    widget._handle_custom_msg_content(widget, content, [])
    assert received == []
    (reply,) = sent
    assert reply["code"] == "BAD_MESSAGE"
    json.dumps(reply, ensure_ascii=False).encode("utf-8")  # what jupyter_client must encode
    for field in ("key", "viewId"):
        if field in reply:
            assert reply[field] == content[field]


def test_callback_error_codes_are_view_error_codes(widget_sends) -> None:
    widget, sent = widget_sends

    class Coded(Exception):
        code = "SOMETHING_ELSE"

    def fail(message: object) -> None:
        raise Coded("no \ud800 here")

    widget.on_view_message(fail)
    widget._handle_custom_msg_content(widget, {"kind": "cancel", **VIEW, "key": "k"}, [])
    assert [(m["code"], m["message"]) for m in sent] == [("INTERNAL_ERROR", "no \\ud800 here")]


def test_comm_messages_are_dispatched_through_the_widget(widget_sends) -> None:
    widget, _ = widget_sends
    received: list[object] = []
    widget.on_view_message(received.append)
    msg = {
        "content": {"data": {"method": "custom", "content": {"kind": "hello", **VIEW}}},
        "buffers": [],
    }
    widget._handle_msg(msg)
    assert isinstance(received[0], HelloMessage)


def test_callback_errors_never_escape(widget_sends, caplog: pytest.LogCaptureFixture) -> None:
    widget, sent = widget_sends

    class Coded(Exception):
        code = "REPLY_QUEUED"

    def fail(message: object) -> None:
        raise Coded("a reply already waits")

    def crash(message: object) -> None:
        raise RuntimeError

    after: list[object] = []
    widget.on_view_message(fail)
    widget.on_view_message(crash)
    widget.on_view_message(after.append)
    with caplog.at_level(logging.ERROR):
        widget._handle_custom_msg_content(widget, {"kind": "cancel", **VIEW, "key": "k"}, [])
    assert len(after) == 1  # later callbacks still run
    assert [(m["code"], m["message"], m["key"], m["viewId"]) for m in sent] == [
        ("REPLY_QUEUED", "a reply already waits", "k", "v1"),
        ("INTERNAL_ERROR", "RuntimeError", "k", "v1"),
    ]
    assert "callback failed" in caplog.text


def test_remove_callback(widget_sends) -> None:
    widget, _ = widget_sends
    received: list[object] = []
    widget.on_view_message(received.append)
    widget.on_view_message(received.append, remove=True)
    widget._handle_custom_msg_content(widget, {"kind": "hello", **VIEW}, [])
    assert received == []


def test_send_message_validates(widget_sends) -> None:
    widget, sent = widget_sends
    widget.send_message({"kind": "error", "code": "NOT_TIMED", "message": "m"})
    widget.send_error("BAD_ANSWER", "missing q2", key="k", view_id="v")
    assert sent == [
        {"kind": "error", "protocolVersion": 2, "code": "NOT_TIMED", "message": "m"},
        {
            "kind": "error",
            "protocolVersion": 2,
            "code": "BAD_ANSWER",
            "message": "missing q2",
            "key": "k",
            "viewId": "v",
        },
    ]
    with pytest.raises(ValidationError):
        widget.send_message({"kind": "frame", "key": "k", "remainingMs": -1, "seq": 1})
    with pytest.raises(ValidationError):  # codes are the documented ViewErrorCode values
        widget.send_message({"kind": "error", "code": "X", "message": "m"})


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["kind", "key", "viewId", "answer", "keys"]), children)
    ),
    max_leaves=8,
)


@given(json_values)
def test_any_json_gets_a_callback_or_an_error_reply(content: object) -> None:
    from ipyask.widget import QuestionWidget

    widget = QuestionWidget()
    sent: list[Any] = []
    widget.send = lambda payload, buffers=None: sent.append(payload)  # type: ignore[method-assign]
    received: list[object] = []
    widget.on_view_message(received.append)
    widget._handle_custom_msg_content(widget, content, [])
    assert len(received) + len(sent) == 1
    widget.close()
