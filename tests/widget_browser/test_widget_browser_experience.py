"""The card as people use it, in Chromium: long lists, the keyboard in a batch, closing, holds,
a kernel that stops answering, and what answered cards say."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ipyask.widget import Card, QuestionWidget
from widget.widget_cardkit import approval, batch, generic, options, question, timed

pytestmark = pytest.mark.browser


def long_list(key: str = "long") -> Card:
    labels = [f"Region {n:02d}" for n in range(1, 41)]
    return Card(key=key, questions=[question("region", "Which region?", options=options(*labels))])


def test_choosing_in_a_scrolled_long_list_keeps_the_scroll(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[long_list()]))
    card = wpage.card("long")
    body = card.locator(".ipyask-body")
    option = card.get_by_role("radio", name="Region 30")
    option.scroll_into_view_if_needed()
    before = body.evaluate("el => el.scrollTop")
    assert before > 100  # the list scrolls inside the card
    option.click()
    expect(option).to_have_attribute("aria-checked", "true")
    assert body.evaluate("el => el.scrollTop") == before
    expect(option).to_be_in_viewport()


def test_enter_on_an_option_in_a_batch_moves_on(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[batch("b1")]))
    card = wpage.card("b1")
    card.get_by_role("radio", name="Go").focus()
    wpage.page.keyboard.press("Enter")  # picks the focused option and goes on
    expect(card.locator(".ipyask-pager__pos > [aria-hidden]")).to_have_text("2 / 3")
    expect(card.get_by_role("status")).to_have_text("")  # no "complete this question first"
    expect(card.get_by_role("checkbox", name="Auth")).to_be_focused()
    wpage.page.keyboard.press("Space")
    wpage.page.keyboard.press("Enter")  # on a multi-select: Next
    expect(card.locator(".ipyask-pager__pos > [aria-hidden]")).to_have_text("3 / 3")
    expect(card.get_by_role("status")).to_have_text("")
    assert wpage.sent("answer") == []
    card.get_by_role("button", name="Previous question").click()
    card.get_by_role("button", name="Previous question").click()
    expect(card.get_by_role("radio", name="Go")).to_have_attribute("aria-checked", "true")


@pytest.mark.parametrize(
    ("chosen", "summary"),
    [
        ("deny", "Rejected · the agent received “deny”"),
        ("allow", "Run once · the agent received “allow”"),
        ("allow-always", "Always allowed · the agent received “allow-always”"),
    ],
)
def test_an_answered_approval_says_what_the_person_clicked(wpage, chosen, summary) -> None:
    widget = QuestionWidget(cards=[approval("a1")])
    wpage.mount(widget)
    answer = {"answers": [{"id": "perm", "selected": [chosen]}]}
    widget.update_card("a1", status="answered", answer=answer)
    wpage.set_state(widget)
    expect(wpage.card("a1").locator(".ipyask-summary__line")).to_have_text(summary)


def test_an_answered_approval_shows_no_value_when_it_is_the_words(wpage) -> None:
    item = question(
        "approval",
        "Delete build/?",
        detail="",
        options=options("Reject", "Allowed once"),
        intent={"kind": "approval", "approve": "Allowed once", "reject": "Reject"},
    )
    widget = QuestionWidget(cards=[Card(key="a", questions=[item])])
    wpage.mount(widget)
    answer = {"answers": [{"id": "approval", "selected": ["Allowed once"]}]}
    widget.update_card("a", status="answered", answer=answer)
    wpage.set_state(widget)
    expect(wpage.card("a").locator(".ipyask-summary__line")).to_have_text("Allowed once")
    wpage.set_language("zh")
    expect(wpage.card("a").locator(".ipyask-summary__line")).to_have_text(
        "已允许一次 · 智能体收到“Allowed once”"
    )


def test_take_time_tells_the_kernel_and_a_held_card_waits_in_every_view(wpage) -> None:
    widget = QuestionWidget(cards=[timed("t1", remaining_ms=1_500)])
    wpage.mount(widget, views=2, clock=True)
    first, second = wpage.page.locator('article[data-key="t1"]').all()
    expect(first.get_by_role("button", name="Take time")).to_be_visible()
    first.get_by_role("button", name="Take time").click()
    assert [m["key"] for m in wpage.sent("hold")] == ["t1"]
    widget.update_card("t1", held=True)  # what the kernel does on `hold`
    wpage.set_state(widget)
    expect(second.locator("[data-role=wait]")).to_have_text("Waiting until you answer")
    expect(second.get_by_role("button", name="Take time")).to_have_count(0)
    wpage.page.clock.run_for(5_000)
    assert wpage.sent("timed_out") == []  # neither view counts down any more
    assert len(wpage.sent("hold")) == 1  # the held card needs no second hold


QUEUED = "The kernel is busy; your answer is delivered when it is free."

_KERNEL_RESTARTED = """() => {
  for (const v of window.__views) v.el.classList.add('jupyter-widgets-disconnected');
  window.__model.fire('comm_live_update');
}"""


def test_an_answer_the_kernel_has_not_replied_to_stays_locked_and_says_it_is_queued(
    wpage,
) -> None:
    """A comm message sent to a busy kernel waits in its queue: the card never offers a second
    decision while the first can still arrive, and shows the one the kernel recorded."""
    widget = QuestionWidget(cards=[approval("a1")])
    wpage.mount(widget, clock=True)
    card = wpage.card("a1")
    reject = card.get_by_role("button", name="Reject")
    card.get_by_role("button", name="Run once").click()
    expect(card.get_by_role("button", name="Submitting…")).to_be_disabled()
    expect(reject).to_be_disabled()  # the pressed button says Submitting…, never another one
    wpage.page.clock.run_for(1_600)
    feedback = card.locator("[data-role=feedback]")
    expect(feedback).to_have_text(QUEUED)
    expect(feedback).to_have_attribute("role", "status")
    expect(wpage.page.locator("[data-role=arrivals]")).to_have_text(QUEUED)  # said politely
    wpage.page.clock.run_for(60_000)  # a long cell: still queued, still locked
    expect(feedback).to_have_text(QUEUED)
    expect(card).to_have_attribute("aria-busy", "")
    for control in card.get_by_role("button").all():
        expect(control).to_be_disabled()
    card.focus()
    wpage.page.keyboard.press("Escape")  # the approval's reject key does nothing either
    reject.click(force=True)
    assert wpage.answers() == [{"answers": [{"id": "perm", "selected": ["allow"]}]}]
    wpage.set_language("zh")
    expect(feedback).to_have_text("内核正忙；它空闲后就会收到你的回答。")
    wpage.set_language("en")
    # The kernel is free: it handles the queued answer and the card says what it recorded.
    widget.update_card("a1", status="answered", answer=wpage.answers()[0])
    wpage.set_state(widget)
    expect(card.locator(".ipyask-summary__line")).to_have_text(
        "Run once · the agent received “allow”"
    )
    expect(card).not_to_have_attribute("aria-busy", "")


def test_an_answer_queued_when_the_kernel_restarts_is_reported_lost(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[long_list("g"), generic("idle")]), clock=True)
    card = wpage.card("g")
    card.get_by_role("radio", name="Region 02").click()
    card.get_by_role("button", name="Submit").click()
    wpage.page.clock.run_for(2_000)
    expect(card.locator("[data-role=feedback]")).to_have_text(QUEUED)
    wpage.page.evaluate(_KERNEL_RESTARTED)
    wpage.page.clock.run_for(10)  # the view reads the disconnected mark after a zero timeout
    expect(card.locator(".ipyask-notice")).to_have_text(
        "The kernel restarted before it confirmed your answer; this question is no longer live."
    )
    expect(card).not_to_have_attribute("aria-busy", "")
    expect(card.get_by_role("button", name="Submit")).to_have_count(0)
    # A card that sent nothing says only that its kernel is gone.
    expect(wpage.card("idle").locator(".ipyask-notice")).to_have_text(
        "The kernel restarted — this question is no longer live."
    )


def test_a_refused_answer_to_a_card_settled_elsewhere_stays_locked_until_the_state_says_how(
    wpage,
) -> None:
    widget = QuestionWidget(cards=[approval("a1")])
    wpage.mount(widget, clock=True)
    card = wpage.card("a1")
    card.get_by_role("button", name="Reject").click()
    # Another view's Run once reached the kernel first; its state is a moment behind the error.
    wpage.emit(
        {
            "kind": "error",
            "protocolVersion": 2,
            "code": "ALREADY_ANSWERED",
            "message": "this question was already answered",
            "key": "a1",
        }
    )
    expect(card.locator("[data-role=feedback]")).to_have_text(
        "This question was already answered, here or in another view."
    )
    for control in card.get_by_role("button").all():
        expect(control).to_be_disabled()
    answer = {"answers": [{"id": "perm", "selected": ["allow"]}]}
    widget.update_card("a1", status="answered", answer=answer)
    wpage.set_state(widget)
    expect(card.locator(".ipyask-summary__line")).to_have_text(
        "Run once · the agent received “allow”"
    )


def test_a_card_whose_kernel_is_gone_says_so(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[long_list("g"), timed("t1")]))
    # What ipywidgets' manager does on a kernel restart: mark the view, say comm_live changed.
    wpage.page.evaluate(_KERNEL_RESTARTED)
    for key in ("g", "t1"):
        card = wpage.card(key)
        expect(card.locator(".ipyask-notice")).to_have_text(
            "The kernel restarted — this question is no longer live."
        )
        expect(card.locator("[data-role=wait]")).to_have_text("No longer live")
        expect(card.get_by_role("radio")).to_have_count(0)
        expect(card.get_by_role("button", name="Submit")).to_have_count(0)
        expect(card.get_by_role("button", name="Take time")).to_have_count(0)


def _states() -> list[Card]:
    answer = {"answers": [{"id": "perm", "selected": ["deny"]}]}
    return [
        generic("pending"),
        timed("continued", status="continued"),
        generic("answered", status="answered", answer={"answers": [{"id": "q1", "selected": []}]}),
        approval("rejected", status="answered", answer=answer),
        generic("cancelled", status="cancelled"),
        generic("expired", status="expired"),
    ]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_state_has_its_own_colour_and_icon(wpage, theme) -> None:
    wpage.mount(QuestionWidget(cards=_states()), theme=theme)
    looks = {}
    for state in ["pending", "continued", "answered", "rejected", "cancelled", "expired"]:
        card = wpage.card(state)
        mark = card.locator(".ipyask-state")
        expect(mark).to_have_attribute("data-state", state)
        looks[state] = (
            card.evaluate("el => getComputedStyle(el).borderLeftColor"),
            mark.evaluate("el => getComputedStyle(el).color"),
            mark.locator("path").get_attribute("d"),
        )
    for part in range(3):
        assert len({look[part] for look in looks.values()}) == 6, looks
    expect(wpage.card("rejected").locator(".ipyask-wait")).to_have_text("Rejected")
    expect(wpage.card("answered").locator(".ipyask-wait")).to_have_text("Answered")
    assert wpage.axe() == []  # the coloured wait lines keep their contrast


def _bar_width(wpage, key: str) -> float:
    return (
        wpage.card(key)
        .locator("[data-role=timebar-fill]")
        .evaluate(
            "el => el.getBoundingClientRect().width"
            " / el.parentElement.getBoundingClientRect().width"
        )
    )


def test_a_timed_card_shows_a_countdown_bar_that_empties(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[timed("t1", remaining_ms=10_000), generic("g")]), clock=True)
    bar = wpage.card("t1").locator("[data-role=timebar]")
    expect(bar).to_be_visible()
    assert _bar_width(wpage, "t1") == pytest.approx(1.0, abs=0.02)
    wpage.page.clock.run_for(5_000)
    wpage.page.wait_for_timeout(400)  # the width eases over a quarter second
    assert _bar_width(wpage, "t1") == pytest.approx(0.5, abs=0.06)
    expect(wpage.card("g").locator("[data-role=timebar]")).to_be_hidden()  # not timed: no bar


def test_a_view_opened_late_shows_the_bar_partly_drained(wpage) -> None:
    """The bar measures the time left against the question's whole window (timeoutMs), not
    against the first time left this view saw."""
    wpage.mount(
        QuestionWidget(cards=[timed("t1", remaining_ms=15_000, timeout_ms=60_000)]), clock=True
    )
    expect(wpage.card("t1").locator("[data-role=timebar]")).to_be_visible()
    assert _bar_width(wpage, "t1") == pytest.approx(0.25, abs=0.02)
    expect(wpage.card("t1").locator(".ipyask-wait")).to_have_text("Continuing in 15s")
