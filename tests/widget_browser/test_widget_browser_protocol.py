"""Every message the view sends is a valid view message of this protocol (protocolVersion
included), so the kernel's strict validation never refuses what a real view sends."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ipyask.widget import PROTOCOL_VERSION, QuestionWidget
from ipyask.widget._protocol import VIEW_MESSAGE
from widget.widget_cardkit import generic, timed

pytestmark = pytest.mark.browser


def test_every_message_a_view_sends_carries_the_protocol_version(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[timed("t1"), generic("g1"), generic("u")]))
    expect(wpage.card("t1")).to_be_visible()
    wpage.card("g1").get_by_role("radio", name="SQLite").click()
    wpage.card("g1").get_by_role("button", name="Submit").click()
    wpage.card("u").get_by_role("button", name="Cancel the question…").click()
    wpage.card("u").get_by_role("button", name="Cancel the question", exact=True).click()
    kinds = {message["kind"] for message in wpage.sent()}
    assert {"hello", "claim", "answer", "cancel"} <= kinds
    for message in wpage.sent():
        assert message["protocolVersion"] == PROTOCOL_VERSION
        VIEW_MESSAGE.validate_python(message)
