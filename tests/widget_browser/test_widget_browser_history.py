"""In Chromium: only what is on screen is rendered; the state still yields every card."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ipyask.widget import Card, QuestionWidget
from widget.widget_cardkit import generic, options, question

pytestmark = pytest.mark.browser

ANSWER = {"answers": [{"id": "q1", "selected": ["SQLite"]}]}
BLOCK = ".ipyask-card-block"


def pending(i: int) -> Card:
    return generic(f"p{i}", question(text=f"Pending question {i}?", options=options("Yes", "No")))


def answered(i: int) -> Card:
    card = generic(f"h{i}", question(text=f"Earlier question {i}?", options=options("SQLite")))
    return Card.model_validate({**card.to_wire(), "status": "answered", "answer": ANSWER})


def test_a_reload_renders_every_card_from_the_state(wpage, open_page) -> None:
    widget = QuestionWidget(cards=[*(answered(i) for i in range(130)), pending(0), pending(1)])
    wpage.mount(widget)
    reloaded = open_page()
    reloaded.mount(widget)  # a new page: the state alone
    page = reloaded.page
    # The live cards first, then the 20 most recent answers; the rest behind the button.
    expect(page.locator("article")).to_have_count(2 + 20)
    keys = page.locator("article").evaluate_all("els => els.map(e => e.dataset.key)")
    assert keys == ["p0", "p1", *(f"h{i}" for i in range(110, 130))]
    earlier = page.get_by_role("button", name="Show earlier answers (110)")
    earlier.click()
    expect(page.get_by_role("button", name="Show earlier answers (60)")).to_be_focused()
    page.get_by_role("button", name="Show earlier answers (60)").click()
    page.get_by_role("button", name="Show earlier answers (10)").click()
    expect(page.locator(".ipyask-earlier")).to_be_hidden()
    expect(page.locator("article")).to_have_count(132)
    keys = page.locator("article").evaluate_all("els => els.map(e => e.dataset.key)")
    assert keys == ["p0", "p1", *(f"h{i}" for i in range(130))]
    expect(page.locator("article[data-key=h0]")).to_be_focused()  # the first one revealed
    expect(page.locator("article[data-key=h0] .ipyask-summary__line")).to_have_text("SQLite")


def test_a_reload_reads_the_live_cards_from_every_live_page_in_order(wpage, open_page) -> None:
    widget = QuestionWidget(cards=[pending(i) for i in range(120)])
    for i in range(0, 120, 7):  # holes in every live page
        widget.update_card(f"p{i}", status="answered", answer=ANSWER)
    widget.set_card(pending(120))
    assert len(widget.store.state_names()) > 3  # live_0 … live_2 at least, and history_0
    wpage.mount(widget)
    reloaded = open_page()
    reloaded.mount(widget)  # a new page: the state alone
    page = reloaded.page
    text = page.locator(".ipyask-cards").first.text_content() or ""
    expected = [i for i in range(121) if i % 7 != 0 or i == 120]
    positions = [text.index(f"Pending question {i}?") for i in expected]
    assert positions == sorted(positions)  # every live card, in the kernel's order
    assert "Pending question 7?" not in text


def test_live_cards_render_as_they_come_near_the_viewport(wpage) -> None:
    widget = QuestionWidget(cards=[pending(i) for i in range(200)])
    wpage.mount(widget)
    page = wpage.page
    # On screen: rendered. Every title is in the page, for find-in-page and screen readers.
    expect(wpage.card("p0").get_by_role("radio", name="Yes")).to_be_visible()
    # content-visibility skips innerText; the waiting control's layer is another .ipyask
    text = page.locator(".ipyask:not(.ipyask-layer)").text_content() or ""
    assert all(f"Pending question {i}?" in text for i in range(200))
    # Far below: not rendered, only its title in a block of titles, with nothing to focus.
    expect(wpage.card("p199")).to_have_count(0)
    block = page.locator(BLOCK, has_text="Pending question 199?")
    expect(block).to_have_count(1)
    assert block.evaluate("b => b.querySelectorAll('*').length") == 0  # text only
    block.scroll_into_view_if_needed()
    expect(wpage.card("p199").get_by_role("radio", name="Yes")).to_be_visible()
    assert page.locator("article").count() < 200  # the blocks in between stay titles


def test_keyboard_focus_never_lands_in_a_card_not_rendered(wpage) -> None:
    widget = QuestionWidget(cards=[pending(i) for i in range(40)])
    wpage.mount(widget)
    page = wpage.page
    page.locator("article").first.get_by_role("radio", name="Yes").focus()
    visited = set()
    for _ in range(120):
        page.keyboard.press("Tab")
        where = page.evaluate(
            """() => {
              const active = document.activeElement;
              if (active?.closest(".ipyask-card-block")) return "block";
              return active?.closest("article")?.dataset.key ?? null;
            }"""
        )
        assert where != "block", "focus in a card that is not rendered"
        if where is not None:
            visited.add(where)
    assert len(visited) > 8  # Tab went on past the cards rendered at first


def test_a_card_that_settles_keeps_the_focus_and_stays_shown(wpage) -> None:
    widget = QuestionWidget(cards=[*(answered(i) for i in range(30)), pending(0), pending(1)])
    wpage.mount(widget)
    wpage.card("p0").get_by_role("radio", name="Yes").focus()
    yes = {"answers": [{"id": "q1", "selected": ["Yes"]}]}
    widget.update_card("p0", status="answered", answer=yes)
    wpage.set_state(widget)
    moved = wpage.card("p0")
    expect(moved.locator(".ipyask-summary__line")).to_have_text("Yes")
    expect(moved).to_be_focused()
    keys = wpage.page.locator("article").evaluate_all("els => els.map(e => e.dataset.key)")
    assert keys[0] == "p1" and keys[-1] == "p0" and len(keys) == 1 + 21  # none hidden anew


def test_the_history_button_follows_the_language(wpage) -> None:
    widget = QuestionWidget(cards=[answered(i) for i in range(25)])
    wpage.mount(widget)
    expect(wpage.page.get_by_role("button", name="Show earlier answers (5)")).to_be_visible()
    expect(wpage.page.get_by_role("group", name="Earlier answers")).to_be_visible()
    wpage.set_language("zh")
    expect(wpage.page.get_by_role("button", name="显示更早的回答（5）")).to_be_visible()
