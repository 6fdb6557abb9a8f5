"""The tool-approval card in Chromium: arguments, every decision, editing, refusals, keyboard."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from ipyask.widget import QuestionWidget
from widget.widget_cardkit import WRITE_SCHEMA, tool_approval

pytestmark = pytest.mark.browser

ALL_BUTTONS = ["Reject", "Respond", "Edit", "Always allow", "Approve"]


def _mount(wpage, *cards, language: str = "") -> None:
    wpage.mount(QuestionWidget(cards=list(cards) or [tool_approval()], language=language))


def _answer(wpage) -> dict[str, Any]:
    answers = wpage.answers()
    assert len(answers) == 1, answers
    item: dict[str, Any] = answers[0]["answers"][0]
    return item


def test_renders_the_tool_its_description_and_highlighted_arguments(wpage) -> None:
    args = {"path": "a.txt", "count": 3, "force": True, "meta": None, "tags": ["x"]}
    _mount(wpage, tool_approval(arguments=args))
    card = wpage.card("tool1")
    expect(card.locator(".ipyask-eyebrow")).to_have_text("Tool call")
    expect(card.locator(".ipyask-tool-name")).to_have_text("write_file")
    expect(card.get_by_role("heading", level=2)).to_have_text("Run write_file?")
    expect(card.locator(".ipyask-tool__desc strong")).to_have_text("file")
    block = card.get_by_role("group", name="Arguments")
    expect(block).to_have_attribute("tabindex", "0")
    assert json.loads(block.inner_text()) == args
    expect(block.locator(".ipyask-json__key")).to_have_text(
        ['"path"', '"count"', '"force"', '"meta"', '"tags"']
    )
    expect(block.locator(".ipyask-json__string")).to_have_text(['"a.txt"', '"x"'])
    expect(block.locator(".ipyask-json__number")).to_have_text(["3"])
    expect(block.locator(".ipyask-json__literal")).to_have_text(["true"])
    expect(block.locator(".ipyask-json__null")).to_have_text(["null"])
    expect(card.locator(".ipyask-foot button")).to_have_text(ALL_BUTTONS)
    expect(card.get_by_role("textbox")).to_have_count(0)


def test_only_the_allowed_decisions_with_the_kernels_labels(wpage) -> None:
    labels = {"approve": "Run it", "reject": "Don't", "respond": "Say instead"}
    _mount(wpage, tool_approval(decisions=("approve", "reject", "respond"), labels=labels))
    expect(wpage.card("tool1").locator(".ipyask-foot button")).to_have_text(
        ["Don't", "Say instead", "Run it"]
    )


def test_no_arguments(wpage) -> None:
    _mount(wpage, tool_approval(arguments={}, description=None))
    card = wpage.card("tool1")
    expect(card.locator(".ipyask-muted")).to_have_text("No arguments")
    expect(card.locator(".ipyask-tool__desc")).to_have_count(0)


def test_large_values_start_collapsed_and_expand(wpage) -> None:
    long_text = "line of text " * 40
    args = {"content": long_text, "rows": [{"id": i, "name": f"row {i}"} for i in range(60)]}
    _mount(wpage, tool_approval(arguments=args))
    block = wpage.card("tool1").get_by_role("group", name="Arguments")
    expect(block).not_to_contain_text(long_text)
    expect(block).not_to_contain_text("row 59")
    text_toggle = block.get_by_role("button", name=f"Show all {len(long_text)} characters")
    rows_toggle = block.get_by_role("button", name="Expand (60)")
    expect(text_toggle).to_have_attribute("aria-expanded", "false")
    text_toggle.click()
    expect(block).to_contain_text(json.dumps(long_text))
    rows_toggle.click()
    expect(block).to_contain_text('"row 59"')
    less = block.get_by_role("button", name="Show less")
    expect(less).to_have_count(2)
    expect(less.nth(1)).to_be_focused()  # the re-render keeps focus on the toggle
    expect(less.nth(1)).to_have_attribute("aria-expanded", "true")
    less.nth(1).click()
    expect(block).not_to_contain_text("row 59")
    assert wpage.sent("answer") == []


@pytest.mark.parametrize(
    ("button", "label"), [("Approve", "Approve"), ("Always allow", "Always allow")]
)
def test_approve_and_always_send_their_label_alone(wpage, button: str, label: str) -> None:
    _mount(wpage)
    wpage.card("tool1").get_by_role("button", name=button).click()
    assert _answer(wpage) == {"id": "tool", "selected": [label]}
    expect(wpage.card("tool1").locator(".ipyask-foot button:disabled")).to_have_count(5)


def test_reject_without_a_reason(wpage) -> None:
    _mount(wpage)
    card = wpage.card("tool1")
    card.get_by_role("button", name="Reject").click()
    reason = card.get_by_role("textbox", name="Reason for the model (optional)")
    expect(reason).to_be_focused()
    expect(card.locator(".ipyask-foot button")).to_have_text(["Back", "Submit"])
    card.get_by_role("button", name="Submit").click()
    assert _answer(wpage) == {"id": "tool", "selected": ["Reject"]}


def test_reject_with_a_reason(wpage) -> None:
    _mount(wpage)
    card = wpage.card("tool1")
    card.get_by_role("button", name="Reject").click()
    card.get_by_role("textbox", name="Reason for the model (optional)").fill(
        "  Not in the workspace.\nUse notes/ instead.  "
    )
    card.get_by_role("button", name="Submit").click()
    assert _answer(wpage) == {
        "id": "tool",
        "selected": ["Reject"],
        "custom": "Not in the workspace.\nUse notes/ instead.",
    }


def test_respond_needs_text(wpage) -> None:
    _mount(wpage)
    card = wpage.card("tool1")
    card.get_by_role("button", name="Respond").click()
    reply = card.get_by_role("textbox", name="Reply to the model instead of running the tool")
    submit = card.get_by_role("button", name="Submit")
    expect(submit).to_be_disabled()
    reply.fill("   ")
    expect(submit).to_be_disabled()
    reply.fill("The file already exists; skip it.")
    expect(submit).to_be_enabled()
    submit.click()
    assert _answer(wpage) == {
        "id": "tool",
        "selected": ["Respond"],
        "custom": "The file already exists; skip it.",
    }


def test_back_keeps_the_draft_and_returns_focus(wpage) -> None:
    _mount(wpage)
    card = wpage.card("tool1")
    card.get_by_role("button", name="Respond").click()
    card.get_by_role("textbox").fill("draft")
    card.get_by_role("button", name="Back").click()
    expect(card.get_by_role("button", name="Respond")).to_be_focused()
    expect(card.get_by_role("group", name="Arguments")).to_be_visible()
    card.get_by_role("button", name="Respond").click()
    expect(card.get_by_role("textbox")).to_have_value("draft")
    assert wpage.sent("answer") == []


def test_edit_in_the_json_editor(wpage) -> None:
    _mount(wpage)
    card = wpage.card("tool1")
    card.get_by_role("button", name="Edit").click()
    editor = card.get_by_role("textbox", name="Arguments as JSON")
    expect(editor).to_be_focused()
    assert json.loads(editor.input_value()) == {"path": "notes/todo.md", "content": "- ship it"}
    submit = card.get_by_role("button", name="Submit")
    error = card.locator("[data-role=json-error]")

    editor.fill('{"path": "notes/todo.md",')
    expect(error).to_contain_text("Not valid JSON:")
    expect(editor).to_have_attribute("aria-invalid", "true")
    assert error.get_attribute("id") in (editor.get_attribute("aria-describedby") or "").split()
    expect(submit).to_be_disabled()
    submit.click(force=True)
    editor.press("Control+Enter")
    assert wpage.sent("answer") == []  # invalid JSON blocks submit

    editor.fill('["not", "an", "object"]')
    expect(error).to_have_text("The arguments must be a JSON object ({…}).")
    expect(submit).to_be_disabled()

    edited = {"path": "notes/done.md", "content": "- shipped", "big": 12345678901234567890}
    editor.fill(json.dumps(edited, indent=2))
    expect(error).to_have_text("")
    expect(editor).not_to_have_attribute("aria-invalid", "true")
    submit.click()
    item = _answer(wpage)
    assert item["selected"] == ["Edit"]
    assert json.loads(item["custom"]) == edited  # the text as typed: big integers stay exact


def test_edit_through_the_generated_form(wpage) -> None:
    args = {"path": "notes/todo.md", "content": "- ship it", "mode": "w"}
    _mount(wpage, tool_approval(arguments=args, schema=WRITE_SCHEMA))
    card = wpage.card("tool1")
    card.get_by_role("button", name="Edit").click()
    path = card.get_by_role("textbox", name="Path")
    expect(path).to_be_focused()
    expect(path).to_have_value("notes/todo.md")
    expect(card.get_by_role("textbox", name="Content")).to_have_value("- ship it")
    expect(card.get_by_role("combobox", name="mode")).to_have_value("w")
    expect(card.get_by_role("combobox", name="mode").locator("option")).to_have_text(
        ["Choose…", "Overwrite", "Append"]
    )
    retries = card.get_by_role("spinbutton", name="retries")
    expect(retries).to_have_attribute("step", "1")
    expect(retries).to_have_attribute("max", "5")
    expect(card.get_by_role("checkbox", name="Keep a backup")).not_to_be_checked()

    card.get_by_role("textbox", name="Content").fill("- shipped")
    card.get_by_role("combobox", name="mode").select_option(label="Append")
    retries.fill("9")
    expect(card.get_by_text("Must be at most 5.", exact=True)).to_be_visible()
    path.fill("")
    card.get_by_role("button", name="Submit").click()
    assert wpage.sent("answer") == []
    expect(path).to_be_focused()  # the first field at fault
    expect(card.locator("[data-role=feedback]")).to_have_text("Please correct the marked fields.")
    path.fill("notes/done.md")
    retries.fill("2")
    card.get_by_role("button", name="Submit").click()
    item = _answer(wpage)
    assert item["selected"] == ["Edit"]
    # The untouched, unset checkbox stays out of the call; every other argument is kept.
    assert json.loads(item["custom"]) == {
        "path": "notes/done.md",
        "content": "- shipped",
        "mode": "a",
        "retries": 2,
    }


def test_kernel_refusal_is_shown_beside_the_field(wpage) -> None:
    _mount(wpage, tool_approval(schema=WRITE_SCHEMA))
    card = wpage.card("tool1")
    card.get_by_role("button", name="Edit").click()
    card.get_by_role("button", name="Submit").click()
    assert len(wpage.sent("answer")) == 1
    wpage.emit({"kind": "error", "protocolVersion": 2, "code": "BAD_ANSWER", "key": "tool1",
                "message": "the answer to question tool is refused: content: is too short",
                "questionId": "tool", "fields": {"content": "is too short"}})  # fmt: skip
    content = card.get_by_role("textbox", name="Content")
    expect(content).to_have_attribute("aria-invalid", "true")
    field = card.locator(".ipyask-field", has=wpage.page.get_by_role("textbox", name="Content"))
    expect(field.locator(".ipyask-field__error")).to_have_text("is too short")
    expect(card.get_by_role("button", name="Submit")).to_be_enabled()  # re-armed
    content.fill("- ship it, with care")
    expect(field.locator(".ipyask-field__error")).to_have_text("")
    card.get_by_role("button", name="Submit").click()
    assert len(wpage.sent("answer")) == 2


def test_kernel_refusal_of_json_arguments_lists_the_paths(wpage) -> None:
    _mount(
        wpage, tool_approval(schema={"type": "object", "properties": {"lines": {"type": "array"}}})
    )
    card = wpage.card("tool1")
    card.get_by_role("button", name="Edit").click()
    editor = card.get_by_role("textbox", name="Arguments as JSON")
    expect(card.get_by_text("They are checked against the tool's schema")).to_be_visible()
    editor.fill('{"lines": [1]}')
    card.get_by_role("button", name="Submit").click()
    wpage.emit({"kind": "error", "protocolVersion": 2, "code": "BAD_ANSWER", "key": "tool1",
                "message": "refused", "questionId": "tool",
                "fields": {"lines/0": "must be a string", "": "one more problem"}})  # fmt: skip
    error = card.locator("[data-role=json-error]")
    expect(error).to_have_text("lines/0: must be a string\none more problem")
    expect(editor).to_have_attribute("aria-invalid", "true")
    expect(card.locator("[data-role=feedback]")).to_have_text("refused")
    editor.fill('{"lines": ["1"]}')
    expect(error).to_have_text("")


def test_keyboard_only(wpage) -> None:
    cards = [tool_approval("k1"), tool_approval("k2"), tool_approval("k3", schema=WRITE_SCHEMA)]
    _mount(wpage, *cards)
    page = wpage.page
    # k1: Enter on the arguments approves (as on an approval card).
    wpage.card("k1").get_by_role("group", name="Arguments").focus()
    page.keyboard.press("Enter")
    # k2: Tab to Edit, edit the JSON, Escape goes back, Enter reopens, Ctrl+Enter submits.
    wpage.card("k2").get_by_role("group", name="Arguments").focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(wpage.card("k2").get_by_role("button", name="Edit")).to_be_focused()
    page.keyboard.press("Enter")
    editor = wpage.card("k2").get_by_role("textbox", name="Arguments as JSON")
    expect(editor).to_be_focused()
    page.keyboard.press("Control+a")
    page.keyboard.type('{"path": "b.md", "content": ""}')
    page.keyboard.press("Enter")  # a new line, not a submit
    page.keyboard.press("Escape")
    expect(wpage.card("k2").get_by_role("button", name="Edit")).to_be_focused()
    page.keyboard.press("Enter")
    expect(editor).to_be_focused()
    page.keyboard.press("Control+Enter")
    # k3: the generated form submits with Enter from a one-line field.
    wpage.card("k3").get_by_role("button", name="Edit").focus()
    page.keyboard.press("Enter")
    expect(wpage.card("k3").get_by_role("textbox", name="Path")).to_be_focused()
    page.keyboard.press("Tab")  # selects the field's text
    page.keyboard.press("End")
    page.keyboard.type(" and more")
    page.keyboard.press("Enter")
    sent = [(m["key"], m["answer"]["answers"][0]) for m in wpage.sent("answer")]
    assert sent[0] == ("k1", {"id": "tool", "selected": ["Approve"]})
    assert sent[1][0] == "k2" and sent[1][1]["selected"] == ["Edit"]
    assert json.loads(sent[1][1]["custom"]) == {"path": "b.md", "content": ""}
    assert sent[2][0] == "k3"
    assert json.loads(sent[2][1]["custom"]) == {
        "path": "notes/todo.md",
        "content": "- ship it and more",
    }


def test_escape_rejects_from_the_review(wpage) -> None:
    _mount(wpage)
    wpage.card("tool1").get_by_role("group", name="Arguments").focus()
    wpage.page.keyboard.press("Escape")
    assert _answer(wpage) == {"id": "tool", "selected": ["Reject"]}


def test_chinese(wpage) -> None:
    _mount(wpage, tool_approval(schema=WRITE_SCHEMA), language="zh-CN")
    card = wpage.card("tool1")
    expect(card.locator(".ipyask-eyebrow")).to_have_text("工具调用")
    expect(card.locator(".ipyask-section-label")).to_have_text("参数")
    expect(card.get_by_role("heading", level=2)).to_have_text("运行 write_file？")
    # The kernel's default labels in the card's language; the agent still receives the labels.
    expect(card.locator(".ipyask-foot button")).to_have_text(
        ["拒绝", "回复", "编辑", "始终允许", "批准"]
    )
    card.get_by_role("button", name="编辑").click()
    expect(card.locator(".ipyask-foot button")).to_have_text(["返回", "提交"])
    card.get_by_role("spinbutton").fill("8")
    expect(card.get_by_text("不能大于 5。", exact=True)).to_be_visible()


def test_chinese_decisions_send_the_kernels_labels(wpage) -> None:
    _mount(wpage, language="zh-CN")
    wpage.card("tool1").get_by_role("button", name="始终允许").click()
    assert _answer(wpage) == {"id": "tool", "selected": ["Always allow"]}


def test_labels_the_agent_chose_are_shown_as_they_are_in_chinese(wpage) -> None:
    labels = {"approve": "Run it", "reject": "Don't", "respond": "Say instead"}
    card = tool_approval(decisions=("approve", "reject", "respond"), labels=labels, name="rm")
    _mount(wpage, card, language="zh-CN")
    expect(wpage.card("tool1").locator(".ipyask-foot button")).to_have_text(
        ["Don't", "Say instead", "Run it"]
    )


REJECTIONS = {
    "approve": "Approve",
    "reject": "Reject",
    "never": "Always reject",
    "stop": "Reject and stop",
}
"""A card offering the rejections some frameworks add (the kernel's default labels)."""


@pytest.mark.parametrize(
    ("language", "buttons", "button", "label", "note", "reason"),
    [
        (
            "",
            ["Reject and stop", "Always reject", "Reject", "Approve"],
            "Always reject",
            "Always reject",
            "Later calls of this tool are rejected without asking.",
            "Reason",
        ),
        (
            "zh-CN",
            ["拒绝并停止", "始终拒绝", "拒绝", "批准"],
            "拒绝并停止",
            "Reject and stop",
            "拒绝后智能体将停止运行。",
            "拒绝理由",
        ),
    ],
)
def test_always_reject_and_reject_and_stop_say_what_they_do_besides(
    wpage, language: str, buttons: list[str], button: str, label: str, note: str, reason: str
) -> None:
    _mount(wpage, tool_approval(decisions=tuple(REJECTIONS), labels=REJECTIONS), language=language)
    card = wpage.card("tool1")
    expect(card.locator(".ipyask-foot button")).to_have_text(buttons)
    card.get_by_role("button", name=button).click()
    field = card.get_by_role("textbox", name=reason)
    expect(field).to_be_focused()
    expect(field).to_have_accessible_description(note)
    field.fill("not this tool")
    card.locator("[data-action=tool-submit]").click()
    assert _answer(wpage) == {"id": "tool", "selected": [label], "custom": "not this tool"}


def test_plain_reject_has_no_note(wpage) -> None:
    _mount(wpage, tool_approval(decisions=tuple(REJECTIONS), labels=REJECTIONS))
    card = wpage.card("tool1")
    card.get_by_role("button", name="Reject", exact=True).click()
    expect(card.get_by_role("textbox", name="Reason for the model (optional)")).to_be_focused()
    expect(card.locator("[data-role=decision-note]")).to_have_count(0)
