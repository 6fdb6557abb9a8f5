"""The form card in Chromium: native inputs per field type, validation, outcomes, keyboard."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from ipyask.widget import QuestionWidget
from widget.widget_cardkit import form_card

pytestmark = pytest.mark.browser

SMALL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name"},
        "agree": {"type": "boolean", "title": "I agree"},
        "size": {"type": "string", "title": "Size", "enum": ["s", "m", "l"], "default": "m"},
    },
    "required": ["name"],
}


def _mount(wpage, *cards, language: str = "") -> None:
    wpage.mount(QuestionWidget(cards=list(cards) or [form_card()], language=language))


def _answers(wpage) -> list[dict[str, Any]]:
    return [m["answer"]["answers"][0] for m in wpage.sent("answer")]


def _error_of(card, control):
    """The error line a control names in its aria-describedby."""
    ids = (control.get_attribute("aria-describedby") or "").split()
    lines = [card.locator(f"[id='{i}'][data-role=field-error]") for i in ids]
    found = [line for line in lines if line.count() == 1]
    assert len(found) == 1, ids
    return found[0]


def _refusal(question_id: str, fields: dict[str, str], message: str) -> dict[str, Any]:
    return {"kind": "error", "protocolVersion": 2, "code": "BAD_ANSWER", "key": "form1",
            "message": message, "questionId": question_id, "fields": fields}  # fmt: skip


def test_renders_native_inputs_per_field_type(wpage) -> None:
    _mount(wpage)
    card = wpage.card("form1")
    expect(card.locator(".ipyask-eyebrow")).to_have_text("Form")
    expect(card.get_by_role("heading", level=2)).to_have_text("Book a table")
    expect(card.get_by_role("heading", level=3)).to_have_text("Table booking")
    expect(card.locator(".ipyask-form__desc")).to_have_text("We hold the table for 15 minutes.")
    name = card.get_by_role("textbox", name="Name")
    for attribute, value in {"type": "text", "minlength": "2", "maxlength": "40"}.items():
        expect(name).to_have_attribute(attribute, value)
    expect(name).to_have_attribute("required", "")
    expect(card.locator("label", has=wpage.page.get_by_text("*"))).to_have_count(4)
    expect(card.get_by_role("textbox", name="Email")).to_have_attribute("type", "email")
    expect(card.get_by_role("textbox", name="Website")).to_have_attribute("type", "url")
    code = card.get_by_role("textbox", name="Booking code")
    expect(code).to_have_accessible_description("Three capitals and two digits, e.g. ABC12")
    expect(card.get_by_label("Day")).to_have_attribute("type", "date")
    expect(card.get_by_label("Arrival")).to_have_attribute("type", "datetime-local")
    guests = card.get_by_role("spinbutton", name="Guests")
    for attribute, value in {"min": "1", "max": "12", "step": "1"}.items():
        expect(guests).to_have_attribute(attribute, value)
    expect(guests).to_have_value("2")  # the default
    budget = card.get_by_role("spinbutton", name="Budget per person")
    expect(budget).to_have_attribute("step", "any")
    expect(budget).to_have_attribute("min", "0")
    expect(card.get_by_role("checkbox", name="Terrace")).not_to_be_checked()
    seating = card.get_by_role("combobox", name="Seating")
    expect(seating.locator("option")).to_have_text(["Choose…", "Inside", "Outside"])
    diet = card.get_by_role("group", name="Dietary needs")
    expect(diet.locator("legend")).to_have_text("Dietary needs")
    expect(diet.get_by_role("checkbox")).to_have_count(3)
    expect(diet.get_by_role("checkbox", name="Gluten-free")).to_be_visible()
    expect(card.locator(".ipyask-foot button")).to_have_text(["Cancel", "Decline", "Submit"])


def test_valid_values_are_sent_as_json(wpage) -> None:
    _mount(wpage)
    card = wpage.card("form1")
    card.get_by_role("textbox", name="Name").fill("Ada Lovelace")
    card.get_by_role("textbox", name="Email").fill("ada@example.com")
    card.get_by_role("textbox", name="Website").fill("https://ada.example")
    card.get_by_role("textbox", name="Booking code").fill("ABC12")
    card.get_by_label("Day").fill("2025-03-01")
    card.get_by_label("Arrival").fill("2025-03-01T19:30")
    card.get_by_role("spinbutton", name="Guests").fill("4")
    card.get_by_role("spinbutton", name="Budget per person").fill("35.5")
    card.get_by_role("checkbox", name="Terrace").check()
    card.get_by_role("combobox", name="Seating").select_option(label="Outside")
    card.get_by_role("checkbox", name="No nuts").check()
    card.get_by_role("checkbox", name="Vegetarian").check()
    card.get_by_role("button", name="Submit").click()
    offset = int(wpage.page.evaluate("-new Date(2025, 2, 1, 19, 30).getTimezoneOffset()"))
    zone = f"{'+' if offset >= 0 else '-'}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}"
    [item] = _answers(wpage)
    assert item["id"] == "book" and item["selected"] == ["Submit"]
    assert json.loads(item["custom"]) == {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "site": "https://ada.example",
        "code": "ABC12",
        "day": "2025-03-01",
        "arrival": f"2025-03-01T19:30:00{zone}",
        "guests": 4,
        "budget": 35.5,
        "terrace": True,
        "seating": "out",
        "diet": ["veg", "nuts"],  # in the options' order
    }


def test_optional_empty_fields_are_left_out(wpage) -> None:
    _mount(wpage)
    card = wpage.card("form1")
    card.get_by_role("textbox", name="Name").fill("Bo")
    card.get_by_role("textbox", name="Email").fill("bo@example.com")
    card.get_by_label("Day").fill("2025-12-31")
    card.get_by_role("textbox", name="Name").press("Enter")  # Enter in a one-line input submits
    [item] = _answers(wpage)
    assert json.loads(item["custom"]) == {
        "name": "Bo",
        "email": "bo@example.com",
        "day": "2025-12-31",
        "guests": 2,
        "terrace": False,
    }


INVALID = [
    ("textbox", "Name", "A", "Enter at least 2 characters.", "Ada"),
    ("textbox", "Email", "ada@", "Enter an email address (name@example.com).", "a@b.co"),
    ("textbox", "Website", "ada.example", "Enter a URL with a scheme (https://…).", "https://a.b"),
    ("textbox", "Booking code", "abc12", "Must match the pattern ^[A-Z]{3}[0-9]{2}$.", "XYZ99"),
    ("spinbutton", "Guests", "0", "Must be at least 1.", "1"),
    ("spinbutton", "Guests", "13", "Must be at most 12.", "12"),
    ("spinbutton", "Guests", "2.5", "Enter a whole number.", "3"),
    ("spinbutton", "Budget per person", "-1", "Must be at least 0.", "0"),
]


@pytest.mark.parametrize(("role", "label", "bad", "error", "good"), INVALID)
def test_invalid_input_is_announced_per_field(
    wpage, role: str, label: str, bad: str, error: str, good: str
) -> None:
    _mount(wpage)
    card = wpage.card("form1")
    control = card.get_by_role(role, name=label)  # type: ignore[arg-type]
    control.fill(bad)
    line = _error_of(card, control)
    expect(line).to_have_text(error)  # as you type
    expect(control).to_have_attribute("aria-invalid", "true")
    expect(card.locator("[data-role=field-live]")).to_have_text(f"{label}: {error}")
    expect(card.locator("[data-role=field-live]")).to_have_attribute("aria-live", "polite")
    card.get_by_role("button", name="Submit").click()
    assert wpage.sent("answer") == []
    control.fill(good)
    expect(line).to_have_text("")
    expect(control).not_to_have_attribute("aria-invalid", "true")
    expect(card.locator("[data-role=field-live]")).to_have_text("")


def test_required_fields_are_checked_on_submit(wpage) -> None:
    _mount(wpage)
    card = wpage.card("form1")
    expect(card.locator(".ipyask-field__error:not(:empty)")).to_have_count(0)  # not before
    card.get_by_role("textbox", name="Email").fill("ada@example.com")
    card.get_by_role("button", name="Submit").click()
    assert wpage.sent("answer") == []
    name = card.get_by_role("textbox", name="Name")
    expect(name).to_be_focused()  # the first field at fault
    expect(_error_of(card, name)).to_have_text("This field is required.")
    expect(_error_of(card, card.get_by_label("Day"))).to_have_text("This field is required.")
    expect(card.locator("[data-role=feedback]")).to_have_text("Please correct the marked fields.")


def test_incomplete_date_and_too_many_choices(wpage) -> None:
    _mount(wpage)
    card = wpage.card("form1")
    day = card.get_by_label("Day")
    day.focus()
    wpage.page.keyboard.type("03")  # month only: the browser cannot read a date yet
    card.get_by_role("button", name="Submit").click()
    expect(_error_of(card, day)).to_have_text("Enter a complete date.")
    assert wpage.sent("answer") == []
    diet = card.get_by_role("group", name="Dietary needs")
    for choice in ("Vegetarian", "Gluten-free", "No nuts"):
        diet.get_by_role("checkbox", name=choice).check()
    expect(diet.locator("[data-role=field-error]")).to_have_text("Choose at most 2.")
    expect(diet.get_by_role("checkbox", name="No nuts")).to_have_attribute("aria-invalid", "true")
    diet.get_by_role("checkbox", name="Vegetarian").uncheck()
    expect(diet.locator("[data-role=field-error]")).to_have_text("")


@pytest.mark.parametrize("button", ["Decline", "Cancel"])
def test_decline_and_cancel_are_distinct(wpage, button: str) -> None:
    _mount(wpage)
    wpage.card("form1").get_by_role("textbox", name="Name").fill("A")  # values are not sent
    wpage.card("form1").get_by_role("button", name=button, exact=True).click()
    assert _answers(wpage) == [{"id": "book", "selected": [button]}]


def test_a_form_without_decline_or_cancel(wpage) -> None:
    _mount(wpage, form_card(schema=SMALL_SCHEMA, decline=None, cancel=None))
    card = wpage.card("form1")
    expect(card.locator(".ipyask-foot button")).to_have_text(["Submit"])
    size = card.get_by_role("combobox", name="Size")
    expect(size.locator("option")).to_have_text(["Choose…", "s", "m", "l"])  # optional: clearable
    expect(size).to_have_value("m")
    card.get_by_role("textbox", name="Name").fill("Kim")
    card.get_by_role("button", name="Submit").click()
    [item] = _answers(wpage)
    assert json.loads(item["custom"]) == {"name": "Kim", "agree": False, "size": "m"}


def test_kernel_refusal_is_shown_beside_the_fields(wpage) -> None:
    _mount(wpage, form_card(schema=SMALL_SCHEMA))
    card = wpage.card("form1")
    card.get_by_role("textbox", name="Name").fill("Kim")
    card.get_by_role("button", name="Submit").click()
    wpage.emit(_refusal("book", {"name": "is taken", "size": "is sold out"}, "name: is taken"))
    name = card.get_by_role("textbox", name="Name")
    size = card.get_by_role("combobox", name="Size")
    expect(_error_of(card, name)).to_have_text("is taken")
    expect(_error_of(card, size)).to_have_text("is sold out")
    expect(name).to_have_attribute("aria-invalid", "true")
    expect(card.locator("[data-role=feedback]")).to_have_text("Please correct the marked fields.")
    name.fill("Kim L.")
    expect(_error_of(card, name)).to_have_text("")
    expect(_error_of(card, size)).to_have_text("is sold out")
    # A refusal for another question of the card is not shown beside these fields.
    wpage.emit(_refusal("elsewhere", {"name": "x"}, "other"))
    expect(_error_of(card, name)).to_have_text("")
    expect(card.locator("[data-role=feedback]")).to_have_text("other")


def test_the_kernels_field_errors_show_in_the_cards_language(wpage) -> None:
    _mount(wpage, form_card(schema=SMALL_SCHEMA), language="zh")
    card = wpage.card("form1")
    card.get_by_role("textbox", name="Name").fill("Kim")
    card.get_by_role("button", name="提交").click()
    refusal = _refusal("book", {"name": "needs at least 4 characters"}, "name: …")
    refusal["fieldTexts"] = {
        "en": {"name": "needs at least 4 characters"},
        "zh": {"name": "至少需要 4 个字符"},
    }
    wpage.emit(refusal)
    name = card.get_by_role("textbox", name="Name")
    expect(_error_of(card, name)).to_have_text("至少需要 4 个字符")


def test_the_correct_the_fields_line_lasts_while_a_field_is_marked(wpage) -> None:
    _mount(wpage, form_card(schema=SMALL_SCHEMA))
    card = wpage.card("form1")
    card.get_by_role("textbox", name="Name").fill("Kim")
    card.get_by_role("button", name="Submit").click()
    wpage.emit(_refusal("book", {"name": "is taken", "size": "is sold out"}, "name: is taken"))
    feedback = card.locator("[data-role=feedback]")
    card.get_by_role("textbox", name="Name").fill("Kim L.")
    expect(feedback).to_have_text("Please correct the marked fields.")  # Size is still marked
    card.get_by_role("combobox", name="Size").select_option(index=1)
    expect(feedback).to_have_text("")


def test_the_correct_the_fields_line_goes_once_the_own_checks_pass(wpage) -> None:
    _mount(wpage)
    card = wpage.card("form1")
    card.get_by_role("button", name="Submit").click()
    feedback = card.locator("[data-role=feedback]")
    expect(feedback).to_have_text("Please correct the marked fields.")
    card.get_by_role("textbox", name="Name").fill("Ada")
    expect(feedback).to_have_text("Please correct the marked fields.")  # Email and Day remain
    card.get_by_role("textbox", name="Email").fill("ada@example.com")
    card.get_by_label("Day").fill("2026-03-01")
    expect(feedback).to_have_text("")


def test_the_pressed_action_says_submitting_never_another_one(wpage) -> None:
    _mount(wpage)
    card = wpage.card("form1")
    card.get_by_role("button", name="Decline").click()  # the kernel has not replied yet
    expect(card.locator(".ipyask-foot button")).to_have_text(["Cancel", "Submitting…", "Submit"])
    expect(card.get_by_role("button", name="Submit", exact=True)).to_be_disabled()


def test_keyboard_only(wpage) -> None:
    _mount(wpage, form_card("f1", schema=SMALL_SCHEMA), form_card("f2", schema=SMALL_SCHEMA))
    page = wpage.page
    card = wpage.card("f1")
    card.get_by_role("textbox", name="Name").focus()
    page.keyboard.type("Kim")
    page.keyboard.press("Tab")
    expect(card.get_by_role("checkbox", name="I agree")).to_be_focused()
    page.keyboard.press("Space")
    page.keyboard.press("Enter")  # Enter on a checkbox does not submit
    assert wpage.sent("answer") == []
    page.keyboard.press("Tab")
    expect(card.get_by_role("combobox", name="Size")).to_be_focused()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    expect(card.get_by_role("textbox", name="Name")).to_be_focused()
    page.keyboard.press("Enter")
    # Escape outside a field cancels, as Escape rejects an approval.
    wpage.card("f2").get_by_role("button", name="Submit").focus()
    page.keyboard.press("Escape")
    answers = _answers(wpage)
    assert answers[0]["selected"] == ["Submit"]
    assert json.loads(answers[0]["custom"]) == {"name": "Kim", "agree": True, "size": "l"}
    assert answers[1] == {"id": "book", "selected": ["Cancel"]}


def test_chinese(wpage) -> None:
    _mount(wpage, language="zh-CN")
    card = wpage.card("form1")
    expect(card.locator(".ipyask-eyebrow")).to_have_text("表单")
    card.get_by_role("spinbutton", name="Guests").fill("0")
    expect(card.get_by_text("不能小于 1。", exact=True)).to_be_visible()
    expect(card.locator(".ipyask-foot button")).to_have_text(["取消", "婉拒", "提交"])
    card.get_by_role("button", name="提交").click()
    expect(card.locator("[data-role=feedback]")).to_have_text("请修正标出的字段。")
