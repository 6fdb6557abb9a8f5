"""Plain Markdown records of settled questions, kept in the notebook where widget state is not."""

from __future__ import annotations

import re

from .._vocabulary import AskUserQuestionAnswer, AskUserQuestionItem

__all__ = ["escape_markdown", "record"]

_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~])")


def escape_markdown(text: str) -> str:
    """``text`` with Markdown punctuation escaped and line breaks kept inside one list item."""
    return _SPECIAL.sub(r"\\\1", text).replace("\n", "  \n  ")


def _values(question: AskUserQuestionItem, answer: AskUserQuestionAnswer) -> str:
    item = next((a for a in answer.answers if a.id == question.id), None)
    if item is None:
        return "*no answer*"
    values = [f"**{escape_markdown(label)}**" for label in item.selected]
    if item.custom is not None and item.custom.strip():
        values.append(f"“{escape_markdown(item.custom)}”")
    return ", ".join(values) if values else "*skipped*"


def record(
    questions: list[AskUserQuestionItem],
    outcome: str,
    answer: AskUserQuestionAnswer | None = None,
    call_id: str | None = None,
) -> str:
    """One settled card as Markdown: the outcome, then each question with its answer."""
    title = f"**{escape_markdown(outcome)}**"
    if call_id is not None:
        title += f" · `{call_id.replace('`', '')}`"
    lines = [title]
    for question in questions:
        text = escape_markdown(question.question)
        if question.header:
            text = f"{escape_markdown(question.header)} — {text}"
        lines.append(f"- {text}" + (f" → {_values(question, answer)}" if answer else ""))
    return "\n".join(lines)
