"""Checks that an answer batch from a view fits the card it answers (forged batches are refused)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from ..._decisions import answer_errors
from ..._vocabulary import (
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    FormIntent,
    PlanReviewIntent,
    ToolApprovalIntent,
)
from ...widget._cards import ApprovalPresentation, WaitKind, present

__all__ = ["AskedCard", "BatchProblem", "batch_problem"]


class AskedCard(Protocol):
    """What an answer is checked against: a card's questions and how it waits."""

    @property
    def questions(self) -> list[AskUserQuestionItem]: ...

    @property
    def wait(self) -> WaitKind: ...


@dataclass(frozen=True)
class BatchProblem:
    """Why a batch cannot answer its card; ``fields`` says, per field of question
    ``question_id`` (``""`` for its whole answer), what is wrong, for the card to show."""

    message: str
    question_id: str | None = None
    fields: dict[str, str] = field(default_factory=dict)


def _item_problem(
    question: AskUserQuestionItem, selected: list[str], custom: str | None
) -> str | None:
    offered = [option.label for option in question.options or []]
    for label in selected:
        if label not in offered:
            return f"{label!r} is not an option of question {question.id}"
    if len(set(selected)) != len(selected):
        return f"question {question.id} has a label selected twice"
    # A tool approval's or form's chosen label carries its text (checked by answer_errors); a
    # plan review's decline carries what the person wants changed (ipyask's choice).
    rich = isinstance(question.intent, (ToolApprovalIntent, FormIntent))
    intent = question.intent
    if isinstance(intent, PlanReviewIntent) and selected and selected[0] != intent.approve:
        rich = True
    if not question.multi_select:
        if len(selected) > 1:
            return f"question {question.id} takes one option, not {len(selected)}"
        if selected and custom is not None and not rich:
            return f"question {question.id} is single-select: free text replaces the option"
    return None


def batch_problem(card: AskedCard, answer: AskUserQuestionAnswer) -> BatchProblem | None:
    """Why ``answer`` cannot answer ``card``, or ``None`` when it fits.

    The batch must hold one item per question, in request order; selected labels must be offered
    options (free text travels in ``custom``); a single-select item picks at most one option and
    never both an option and free text (except a tool approval's or form's label, whose text is
    its payload, and a plan review's decline, whose text says what to change); an approval
    takes exactly one of its actions and no text. A tool approval's and a form's item must be an
    offered decision whose arguments or values fit the schema (:func:`ipyask.host.answer_errors`),
    reported per field.
    """
    expected = [question.id for question in card.questions]
    got = [item.id for item in answer.answers]
    if got != expected:
        return BatchProblem(
            f"the answer must name the card's questions once each, in order: {expected}"
        )
    for question, item in zip(card.questions, answer.answers, strict=True):
        problem = _item_problem(question, item.selected, item.custom)
        if problem is not None:
            return BatchProblem(problem, question.id)
        fields = answer_errors(question, item)
        if fields:
            shown = "; ".join(f"{name}: {text}" if name else text for name, text in fields.items())
            return BatchProblem(f"question {question.id}: {shown}", question.id, fields)
    if isinstance(present(card.questions, card.wait), ApprovalPresentation):
        (item,) = answer.answers
        if item.custom is not None or len(item.selected) != 1:
            return BatchProblem(
                "an approval is answered with exactly one of its actions and no free text"
            )
    return None
