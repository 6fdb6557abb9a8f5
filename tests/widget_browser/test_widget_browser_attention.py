"""A question that waits finds the person beyond the card (js/attention.js): a "waiting" control
for a card that arrives out of view while they work elsewhere, the count in the tab's title while
the page is hidden, and desktop notifications once they turn them on."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from helpers.page_scripts import HIDE, NOTES, SHOW, STAND_IN_NOTIFICATIONS
from ipyask.widget import Card, CardSource, QuestionWidget
from widget.widget_cardkit import generic

pytestmark = pytest.mark.browser

TITLE = "ipyask widget test"
TITLE_NOW = "() => document.title"
ACTIVE_KEY = "() => document.activeElement?.closest('article')?.dataset.key ?? null"

# Two frames: the intersection observer has looked at the arrived card by then.
FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"

EDITOR = (
    "() => { const t = document.createElement('textarea'); t.id = 'editor';"
    " t.setAttribute('aria-label', 'cell'); document.querySelector('main').prepend(t); }"
)


def add(wpage, widget: QuestionWidget, *cards) -> None:
    for card in cards:
        widget.set_card(card)
    wpage.set_state(widget)


def type_in_a_cell(wpage):
    wpage.page.evaluate(EDITOR)
    editor = wpage.page.locator("#editor")
    editor.click()
    editor.press_sequentially("x = 1")
    return editor


def waiting(wpage):
    return wpage.page.locator("[data-role=waiting]")


def jump(wpage):
    return waiting(wpage).get_by_role("button", name="A question is waiting")


def arrive_out_of_view(wpage):
    """Eight cards fill the screen; the person types in a cell; a ninth arrives below."""
    widget = QuestionWidget(cards=[generic(f"g{i}") for i in range(8)])
    wpage.mount(widget)
    editor = type_in_a_cell(wpage)
    add(wpage, widget, generic("new"))
    return widget, editor


# -- the waiting control ------------------------------------------------------------------------


def test_an_arrival_out_of_view_shows_the_control_which_jumps_to_the_card(wpage) -> None:
    _, editor = arrive_out_of_view(wpage)
    expect(jump(wpage)).to_be_visible()
    expect(waiting(wpage)).to_have_attribute("aria-live", "polite")
    expect(editor).to_be_focused()  # it never takes the focus
    assert wpage.axe() == []
    jump(wpage).click()
    new = wpage.card("new")
    expect(new).to_be_focused()
    expect(new).to_be_in_viewport()
    expect(waiting(wpage).get_by_role("button")).to_have_count(0)


def test_enter_on_the_control_jumps_to_the_card(wpage) -> None:
    arrive_out_of_view(wpage)
    jump(wpage).focus()
    wpage.page.keyboard.press("Enter")
    expect(wpage.card("new")).to_be_focused()
    expect(wpage.card("new")).to_be_in_viewport()


def test_the_control_is_dismissed_and_the_focus_goes_back(wpage) -> None:
    _, editor = arrive_out_of_view(wpage)
    jump(wpage).focus()
    wpage.page.keyboard.press("Escape")
    expect(waiting(wpage).get_by_role("button")).to_have_count(0)
    expect(editor).to_be_focused()
    assert wpage.answers() == []  # Escape answered nothing


def test_the_close_button_dismisses_the_control(wpage) -> None:
    arrive_out_of_view(wpage)
    waiting(wpage).get_by_role("button", name="Dismiss the reminder").click()
    expect(waiting(wpage).get_by_role("button")).to_have_count(0)
    wpage.page.evaluate(FRAMES)
    expect(waiting(wpage).get_by_role("button")).to_have_count(0)


def test_the_control_goes_once_the_card_is_seen(wpage) -> None:
    arrive_out_of_view(wpage)
    expect(jump(wpage)).to_be_visible()
    wpage.card("new").scroll_into_view_if_needed()
    expect(waiting(wpage).get_by_role("button")).to_have_count(0)


def test_the_control_goes_once_the_card_settles(wpage) -> None:
    widget, _ = arrive_out_of_view(wpage)
    expect(jump(wpage)).to_be_visible()
    widget.settle_card("new", "cancelled")
    wpage.set_state(widget)
    expect(waiting(wpage).get_by_role("button")).to_have_count(0)


def test_the_control_counts_the_cards_waiting_and_speaks_chinese(wpage) -> None:
    widget, _ = arrive_out_of_view(wpage)
    expect(jump(wpage)).to_be_visible()
    add(wpage, widget, generic("later"))
    expect(waiting(wpage).get_by_role("button", name="2 questions are waiting")).to_be_visible()
    wpage.set_language("zh")
    add(wpage, widget, generic("third"))
    expect(waiting(wpage).get_by_role("button", name="有 3 个问题在等你")).to_be_visible()


def test_no_control_for_a_card_that_arrives_in_view(wpage) -> None:
    widget = QuestionWidget(cards=[generic("g0")])
    wpage.mount(widget)
    editor = type_in_a_cell(wpage)
    add(wpage, widget, generic("new"))
    expect(wpage.page.locator("[data-role=arrivals]")).to_contain_text("New question")
    wpage.page.evaluate(FRAMES)
    expect(waiting(wpage)).to_have_attribute("aria-live", "polite")  # in place, and empty
    expect(waiting(wpage).get_by_role("button")).to_have_count(0)
    expect(editor).to_be_focused()


def test_no_control_when_the_arrival_took_the_focus(wpage) -> None:
    widget = QuestionWidget(cards=[generic(f"g{i}") for i in range(8)])
    wpage.mount(widget)
    add(wpage, widget, generic("new"))
    expect(wpage.card("new")).to_be_focused()
    wpage.page.evaluate(FRAMES)
    expect(waiting(wpage)).to_have_attribute("aria-live", "polite")  # in place, and empty
    expect(waiting(wpage).get_by_role("button")).to_have_count(0)


def test_the_control_finds_a_card_the_inbox_filter_hides(wpage) -> None:
    def inbox_card(key: str, agent: str) -> Card:
        source = CardSource(agent=agent, session=agent, process=f"host:{agent}", asked_at=1.0)
        return generic(key).model_copy(update={"source": source})

    widget = QuestionWidget(cards=[inbox_card("p-1", "planner")])
    wpage.mount(widget)
    search = wpage.page.get_by_role("searchbox")
    search.fill("planner")  # the person is typing in the filter
    add(wpage, widget, inbox_card("w-1", "worker"))
    expect(jump(wpage)).to_be_visible()  # the filter hides it: it is not in view
    jump(wpage).click()
    expect(search).to_have_value("")
    expect(wpage.card("w-1")).to_be_focused()
    expect(wpage.card("w-1")).to_be_in_viewport()


def test_two_views_show_one_control(wpage) -> None:
    widget = QuestionWidget(cards=[generic(f"g{i}") for i in range(8)])
    wpage.mount(widget, views=2)
    type_in_a_cell(wpage)
    add(wpage, widget, generic("new"))
    expect(jump(wpage)).to_have_count(1)
    jump(wpage).click()
    expect(wpage.page.locator('.view article[data-key="new"]:focus')).to_have_count(1)


# -- the tab's title ----------------------------------------------------------------------------


def test_the_title_counts_the_waiting_questions_while_the_page_is_hidden(wpage) -> None:
    widget = QuestionWidget(cards=[generic("g0")])
    wpage.mount(widget, views=2)  # one question shown twice counts once
    page = wpage.page
    assert page.evaluate(TITLE_NOW) == TITLE
    page.evaluate(HIDE)
    assert page.evaluate(TITLE_NOW) == f"(1) {TITLE}"
    add(wpage, widget, generic("g1"))
    assert page.evaluate(TITLE_NOW) == f"(2) {TITLE}"
    page.evaluate(SHOW)
    assert page.evaluate(TITLE_NOW) == TITLE


def test_the_title_is_restored_when_nothing_waits(wpage) -> None:
    widget = QuestionWidget(cards=[generic("g0")])
    wpage.mount(widget)
    page = wpage.page
    page.evaluate(HIDE)
    assert page.evaluate(TITLE_NOW) == f"(1) {TITLE}"
    widget.settle_card("g0", "cancelled")
    wpage.set_state(widget)
    assert page.evaluate(TITLE_NOW) == TITLE
    page.evaluate(SHOW)
    assert page.evaluate(TITLE_NOW) == TITLE


def test_a_title_the_page_sets_while_hidden_is_the_one_restored(wpage) -> None:
    widget = QuestionWidget(cards=[generic("g0")])
    wpage.mount(widget)
    page = wpage.page
    page.evaluate(HIDE)
    page.evaluate("() => { document.title = 'other.ipynb'; }")
    add(wpage, widget, generic("g1"))
    assert page.evaluate(TITLE_NOW) == "(2) other.ipynb"
    page.evaluate(SHOW)
    assert page.evaluate(TITLE_NOW) == "other.ipynb"


def test_the_counts_of_several_widgets_add_up(wpage) -> None:
    first = QuestionWidget(cards=[generic("a0"), generic("a1")])
    second = QuestionWidget(cards=[generic("b0")])
    wpage.mount(first)
    state = second.get_state([*second.store.state_names(), "language", "protocol_version"])
    # A second copy of the module, as anywidget imports it once per widget model.
    wpage.page.evaluate(
        """async (state) => {
          const copy = (await import("/widget.js?copy=2")).default;
          const model = {get: (n) => state[n], set() {}, on() {}, off() {}, send() {},
                         save_changes() {}, widget_manager: {}};
          const el = document.createElement("div");
          document.getElementById("out").append(el);
          copy.initialize({model});
          window.__second = copy.render({model, el});
        }""",
        state,
    )
    wpage.page.evaluate(HIDE)
    assert wpage.page.evaluate(TITLE_NOW) == f"(3) {TITLE}"
    wpage.page.evaluate("() => window.__second()")  # the second widget's view closes
    assert wpage.page.evaluate(TITLE_NOW) == f"(2) {TITLE}"
    wpage.page.evaluate(SHOW)
    assert wpage.page.evaluate(TITLE_NOW) == TITLE


# -- desktop notifications ----------------------------------------------------------------------


def notify_me(wpage):
    return wpage.page.get_by_role("button", name="Notify me")


def test_notifications_are_off_until_turned_on(wpage) -> None:
    wpage.page.add_init_script(STAND_IN_NOTIFICATIONS)
    widget = QuestionWidget(cards=[generic("g0")])
    wpage.mount(widget)
    page = wpage.page
    expect(notify_me(wpage)).to_have_attribute("aria-pressed", "false")
    page.evaluate(HIDE)
    add(wpage, widget, generic("g1"))
    assert page.evaluate(NOTES) == []
    assert page.evaluate("window.__asked") == 0  # nobody asked the browser
    page.evaluate(SHOW)
    notify_me(wpage).click()
    expect(notify_me(wpage)).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("window.__asked") == 1
    assert page.evaluate("localStorage.getItem('ipyask:notify')") == "on"
    add(wpage, widget, generic("g2"))  # the page is visible: the card itself comes
    assert page.evaluate(NOTES) == []
    page.evaluate(HIDE)
    add(wpage, widget, generic("g3"))
    assert page.evaluate(NOTES) == [
        {
            "title": "4 questions are waiting",
            "body": "Which database should we use?",
            "tag": "ipyask-waiting",
            "silent": True,
            "closed": False,
        }
    ]


def test_clicking_a_notification_focuses_the_window_and_the_card(wpage) -> None:
    wpage.page.add_init_script(STAND_IN_NOTIFICATIONS)
    widget = QuestionWidget(cards=[generic(f"g{i}") for i in range(8)])
    wpage.mount(widget)
    page = wpage.page
    notify_me(wpage).click()
    expect(notify_me(wpage)).to_have_attribute("aria-pressed", "true")
    type_in_a_cell(wpage)
    page.evaluate(HIDE)
    add(wpage, widget, generic("new"))
    assert len(page.evaluate(NOTES)) == 1
    page.evaluate(SHOW)
    page.evaluate("() => window.__notes[0].onclick()")
    assert page.evaluate("window.__focused") == 1
    expect(wpage.card("new")).to_be_focused()
    expect(wpage.card("new")).to_be_in_viewport()
    assert page.evaluate(NOTES)[0]["closed"]


def test_a_notification_closes_when_its_question_settles(wpage) -> None:
    wpage.page.add_init_script(STAND_IN_NOTIFICATIONS)
    widget = QuestionWidget(cards=[generic("g0")])
    wpage.mount(widget)
    notify_me(wpage).click()
    expect(notify_me(wpage)).to_have_attribute("aria-pressed", "true")
    wpage.page.evaluate(HIDE)
    add(wpage, widget, generic("g1"))
    assert [n["closed"] for n in wpage.page.evaluate(NOTES)] == [False]
    widget.settle_card("g1", "cancelled")
    wpage.set_state(widget)
    assert [n["closed"] for n in wpage.page.evaluate(NOTES)] == [True]


def test_the_choice_is_remembered_across_a_reload_and_can_be_undone(wpage) -> None:
    wpage.page.add_init_script(STAND_IN_NOTIFICATIONS)
    widget = QuestionWidget(cards=[generic("g0")])
    wpage.mount(widget)
    notify_me(wpage).click()
    expect(notify_me(wpage)).to_have_attribute("aria-pressed", "true")
    wpage.mount(widget)  # a reload
    page = wpage.page
    expect(notify_me(wpage)).to_have_attribute("aria-pressed", "true")
    page.evaluate(HIDE)
    add(wpage, widget, generic("g1"))
    assert [n["body"] for n in page.evaluate(NOTES)] == ["Which database should we use?"]
    page.evaluate(SHOW)
    notify_me(wpage).click()  # off again
    expect(notify_me(wpage)).to_have_attribute("aria-pressed", "false")
    assert page.evaluate("localStorage.getItem('ipyask:notify')") == "off"
    page.evaluate(HIDE)
    add(wpage, widget, generic("g2"))
    assert len(page.evaluate(NOTES)) == 1
    assert page.evaluate("window.__asked") == 0  # since the reload, the browser was never asked


def test_a_refused_permission_says_so_and_stays_off(wpage) -> None:
    wpage.page.add_init_script(STAND_IN_NOTIFICATIONS)
    wpage.page.add_init_script("window.__answer = 'denied';")
    widget = QuestionWidget(cards=[generic("g0")])
    wpage.mount(widget)
    notify_me(wpage).click()
    note = wpage.page.locator(".ipyask-notify__note")
    expect(note).to_have_text("Notifications are blocked for this page in the browser's settings.")
    expect(note).to_be_visible()
    expect(wpage.page.locator("[data-role=arrivals]")).to_have_text(note.inner_text())  # said
    expect(notify_me(wpage)).to_have_attribute("aria-pressed", "false")
    assert wpage.page.evaluate("localStorage.getItem('ipyask:notify')") is None
    assert wpage.axe() == []


def test_no_toggle_where_the_browser_refuses_notifications(wpage) -> None:
    wpage.page.add_init_script(STAND_IN_NOTIFICATIONS)
    wpage.page.add_init_script(
        'Object.defineProperty(window, "isSecureContext", {get: () => false});'
    )
    wpage.mount(QuestionWidget(cards=[generic("g0")]))
    expect(wpage.card("g0")).to_be_visible()
    expect(notify_me(wpage)).to_have_count(0)
    expect(wpage.page.locator(".ipyask-notify")).to_have_count(1)  # there, and hidden


def test_no_toggle_while_no_question_waits(wpage) -> None:
    wpage.page.add_init_script(STAND_IN_NOTIFICATIONS)
    widget = QuestionWidget(cards=[])
    wpage.mount(widget)
    expect(notify_me(wpage)).to_have_count(0)
    add(wpage, widget, generic("g0"))
    expect(notify_me(wpage)).to_be_visible()
    wpage.set_language("zh")
    expect(wpage.page.get_by_role("button", name="通知我")).to_be_visible()
