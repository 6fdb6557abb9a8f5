"""Typed results of ``tool-approval`` and ``form`` questions, read from plain answer items.

The seam's answer shape stays: the chosen label names the decision and ``custom`` carries its
text (edited arguments or form values as JSON text, a reason, a reply). Each kind reads an item
against what its card offered (:mod:`ipyask.kinds.tool_approval`, :mod:`ipyask.kinds.form`)
and turns it into a :class:`ToolDecision` or a :class:`FormResult`; the writers build the item
for a decision (used by the testing tools). This module is their entry for the seam.
"""

from __future__ import annotations

from typing import Any

from ._field_problems import problem_texts
from ._vocabulary import AskUserQuestionAnswerItem, AskUserQuestionItem
from .errors import BadAnswerError
from .kinds import _common, form, kind_of, tool_approval
from .kinds.form import FormAction, FormResult
from .kinds.tool_approval import DecisionKind, ToolDecision

__all__ = [
    "BadAnswerError",
    "DecisionKind",
    "FormAction",
    "FormResult",
    "ToolDecision",
    "answer_errors",
    "answer_problems",
    "form_answer_item",
    "form_result",
    "tool_answer_item",
    "tool_decision",
]

Problems = _common.Problems
"""What is wrong per field (``""`` for the whole answer)."""


def answer_errors(question: AskUserQuestionItem, item: AskUserQuestionAnswerItem) -> dict[str, str]:
    """What is wrong with ``item`` as the answer to a ``tool-approval`` or ``form`` question,
    per field (``""`` for the whole answer); empty when it fits, and for any other question."""
    return problem_texts(answer_problems(question, item))


def answer_problems(question: AskUserQuestionItem, item: AskUserQuestionAnswerItem) -> Problems:
    """:func:`answer_errors` as codes, for a text in another language (the question's kind
    reads the item)."""
    kind = kind_of(question.intent)
    return {} if kind is None else kind.problems(question, question.intent, item)


def tool_decision(question: AskUserQuestionItem, item: AskUserQuestionAnswerItem) -> ToolDecision:
    """The decision ``item`` gives on tool-approval ``question``; raises :class:`BadAnswerError`
    when it is outside the offered decisions or the edited arguments break the tool's schema.

    A label alone is that decision; free text without a label (a client that shows the generic
    flow) is a ``respond`` when offered, else a ``reject`` with that reason.
    """
    read = tool_approval.read(question, item)
    if isinstance(read, dict):
        raise BadAnswerError(question.id, problem_texts(read))
    return read


def form_result(question: AskUserQuestionItem, item: AskUserQuestionAnswerItem) -> FormResult:
    """The outcome ``item`` gives on form ``question``; raises :class:`BadAnswerError` (per
    field) when the values do not fit the schema.

    Free text without a label is read as the values' JSON (accept); a skipped form is a cancel
    when cancel is offered.
    """
    read = form.read(question, item)
    if isinstance(read, dict):
        raise BadAnswerError(question.id, problem_texts(read))
    return read


def tool_answer_item(
    question: AskUserQuestionItem,
    kind: DecisionKind,
    *,
    arguments: dict[str, Any] | None = None,
    message: str | None = None,
) -> AskUserQuestionAnswerItem:
    """The answer item for decision ``kind``: its label, with the edited arguments (as JSON
    text) for ``edit`` or ``message`` for ``reject``, ``respond``, ``never`` and ``stop``. Not
    checked."""
    return tool_approval.answer_item(question, kind, arguments=arguments, message=message)


def form_answer_item(
    question: AskUserQuestionItem, action: FormAction, values: dict[str, Any] | None = None
) -> AskUserQuestionAnswerItem:
    """The answer item for form ``action``: its label, with ``values`` as JSON text when
    accepted. Not checked."""
    return form.answer_item(question, action, values)
