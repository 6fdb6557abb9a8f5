"""``python -m ipyask audit``: who decided what, when, through which door, having seen what.

One JSON object a line (JSON Lines) per settled question of a store, in the order they were
settled. Records written before ipyask kept who answered have ``who``, ``door`` and ``digest``
``null``; ``when`` then is the time the store settled them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any, TextIO

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from ._answered_by import Door
from .store import Outcome, QuestionRecord, Store

__all__ = ["AuditLine", "audit_lines", "write_audit"]


class AuditLine(BaseModel):
    """One settled question as the audit export writes it."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)

    id: str
    session_id: str
    call_id: str
    question: str
    """The question's text (a card of several: each on its own line)."""
    outcome: Outcome
    decision: str
    """What was decided, in words: the chosen labels (and any text in quotes) of each
    question, ``; `` between questions; ``cancelled`` or ``unavailable`` otherwise."""
    answer: dict[str, Any] | None
    """The answer batch exactly as recorded (wire form)."""
    who: str | None
    host: str | None
    when: str | None
    """ISO 8601, UTC."""
    door: Door | None
    digest: str | None
    """``sha256:`` digest of the card's canonical JSON, as it was shown."""
    assignee: str | None


def _decision(record: QuestionRecord) -> str:
    terminal = record.terminal
    assert terminal is not None
    if terminal.outcome != "answered" or terminal.answer is None:
        return terminal.outcome
    parts = []
    for item in terminal.answer.get("answers", []):
        words = [str(label) for label in item.get("selected", [])]
        custom = item.get("custom")
        if isinstance(custom, str) and custom.strip():
            words.append(json.dumps(custom, ensure_ascii=False))
        parts.append(", ".join(words))
    return "; ".join(parts)


def _iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, tz=timezone.utc).isoformat()


def audit_line(record: QuestionRecord) -> AuditLine:
    """The audit line of a settled record."""
    terminal = record.terminal
    if terminal is None:
        raise ValueError(f"question {record.id} is still open: only settled ones are audited")
    by = terminal.answered_by
    return AuditLine(
        id=record.id,
        session_id=record.session_id,
        call_id=record.call_id,
        question="\n".join(str(q.get("question", "")) for q in record.questions),
        outcome=terminal.outcome,
        decision=_decision(record),
        answer=terminal.answer,
        who=None if by is None else by.who,
        host=None if by is None else by.host,
        when=_iso(by.at if by is not None else record.resolved_at),
        door=None if by is None else by.door,
        digest=None if by is None else by.digest,
        assignee=record.assignee,
    )


def audit_lines(store: Store) -> Iterator[AuditLine]:
    """Every settled question of ``store``, in the order they were settled."""
    for record in store.settled_questions():
        yield audit_line(record)


def write_audit(store: Store, out: TextIO) -> int:
    """Write ``store``'s audit as JSON Lines to ``out``; returns how many lines."""
    count = 0
    for line in audit_lines(store):
        out.write(json.dumps(line.model_dump(mode="json", by_alias=True), ensure_ascii=False))
        out.write("\n")
        count += 1
    return count
