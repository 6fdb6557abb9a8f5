"""The intent rules ``ask()`` enforces, which the type system cannot express."""

from __future__ import annotations

import json

from ._errors import UserQuestionError
from ._vocabulary import (
    ApprovalIntent,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    PlanReviewIntent,
)

__all__ = ["check_intents"]


def _labels(question: AskUserQuestionItem) -> list[str]:
    return [option.label for option in question.options or []]


def check_intents(request: AskUserQuestionRequest) -> None:
    """Raise ``BAD_INTENT`` for the first question, in order, whose intent cannot hold.

    Every known intent needs its ``approve`` label among the question's options, then a
    ``detail`` (an empty string counts). An ``approval`` also needs: to be the only question of a
    request without a timed wait, single-select, with distinct approve / reject / always labels
    that are exactly the offered options. Unknown intent kinds are presentation hints only and
    are never rejected.
    """
    for question in request.questions:
        intent = question.intent
        if not isinstance(intent, (PlanReviewIntent, ApprovalIntent)):
            continue
        labels = _labels(question)
        if intent.approve not in labels:
            raise UserQuestionError.bad_intent_label(
                question.id, intent.kind, "approve", intent.approve
            )
        if question.detail is None:
            raise UserQuestionError.bad_intent(
                question.id, intent.kind, "without the detail it reviews"
            )
        if isinstance(intent, ApprovalIntent):
            _check_approval(request, question, intent, labels)


def _check_approval(
    request: AskUserQuestionRequest,
    question: AskUserQuestionItem,
    intent: ApprovalIntent,
    labels: list[str],
) -> None:
    def fail(problem: str) -> UserQuestionError:
        return UserQuestionError.bad_intent(question.id, intent.kind, problem)

    if len(request.questions) != 1:
        count = len(request.questions)
        raise fail(f"in a request of {count} questions; an approval must be asked alone")
    if request.timed:
        raise fail("with a timed wait; an approval blocks until the user decides")
    if question.multi_select:
        raise fail("with multiSelect; an approval takes exactly one decision")
    actions = [intent.approve, intent.reject]
    if intent.always is not None:
        actions.append(intent.always)
    if len(set(actions)) != len(actions):
        raise fail("whose approve, reject and always labels are not distinct")
    for role, label in (("reject", intent.reject), ("always", intent.always)):
        if label is not None and label not in labels:
            raise UserQuestionError.bad_intent_label(question.id, intent.kind, role, label)
    for position, label in enumerate(labels):
        if label not in actions:
            raise fail(f"offers option {_quote(label)}, which is none of its action labels")
        if label in labels[:position]:
            raise fail(f"offers option {_quote(label)} more than once")


def _quote(label: str) -> str:
    return json.dumps(label, ensure_ascii=False)
