"""The generic question flow in Chromium: rendering, every interaction and the exact batch."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ipyask.widget import Card, QuestionWidget
from widget.widget_cardkit import batch, generic, options, question, timed

pytestmark = pytest.mark.browser


def test_generic_card_renders(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[generic("g1")]))
    card = wpage.card("g1")
    expect(card.locator(".ipyask-eyebrow")).to_have_text("Storage")
    expect(card.get_by_role("heading", level=2)).to_have_text("Which database should we use?")
    expect(card.locator(".ipyask-markdown strong")).to_have_text("one")
    expect(card.locator(".ipyask-markdown code")).to_have_text("docs/queue.md")
    group = card.get_by_role("radiogroup", name="Which database should we use?")
    radios = group.get_by_role("radio")
    expect(radios).to_have_count(3)
    recommended = group.get_by_role("radio", name="PostgreSQL", exact=True)
    expect(recommended).to_have_attribute("aria-checked", "false")  # marked, not preselected
    expect(recommended.locator(".ipyask-badge")).to_have_text("Recommended")
    expect(recommended).to_have_accessible_description("Recommended Already deployed")
    expect(recommended.locator(".ipyask-num")).to_have_text("1")
    expect(group.get_by_role("radio", name="SQLite")).to_have_attribute("aria-checked", "false")
    expect(card.get_by_role("textbox", name="Other answer")).to_have_attribute(
        "placeholder", "Type your answer"
    )
    expect(card.get_by_role("button", name="Skip")).to_be_enabled()
    expect(card.get_by_role("button", name="Submit")).to_be_disabled()  # nothing chosen yet
    expect(card.get_by_role("button", name="Collapse the question card")).to_have_attribute(
        "aria-expanded", "true"
    )
    expect(card.get_by_role("button", name="Cancel the question…")).to_be_visible()
    expect(card.locator(".ipyask-pager")).to_have_count(0)  # a single question has no pager
    expect(card.locator(".ipyask-wait")).to_have_count(1)
    expect(card.locator(".ipyask-wait")).to_be_hidden()  # blocking: no wait status
    assert wpage.sent("hello")[0]["viewId"]
    assert wpage.sent("claim") == []


def test_recommended_label_is_sent_unchanged(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[generic("g1")]))
    expect(wpage.card("g1").get_by_role("button", name="Submit")).to_be_disabled()
    wpage.card("g1").get_by_role("radio", name="PostgreSQL", exact=True).click()
    wpage.card("g1").get_by_role("button", name="Submit").click()
    assert wpage.sent("answer") == [
        {
            "kind": "answer",
            "protocolVersion": 2,
            "viewId": wpage.sent("hello")[0]["viewId"],
            "key": "g1",
            "answer": {"answers": [{"id": "q1", "selected": ["PostgreSQL (Recommended)"]}]},
        }
    ]


def test_fullwidth_and_chinese_recommended_suffixes(wpage) -> None:
    item = question(options=options("甲（推荐）", "乙 (recommended)", "丙"))
    wpage.mount(QuestionWidget(cards=[Card(key="z", questions=[item])]))
    radios = wpage.card("z").get_by_role("radio")
    expect(radios.nth(0)).to_have_accessible_name("甲")
    expect(radios.nth(1)).to_have_accessible_name("乙")
    expect(radios.nth(0)).to_have_attribute("aria-checked", "false")  # marked, not preselected
    expect(radios.nth(1)).to_have_attribute("aria-checked", "false")
    expect(wpage.card("z").locator(".ipyask-badge")).to_have_count(2)


def test_single_select_click_and_submit(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[generic("g1")]))
    card = wpage.card("g1")
    card.get_by_role("radio", name="SQLite").click()
    expect(card.get_by_role("radio", name="SQLite")).to_have_attribute("aria-checked", "true")
    expect(card.get_by_role("radio", name="PostgreSQL")).to_have_attribute("aria-checked", "false")
    card.get_by_role("button", name="Submit").click()
    assert wpage.answers() == [{"answers": [{"id": "q1", "selected": ["SQLite"]}]}]


def test_custom_text_replaces_a_single_choice(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[generic("g1")]))
    card = wpage.card("g1")
    field = card.get_by_role("textbox", name="Other answer")
    field.fill("  Cassandra  ")
    expect(card.get_by_role("radio", checked=True)).to_have_count(0)
    field.press("Shift+Enter")
    field.press_sequentially("second line")
    card.get_by_role("button", name="Submit").click()
    assert wpage.answers() == [
        {"answers": [{"id": "q1", "selected": [], "custom": "Cassandra  \nsecond line"}]}
    ]


def test_choosing_an_option_clears_custom_text(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[generic("g1")]))
    card = wpage.card("g1")
    card.get_by_role("textbox", name="Other answer").fill("typed")
    card.get_by_role("radio", name="Redis").click()
    expect(card.get_by_role("textbox", name="Other answer")).to_have_value("")
    card.get_by_role("button", name="Submit").click()
    assert wpage.answers() == [{"answers": [{"id": "q1", "selected": ["Redis"]}]}]


def test_batch_flow_with_pager_multi_select_and_skip(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[batch("b1")]))
    card = wpage.card("b1")
    expect(card.locator(".ipyask-pager__pos > [aria-hidden]")).to_have_text("1 / 3")
    expect(card.get_by_role("button", name="Previous question")).to_be_disabled()
    expect(card.get_by_role("button", name="Next", exact=True)).to_be_disabled()  # nothing chosen
    card.get_by_role("radio", name="Go").click()  # single-select auto-advances
    expect(card.locator(".ipyask-pager__pos > [aria-hidden]")).to_have_text("2 / 3")
    expect(card.locator(".ipyask-pager__pos .ipyask-sr")).to_have_text("Question 2 of 3")
    expect(card.get_by_role("heading")).to_have_text("Which features?")
    group = card.get_by_role("group", name="Which features?")
    group.get_by_role("checkbox", name="Billing").click()
    group.get_by_role("checkbox", name="Auth").click()
    group.get_by_role("checkbox", name="Search").click()
    group.get_by_role("checkbox", name="Search").click()  # toggled off again
    expect(group.get_by_role("checkbox", checked=True)).to_have_count(2)
    card.get_by_role("textbox", name="Other answer").fill("Export")
    expect(card.locator("[data-role=custom-mark]")).to_have_class("ipyask-check ipyask-is-checked")
    expect(group.get_by_role("checkbox", checked=True)).to_have_count(2)  # multi keeps choices
    card.get_by_role("button", name="Next", exact=True).click()
    expect(card.locator(".ipyask-pager__pos > [aria-hidden]")).to_have_text("3 / 3")
    notes = card.get_by_role("textbox", name="Anything else?")
    expect(notes).to_be_focused()
    expect(card.get_by_role("button", name="Submit")).to_be_disabled()
    notes.press("Enter")
    expect(card.get_by_role("status")).to_have_text(
        "Please select an option or enter a custom answer."
    )
    assert wpage.sent("answer") == []
    card.get_by_role("button", name="Skip").click()  # on the last question: submits
    assert wpage.answers() == [
        {
            "answers": [
                {"id": "lang", "selected": ["Go"]},
                {"id": "features", "selected": ["Billing", "Auth"], "custom": "Export"},
                {"id": "notes", "selected": []},
            ]
        }
    ]


def test_submit_jumps_to_the_first_incomplete_question(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[batch("b1")]))
    card = wpage.card("b1")
    card.get_by_role("button", name="Next question").click()
    card.get_by_role("button", name="Next question").click()
    expect(card.locator(".ipyask-pager__pos > [aria-hidden]")).to_have_text("3 / 3")
    expect(card.get_by_role("button", name="Next question")).to_be_disabled()
    card.get_by_role("textbox", name="Anything else?").fill("ship it")
    card.get_by_role("button", name="Submit").click()
    expect(card.locator(".ipyask-pager__pos > [aria-hidden]")).to_have_text("1 / 3")
    expect(card.get_by_role("status")).to_have_text("Please complete this question first.")
    assert wpage.sent("answer") == []
    card.get_by_role("button", name="Skip").click()  # skip q1 -> q2
    card.get_by_role("button", name="Skip").click()  # skip q2 -> q3
    card.get_by_role("button", name="Submit").click()
    assert wpage.answers() == [
        {
            "answers": [
                {"id": "lang", "selected": []},
                {"id": "features", "selected": []},
                {"id": "notes", "selected": [], "custom": "ship it"},
            ]
        }
    ]


def test_one_batch_per_card_then_error_rearms(wpage) -> None:
    widget = QuestionWidget(cards=[generic("g1")])
    wpage.mount(widget)
    card = wpage.card("g1")
    card.get_by_role("radio", name="PostgreSQL", exact=True).click()
    card.get_by_role("button", name="Submit").click()
    expect(card.get_by_role("button", name="Submitting…")).to_be_disabled()
    expect(card).to_have_attribute("aria-busy", "")
    expect(card.get_by_role("radio").first).to_be_disabled()
    card.get_by_role("button", name="Submitting…").click(force=True)
    card.press("Enter")
    assert len(wpage.sent("answer")) == 1
    view_id = wpage.sent("hello")[0]["viewId"]
    wpage.emit({"kind": "error", "protocolVersion": 2, "code": "X", "message": "other view"
                , "key": "g1", "viewId": "someone-else"})  # fmt: skip
    expect(card.get_by_role("button", name="Submitting…")).to_be_visible()
    wpage.emit(
        {
            "kind": "error",
            "protocolVersion": 2,
            "code": "BAD_ANSWER",
            "message": "this question is no longer answerable",
            "key": "g1",
            "viewId": view_id,
        }
    )
    expect(card.get_by_role("status")).to_have_text("this question is no longer answerable")
    card.get_by_role("radio", name="Redis").click()
    card.get_by_role("button", name="Submit").click()
    assert [a["answers"][0]["selected"] for a in wpage.answers()] == [
        ["PostgreSQL (Recommended)"],
        ["Redis"],
    ]


def test_answered_card_collapses_to_a_summary(wpage) -> None:
    widget = QuestionWidget(cards=[batch("b1")])
    wpage.mount(widget)
    widget.update_card(
        "b1",
        status="answered",
        answer={
            "answers": [
                {"id": "lang", "selected": ["Go"]},
                {"id": "features", "selected": ["Auth"], "custom": "Export"},
                {"id": "notes", "selected": []},
            ]
        },
    )
    wpage.set_state(widget)
    card = wpage.card("b1")
    expect(card.locator(".ipyask-wait")).to_have_text("Answered")
    expect(card.locator(".ipyask-summary__line")).to_have_text(
        "Stack: Go · Which features: Auth, Export · Anything else: skipped"
    )
    expect(card.get_by_role("radio")).to_have_count(0)
    expect(card.get_by_role("button", name="Submit")).to_have_count(0)
    toggle = card.get_by_role("button", name="Expand the question card")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    toggle.click()
    expect(card.locator("dt")).to_have_text(["Stack — Which language?", "Which features?",
                                             "Anything else?"])  # fmt: skip
    expect(card.locator("dd")).to_have_text(
        ["Answer: Go", "Answer: Auth, Export", "This question was skipped."]
    )
    assert wpage.sent("answer") == []


def test_collapse_hides_the_body_and_sends_nothing(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[batch("b1")]))
    card = wpage.card("b1")
    card.get_by_role("radio", name="Go").click()
    wpage.clear_sent()
    card.get_by_role("button", name="Collapse the question card").click()
    expect(card.get_by_role("radio")).to_have_count(0)
    expect(card.get_by_role("checkbox")).to_have_count(0)
    expect(card.locator(".ipyask-foot")).to_have_count(0)
    expand = card.get_by_role("button", name="Expand the question card")
    expect(expand).to_have_attribute("aria-expanded", "false")
    expect(expand).to_be_focused()
    expand.click()
    expect(card.locator(".ipyask-pager__pos > [aria-hidden]")).to_have_text(
        "2 / 3"
    )  # progress kept
    assert wpage.sent() == []


def test_close_hides_keyed_and_asks_before_cancelling_unkeyed(wpage) -> None:
    keyed = Card(key="k", call_id="c1", wait="indefinite", questions=generic().questions)
    wpage.mount(QuestionWidget(cards=[keyed, generic("u")]))
    wpage.clear_sent()
    wpage.card("k").get_by_role(
        "button", name="Close the panel — reopen it from the tool call"
    ).click()
    expect(wpage.card("k")).to_be_hidden()
    assert wpage.sent() == []
    restore = wpage.page.get_by_role("button", name="Show hidden questions (1)")
    expect(restore).to_be_focused()
    card = wpage.card("u")
    card.get_by_role("button", name="Cancel the question…").click()
    confirm = card.get_by_role("group", name="Cancel this question?")
    expect(confirm).to_contain_text("The agent will be told that you cancelled it.")
    keep = confirm.get_by_role("button", name="Keep the question")
    expect(keep).to_be_focused()  # the safe choice is the default
    wpage.page.keyboard.press("Enter")
    expect(confirm).to_have_count(0)
    expect(card.get_by_role("radio", name="SQLite")).to_be_enabled()
    card.get_by_role("button", name="Cancel the question…").click()
    wpage.page.keyboard.press("Escape")  # Escape keeps the question too
    expect(confirm).to_have_count(0)
    assert wpage.sent() == []
    card.get_by_role("button", name="Cancel the question…").click()
    confirm.get_by_role("button", name="Cancel the question", exact=True).click()
    assert [(m["kind"], m["key"]) for m in wpage.sent()] == [("cancel", "u")]
    expect(card).to_be_visible()  # the card stays, to say it was cancelled
    restore.click()
    expect(wpage.card("k")).to_be_visible()
    expect(wpage.page.locator(".ipyask-restore")).to_be_hidden()


def test_continued_card_is_still_answerable(wpage) -> None:
    card_model = timed("t1", status="continued")
    wpage.mount(QuestionWidget(cards=[card_model]))
    card = wpage.card("t1")
    expect(card.locator(".ipyask-wait")).to_have_text("Work continued — you can still answer")
    expect(card.get_by_role("button", name="Take time")).to_have_count(0)
    assert wpage.sent("claim") == []
    card.get_by_role("radio", name="Redis").click()
    card.get_by_role("button", name="Submit").click()
    assert wpage.answers() == [{"answers": [{"id": "q1", "selected": ["Redis"]}]}]


@pytest.mark.parametrize(("status", "text"), [("cancelled", "Cancelled"), ("expired", "Expired")])
def test_cancelled_and_expired_are_read_only(wpage, status: str, text: str) -> None:
    model = generic("x", status=status, notice="The agent stopped waiting.")
    wpage.mount(QuestionWidget(cards=[model]))
    card = wpage.card("x")
    expect(card.locator(".ipyask-wait")).to_have_text(text)
    expect(card.locator(".ipyask-notice")).to_have_text("The agent stopped waiting.")
    expect(card.get_by_role("radio")).to_have_count(0)
    expect(card.get_by_role("textbox")).to_have_count(0)
    card.get_by_role("button", name="Close the panel — reopen it from the tool call").click()
    assert wpage.sent("cancel") == []


def test_a_digit_then_enter_submits(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[generic("g1")]))
    card = wpage.card("g1")
    card.focus()
    wpage.page.keyboard.press("2")  # picks option 2; the focus stays on the card
    expect(card.get_by_role("radio", checked=True)).to_have_count(1)
    wpage.page.keyboard.press("Enter")
    assert wpage.answers() == [{"answers": [{"id": "q1", "selected": ["SQLite"]}]}]


def test_keyboard_digits_space_enter_and_arrows(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[batch("b1"), generic("g1")]))
    b1 = wpage.card("b1")
    b1.get_by_role("radio", name="Python").focus()
    wpage.page.keyboard.press("ArrowDown")
    expect(b1.get_by_role("radio", name="Go")).to_be_focused()
    wpage.page.keyboard.press("1")  # digit picks option 1 and auto-advances
    expect(b1.locator(".ipyask-pager__pos > [aria-hidden]")).to_have_text("2 / 3")
    expect(b1.get_by_role("checkbox", name="Auth")).to_be_focused()
    wpage.page.keyboard.press("3")
    wpage.page.keyboard.press("Space")  # toggles the focused checkbox (Auth)
    expect(b1.get_by_role("checkbox", checked=True)).to_have_count(2)
    wpage.page.keyboard.press("9")  # no option 9: nothing happens
    wpage.page.keyboard.press("Enter")  # Enter on an option of a multi-select: Next
    expect(b1.locator(".ipyask-pager__pos > [aria-hidden]")).to_have_text("3 / 3")
    expect(b1.get_by_role("status")).to_have_text("")
    field = b1.get_by_role("textbox", name="Anything else?")
    expect(field).to_be_focused()
    field.press_sequentially("12")  # digits in a text field are text
    field.press("Enter")
    g1 = wpage.card("g1")
    g1.get_by_role("radio", name="PostgreSQL").focus()
    wpage.page.keyboard.press("Tab")
    expect(g1.get_by_role("radio", name="SQLite")).to_be_focused()
    wpage.page.keyboard.press("Space")
    wpage.page.keyboard.press("Enter")
    assert wpage.answers() == [
        {
            "answers": [
                {"id": "lang", "selected": ["Python"]},
                {"id": "features", "selected": ["Search", "Auth"]},
                {"id": "notes", "selected": [], "custom": "12"},
            ]
        },
        {"answers": [{"id": "q1", "selected": ["SQLite"]}]},
    ]


def test_tab_order_reaches_every_control(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[generic("g1")]))
    wpage.card("g1").get_by_role("radio", name="SQLite").click()  # Submit is enabled
    wpage.card("g1").get_by_role("button", name="Collapse the question card").focus()
    names = []
    for _ in range(8):
        names.append(wpage.page.evaluate(
            "() => document.activeElement.getAttribute('aria-label')"
            " || document.activeElement.textContent"))  # fmt: skip
        wpage.page.keyboard.press("Tab")
    assert names == [
        "Collapse the question card",
        "Cancel the question…",
        "PostgreSQL",
        "SQLite",
        "Redis",
        "Other answer",
        "Skip",
        "Submit",
    ]


def test_focus_is_visible(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[generic("g1")]))
    wpage.page.keyboard.press("Tab")
    wpage.page.keyboard.press("Tab")
    wpage.page.keyboard.press("Tab")
    option = wpage.card("g1").get_by_role("radio", name="PostgreSQL")
    expect(option).to_be_focused()
    outline = option.evaluate(
        "el => getComputedStyle(el).outlineStyle + ' ' + getComputedStyle(el).outlineWidth"
    )
    assert outline == "solid 2px"


def test_language_zh_and_override(open_page) -> None:
    wpage = open_page(locale="zh-CN")
    widget = QuestionWidget(cards=[batch("b1"), timed("t1")])
    wpage.mount(widget, doc_lang="")  # auto: navigator.language
    card = wpage.card("b1")
    expect(card.get_by_role("button", name="跳过")).to_be_visible()
    expect(card.get_by_role("button", name="下一题", exact=True)).to_be_visible()
    expect(card.get_by_role("button", name="收起问题卡片")).to_be_visible()
    expect(card.get_by_role("button", name="取消这个问题…")).to_be_visible()
    # the card counts down in real time: a slow page may already show 9 or fewer seconds
    expect(wpage.card("t1").locator(".ipyask-wait")).to_have_text(re.compile(r"^\d+ 秒后继续工作$"))
    expect(wpage.card("t1").get_by_role("button", name="慢慢回答")).to_be_visible()
    expect(wpage.card("t1").locator(".ipyask-badge")).to_have_text("推荐")
    expect(wpage.page.locator(".ipyask:not(.ipyask-layer)")).to_have_attribute("lang", "zh")
    wpage.set_language("en")  # the trait overrides the page
    expect(card.get_by_role("button", name="Skip")).to_be_visible()
    expect(wpage.page.locator(".ipyask:not(.ipyask-layer)")).to_have_attribute("lang", "en")


def test_language_from_document_lang(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[generic("g1")]), doc_lang="zh-Hans")
    expect(wpage.card("g1").get_by_role("button", name="提交")).to_be_visible()
    expect(wpage.card("g1").get_by_role("textbox", name="其他答案")).to_have_attribute(
        "placeholder", "输入你的答案"
    )


def test_second_view_and_reload_render_the_same_cards(wpage, open_page) -> None:
    widget = QuestionWidget(cards=[generic("g1"), batch("b1")])
    widget.update_card(
        "g1", status="answered", answer={"answers": [{"id": "q1", "selected": ["SQLite"]}]}
    )
    wpage.mount(widget, views=2)
    views = wpage.page.locator(".view")
    expect(views).to_have_count(2)
    for i in range(2):
        expect(views.nth(i).locator("article")).to_have_count(2)
        expect(views.nth(i).locator(".ipyask-summary__line")).to_have_text("SQLite")
    hello = wpage.sent("hello")
    assert len({m["viewId"] for m in hello}) == 2  # a random id per view
    reloaded = open_page()
    reloaded.mount(widget)
    expect(reloaded.page.locator("article")).to_have_count(2)
    answered = reloaded.page.locator("article[data-key=g1]")  # after the live card: history
    expect(answered.locator(".ipyask-summary__line")).to_have_text("SQLite")
    assert reloaded.sent("hello")[0]["viewId"] not in {m["viewId"] for m in hello}


def test_state_changes_add_remove_and_reorder_cards(wpage) -> None:
    widget = QuestionWidget(cards=[generic("a"), generic("b")])
    wpage.mount(widget)
    wpage.card("b").get_by_role("radio", name="Redis").click()
    widget.cards = [generic("c"), widget.cards[1]]
    wpage.set_state(widget)
    keys = wpage.page.locator("article").evaluate_all("els => els.map(e => e.dataset.key)")
    assert keys == ["c", "b"]
    expect(wpage.card("b").get_by_role("radio", name="Redis")).to_have_attribute(
        "aria-checked", "true"
    )  # local draft survives unrelated state changes


def test_links_in_detail_open_safely(wpage) -> None:
    item = question(detail="[docs](https://example.test/docs)", options=options("A"))
    wpage.mount(QuestionWidget(cards=[Card(key="l", questions=[item])]))
    link = wpage.card("l").get_by_role("link", name="docs")
    expect(link).to_have_attribute("href", "https://example.test/docs")
    expect(link).to_have_attribute("target", "_blank")
    expect(link).to_have_attribute("rel", "noopener noreferrer nofollow")
