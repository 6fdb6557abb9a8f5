"""Turning question rows into records; shared by the SQL stores."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Sequence
from typing import Any

from .._answered_by import AnsweredBy
from ._records import ErrorInfo, QuestionRecord, Terminal

__all__ = ["QUESTION_COLUMNS", "origin", "record_from_row"]

QUESTION_COLUMNS = (
    "id, session_id, agent_id, call_id, questions, asked_at, origin, outcome, answer, error,"
    " answered_by, assignee, resolved_at"
)


def origin() -> str:
    """``host:pid`` of this process."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _json(value: Any) -> Any:
    # SQLite keeps JSON as text; PostgreSQL's JSONB arrives decoded.
    return json.loads(value) if isinstance(value, str) else value


def record_from_row(row: Sequence[Any]) -> QuestionRecord:
    """A record from a row of :data:`QUESTION_COLUMNS`."""
    id_, session_id, agent_id, call_id, questions, asked_at, where, outcome, answer, error = row[
        :10
    ]
    by, assignee, resolved_at = row[10:13]
    terminal = None
    if outcome is not None:
        err = _json(error)
        who = _json(by)
        terminal = Terminal(
            outcome=outcome,
            answer=_json(answer),
            error=ErrorInfo.model_validate(err) if err is not None else None,
            answered_by=AnsweredBy.model_validate(who) if who is not None else None,
        )
    return QuestionRecord(
        id=id_,
        call_id=call_id,
        questions=_json(questions),
        session_id=session_id,
        agent_id=agent_id,
        asked_at=asked_at,
        origin=where,
        assignee=assignee,
        resolved_at=resolved_at,
        terminal=terminal,
    )
