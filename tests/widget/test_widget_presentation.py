"""Presentation choice (plan review §6.8, approval per spec, generic fallback) and Markdown."""

from __future__ import annotations

from typing import Any

import pytest

from ipyask.widget import (
    ApprovalPresentation,
    Card,
    GenericPresentation,
    PlanReviewPresentation,
    render_markdown,
)

from .widget_cardkit import ICON, approval, options, question


def presentation_of(*questions: Any, wait: str = "none") -> object:
    call_id = None if wait == "none" else "c"
    return Card(key="k", call_id=call_id, wait=wait, questions=list(questions)).view().presentation


def plan_question(**overrides: Any):
    fields: dict[str, Any] = {
        "detail": "# Plan",
        "options": options("Go", "Stop"),
        "intent": {"kind": "plan-review", "approve": "Go"},
    }
    fields.update(overrides)
    return question("p", "Approve?", **fields)


def test_plan_review_eligible() -> None:
    found = presentation_of(plan_question())
    assert isinstance(found, PlanReviewPresentation)
    assert found.approve.label == "Go"
    assert found.decline is not None and found.decline.label == "Stop"
    only_approve = presentation_of(plan_question(options=options("Go")))
    assert isinstance(only_approve, PlanReviewPresentation) and only_approve.decline is None
    assert isinstance(presentation_of(plan_question(), wait="timed"), PlanReviewPresentation)


@pytest.mark.parametrize(
    "overrides",
    [
        {"detail": None},
        {"multiSelect": True},
        {"options": options("Go", "Stop", "Maybe")},
        {"options": options("Yes", "No")},
        {"options": None},
        {"intent": {"kind": "plan-reviews", "approve": "Go"}},
    ],
)
def test_plan_review_ineligible_falls_back_to_generic(overrides: dict[str, Any]) -> None:
    assert isinstance(presentation_of(plan_question(**overrides)), GenericPresentation)


def test_plan_review_needs_exactly_one_question() -> None:
    found = presentation_of(plan_question(), question("x", "Also?"))
    assert isinstance(found, GenericPresentation)


def test_approval_presentation() -> None:
    found = approval("a").view().presentation
    assert isinstance(found, ApprovalPresentation)
    assert (found.approve, found.reject, found.always) == ("allow", "deny", "allow-always")
    assert found.subject_name == "Shell tool" and found.subject_icon == ICON
    assert found.question["zh"].startswith("运行")
    assert found.detail_html is not None
    assert found.detail_html["en"] == "<p>Deletes the <strong>build</strong> folder.</p>\n"
    assert found.approve_label == {"en": "Run once", "zh": "运行一次"}


def approval_question(**intent: Any):
    base: dict[str, Any] = {"kind": "approval", "approve": "yes", "reject": "no"}
    base.update(intent)
    labels = [label for label in (base["reject"], base["approve"], base.get("always")) if label]
    return question("a", "Allow?", detail="Why", options=options(*labels), intent=base)


def test_approval_without_display_uses_the_question() -> None:
    found = presentation_of(approval_question())
    assert isinstance(found, ApprovalPresentation)
    assert found.question == {"en": "Allow?"}
    assert found.detail_html is None and found.approve_label is None and found.always is None


@pytest.mark.parametrize(
    ("icon", "kept"),
    [
        ("https://example.test/i.png", True),
        ("HTTP://example.test/i.png", True),
        ("data:image/svg+xml;base64,AAAA", True),
        ("javascript:alert(1)", False),
        ("data:text/html,<script>alert(1)</script>", False),
        ("file:///etc/passwd", False),
        ("//example.test/i.png", False),
        ("icon.png", False),
    ],
)
def test_approval_icon_schemes(icon: str, kept: bool) -> None:
    found = presentation_of(approval_question(subject={"name": "Tool", "icon": icon}))
    assert isinstance(found, ApprovalPresentation)
    assert found.subject_icon == (icon if kept else None)


@pytest.mark.parametrize(
    ("build", "wait"),
    [
        (lambda: approval_question(approve="no"), "none"),  # approve == reject
        (lambda: approval_question(always="yes"), "none"),  # always == approve
        (lambda: approval_question(), "timed"),  # no timed wait
        (lambda: question("a", "?", detail="d", options=options("yes", "no", "x"),
                          intent={"kind": "approval", "approve": "yes", "reject": "no"}), "none"),
        (lambda: question("a", "?", options=options("yes", "no"),
                          intent={"kind": "approval", "approve": "yes", "reject": "no"}), "none"),
        (lambda: question("a", "?", detail="d", multiSelect=True, options=options("yes", "no"),
                          intent={"kind": "approval", "approve": "yes", "reject": "no"}), "none"),
    ],
)  # fmt: skip
def test_approval_ineligible_falls_back_to_generic(build: Any, wait: str) -> None:
    assert isinstance(presentation_of(build(), wait=wait), GenericPresentation)


def test_unknown_intent_is_generic_and_kept() -> None:
    item = question("u", "?", options=options("a"), intent={"kind": "poll", "extra": [1, 2]})
    card = Card(key="k", questions=[item])
    assert isinstance(card.view().presentation, GenericPresentation)
    assert card.to_wire()["questions"][0]["intent"] == {"kind": "poll", "extra": [1, 2]}


# -- Markdown ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        '<iframe src="https://evil.test/"></iframe>',
        "<a href='javascript:alert(1)'>x</a>",
        "[x](javascript:alert(1))",
        "[x](JAVASCRIPT:alert(1))",
        "[x](vbscript:msgbox(1))",
        "[x](file:///etc/passwd)",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        "[x](data:image/png;base64,AAAA)",
        "<javascript:alert(1)>",
        "[x](&#106;avascript:alert(1))",
        "![x](javascript:alert(1))",
        "![x](data:image/svg+xml;base64,AAAA)",
        "[x](custom-scheme:payload)",
    ],
)
def test_markdown_never_emits_active_content(source: str) -> None:
    html = render_markdown(source)
    lowered = html.lower()
    for needle in ("<script", "<iframe", "<img src=x", 'href="javascript', 'href="data:'):
        assert needle not in lowered, html
    assert "onerror=" not in lowered or "&lt;img" in lowered
    for scheme in ("javascript:", "vbscript:", "file:", "data:text", "custom-scheme:", "svg+xml"):
        assert f'href="{scheme}' not in lowered and f'src="{scheme}' not in lowered


def test_markdown_keeps_safe_links_and_images() -> None:
    html = render_markdown(
        "[site](https://example.test/a?b=1) [mail](mailto:a@b.test) [rel](notes.md) "
        "![png](data:image/png;base64,AAAA) ![web](https://example.test/x.png)"
    )
    assert (
        '<a href="https://example.test/a?b=1" target="_blank" rel="noopener noreferrer nofollow">'
        in html
    )
    assert 'href="mailto:a@b.test"' in html and 'href="notes.md"' in html
    assert '<img src="data:image/png;base64,AAAA" alt="png" referrerpolicy="no-referrer"' in html
    assert 'src="https://example.test/x.png"' in html


def test_markdown_features_and_heading_shift() -> None:
    html = render_markdown("# Top\n\n### Deep\n\n~~gone~~ **b** `c`\n\n| a |\n|---|\n| 1 |")
    assert "<h3>Top</h3>" in html and "<h5>Deep</h5>" in html
    assert "<s>gone</s>" in html and "<strong>b</strong>" in html and "<code>c</code>" in html
    assert "<table>" in html
    assert render_markdown("######## x").startswith("<p>")
    assert "<h6>six</h6>" in render_markdown("###### six")
