"""Checks that an answer batch from a view fits the card it answers (forged batches are refused)."""

from __future__ import annotations

from ..._vocabulary import AskUserQuestionAnswer, AskUserQuestionItem
from ...widget._cards import ApprovalPresentation, Card, present

__all__ = ["batch_problem"]


def _item_problem(
    question: AskUserQuestionItem, selected: list[str], custom: str | None
) -> str | None:
    offered = [option.label for option in question.options or []]
    for label in selected:
        if label not in offered:
            return f"{label!r} is not an option of question {question.id}"
    if len(set(selected)) != len(selected):
        return f"question {question.id} has a label selected twice"
    if not question.multi_select:
        if len(selected) > 1:
            return f"question {question.id} takes one option, not {len(selected)}"
        if selected and custom is not None:
            return f"question {question.id} is single-select: free text replaces the option"
    return None


def batch_problem(card: Card, answer: AskUserQuestionAnswer) -> str | None:
    """Why ``answer`` cannot answer ``card``, or ``None`` when it fits.

    The batch must hold one item per question, in request order; selected labels must be offered
    options (free text travels in ``custom``); a single-select item picks at most one option and
    never both an option and free text; an approval takes exactly one of its actions and no text.
    """
    expected = [question.id for question in card.questions]
    got = [item.id for item in answer.answers]
    if got != expected:
        return f"the answer must name the card's questions once each, in order: {expected}"
    for question, item in zip(card.questions, answer.answers, strict=True):
        problem = _item_problem(question, item.selected, item.custom)
        if problem is not None:
            return problem
    if isinstance(present(card.questions, card.wait), ApprovalPresentation):
        (item,) = answer.answers
        if item.custom is not None or len(item.selected) != 1:
            return "an approval is answered with exactly one of its actions and no free text"
    return None
