"""The ``userQuestions`` session projection: answerable and settled timed questions.

The projection folds the session log. It records no wait state, focus or deadline. It tracks
native ``ask_user_question`` calls only while the latest ``request/header`` declares the timed
schema (one with a ``timeout`` parameter).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any, Literal
from weakref import WeakKeyDictionary

from pydantic import Field

from ._events import (
    Content,
    PtcDispatchEvent,
    RequestHeaderEvent,
    SessionEvent,
    ToolCallEvent,
    ToolResultEvent,
    UserMessageEvent,
    first_text,
)
from ._session import Session
from ._vocabulary import (
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    WireModel,
)

__all__ = [
    "ASK_USER_QUESTION_TOOL",
    "REPLY_SOURCE",
    "TIMED_WAIT_PARAMETER",
    "PendingUserQuestion",
    "Projections",
    "SettledUserQuestion",
    "UserQuestionProjectionView",
    "UserQuestionState",
    "answer_batch_of",
    "fold",
    "is_timed_ask_user_question_schema",
    "questions_of",
]

ASK_USER_QUESTION_TOOL = "ask_user_question"
TIMED_WAIT_PARAMETER = "timeout"
REPLY_SOURCE = "user-question-reply"

UserQuestionState = Literal["open", "continued"]


class PendingUserQuestion(WireModel):
    """One unanswered timed call rebuilt from the log."""

    call_id: str
    questions: list[AskUserQuestionItem]
    state: UserQuestionState


class SettledUserQuestion(WireModel):
    """A timed call and the batch that settled it (empty when a late reply carried none)."""

    call_id: str
    answers: list[AskUserQuestionAnswerItem]


class UserQuestionProjectionView(WireModel):
    """``active`` in ask order, ``settled`` in settlement order."""

    active: list[PendingUserQuestion] = Field(default_factory=list)
    settled: list[SettledUserQuestion] = Field(default_factory=list)


def is_timed_ask_user_question_schema(tool: object) -> bool:
    """Whether ``tool`` is the timed ``ask_user_question`` schema (it has ``timeout``)."""
    if not isinstance(tool, dict) or tool.get("name") != ASK_USER_QUESTION_TOOL:
        return False
    parameters = tool.get("parameters")
    properties = parameters.get("properties") if isinstance(parameters, dict) else None
    return isinstance(properties, dict) and TIMED_WAIT_PARAMETER in properties


def _parse(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _question(raw: object) -> AskUserQuestionItem | None:
    if not isinstance(raw, dict):
        return None
    qid, text, header = raw.get("id"), raw.get("question"), raw.get("header")
    options, multi = raw.get("options"), raw.get("multi_select")
    if not isinstance(qid, str) or not isinstance(text, str):
        return None
    if header is not None and not isinstance(header, str):
        return None
    if multi is not None and not isinstance(multi, bool):
        return None
    parsed: list[AskUserQuestionOption] | None = None
    if options is not None:
        if not isinstance(options, list):
            return None
        parsed = []
        for option in options:
            label = option.get("label") if isinstance(option, dict) else None
            description = option.get("description") if isinstance(option, dict) else None
            if not isinstance(label, str) or not isinstance(description, (str, type(None))):
                return None
            parsed.append(AskUserQuestionOption(label=label, description=description))
    return AskUserQuestionItem(
        id=qid, question=text, header=header, options=parsed, multi_select=multi
    )


def questions_of(arguments: str | object) -> list[AskUserQuestionItem] | None:
    """The questions of ``ask_user_question`` call arguments (JSON text or an object).

    Tool arguments use ``multi_select``; the result is service vocabulary. Unknown keys are
    dropped; anything that does not fit gives ``None``.
    """
    value = _parse(arguments) if isinstance(arguments, str) else arguments
    raw = value.get("questions") if isinstance(value, dict) else None
    if not isinstance(raw, list) or not raw:
        return None
    questions = [_question(item) for item in raw]
    return None if any(q is None for q in questions) else [q for q in questions if q]


def _is_pending(content: Content) -> bool:
    value = _parse(first_text(content))
    return isinstance(value, dict) and value.get("pending") is True


def answer_batch_of(content: Content) -> list[AskUserQuestionAnswerItem] | None:
    """The answer items of a result or reply body, or ``None`` when it carries no batch."""
    value = _parse(first_text(content))
    raw = value.get("answers") if isinstance(value, dict) else None
    if not isinstance(raw, list):
        return None
    items: list[AskUserQuestionAnswerItem] = []
    for item in raw:
        if not isinstance(item, dict) or set(item) - {"id", "selected", "custom"}:
            return None
        qid, selected, custom = item.get("id"), item.get("selected"), item.get("custom")
        if not isinstance(qid, str) or not isinstance(selected, list):
            return None
        if not all(isinstance(s, str) for s in selected):
            return None
        if "custom" in item and not isinstance(custom, str):
            return None
        items.append(AskUserQuestionAnswerItem(id=qid, selected=selected, custom=custom))
    return items


@dataclass
class _Fold:
    timed: bool = False
    active: list[PendingUserQuestion] = field(default_factory=list)
    settled: list[SettledUserQuestion] = field(default_factory=list)

    def index(self, call_id: str) -> int | None:
        for position, row in enumerate(self.active):
            if row.call_id == call_id:
                return position
        return None

    def settle(self, position: int, answers: list[AskUserQuestionAnswerItem]) -> None:
        row = self.active.pop(position)
        self.settled.append(SettledUserQuestion(call_id=row.call_id, answers=answers))

    def view(self) -> UserQuestionProjectionView:
        return UserQuestionProjectionView(active=list(self.active), settled=list(self.settled))


def _apply(state: _Fold, event: SessionEvent) -> None:
    if isinstance(event, RequestHeaderEvent):
        tools = event.tools if isinstance(event.tools, list) else []
        state.timed = any(is_timed_ask_user_question_schema(tool) for tool in tools)
    elif isinstance(event, ToolCallEvent):
        if not state.timed or event.name != ASK_USER_QUESTION_TOOL:
            return
        questions = questions_of(event.arguments)
        if questions is None:
            return
        position = state.index(event.call_id)
        if position is not None:
            del state.active[position]
        state.active.append(
            PendingUserQuestion(call_id=event.call_id, questions=questions, state="open")
        )
    elif isinstance(event, ToolResultEvent):
        _apply_result(state, event)
    elif isinstance(event, PtcDispatchEvent):
        if event.name != ASK_USER_QUESTION_TOOL or event.is_error or not _is_pending(event.content):
            return
        questions = questions_of(event.arguments)
        if questions is None:
            return
        row = PendingUserQuestion(call_id=event.sub_call_id, questions=questions, state="continued")
        position = state.index(event.sub_call_id)
        if position is None:
            state.active.append(row)
        else:
            state.active[position] = row
    elif isinstance(event, UserMessageEvent):
        source = event.source
        if source is None or source.kind != REPLY_SOURCE or source.call_id is None:
            return
        position = state.index(source.call_id)
        if position is not None:
            state.settle(position, answer_batch_of(event.content) or [])


def _apply_result(state: _Fold, event: ToolResultEvent) -> None:
    position = state.index(event.call_id)
    if position is None:
        return
    unknown = event.error is not None and event.error.code == "TOOL_OUTCOME_UNKNOWN"
    if unknown or _is_pending(event.content):
        row = state.active[position]
        state.active[position] = row.model_copy(update={"state": "continued"})
        return
    answers = None
    if event.error is None and not event.is_error:
        answers = answer_batch_of(event.content)
    if answers is None:
        del state.active[position]
    else:
        state.settle(position, answers)


def fold(events: list[SessionEvent] | tuple[SessionEvent, ...]) -> UserQuestionProjectionView:
    """Fold a whole event log into the projection view."""
    state = _Fold()
    for event in events:
        _apply(state, event)
    return state.view()


class Projections:
    """Incremental projections, one per session (the log only grows)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._folds: WeakKeyDictionary[Session, tuple[int, _Fold]] = WeakKeyDictionary()

    def _current(self, session: Session) -> _Fold:
        events = session.events
        with self._lock:
            seen, state = self._folds.get(session, (0, _Fold()))
            for event in events[seen:]:
                _apply(state, event)
            self._folds[session] = (len(events), state)
            return state

    def view(self, session: Session) -> UserQuestionProjectionView:
        """The projection of ``session`` now."""
        state = self._current(session)
        with self._lock:
            return state.view()

    def continued(self, session: Session, call_id: str) -> PendingUserQuestion | None:
        """The active row for ``call_id`` when it is continued."""
        state = self._current(session)
        with self._lock:
            for row in state.active:
                if row.call_id == call_id and row.state == "continued":
                    return row
            return None
