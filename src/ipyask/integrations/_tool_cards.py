"""The tool-approval question every bridge builds, and its decision labels."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._decisions import DecisionKind
from .._vocabulary import AskUserQuestionItem, AskUserQuestionOption, ToolApprovalIntent, ToolCall

__all__ = ["DECISION_LABELS", "tool_question"]

DECISION_LABELS: dict[DecisionKind, str] = {
    "approve": "Approve",
    "always": "Always allow",
    "edit": "Edit",
    "reject": "Reject",
    "respond": "Respond",
}
"""The label the card shows for each decision a framework supports."""


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
    """A ``tool-approval`` question on the call ``name(arguments)`` offering ``decisions`` (in
    the order approve, always, edit, reject, respond).

    ``description`` (Markdown) is the card's detail; ``schema`` the tool's JSON Schema for its
    arguments (the edit form, and the check of edited arguments); ``call_id`` the framework's
    id of the call.
    """
    wanted = set(decisions)
    labels = {kind: label for kind, label in DECISION_LABELS.items() if kind in wanted}
    tool = ToolCall(
        name=name,
        arguments=dict(arguments),
        input_schema=dict(schema) if schema is not None else None,
        call_id=call_id,
    )
    return AskUserQuestionItem(
        id=question_id,
        question=f"Run {name}?",
        detail=description,
        options=[AskUserQuestionOption(label=label) for label in labels.values()],
        intent=ToolApprovalIntent(tool=tool, **labels),
    )
