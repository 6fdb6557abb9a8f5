"""In Chromium: inbox cards (with a ``source``) grouped by agent and process, newest first,
filtered by the view's text filter; the filter is shown only when there are inbox cards."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ipyask.widget import Card, CardSource, QuestionWidget
from widget.widget_cardkit import generic

pytestmark = pytest.mark.browser


def inbox_card(key: str, agent: str, asked_at: float, *, earlier: bool = False) -> Card:
    source = CardSource(
        agent=agent, session=agent, process=f"host:{agent}", asked_at=asked_at, earlier=earlier
    )
    return generic(key).model_copy(update={"source": source})


def keys(wpage) -> list[str]:
    script = "els => els.map(e => e.dataset.key)"
    return wpage.page.eval_on_selector_all("article[data-key]", script)


def groups(wpage) -> list[str]:
    script = "els => els.map(e => e.dataset.ipyaskGroup)"
    return wpage.page.eval_on_selector_all("article[data-ipyask-group]", script)


def test_inbox_cards_are_grouped_newest_first_and_filtered(wpage) -> None:
    widget = QuestionWidget(cards=[generic("local")])
    wpage.mount(widget)
    filter_box = wpage.page.get_by_role("searchbox")
    expect(filter_box).to_be_hidden()  # no inbox card yet
    widget.set_card(inbox_card("w-old", "worker", 1.0))
    widget.set_card(inbox_card("p-1", "planner", 2.0, earlier=True))
    widget.set_card(inbox_card("w-new", "worker", 3.0))
    wpage.set_state(widget)
    expect(wpage.card("w-new")).to_be_visible()
    assert keys(wpage) == ["local", "w-new", "w-old", "p-1"]
    assert groups(wpage) == ["worker · host:worker", "planner · host:planner · ended"]
    expect(filter_box).to_be_visible()
    filter_box.fill("planner")
    expect(wpage.card("w-new")).to_be_hidden()
    expect(wpage.card("p-1")).to_be_visible()
    expect(wpage.card("local")).to_be_visible()  # the filter is for inbox cards only
    filter_box.fill("")
    expect(wpage.card("w-old")).to_be_visible()
    assert wpage.axe() == []
