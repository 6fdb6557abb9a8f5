"""The tool-approval question every bridge builds: the seam's, plus the framework's call id."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from .._decisions import DecisionKind
from .._rich_questions import tool_approval_question
from .._vocabulary import AskUserQuestionItem, ToolApprovalIntent
from ._markdown_text import code_span, literal

__all__ = ["card_detail", "metadata_lines", "tool_question"]


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


def metadata_lines(metadata: Mapping[str, Any] | None) -> list[str]:
    """Approval metadata as Markdown lines, one per key: the key in bold, then a string value
    as plain text or any other value as inert JSON code (nothing in it is taken as markup)."""
    lines = []
    for key, value in (metadata or {}).items():
        shown = (
            literal(value)
            if isinstance(value, str)
            else code_span(json.dumps(value, ensure_ascii=False, default=str))
        )
        lines.append(f"**{literal(str(key))}**: {shown}")
    return lines


def card_detail(description: str | None, metadata: Mapping[str, Any] | None = None) -> str | None:
    """A tool card's detail: the tool's description (Markdown), then the approval metadata
    (:func:`metadata_lines`); ``None`` when there is neither."""
    parts = [description] if description else []
    parts.extend(metadata_lines(metadata))
    return "\n\n".join(parts) if parts else None
