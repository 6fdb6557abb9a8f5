"""Settled cards in Chromium: what was decided, in the person's words, and refusals look refused."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from ipyask.widget import Card, QuestionWidget
from widget.widget_cardkit import (
    WRITE_SCHEMA,
    approval,
    form_card,
    options,
    question,
    tool_approval,
)

pytestmark = pytest.mark.browser


def _settled(wpage, card, answer: dict[str, Any], *, language: str = "") -> Any:
    widget = QuestionWidget(cards=[card], language=language)
    wpage.mount(widget)
    widget.update_card(card.key, status="answered", answer={"answers": [answer]})
    wpage.set_state(widget)
    return wpage.card(card.key)


@pytest.mark.parametrize(
    ("label", "custom", "tone", "status", "line"),
    [
        ("Approve", None, "answered", "Answered", "Approved"),
        ("Always allow", None, "answered", "Answered", "Always allowed"),
        ("Reject", None, "rejected", "Rejected", "Rejected"),
        ("Reject", "wrong folder", "rejected", "Rejected", "Rejected: wrong folder"),
        ("Always reject", None, "rejected", "Rejected", "Always rejected"),
        ("Reject and stop", "enough", "rejected", "Rejected", "Rejected; the agent stops: enough"),
        (
            "Respond",
            "done already",
            "answered",
            "Answered",
            "Not run; replied instead: done already",
        ),
        (
            "Edit",
            json.dumps({"path": "notes/v2.md", "content": "- ship it", "backup": False}),
            "answered",
            "Answered",
            "Approved with changes: path → notes/v2.md, backup → no",
        ),
    ],
)
def test_a_settled_tool_card_says_the_decision(wpage, label, custom, tone, status, line) -> None:
    answer = {"id": "tool", "selected": [label], **({"custom": custom} if custom else {})}
    decisions = ("approve", "always", "edit", "reject", "respond", "never", "stop")
    card = _settled(wpage, tool_approval(schema=WRITE_SCHEMA, decisions=decisions), answer)
    expect(card).to_have_class(
        f"ipyask-card ipyask-card--settled ipyask-is-answered ipyask-tone-{tone}"
    )
    expect(card.locator("[data-role=wait]")).to_have_text(status)
    expect(card.locator(".ipyask-summary__line")).to_have_text(line)
    expect(card.locator(".ipyask-summary__list")).to_have_count(0)


def test_expanding_a_refused_tool_card_shows_the_refused_arguments(wpage) -> None:
    card = _settled(wpage, tool_approval(), {"id": "tool", "selected": ["Reject"]})
    card.get_by_role("button", name="Expand the question card").click()
    expect(card.locator(".ipyask-summary__list dt")).to_have_text(["path", "content"])
    expect(card.locator(".ipyask-summary__list dd")).to_have_text(["notes/todo.md", "- ship it"])


def test_expanding_an_edited_tool_card_shows_the_arguments_it_runs_with(wpage) -> None:
    edited = {"path": "notes/v2.md", "content": "- ship it"}
    answer = {"id": "tool", "selected": ["Edit"], "custom": json.dumps(edited)}
    card = _settled(wpage, tool_approval(), answer)
    card.get_by_role("button", name="Expand the question card").click()
    expect(card.locator(".ipyask-summary__list dd")).to_have_text(["notes/v2.md", "- ship it"])


def test_a_submitted_form_says_its_values_by_title(wpage) -> None:
    values = {"name": "Ada", "email": "ada@example.org", "day": "2026-03-01", "guests": 4,
              "terrace": True, "seating": "out", "diet": ["veg", "gf"]}  # fmt: skip
    card = _settled(
        wpage, form_card(), {"id": "book", "selected": ["Submit"], "custom": json.dumps(values)}
    )
    expect(card.locator("[data-role=wait]")).to_have_text("Answered")
    expect(card.locator(".ipyask-summary__line")).to_have_text(
        "Submitted · Name: Ada · Email: ada@example.org · Day: 2026-03-01 · Guests: 4 · "
        "Terrace: yes · Seating: Outside · Dietary needs: Vegetarian, Gluten-free"
    )
    card.get_by_role("button", name="Expand the question card").click()
    expect(card.locator(".ipyask-summary__list dt")).to_have_text(
        ["Name", "Email", "Day", "Guests", "Terrace", "Seating", "Dietary needs"]
    )


@pytest.mark.parametrize(
    ("label", "tone", "text"),
    [("Decline", "declined", "Declined"), ("Cancel", "cancelled", "Cancelled")],
)
def test_a_declined_or_cancelled_form_looks_refused(wpage, label, tone, text) -> None:
    card = _settled(wpage, form_card(), {"id": "book", "selected": [label]})
    expect(card).to_have_class(
        f"ipyask-card ipyask-card--settled ipyask-is-answered ipyask-tone-{tone}"
    )
    expect(card.locator("[data-role=wait]")).to_have_text(text)
    expect(card.locator(".ipyask-summary__line")).to_have_text(text)


def test_settled_cards_in_chinese(wpage) -> None:
    answer = {"id": "tool", "selected": ["Reject"], "custom": "路径不对"}
    card = _settled(wpage, tool_approval(), answer, language="zh-CN")
    expect(card.locator("[data-role=wait]")).to_have_text("已拒绝")
    expect(card.locator(".ipyask-summary__line")).to_have_text("已拒绝：路径不对")
    assert wpage.axe() == []


def test_a_rejected_approval_does_not_repeat_its_own_word(wpage) -> None:
    item = question(
        "approval",
        "Delete build/?",
        detail="",
        options=options("Reject", "Approve"),
        intent={"kind": "approval", "approve": "Approve", "reject": "Reject"},
    )
    card = _settled(
        wpage, Card(key="a", questions=[item]), {"id": "approval", "selected": ["Reject"]}
    )
    expect(card.locator(".ipyask-summary__line")).to_have_text("Rejected")


def test_a_label_of_the_agents_own_is_still_named(wpage) -> None:
    card = _settled(wpage, approval(always=False), {"id": "perm", "selected": ["deny"]})
    expect(card.locator(".ipyask-summary__line")).to_have_text(
        "Rejected · the agent received “deny”"
    )
