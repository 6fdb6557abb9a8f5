"""A blocking permission decision (``approval.js``): subject, localized question and detail,
Reject / Approve / Always.

Asks: may this happen? The answer is exactly one of the approve, reject and (when offered)
always labels, with no free text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import field_validator

from .. import _errors, _wire
from . import _common

__all__ = [
    "KIND",
    "ApprovalDisplay",
    "ApprovalIntent",
    "ApprovalPresentation",
    "ApprovalSubject",
    "LocalizedText",
    "check",
    "mark",
    "present",
]


def _require_english(value: dict[str, str] | None) -> dict[str, str] | None:
    if value is not None and "en" not in value:
        raise ValueError("a localized text needs an 'en' entry")
    return value


LocalizedText = dict[str, str]
"""A localized map ``{en, [locale]: text}``; ``en`` is required."""


class ApprovalDisplay(_wire.WireModel):
    """Localized question, detail and limited-grant label of an approval card."""

    question: LocalizedText
    detail: LocalizedText | None = None
    approve: LocalizedText | None = None

    _check_question = field_validator("question")(_require_english)
    _check_detail = field_validator("detail", "approve")(_require_english)


class ApprovalSubject(_wire.WireModel):
    """Metadata for human recognition of what asks. Never an authorization identity."""

    name: str
    icon: str | None = None
    """An icon URL the UI may load (only ``https:``, ``http:`` and ``data:image/`` are loaded)."""


class ApprovalIntent(_wire.WireModel):
    """A blocking permission decision with fixed actions and no free-text answer."""

    kind: Literal["approval"] = "approval"
    approve: str
    """Option label granting the scope the caller describes."""
    reject: str
    """Option label refusing the requested access."""
    always: str | None = None
    """Optional persistent grant, offered only when the caller supports it."""
    subject: ApprovalSubject | None = None
    display: ApprovalDisplay | None = None


class ApprovalPresentation(_wire.WireModel):
    """An approval card: subject, localized question and detail, Reject / Approve / Always."""

    kind: Literal["approval"] = "approval"
    approve: str
    reject: str
    always: str | None = None
    subject_name: str | None = None
    subject_icon: str | None = None
    """Only ``https:``, ``http:`` or ``data:image/`` URLs; any other icon is left out."""
    question: dict[str, str]
    """Localized question; always has ``en`` (the item's question when no display is given)."""
    detail_html: dict[str, str] | None = None
    """Localized detail rendered as Markdown; ``en`` present when the map is."""
    approve_label: dict[str, str] | None = None
    """Localized limited-grant label; without it the card says "Allow once"."""


def check(
    request: _common.RequestLike, question: _common.QuestionLike, intent: ApprovalIntent
) -> None:
    """``BAD_INTENT`` unless the approval has its approve label and ``detail``, is the only
    question of a request without a timed wait, is single-select, and its distinct approve /
    reject / always labels are exactly the offered options."""
    _common.check_approve_and_detail(question, intent.kind, intent.approve)

    def fail(problem: str) -> _errors.UserQuestionError:
        return _errors.UserQuestionError.bad_intent(question.id, intent.kind, problem)

    if len(request.questions) != 1:
        count = len(request.questions)
        raise fail(f"in a request of {count} questions; an approval must be asked alone")
    if request.timed:
        raise fail("with a timed wait; an approval blocks until the user decides")
    if question.multi_select:
        raise fail("with multiSelect; an approval takes exactly one decision")
    roles = {"approve": intent.approve, "reject": intent.reject}
    if intent.always is not None:
        roles["always"] = intent.always
    _common.check_labels_are_options(
        question, intent.kind, roles, "approve, reject and always", "action"
    )


def present(
    question: _common.QuestionLike, intent: ApprovalIntent, timed: bool
) -> ApprovalPresentation | None:
    """The approval card, for an untimed single-select question with a ``detail`` whose
    options are exactly its distinct actions."""
    from .. import _markdown  # markdown-it loads with the first card, not with ipyask

    if question.detail is None:
        return None
    if question.multi_select or timed:
        return None
    labels = [intent.reject, intent.approve] + ([intent.always] if intent.always else [])
    offered = _common.labels(question)
    if len(set(labels)) != len(labels) or sorted(offered) != sorted(labels):
        return None
    display = intent.display
    subject = intent.subject
    icon = subject.icon if subject is not None else None
    return ApprovalPresentation(
        approve=intent.approve,
        reject=intent.reject,
        always=intent.always,
        subject_name=subject.name if subject is not None else None,
        subject_icon=icon if icon is not None and _markdown.is_safe_icon_url(icon) else None,
        question=dict(display.question) if display is not None else {"en": question.question},
        detail_html=(
            {locale: _markdown.render_markdown(text) for locale, text in display.detail.items()}
            if display is not None and display.detail is not None
            else None
        ),
        approve_label=dict(display.approve) if display and display.approve else None,
    )


def _item_problem(
    question: _common.QuestionLike, intent: ApprovalIntent, item: _wire.AskUserQuestionAnswerItem
) -> str | None:
    # ask() lets an approval only be asked alone, untimed, single-select and with its actions
    # exactly the options: its card offers those actions and nothing else.
    if item.custom is not None or len(item.selected) != 1:
        return "an approval is answered with exactly one of its actions and no free text"
    return None


def mark(intent: ApprovalIntent, selected: Sequence[str]) -> _common.Mark | None:
    """``rejected`` when the reject label is chosen."""
    return "rejected" if intent.reject is not None and intent.reject in selected else None


KIND: _common.Kind[ApprovalIntent] = _common.Kind(
    name="approval",
    intent=ApprovalIntent,
    presentation=ApprovalPresentation,
    check=check,
    present=present,
    item_problem=_item_problem,
    mark=mark,
)
