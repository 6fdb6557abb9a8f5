"""A question that arrives while the view is open is scrolled into view and focused, unless the
person is busy elsewhere; then a live region says it arrived (js/arrival.js)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ipyask.widget import QuestionWidget
from widget.widget_cardkit import approval, generic, timed

pytestmark = pytest.mark.browser

ACTIVE_KEY = "() => document.activeElement?.closest('article')?.dataset.key ?? null"

# The state update and the look at the card in one task: nothing can scroll in between.
UPDATE_AND_MEASURE = """([state, key]) => {
  window.__model.update(state);
  const card = document.querySelector(`article[data-key="${key}"]`);
  const box = card.getBoundingClientRect();
  return {focused: document.activeElement === card, top: box.top, bottom: box.bottom,
          height: innerHeight};
}"""


def add(wpage, widget: QuestionWidget, *cards) -> None:
    for card in cards:
        widget.set_card(card)
    wpage.set_state(widget)


def region(wpage):
    return wpage.page.locator("[data-role=arrivals]")


def test_a_new_card_is_focused_and_scrolled_into_view(wpage) -> None:
    widget = QuestionWidget(cards=[generic(f"g{i}") for i in range(6)])
    wpage.mount(widget)
    assert wpage.page.evaluate(ACTIVE_KEY) is None  # the first render moves no focus
    new = wpage.card("new")
    add(wpage, widget, generic("new"))
    expect(new).to_be_focused()
    expect(new).to_be_in_viewport()
    assert new.evaluate("el => getComputedStyle(el).outlineStyle") == "solid"  # a visible ring
    expect(region(wpage)).to_have_text("")  # the moved focus speaks for itself


def test_of_cards_arriving_together_only_the_first_is_focused(wpage) -> None:
    widget = QuestionWidget(cards=[generic("g0")])
    wpage.mount(widget)
    add(wpage, widget, generic("a"), generic("b"))
    expect(wpage.card("a")).to_be_focused()


def test_with_reduced_motion_the_card_is_in_view_at_once(wpage) -> None:
    wpage.page.emulate_media(reduced_motion="reduce")
    widget = QuestionWidget(cards=[generic(f"g{i}") for i in range(6)])
    wpage.mount(widget)
    widget.set_card(generic("new"))
    state = widget.get_state(widget.store.state_names())
    seen = wpage.page.evaluate(UPDATE_AND_MEASURE, [state, "new"])
    assert seen["focused"]
    assert seen["top"] >= 0 and seen["bottom"] <= seen["height"], seen  # no smooth scroll


def test_a_card_waiting_in_a_block_of_titles_is_rendered_before_it_takes_the_focus(wpage) -> None:
    widget = QuestionWidget(cards=[generic(f"g{i}") for i in range(40)])
    wpage.mount(widget)
    assert wpage.card("g39").count() == 0  # far below: a title in a block, not a card
    add(wpage, widget, generic("new"))
    new = wpage.card("new")
    expect(new).to_be_focused()
    expect(new).to_be_in_viewport()
    expect(new.get_by_role("radio", name="SQLite")).to_be_visible()


def test_typing_elsewhere_keeps_the_focus_and_the_arrival_is_announced(wpage) -> None:
    widget = QuestionWidget(cards=[generic(f"g{i}") for i in range(4)])
    wpage.mount(widget)
    wpage.page.evaluate(
        "() => { const t = document.createElement('textarea'); t.id = 'editor';"
        " t.setAttribute('aria-label', 'cell'); document.querySelector('main').prepend(t); }"
    )
    editor = wpage.page.locator("#editor")
    editor.click()
    editor.press_sequentially("x = 1")
    scrolled = wpage.page.evaluate("scrollY")
    add(wpage, widget, generic("new"))
    expect(region(wpage)).to_have_text("New question: Which database should we use?")
    expect(editor).to_be_focused()
    assert wpage.page.evaluate("scrollY") == scrolled  # nothing scrolled under the person
    wpage.set_language("zh")
    add(wpage, widget, generic("another"))
    expect(region(wpage)).to_have_text("新问题：Which database should we use?")


def test_a_card_being_answered_keeps_the_focus(wpage) -> None:
    widget = QuestionWidget(cards=[generic("g0")])
    wpage.mount(widget)
    option = wpage.card("g0").get_by_role("radio", name="SQLite")
    option.focus()
    add(wpage, widget, generic("new"))
    expect(region(wpage)).to_contain_text("New question")
    expect(option).to_be_focused()


def test_a_key_pressed_outside_the_cards_a_moment_ago_keeps_the_focus(wpage) -> None:
    widget = QuestionWidget(cards=[generic("g0")])
    wpage.mount(widget)
    wpage.page.keyboard.press("ArrowDown")  # on the page, as in a notebook's command mode
    add(wpage, widget, generic("new"))
    expect(region(wpage)).to_contain_text("New question")
    assert wpage.page.evaluate(ACTIVE_KEY) is None


def test_a_second_view_does_not_take_the_focus_from_the_first(wpage) -> None:
    widget = QuestionWidget(cards=[generic("g0")])
    wpage.mount(widget, views=2)
    add(wpage, widget, generic("new"))
    expect(wpage.page.locator(".view").nth(0).locator('article[data-key="new"]')).to_be_focused()
    expect(region(wpage)).to_have_text(["", ""])  # the second view does not say it again


def test_the_arrival_focus_does_not_pause_the_countdown(wpage) -> None:
    widget = QuestionWidget(cards=[generic("g0")])
    wpage.mount(widget, clock=True)
    add(wpage, widget, timed("t1", remaining_ms=10_000))
    card = wpage.card("t1")
    expect(card).to_be_focused()
    wait = card.locator(".ipyask-wait")
    expect(wait).to_have_text("Continuing in 10s")
    wpage.page.clock.run_for(3_000)
    expect(wait).to_have_text("Continuing in 7s")  # focused by the view, not by the person
    wpage.page.keyboard.press("Tab")  # now the person is in the card
    expect(wait).to_have_text("Paused · 7s remaining")


def test_an_enter_on_its_way_does_not_answer_an_arriving_approval(wpage) -> None:
    widget = QuestionWidget(cards=[generic("g0")])
    wpage.mount(widget, clock=True)
    add(wpage, widget, approval("a1"))
    expect(wpage.card("a1")).to_be_focused()
    wpage.page.keyboard.press("Enter")
    wpage.page.keyboard.press("Escape")
    assert wpage.answers() == []
    wpage.page.clock.run_for(1_000)
    wpage.page.keyboard.press("Enter")  # read, then pressed: Enter approves once
    assert wpage.answers() == [{"answers": [{"id": "perm", "selected": ["allow"]}]}]
