"""Question items for a tool approval and a form, with ipyask's default labels.

The labels are the answer values (the seam's rule); a card that knows the intent shows its own
localized wording for each decision, so these English labels are what a client that knows only
the specification shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._vocabulary import AskUserQuestionItem
from .kinds import form, tool_approval
from .kinds.form import FORM_LABELS
from .kinds.tool_approval import DECISION_LABELS, DecisionKind

__all__ = ["DECISION_LABELS", "FORM_LABELS", "form_question", "tool_approval_question"]


def tool_approval_question(
    name: str,
    arguments: Mapping[str, Any],
    *,
    schema: Mapping[str, Any] | None = None,
    decisions: Sequence[DecisionKind] = ("approve", "edit", "reject"),
    description: str | None = None,
    question_id: str = "tool",
) -> AskUserQuestionItem:
    """The question that asks to approve the call of tool ``name`` with ``arguments``.

    ``decisions`` are the allowed ones, any of ``approve``, ``always``, ``edit``, ``reject``,
    ``respond``, ``never`` (always reject) and ``stop`` (reject and stop the agent); ``schema``
    is the tool's JSON Schema for its arguments; ``description`` (Markdown) says what the tool
    does.
    """
    return AskUserQuestionItem.model_validate(
        tool_approval.question_wire(
            name,
            arguments,
            schema=schema,
            decisions=decisions,
            description=description,
            question_id=question_id,
        )
    )


def form_question(
    message: str,
    schema: Mapping[str, Any],
    *,
    detail: str | None = None,
    question_id: str = "form",
) -> AskUserQuestionItem:
    """The question that asks for the values of form ``schema`` (MCP elicitation subset).

    ``message`` says what is asked and why; the card offers Submit, Decline and Cancel.
    """
    return AskUserQuestionItem.model_validate(
        form.question_wire(message, schema, detail=detail, question_id=question_id)
    )
