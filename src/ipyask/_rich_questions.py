"""Question items for a tool approval and a form, with ipyask's default labels.

The labels are the answer values (the seam's rule); a card that knows the intent shows its own
localized wording for each decision, so these English labels are what a client that knows only
the specification shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, get_args

from ._decisions import DecisionKind
from ._vocabulary import AskUserQuestionItem

__all__ = ["DECISION_LABELS", "FORM_LABELS", "form_question", "tool_approval_question"]

DECISION_LABELS: dict[DecisionKind, str] = {
    "approve": "Approve",
    "always": "Always allow",
    "edit": "Edit",
    "reject": "Reject",
    "respond": "Respond",
    "never": "Always reject",
    "stop": "Reject and stop",
}
"""The label of each decision of :func:`tool_approval_question`."""

FORM_LABELS = {"accept": "Submit", "decline": "Decline", "cancel": "Cancel"}
"""The labels of a form's actions."""


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
    unknown = [kind for kind in decisions if kind not in get_args(DecisionKind)]
    if unknown or not decisions:
        raise ValueError(
            f"decisions must be some of {list(get_args(DecisionKind))}, not {list(decisions)}"
        )
    labels = {kind: DECISION_LABELS[kind] for kind in DECISION_LABELS if kind in decisions}
    tool: dict[str, Any] = {"name": name, "arguments": dict(arguments)}
    if schema is not None:
        tool["inputSchema"] = dict(schema)
    item: dict[str, Any] = {
        "id": question_id,
        "question": f"Run {name}?",
        "options": [{"label": label} for label in labels.values()],
        "intent": {"kind": "tool-approval", "tool": tool, **labels},
    }
    if description is not None:
        item["detail"] = description
    return AskUserQuestionItem.model_validate(item)


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
    item: dict[str, Any] = {
        "id": question_id,
        "question": message,
        "options": [{"label": label} for label in FORM_LABELS.values()],
        "intent": {"kind": "form", "requestedSchema": dict(schema), **FORM_LABELS},
    }
    if detail is not None:
        item["detail"] = detail
    return AskUserQuestionItem.model_validate(item)
