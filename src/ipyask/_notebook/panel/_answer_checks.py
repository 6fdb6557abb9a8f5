"""Checks that an answer batch from a view fits the card it answers (forged batches are refused)."""

from __future__ import annotations

from typing import Protocol

from ..._answer_checks import BatchProblem, items_problem
from ..._vocabulary import AskUserQuestionAnswer, AskUserQuestionItem

__all__ = ["AskedCard", "BatchProblem", "batch_problem"]


class AskedCard(Protocol):
    """What an answer is checked against: a card's key and questions."""

    @property
    def key(self) -> str: ...

    @property
    def questions(self) -> list[AskUserQuestionItem]: ...


def batch_problem(card: AskedCard, answer: AskUserQuestionAnswer) -> BatchProblem | None:
    """Why ``answer`` cannot answer ``card``, or ``None`` when it fits.

    The batch must hold one item per question, in request order (as the card sends it); the
    items are then checked as every answer is (:func:`ipyask._answer_checks.items_problem`, of
    :func:`~ipyask._answer_checks.batch_problem`, the check of ``answer()`` and of claims on a
    store too), per field for a tool approval or a form.
    """
    questions = card.questions
    expected = [question.id for question in questions]
    got = [item.id for item in answer.answers]
    if got != expected:
        return BatchProblem(
            f"the answer must name the card's questions once each, in order: {expected}"
        )
    # A card's question ids are unique (``Card`` refuses a repeat): the batch names each once.
    return items_problem(questions, answer.answers)
