"""Continued cards: timed questions the agent stopped waiting for, still answerable late.

A continued card is answered through ``svc.answer`` (a late reply steered into the agent's
session); it settles when the session projection settles the call. A timed question no session
tracks cannot take a late reply: its card says so and expires.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._agents import Agent
from .._clock import call_on_loop
from .._events import SessionEvent
from .._session import Session, UserMessage
from .._vocabulary import AskUserQuestionAnswer
from ._routing import Refused

if TYPE_CHECKING:
    from collections.abc import Callable

    from ._panel import Live, QuestionPanel

__all__ = ["NOT_TRACKED", "ContinuedCards"]

NOT_TRACKED = (
    "The agent went on without an answer, and no session tracks this call, so a late answer "
    "could not reach it."
)
REPLY_QUEUED = "Answer sent: the agent reads it at its next step."


class ContinuedCards:
    """The continued cards of one panel and the sessions they watch."""

    def __init__(self, panel: QuestionPanel) -> None:
        self.panel = panel
        self._cards: dict[str, tuple[Agent, str]] = {}
        self._watching: dict[Session, Callable[[], None]] = {}

    def holds(self, key: str) -> bool:
        """Whether ``key`` is a continued card."""
        return key in self._cards

    def forget(self, key: str) -> None:
        """Stop tracking ``key`` (its call was asked again)."""
        self._cards.pop(key, None)

    def after_timeout(self, live: Live) -> None:
        """The foreground wait ended unanswered: continue the card, or expire it if untracked."""
        agent, call_id = live.agent, live.call_id
        if agent is None or call_id is None or not self._tracked(agent, call_id):
            self.panel._mark(live.key, "expired", NOT_TRACKED)
            return
        self.panel.update_card(live.key, status="continued", frame=None)
        self._cards[live.key] = (agent, call_id)
        session = agent.session
        if session not in self._watching:
            self._watching[session] = session.subscribe(self)

    def _tracked(self, agent: Agent, call_id: str) -> bool:
        view = self.panel.service.projection(agent)
        return any(row.call_id == call_id for row in view.active)

    def answer(self, key: str, answer: AskUserQuestionAnswer) -> None:
        """Send a late reply for continued card ``key``; may raise REPLY_QUEUED or BAD_ANSWER."""
        agent, call_id = self._cards[key]
        if not self.panel.service.answer(agent, call_id, answer):
            self.refresh()
            raise Refused("NOT_ANSWERABLE", "this question is no longer answerable")
        self.panel.update_card(key, notice=REPLY_QUEUED)

    def refresh(self) -> None:
        """Settle or expire continued cards from their sessions' projections."""
        for key, (agent, call_id) in list(self._cards.items()):
            view = self.panel.service.projection(agent)
            settled = next((row for row in view.settled if row.call_id == call_id), None)
            active = any(row.call_id == call_id for row in view.active)
            if settled is not None:
                del self._cards[key]
                self.panel._mark(
                    key, "answered", answer=AskUserQuestionAnswer(answers=settled.answers)
                )
            elif not active:
                del self._cards[key]
                self.panel._mark(key, "expired", "This question can no longer be answered.")

    def _on_loop(self, callback: Callable[[], object]) -> None:
        loop = self.panel._loop
        if loop is None or loop.is_closed():
            callback()
        else:
            call_on_loop(loop, callback)

    # SessionListener: sessions may be written from the agent's thread.
    def event_appended(self, session: Session, event: SessionEvent) -> None:
        if event.type in ("tool/result", "user/message", "tool/call"):
            self._on_loop(self.refresh)

    def message_claimed(self, session: Session, message: UserMessage, turn: int) -> None:
        return None

    def message_discarded(self, session: Session, message: UserMessage) -> None:
        source = message.source
        call_id = source.call_id if source is not None else None

        def reopen() -> None:
            for key, (_, known) in self._cards.items():
                if known == call_id:
                    self.panel.update_card(key, notice=None)

        self._on_loop(reopen)

    def close(self) -> None:
        """Stop watching sessions."""
        for unsubscribe in self._watching.values():
            unsubscribe()
        self._watching.clear()
        self._cards.clear()
