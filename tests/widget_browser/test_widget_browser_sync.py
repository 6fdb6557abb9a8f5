"""In Chromium: ``cards`` messages change the view before the state does, and never undo it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from playwright.sync_api import expect

from ipyask.widget import PROTOCOL_VERSION, Card, QuestionWidget
from widget.widget_cardkit import generic

pytestmark = pytest.mark.browser

ANSWER = {"answers": [{"id": "q1", "selected": ["SQLite"]}]}


def change(rev: int, upsert: Sequence[Card] = (), remove: Sequence[str] = ()) -> dict[str, Any]:
    return {
        "kind": "cards",
        "protocolVersion": PROTOCOL_VERSION,
        "rev": rev,
        "upsert": [card.to_wire() for card in upsert],
        "remove": list(remove),
    }


def keys(wpage) -> list[str]:
    script = "els => els.map(e => e.dataset.key)"
    return wpage.page.eval_on_selector_all("article[data-key]", script)


def test_changes_apply_at_once_and_a_stale_state_does_not_undo_them(wpage) -> None:
    widget = QuestionWidget(cards=[generic("a")])  # state rev 1
    wpage.mount(widget)
    wpage.emit(change(2, upsert=[generic("b")]))
    expect(wpage.card("b")).to_be_visible()
    wpage.emit(change(3, upsert=[generic("a", status="answered", answer=ANSWER)]))
    expect(wpage.card("a").locator("[data-role=wait]")).to_have_text("Answered")
    # The live cards come first; a card that settled goes to the history, below them.
    assert keys(wpage) == ["b", "a"]
    wpage.set_state(widget)  # the old state (rev 1) again: the newer changes stay applied
    expect(wpage.card("a").locator("[data-role=wait]")).to_have_text("Answered")
    assert keys(wpage) == ["b", "a"]
    wpage.emit(change(4, remove=["b"]))
    expect(wpage.card("b")).to_have_count(0)
    wpage.emit(change(3, upsert=[generic("b")]))  # already applied: ignored
    expect(wpage.card("b")).to_have_count(0)


def test_a_state_that_caught_up_replaces_the_changes(wpage) -> None:
    widget = QuestionWidget(cards=[generic("a")])
    wpage.mount(widget)
    wpage.emit(change(2, upsert=[generic("gone")]))
    expect(wpage.card("gone")).to_be_visible()
    # The kernel's state at rev 3 no longer has the card (it was removed, and that message was
    # lost): the state wins over every change up to its rev.
    widget.set_card(generic("b"))
    widget.set_card(generic("c"))
    assert '"rev":3' in widget.get_state(["cards"])["cards"]
    wpage.set_state(widget)
    expect(wpage.card("gone")).to_have_count(0)
    assert keys(wpage) == ["a", "b", "c"]
    wpage.emit(change(2, upsert=[generic("gone")]))  # older than the state: ignored
    expect(wpage.card("gone")).to_have_count(0)


def test_changes_before_any_view_are_kept_for_the_first_view(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[generic("a")]), views=0)
    wpage.emit(change(2, upsert=[generic("early")]))
    wpage.page.evaluate("window.__addView()")
    expect(wpage.card("early")).to_be_visible()
    assert keys(wpage) == ["a", "early"]


def test_malformed_changes_are_ignored(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[generic("a")]))
    for bad in (
        {**change(2), "rev": "2"},
        {**change(2), "upsert": "b"},
        {**change(2), "protocolVersion": PROTOCOL_VERSION + 1, "remove": ["a"]},
        {**change(2), "upsert": [{"key": "x"}]},  # not a card
    ):
        wpage.emit(bad)
    expect(wpage.card("a")).to_be_visible()
    assert keys(wpage) == ["a"]
