"""The tool-approval question every bridge builds: the seam's, plus the framework's call id."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._decisions import DecisionKind
from .._rich_questions import tool_approval_question
from .._vocabulary import AskUserQuestionItem, ToolApprovalIntent

__all__ = ["tool_question"]


def tool_question(
    question_id: str,
    *,
    name: str,
    arguments: Mapping[str, Any],
    decisions: Iterable[DecisionKind],
    description: str | None = None,
    schema: Mapping[str, Any] | None = None,
    call_id: str | None = None,
) -> AskUserQuestionItem:
    """A ``tool-approval`` question on the call ``name(arguments)`` offering ``decisions``.

    ``description`` (Markdown) is the card's detail; ``schema`` the tool's JSON Schema for its
    arguments (the edit form, and the check of edited arguments); ``call_id`` the framework's
    id of the call (``tool.callId``).
    """
    item = tool_approval_question(
        name,
        arguments,
        schema=schema,
        decisions=list(decisions),
        description=description,
        question_id=question_id,
    )
    if call_id is None:
        return item
    intent = item.intent
    assert isinstance(intent, ToolApprovalIntent)  # tool_approval_question made it
    tool = intent.tool.model_copy(update={"call_id": call_id})
    return item.model_copy(update={"intent": intent.model_copy(update={"tool": tool})})
