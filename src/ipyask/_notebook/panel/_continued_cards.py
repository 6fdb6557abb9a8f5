"""Continued cards: timed questions the agent stopped waiting for, still answerable late.

A continued card is answered through ``svc.answer`` (a late reply steered into the agent's
session); it settles when the session projection settles the call. Its notice says who reads the
answer (``svc.reply_reader``): the agent at its next step, the MCP client when it asks the call
again, or nobody, when every reader the agent's code declared has ended: the answer is then kept
in the session log and the card says so. With no reader declared, a card whose asking task has
ended says the answer waits unread in the inbox. A timed question no session tracks cannot take
a late reply: its card says so and expires.

A timed question asked with an ``on_timeout`` decision is answered by the timeout: its card says
which decision the agent got (and the transcript records it) and stays answerable; a later
answer is recorded as late, after the timeout, and the card says the agent went on without it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..._agents import Agent
from ..._answered_by import AnsweredBy, Door, answered_by
from ..._events import SessionEvent, UserMessageEvent
from ..._service import UserQuestions
from ..._session import Session, UserMessage
from ..._timeout_decisions import decision_words
from ..._vocabulary import AskUserQuestionAnswer
from ...widget import QuestionWidget
from ._answer_loop import AnswerLoop
from ._card_outcomes import CardOutcomes
from ._held_request import HeldRequest
from ._texts import NOTICES, Notice

__all__ = ["NOT_TRACKED", "ContinuedCards"]

NOT_TRACKED = NOTICES["en"]["late-reply-impossible"]
"""What an expired card that cannot take a late reply says (in English)."""


class ContinuedCards:
    """The continued cards of one panel and the sessions they watch.

    ``widget`` is the panel; ``outcomes`` marks its cards, ``loop`` runs session events on the
    loop the panel answers on; ``identity``: the ``(who, host)`` late answers are recorded under
    (read from the environment at each one when ``None``).
    """

    def __init__(
        self,
        service: UserQuestions,
        widget: QuestionWidget,
        outcomes: CardOutcomes,
        loop: AnswerLoop,
        identity: tuple[str, str | None] | None = None,
    ) -> None:
        self._service = service
        self._identity = identity
        self._widget = widget
        self._outcomes = outcomes
        self._loop = loop
        self._cards: dict[str, tuple[Agent, str]] = {}
        self._decided: dict[str, tuple[Agent, str, AskUserQuestionAnswer]] = {}
        """Cards the timeout answered: the agent, the call id and the decision the agent got."""
        self._watching: dict[Session, Callable[[], None]] = {}

    def holds(self, key: str) -> bool:
        """Whether ``key`` is a continued card."""
        return key in self._cards or key in self._decided

    def forget(self, key: str) -> None:
        """Stop tracking ``key`` (its call was asked again)."""
        self._cards.pop(key, None)
        self._decided.pop(key, None)

    def after_timeout(self, held: HeldRequest) -> None:
        """The foreground wait ended unanswered: record the timeout's decision, else continue
        the card, or expire it if untracked."""
        agent, call_id = held.agent, held.call_id
        decided = (
            None
            if agent is None or call_id is None
            else self._service.timeout_decision(agent, call_id)
        )
        if decided is not None:
            self._decided_by_timeout(held, decided)
            return
        if agent is None or call_id is None or not self._tracked(agent, call_id):
            self._outcomes.mark(held.key, "expired", Notice("late-reply-impossible"))
            return
        self._widget.update_card(held.key, status="continued", frame=None)
        self._cards[held.key] = (agent, call_id)
        session = agent.session
        if session not in self._watching:
            self._watching[session] = session.subscribe(self)

    def _decided_by_timeout(self, held: HeldRequest, decided: AskUserQuestionAnswer) -> None:
        notice = Notice("decided-by-timeout", {"decision": decision_words(decided)})
        assert held.agent is not None and held.call_id is not None  # the timeout decided it
        self._decided[held.key] = (held.agent, held.call_id, decided)
        self._widget.update_card(held.key, status="continued", frame=None, **notice.card_fields())
        self._outcomes.record(held.key, "decided-by-timeout", decided, held.questions)

    def _answer_after_timeout(self, key: str, answer: AskUserQuestionAnswer, door: Door) -> None:
        """Record a late answer: on the card, in the transcript and on the service, with who
        gave it through ``door``, having seen the card."""
        agent, call_id, decided = self._decided.pop(key)
        questions = self._widget.store.card(key).questions
        wire = [question.to_wire() for question in questions]
        by = answered_by(door, wire, identity=self._identity)
        self._service.record_late_answer(agent, call_id, answer, by)
        notice = Notice("answered-after-timeout", {"decision": decision_words(decided)})
        self._outcomes.mark(key, "answered", notice, answer, late=True, after_timeout=True, by=by)

    def _tracked(self, agent: Agent, call_id: str) -> bool:
        view = self._service.projection(agent)
        return any(row.call_id == call_id for row in view.active)

    def answer(self, key: str, answer: AskUserQuestionAnswer, door: Door = "panel") -> bool:
        """Send a late reply for continued card ``key``; whether the call still took one.

        The card then says the reply is queued; a call that took none is settled or expired.
        The seam may raise (e.g. ``BAD_ANSWER``). A card the timeout answered records the
        answer as late; the agent has gone on with the timeout's decision.
        """
        if key in self._decided:
            self._answer_after_timeout(key, answer, door)
            return True
        agent, call_id = self._cards[key]
        if not self._service.answer(agent, call_id, answer, door=door):
            self.refresh()
            return False
        # A kept answer is in the log already: the projection settles the card (refresh).
        if key in self._cards and not self._service.reply_kept(agent, call_id):
            self._widget.update_card(key, **self._sent_notice(agent, call_id).card_fields())
        return True

    def _sent_notice(self, agent: Agent, call_id: str) -> Notice:
        """Who reads the answer just sent: the MCP client asking again, or the agent's loop;
        with no reader declared, a loop only while the task that asked still runs."""
        reader = self._service.reply_reader(agent)
        if reader == "re-ask":
            return Notice("reply-awaits-reask", {"callId": call_id})
        if reader is None and self._service.asker_ended(agent, call_id):
            return Notice("reply-unread")
        return Notice("reply-queued")

    def refresh(self) -> None:
        """Settle or expire continued cards from their sessions' projections."""
        for key, (agent, call_id) in list(self._cards.items()):
            view = self._service.projection(agent)
            settled = next((row for row in view.settled if row.call_id == call_id), None)
            active = any(row.call_id == call_id for row in view.active)
            if settled is not None:
                del self._cards[key]
                answer = AskUserQuestionAnswer(answers=settled.answers)
                by = _late_answerer(agent.session, call_id)
                if self._service.reply_kept(agent, call_id):
                    notice = Notice("reply-kept")
                    self._outcomes.mark(
                        key, "answered", notice, answer, late=True, kept=True, by=by
                    )
                else:
                    self._outcomes.mark(key, "answered", answer=answer, late=True, by=by)
            elif not active:
                del self._cards[key]
                self._outcomes.mark(key, "expired", Notice("no-longer-answerable"))

    # SessionListener: sessions may be written from the agent's thread.
    def event_appended(self, session: Session, event: SessionEvent) -> None:
        if event.type in ("tool/result", "user/message", "tool/call"):
            self._loop.call(self.refresh)

    def message_claimed(self, session: Session, message: UserMessage, turn: int) -> None:
        return None

    def message_discarded(self, session: Session, message: UserMessage) -> None:
        source = message.source
        call_id = source.call_id if source is not None else None

        def reopen() -> None:
            for key, (_, known) in self._cards.items():
                if known == call_id:
                    self._widget.update_card(key, notice=None)

        self._loop.call(reopen)

    def close(self) -> None:
        """Stop watching sessions."""
        for unsubscribe in self._watching.values():
            unsubscribe()
        self._watching.clear()
        self._cards.clear()
        self._decided.clear()


def _late_answerer(session: Session, call_id: str) -> AnsweredBy | None:
    """Who gave the late reply that settled ``call_id``, as its admitted message says."""
    for event in reversed(session.events):
        source = event.source if isinstance(event, UserMessageEvent) else None
        if source is not None and source.call_id == call_id:
            return source.answered_by
    return None
