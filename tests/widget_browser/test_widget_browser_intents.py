"""Plan-review and approval cards in Chromium."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ipyask.widget import Card, QuestionWidget
from widget.widget_cardkit import approval, options, plan, question

pytestmark = pytest.mark.browser


def test_plan_review_renders_the_plan(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[plan("p1")]))
    card = wpage.card("p1")
    expect(card.locator(".ipyask-eyebrow")).to_have_text("Plan review")
    expect(card.get_by_role("heading", level=2)).to_have_text("Approve this plan?")
    body = card.get_by_role("group", name="Approve this plan?")
    expect(body.get_by_role("heading", level=3)).to_have_text("Migration plan")
    expect(body.locator("ol > li")).to_have_count(3)
    expect(body.locator("table td").first).to_have_text("Backfill")
    expect(card.get_by_role("radio")).to_have_count(0)
    expect(card.get_by_role("textbox")).to_have_count(0)
    expect(card.get_by_role("button", name="Skip")).to_have_count(0)
    expect(card.get_by_role("button", name="Approve")).to_have_attribute("title", "Start the work")
    expect(card.get_by_role("button", name="Keep planning")).to_be_visible()


def test_plan_review_approve_and_decline(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[plan("p1"), plan("p2")]))
    wpage.card("p1").get_by_role("button", name="Approve").click()
    expect(wpage.card("p1").get_by_role("button", name="Submitting…")).to_be_disabled()
    wpage.card("p2").get_by_role("button", name="Keep planning").click()
    wpage.card("p2").get_by_role("button", name="Keep planning").click()  # sent with no text
    assert [(m["key"], m["answer"]) for m in wpage.sent("answer")] == [
        ("p1", {"answers": [{"id": "plan", "selected": ["Approve the plan"]}]}),
        ("p2", {"answers": [{"id": "plan", "selected": ["Keep planning"]}]}),
    ]


def test_plan_review_request_changes(wpage) -> None:
    keyed = plan("pk", decline=False, call_id="c", wait="indefinite")
    wpage.mount(QuestionWidget(cards=[keyed, plan("pu", decline=False)]))
    wpage.clear_sent()
    for key in ["pk", "pu"]:  # sent with nothing typed: what the close button does
        wpage.card(key).get_by_role("button", name="Request changes").click()
        expect(wpage.card(key).get_by_role("textbox", name="What should change?")).to_be_focused()
        wpage.card(key).get_by_role("button", name="Request changes").click()
    expect(wpage.card("pk")).to_be_hidden()  # keyed: hide only
    assert [(m["kind"], m["key"]) for m in wpage.sent()] == [("cancel", "pu")]


@pytest.mark.parametrize(
    ("decline", "selected"), [(True, ["Keep planning"]), (False, [])], ids=["decline", "no-decline"]
)
def test_plan_review_request_changes_says_what_to_change(wpage, decline, selected) -> None:
    wpage.mount(QuestionWidget(cards=[plan("p1", decline=decline)]))
    card = wpage.card("p1")
    name = "Keep planning" if decline else "Request changes"
    card.get_by_role("button", name=name).click()
    box = card.get_by_role("textbox", name="What should change?")
    expect(box).to_be_focused()
    card.get_by_role("button", name="Back").click()  # Back keeps the plan's buttons
    expect(card.get_by_role("button", name="Approve")).to_be_visible()
    card.get_by_role("button", name=name).click()
    box.fill("Backfill in batches\nof 1000")
    card.get_by_role("button", name=name).click()
    assert wpage.answers() == [
        {
            "answers": [
                {"id": "plan", "selected": selected, "custom": "Backfill in batches\nof 1000"}
            ]
        }
    ]


def test_plan_review_changes_box_in_chinese(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[plan("p1", decline=False)], language="zh-CN"))
    card = wpage.card("p1")
    card.get_by_role("button", name="要求修改").click()
    expect(card.get_by_role("textbox", name="需要修改什么？")).to_be_focused()
    expect(card.get_by_role("button", name="返回")).to_be_visible()
    assert wpage.axe() == []


def test_plan_review_changes_box_is_a_visible_field(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[plan("p1", decline=False)]))
    card = wpage.card("p1")
    card.get_by_role("button", name="Request changes").click()
    box = card.get_by_role("textbox", name="What should change?")
    expect(box).to_be_focused()
    look = box.evaluate(
        """el => { const s = getComputedStyle(el); const line = parseFloat(s.lineHeight) ||
        1.2 * parseFloat(s.fontSize); return {border: parseFloat(s.borderTopWidth),
        style: s.borderTopStyle, outline: s.outlineStyle, lines: el.clientHeight / line}; }"""
    )
    assert look["border"] >= 1 and look["style"] == "solid"
    assert look["outline"] != "none"  # the focus ring shows
    assert look["lines"] >= 2.5  # rows=3: room to write more than one line


def test_plan_review_body_collapses(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[plan("p1")]))
    card = wpage.card("p1")
    card.get_by_role("button", name="Collapse the question card").click()
    expect(card.locator(".ipyask-plan")).to_have_count(0)
    expect(card.get_by_role("button", name="Approve")).to_be_visible()
    card.get_by_role("button", name="Expand the question card").click()
    expect(card.locator(".ipyask-plan")).to_be_visible()
    assert wpage.sent("answer") == []


def test_ineligible_plan_review_uses_the_generic_flow(wpage) -> None:
    item = question(
        "p",
        "Approve?",
        detail="plan",
        options=options("Yes", "No", "Later"),
        intent={"kind": "plan-review", "approve": "Yes"},
    )
    wpage.mount(QuestionWidget(cards=[Card(key="x", questions=[item])]))
    expect(wpage.card("x").get_by_role("radio")).to_have_count(3)


def test_approval_renders(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[approval("a1")]))
    card = wpage.card("a1")
    expect(card.locator(".ipyask-eyebrow")).to_have_text("Waiting for approval")
    expect(card.locator(".ipyask-subject")).to_have_text("Shell tool")
    icon = card.locator("img.ipyask-subject__icon")
    expect(icon).to_have_attribute("alt", "")
    assert icon.evaluate("img => img.complete && img.naturalWidth") == 1
    expect(card.get_by_role("heading", level=2)).to_have_text("Run `rm -rf build/`?")
    details = card.get_by_role("group", name="Approval details")
    expect(details.locator("strong")).to_have_text("build")
    buttons = card.locator(".ipyask-foot button")
    expect(buttons).to_have_text(["Reject", "Always allow", "Run once"])
    expect(card.get_by_role("textbox")).to_have_count(0)


def test_approval_without_details_shows_no_details_bar(wpage) -> None:
    wire = approval("a1").to_wire()
    del wire["questions"][0]["intent"]["display"]["detail"]
    wire["questions"][0]["detail"] = ""  # what ipyask.approve() without detail= asks
    wpage.mount(QuestionWidget(cards=[wire]))
    card = wpage.card("a1")
    expect(card.get_by_role("button", name="Run once")).to_be_visible()
    expect(card.locator(".ipyask-approval-detail")).to_have_count(0)
    expect(card.get_by_role("group", name="Approval details")).to_have_count(0)
    assert wpage.axe() == []


def test_approval_in_chinese_falls_back_to_english(wpage) -> None:
    card_model = approval("a1")
    intent = card_model.questions[0].intent
    assert intent is not None
    wire = card_model.to_wire()
    del wire["questions"][0]["intent"]["display"]["approve"]["zh"]
    wpage.mount(QuestionWidget(cards=[wire], language="zh-CN"))
    card = wpage.card("a1")
    expect(card.get_by_role("heading", level=2)).to_have_text("运行 `rm -rf build/`？")
    expect(card.locator(".ipyask-approval-detail")).to_have_text("删除 build 文件夹。")
    expect(card.locator(".ipyask-foot button")).to_have_text(["拒绝", "始终允许", "Run once"])
    expect(card.locator(".ipyask-eyebrow")).to_have_text("等待审批")


def test_approval_without_display_or_always(wpage) -> None:
    item = question(
        "perm",
        "Allow network access?",
        detail="To `pypi.org`.",
        options=options("no", "yes"),
        intent={"kind": "approval", "approve": "yes", "reject": "no",
                "subject": {"name": "pip", "icon": "javascript:alert(1)"}},
    )  # fmt: skip
    wpage.mount(QuestionWidget(cards=[Card(key="a", questions=[item])]))
    card = wpage.card("a")
    expect(card.get_by_role("heading", level=2)).to_have_text("Allow network access?")
    expect(card.locator(".ipyask-foot button")).to_have_text(["Reject", "Allow once"])
    expect(card.locator("img")).to_have_count(0)  # unsafe icon is never loaded
    expect(card.locator(".ipyask-subject")).to_have_text("pip")


@pytest.mark.parametrize(
    ("button", "label"),
    [("Reject", "deny"), ("Always allow", "allow-always"), ("Run once", "allow")],
)
def test_approval_buttons_send_their_label(wpage, button: str, label: str) -> None:
    wpage.mount(QuestionWidget(cards=[approval("a1")]))
    wpage.card("a1").get_by_role("button", name=button).click()
    assert wpage.answers() == [{"answers": [{"id": "perm", "selected": [label]}]}]
    expect(wpage.card("a1").locator(".ipyask-foot button:disabled")).to_have_count(3)


def test_approval_keyboard(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[approval("a1"), approval("a2"), approval("a3")]))
    wpage.card("a1").get_by_role("group", name="Approval details").focus()
    wpage.page.keyboard.press("Enter")  # Enter approves once
    wpage.card("a2").get_by_role("group", name="Approval details").focus()
    wpage.page.keyboard.press("Shift+Enter")  # modifiers do nothing
    wpage.page.keyboard.press("Escape")  # Escape rejects
    wpage.card("a3").get_by_role("button", name="Always allow").focus()
    wpage.page.keyboard.press("Enter")  # a focused button keeps its own action
    assert [(m["key"], m["answer"]["answers"][0]["selected"]) for m in wpage.sent("answer")] == [
        ("a1", ["allow"]),
        ("a2", ["deny"]),
        ("a3", ["allow-always"]),
    ]
    wpage.card("a3").get_by_role("group", name="Approval details").focus()
    wpage.page.keyboard.press("Escape")  # busy: one batch per card
    assert len(wpage.sent("answer")) == 3


def test_approval_close(wpage) -> None:
    keyed = approval("ak", call_id="c", wait="indefinite")
    wpage.mount(QuestionWidget(cards=[keyed, approval("au")]))
    wpage.clear_sent()
    wpage.card("ak").get_by_role(
        "button", name="Close the panel — reopen it from the tool call"
    ).click()
    wpage.card("au").get_by_role("button", name="Cancel the question…").click()
    assert wpage.sent() == []  # not without confirming
    wpage.card("au").get_by_role("button", name="Cancel the question", exact=True).click()
    assert [(m["kind"], m["key"]) for m in wpage.sent()] == [("cancel", "au")]
