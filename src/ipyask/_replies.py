"""Reply reservations: at most one late reply per continued question waits for the agent.

A reply is reserved when ``answer()`` queues it and released when the agent admits it (the
``user/message`` event), discards it, or ends the turn that claimed it without admitting it. A
reply found in the inbox that nobody reserved (restored from elsewhere) is reserved when claimed.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from weakref import WeakKeyDictionary, WeakSet

from ._answered_by import AnsweredBy
from ._events import MessageSource, SessionEvent, TurnEndEvent, UserMessageEvent
from ._projection import ASK_USER_QUESTION_TOOL, REPLY_SOURCE, PendingUserQuestion
from ._session import Session, UserMessage
from ._vocabulary import AskUserQuestionAnswer

__all__ = ["ReplyBook", "is_reply", "reply_message"]


def is_reply(message: UserMessage, call_id: str) -> bool:
    """Whether ``message`` is a late reply to ``call_id``."""
    source = message.source
    return source is not None and source.kind == REPLY_SOURCE and source.call_id == call_id


def _reply_call(source: MessageSource | None) -> str | None:
    if source is None or source.kind != REPLY_SOURCE or not source.call_id:
        return None
    return source.call_id


def reply_message(
    row: PendingUserQuestion, answer: AskUserQuestionAnswer, by: AnsweredBy | None = None
) -> UserMessage:
    """The user message that carries ``answer`` to the agent as ``answer_to_pending_question``
    (its source says who gave it, ``by``)."""
    body = {
        "kind": "answer_to_pending_question",
        "tool": ASK_USER_QUESTION_TOOL,
        "callId": row.call_id,
        "questions": [question.to_wire() for question in row.questions],
        "answers": [item.to_wire() for item in answer.answers],
    }
    text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    return UserMessage(
        source=MessageSource(
            kind=REPLY_SOURCE, call_id=row.call_id, outcome="answered", answered_by=by
        ),
        content=[{"type": "text", "text": text}],
    )


@dataclass
class _Reservation:
    message_id: str
    claimed_turn: int | None = None


class ReplyBook:
    """The reservations of every watched session (a :class:`~ipyask.SessionListener`)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._held: WeakKeyDictionary[Session, dict[str, _Reservation]] = WeakKeyDictionary()
        self._watched: WeakSet[Session] = WeakSet()

    def watch(self, session: Session) -> None:
        """Follow ``session`` (once)."""
        with self._lock:
            if session in self._watched:
                return
            self._watched.add(session)
        session.subscribe(self)

    def waiting(self, session: Session, call_id: str) -> bool:
        """Whether a reply to ``call_id`` is reserved or queued in the inbox."""
        with self._lock:
            if call_id in self._held.get(session, {}):
                return True
        return any(is_reply(m, call_id) for m in session.next_turn + session.next_step)

    def reserve(self, session: Session, call_id: str, message_id: str) -> None:
        """Hold ``call_id`` for the reply ``message_id``."""
        with self._lock:
            self._held.setdefault(session, {})[call_id] = _Reservation(message_id)

    def release(self, session: Session, call_id: str, message_id: str) -> None:
        """Let go of ``call_id`` if reply ``message_id`` holds it."""
        with self._lock:
            held = self._held.get(session, {})
            reservation = held.get(call_id)
            if reservation is not None and reservation.message_id == message_id:
                del held[call_id]

    def event_appended(self, session: Session, event: SessionEvent) -> None:
        """Admission of a reply releases its reservation; a turn's end drops its claims."""
        if isinstance(event, UserMessageEvent):
            call_id = _reply_call(event.source)
            if call_id is not None:
                self.release(session, call_id, event.message_id)
        elif isinstance(event, TurnEndEvent):
            with self._lock:
                held = self._held.get(session, {})
                for call_id in [c for c, r in held.items() if r.claimed_turn == event.turn]:
                    del held[call_id]

    def message_claimed(self, session: Session, message: UserMessage, turn: int) -> None:
        """A reply taken into a turn keeps (or, restored from elsewhere, gets) a reservation."""
        call_id = _reply_call(message.source)
        if call_id is None:
            return
        with self._lock:
            held = self._held.setdefault(session, {})
            reservation = held.get(call_id)
            if reservation is None:
                held[call_id] = _Reservation(message.id, turn)
            elif reservation.message_id == message.id:
                reservation.claimed_turn = turn

    def message_discarded(self, session: Session, message: UserMessage) -> None:
        """A discarded reply releases its reservation: the question is answerable again."""
        call_id = _reply_call(message.source)
        if call_id is not None:
            self.release(session, call_id, message.id)
