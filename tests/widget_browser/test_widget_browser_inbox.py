"""In Chromium: inbox cards (with a ``source``) grouped by agent and process, newest first,
filtered by the view's text filter; the filter is shown only when there are inbox cards."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ipyask.widget import Card, CardSource, QuestionWidget
from widget.widget_cardkit import generic

pytestmark = pytest.mark.browser


def inbox_card(
    key: str, agent: str, asked_at: float, *, earlier: bool = False, assignee: str | None = None
) -> Card:
    source = CardSource(
        agent=agent,
        session=agent,
        process=f"host:{agent}",
        asked_at=asked_at,
        earlier=earlier,
        assignee=assignee,
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


def test_an_assigned_inbox_card_says_whose_it_is_and_the_filter_finds_it(wpage) -> None:
    widget = QuestionWidget(
        cards=[
            inbox_card("w-1", "worker", 1.0, assignee="ada"),
            inbox_card("w-2", "worker", 2.0),
            inbox_card("w-3", "worker", 3.0, assignee="bob"),
        ]
    )
    wpage.mount(widget)
    expect(wpage.card("w-1")).to_be_visible()
    assert keys(wpage) == ["w-3", "w-2", "w-1"]
    assert groups(wpage) == ["worker · host:worker · for bob to answer", "for ada to answer"]
    mine = wpage.page.get_by_role("checkbox", name="Only mine")
    expect(mine).to_be_hidden()  # nobody known answers through this widget
    wpage.page.get_by_role("searchbox").fill("ada")  # the filter finds an assignee's
    expect(wpage.card("w-1")).to_be_visible()
    expect(wpage.card("w-2")).to_be_hidden()
    expect(wpage.card("w-3")).to_be_hidden()
    wpage.page.get_by_role("searchbox").fill("")
    wpage.page.evaluate("() => window.__model.set('answerer', 'bob')")  # bob answers here
    expect(mine).to_be_visible()
    expect(wpage.page.get_by_text("Only mine (bob)")).to_be_visible()
    mine.check()  # mine: only what is assigned to bob
    expect(wpage.card("w-3")).to_be_visible()
    expect(wpage.card("w-1")).to_be_hidden()
    expect(wpage.card("w-2")).to_be_hidden()
    assert wpage.axe() == []
    mine.uncheck()  # everyone's
    expect(wpage.card("w-1")).to_be_visible()
    expect(wpage.card("w-2")).to_be_visible()
