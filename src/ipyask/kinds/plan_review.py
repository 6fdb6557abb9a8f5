"""A plan submitted for review (``plan-review.js``): the plan as Markdown, Approve and the
decline option.

Asks: approve this plan (the question's ``detail``)? The answer is the approve label, or the
other option with, in ``custom``, what the person wants changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from .. import _wire
from . import _common

__all__ = ["KIND", "PlanReviewIntent", "PlanReviewPresentation", "check", "mark", "present"]


class PlanReviewIntent(_wire.WireModel):
    """A plan submitted for review: ``detail`` is the plan Markdown."""

    kind: Literal["plan-review"] = "plan-review"
    approve: str
    """The option label that approves the plan; every other option declines it."""
    call_id: str | None = None
    """The logged tool call whose arguments hold the reviewed plan."""


class PlanReviewPresentation(_wire.WireModel):
    """A plan review (semantics §6.8): the plan as Markdown, Approve and the decline option."""

    kind: Literal["plan-review"] = "plan-review"
    approve: _wire.AskUserQuestionOption
    decline: _wire.AskUserQuestionOption | None = None
    """The first other option; without one the card offers "Request changes" (close)."""


def check(
    request: _common.RequestLike, question: _common.QuestionLike, intent: PlanReviewIntent
) -> None:
    """``BAD_INTENT`` unless the approve label is an option and the plan (``detail``) is given."""
    _common.check_approve_and_detail(question, intent.kind, intent.approve)


def present(
    question: _common.QuestionLike, intent: PlanReviewIntent, timed: bool
) -> PlanReviewPresentation | None:
    """The plan review card, for a single-select question of at most two options with a plan."""
    if question.detail is None:
        return None
    options = question.options or []
    if question.multi_select or len(options) > 2:
        return None
    approve = next((option for option in options if option.label == intent.approve), None)
    if approve is None:
        return None
    decline = next((option for option in options if option is not approve), None)
    return PlanReviewPresentation(approve=approve, decline=decline)


def _declined(intent: PlanReviewIntent, selected: Sequence[str]) -> bool:
    # A plan review's decline carries what the person wants changed (ipyask's choice).
    return bool(selected) and selected[0] != intent.approve


def mark(intent: PlanReviewIntent, selected: Sequence[str]) -> _common.Mark | None:
    """``not-approved`` when an option other than approve is chosen."""
    return "not-approved" if selected and intent.approve not in selected else None


KIND: _common.Kind[PlanReviewIntent] = _common.Kind(
    name="plan-review",
    intent=PlanReviewIntent,
    presentation=PlanReviewPresentation,
    check=check,
    present=present,
    text_rides=_declined,
    mark=mark,
)
