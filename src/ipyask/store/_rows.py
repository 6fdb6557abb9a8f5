"""Turning question rows into records; shared by the SQL stores."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Sequence
from typing import Any

from ._records import ErrorInfo, QuestionRecord, Terminal

__all__ = ["QUESTION_COLUMNS", "origin", "record_from_row"]

QUESTION_COLUMNS = (
    "id, session_id, agent_id, call_id, questions, asked_at, origin, outcome, answer, error"
)


def origin() -> str:
    """``host:pid`` of this process."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _json(value: Any) -> Any:
    # SQLite keeps JSON as text; PostgreSQL's JSONB arrives decoded.
    return json.loads(value) if isinstance(value, str) else value


def record_from_row(row: Sequence[Any]) -> QuestionRecord:
    """A record from a row of :data:`QUESTION_COLUMNS`."""
    id_, session_id, agent_id, call_id, questions, asked_at, where, outcome, answer, error = row
    terminal = None
    if outcome is not None:
        err = _json(error)
        terminal = Terminal(
            outcome=outcome,
            answer=_json(answer),
            error=ErrorInfo.model_validate(err) if err is not None else None,
        )
    return QuestionRecord(
        id=id_,
        call_id=call_id,
        questions=_json(questions),
        session_id=session_id,
        agent_id=agent_id,
        asked_at=asked_at,
        origin=where,
        terminal=terminal,
    )
