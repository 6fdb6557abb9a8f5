"""The records a store keeps for a durable question, and the result of claiming one.

A store sits below the seam and knows nothing of its vocabulary: questions and answers are kept
in their JSON wire form (``AskUserQuestionItem`` and ``AskUserQuestionAnswer`` dicts), and the
seam validates them when it reads them back.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from .._answered_by import AnsweredBy

__all__ = [
    "ANSWERED",
    "ASKED",
    "Asker",
    "ChangeNote",
    "ClaimResult",
    "ClaimStatus",
    "ErrorInfo",
    "Outcome",
    "QuestionRecord",
    "Terminal",
    "answered_event",
    "asked_event",
]

ASKED = "user-questions/asked"
"""The session event that records a durable ask: ``{id, callId, questions, assignee?}``."""
ANSWERED = "user-questions/answered"
"""The session event that settles it: ``{id, outcome, answer? | error?, answeredBy?}``."""

Outcome = Literal["answered", "cancelled", "unavailable"]
"""How a durable question ended: the user answered, it was cancelled, or nobody could answer."""
ClaimStatus = Literal["accepted", "already-resolved", "not-pending"]
"""What a claim (``respond`` or ``cancel``) did: settled the question, found it settled, or
found no such question."""


class StoreModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON-native wire form (camelCase keys, absent fields left out)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class ErrorInfo(StoreModel):
    """The error a cancelled or unavailable question ends the ask with."""

    name: str
    code: str
    message: str


class Terminal(StoreModel):
    """The settlement of a durable question; ``answer`` or ``error`` by outcome."""

    outcome: Outcome
    answer: dict[str, Any] | None = None
    error: ErrorInfo | None = None
    answered_by: AnsweredBy | None = None
    """Who settled it, when, through which door, and the digest of the card they saw (``None``
    in records written before ipyask kept it)."""


class QuestionRecord(StoreModel):
    """One durable question: what was asked, by whom, and how it ended (``None`` while open)."""

    id: str
    call_id: str
    questions: list[dict[str, Any]]
    session_id: str
    agent_id: str | None = None
    asked_at: float | None = None
    """Wall-clock seconds (Unix time) when the question was first recorded."""
    origin: str | None = None
    """``host:pid`` of the process that asked (the inbox groups by it)."""
    assignee: str | None = None
    """The one person who may answer it through a door that knows identities (an ipyask
    extension: everyone sees the question)."""
    resolved_at: float | None = None
    """Wall-clock seconds (Unix time) when it was settled, in a store's record."""
    terminal: Terminal | None = None

    @property
    def pending(self) -> bool:
        """Whether the question is still open."""
        return self.terminal is None


class Asker(StoreModel):
    """Who asked a question, in a :class:`ChangeNote` of its ask (the rest of its record is in
    its ``asked`` event)."""

    agent_id: str | None = None
    asked_at: float | None = None
    origin: str | None = None


class ChangeNote(StoreModel):
    """What one commit wrote to one session's log, as the commit's notification tells it
    (PostgreSQL): the event at ``seq`` and, for an ask, who asked. A process that follows the
    session takes the event from the note instead of reading it back from the store (an inbox
    shows an asked question's card from it, an agent takes its answer from it).

    Only asks and claims send notes; every other write notifies with the bare session id (see
    :mod:`ipyask.store._postgres`), and so does an ask or claim whose note would not fit a
    notification."""

    session_id: str
    seq: int
    event: dict[str, Any]
    """The event in wire form, as stored."""
    asker: Asker | None = None
    """Present in the note of an ask."""

    def record(self) -> QuestionRecord | None:
        """The question an ask's note opened (``None`` for any other note)."""
        event = self.event
        if self.asker is None or event.get("type") != ASKED:
            return None
        return QuestionRecord(
            id=event["id"],
            call_id=event["callId"],
            questions=event["questions"],
            assignee=event.get("assignee"),
            session_id=self.session_id,
            agent_id=self.asker.agent_id,
            asked_at=self.asker.asked_at,
            origin=self.asker.origin,
        )

    def settled(self) -> tuple[str, Terminal] | None:
        """The question a claim's note settled and how (``None`` for any other note)."""
        event = self.event
        if event.get("type") != ANSWERED:
            return None
        fields = {key: value for key, value in event.items() if key not in ("type", "id")}
        return event["id"], Terminal.model_validate(fields)


class ClaimResult(StoreModel):
    """``{status, outcome?, answer?}``: what ``respond`` or ``cancel`` did."""

    status: ClaimStatus
    outcome: Outcome | None = None
    answer: dict[str, Any] | None = None
    answered_by: AnsweredBy | None = None
    """Who settled the question (this claim, or the one before it)."""


def asked_event(record: QuestionRecord) -> dict[str, Any]:
    """The ``user-questions/asked`` event of ``record`` in wire form."""
    event: dict[str, Any] = {
        "type": ASKED,
        "id": record.id,
        "callId": record.call_id,
        "questions": record.questions,
    }
    if record.assignee is not None:
        event["assignee"] = record.assignee
    return event


def answered_event(record_id: str, terminal: Terminal) -> dict[str, Any]:
    """The ``user-questions/answered`` event settling ``record_id`` in wire form."""
    return {"type": ANSWERED, "id": record_id, **terminal.to_wire()}


def claim_of(record: QuestionRecord | None) -> ClaimResult:
    """The result of a claim that could not settle ``record``: it was settled already, or there
    is no such record (an open record cannot be passed: the claim would have settled it)."""
    if record is None or record.terminal is None:
        return ClaimResult(status="not-pending")
    terminal = record.terminal
    return ClaimResult(
        status="already-resolved",
        outcome=terminal.outcome,
        answer=terminal.answer,
        answered_by=terminal.answered_by,
    )


def accepted(terminal: Terminal) -> ClaimResult:
    """The result of a claim that settled the question with ``terminal``."""
    return ClaimResult(
        status="accepted",
        outcome=terminal.outcome,
        answer=terminal.answer,
        answered_by=terminal.answered_by,
    )
