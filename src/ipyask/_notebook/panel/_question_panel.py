"""``QuestionPanel``: the notebook as a waterfall answerer.

Every request the panel claims becomes a card in its synced state; the person's answer settles
the request. Comm handlers may run on a subshell thread, so every view message is handled on the
event loop (:mod:`._answer_loop`), and every settlement goes through a thread-safe
:class:`~ipyask.host.Settlement`.
"""

from __future__ import annotations

import asyncio
import math
import secrets
from asyncio.events import _get_running_loop as _running_loop  # None off a loop, no raise
from collections.abc import Awaitable, Mapping
from functools import partial
from typing import Any

import traitlets

from ..._agents import Agent
from ..._answered_by import environment_identity
from ..._errors import UserQuestionError
from ..._followups import current_followups, run_after
from ..._service import UserQuestions
from ..._vocabulary import AskUserQuestionAnswer, AskUserQuestionItem, AskUserQuestionRequest
from ..._waterfall import AnswerFuture, Next
from ...store import Store
from ...widget import Card, KernelMessage, QuestionWidget, SettledStatus, ViewMessage, WireCard
from ._always_rules import add_always_rules, always_rule_offer
from ._answer_loop import AnswerLoop, call_on
from ._card_outcomes import CardOutcomes
from ._cell_views import CellView, CellViews
from ._claims import ClaimTracker
from ._continued_cards import ContinuedCards
from ._held_request import PASS_ON, HeldRequest, PassOn, Settled, wait_of
from ._inbox_cards import InboxCards
from ._rules_list import RulesList
from ._texts import RECORD_WORDS, Notice, cancelled_notice, language_of
from ._transcript import Transcript, display_with_transcript, record
from ._view_dispatch import ViewMessageDispatcher

__all__ = ["HEARTBEAT_TIMEOUT_MS", "QuestionPanel"]

HEARTBEAT_TIMEOUT_MS = 15_000
"""A view that sent no heartbeat for this long has gone: its claims are released."""


def _settle_from(answering: AnswerFuture, passed: asyncio.Future[AskUserQuestionAnswer]) -> None:
    """Settle ``answering`` as the rest of the waterfall (``passed``) settled."""
    if answering.done():
        if not passed.cancelled():
            passed.exception()  # retrieved: the asker has gone
    elif passed.cancelled():
        answering.cancel()
    elif (error := passed.exception()) is not None:
        answering.set_exception(error)
    else:
        answering.set_result(passed.result())


class QuestionPanel(QuestionWidget):
    """Shows every request of ``service`` as a card and settles it from the person's answer.

    ``agent`` scopes the panel to that agent (and the agents it owns); several panels may exist.
    On a store (``store``, default the service's) the panel is also the store's shared inbox:
    every open question in it, of any process, is a card (:mod:`._inbox`); scoped to an agent,
    only that agent's session's questions. Closing the panel (``panel.close()``) unregisters
    it: later requests, and the ones it still held, go on down the waterfall.
    ``transcript=False`` keeps no Markdown record of settled questions under the panel.
    :meth:`cell_view` makes a view of only the cards asked from one cell (the one-liners show
    one per cell); the panel keeps every card. ``approval_rules`` lists the approval rules in
    force on the service (its rules for every request), which a view can remove.
    """

    approval_rules: traitlets.List[dict[str, Any]] = traitlets.List(traitlets.Dict()).tag(sync=True)
    """The approval rules in force: ``{id, kind, text, where, session}`` each (see
    :mod:`._rules_list`)."""
    rules_notice: traitlets.Dict[str, Any] = traitlets.Dict().tag(sync=True)
    """What the last Remove of a rule did: ``{code, params, text}`` (``text`` in English; a
    view shows the code in its own language); empty before any."""

    def __init__(
        self,
        service: UserQuestions,
        *,
        agent: Agent | None = None,
        store: Store | None = None,
        heartbeat_timeout_ms: float = HEARTBEAT_TIMEOUT_MS,
        language: str = "",
        transcript: bool = True,
        **unknown: Any,
    ) -> None:
        if not isinstance(service, UserQuestions):
            raise TypeError(f"QuestionPanel needs an ipyask.UserQuestions, not {service!r}")
        if not isinstance(transcript, bool):
            raise TypeError(f"transcript must be True or False, not {transcript!r}")
        super().__init__(language=language, **unknown)
        self.service = service
        self.agent = agent
        self._answer_loop = AnswerLoop()
        self._held: dict[str, HeldRequest] = {}
        self._on_settled = self._settled  # one bound method for every held request
        self._closed = False
        self._transcript = Transcript(service.clock)
        self._keeps_transcript = transcript
        self._cell_views = CellViews(self, service.clock if transcript else None)
        self._outcomes = CardOutcomes(self, self._write_card_record)
        # Who answers through this panel, read once: the name its answers are recorded under
        # (and the inbox's "Only mine"); reading six environment variables at every answer was
        # about a tenth of the panel's own work per answer.
        identity = environment_identity()
        self.claims = ClaimTracker(service, self._send_frame, heartbeat_timeout_ms)
        self.continued = ContinuedCards(service, self, self._outcomes, self._answer_loop, identity)
        inbox_store = store if store is not None else service.store
        self.inbox = (
            None
            if inbox_store is None
            else InboxCards(
                service,
                self,
                self._outcomes,
                inbox_store,
                None if agent is None else agent.session.id,
            )
        )
        self.answerer = identity[0]
        self.rules_list = RulesList(service, self._publish_rules, self._publish_rules_notice)
        self._dispatcher = ViewMessageDispatcher(
            self,
            self._held,
            self.claims,
            self.continued,
            self.inbox,
            self._cell_views.door_of,
            partial(add_always_rules, service),
            self.rules_list.remove,
            identity,
        )
        self.on_view_message(self._receive)
        self._off = service.on_request(self._answer, agent=agent)
        if self.inbox is not None:
            self.inbox.start()

    # -- the answerer ------------------------------------------------------------------------
    def _new_key(self, request: AskUserQuestionRequest) -> str:
        call_id = request.call_id
        # Random hex, as from a uuid4, without building a UUID object on the way to the card.
        if call_id is None:
            return f"q-{secrets.token_hex(6)}"
        owner = request.agent.id if request.agent is not None else "-"
        key = f"{owner}:{call_id}"
        return key if key not in self._held else f"{key}#{secrets.token_hex(3)}"

    def _answer(
        self, request: AskUserQuestionRequest, next: Next
    ) -> Awaitable[AskUserQuestionAnswer]:
        # Not a coroutine function: the waterfall calls its first answerer before the asker
        # yields, so the card goes out at once; the wait for the person is a future the
        # settlement's callback settles (no task per pending question).
        if self._closed:
            return next()
        self._answer_loop.remember_running()
        if self.inbox is not None and self.inbox.takes(request):
            return self.inbox.hold(request, next)
        key = self._new_key(request)
        wait = wait_of(request)
        self.continued.forget(key)
        self._cell_views.adopt(key)
        card = Card(
            key=key,
            call_id=request.call_id,
            wait=wait,
            questions=request.questions,
            timeout_ms=self._window_ms(request),
            always_rule=always_rule_offer(self.service, request.questions),
        )
        self.set_card(card)
        answering = AnswerFuture()
        held = HeldRequest(key, request, next, answering, self._on_settled, current_followups())
        answering.when_abandoned(held.settlement.cancel)
        self._held[key] = held
        # The callback's follow-ups are the ask's, kept on ``held``: a copy of the ask's context
        # held per pending question would cost more.
        held.settlement.add_done_callback(held, keep_context=False)
        return answering

    def _window_ms(self, request: AskUserQuestionRequest) -> int | None:
        """The whole window of a timed request's wait (its card's countdown length)."""
        if not request.timed or request.agent is None or request.call_id is None:
            return None
        wait = self.service.live_wait(request.agent, request.call_id)
        return None if wait is None else max(1, math.ceil(wait.window_ms))

    def _settled(self, held: HeldRequest, settled: Settled) -> None:
        """The person answered (or the request ended otherwise): settle ``held.answering``.

        Runs as the settlement is resolved (or a loop turn after an error); its follow-ups are
        the ask's."""
        answering = held.answering
        try:
            outcome = self._outcome(held, settled)
        except BaseException as error:
            if not answering.done():
                answering.set_exception(error)
            elif not isinstance(error, asyncio.CancelledError):
                self.log.debug("ipyask: a request ended after its asker: %r", error)
            return
        if isinstance(outcome, PassOn):
            self._held.pop(held.key, None)
            try:
                self.remove_card(held.key)
                passed = asyncio.ensure_future(held.next())
            except Exception as error:  # the asker gets it, not whoever settled
                if not answering.done():
                    answering.set_exception(error)
                return
            answering.when_abandoned(passed.cancel)
            passed.add_done_callback(partial(_settle_from, answering))
            return
        # The agent gets the answer first; the card turns answered right after. Until then the
        # request stays held, so a second answer is refused as ALREADY_ANSWERED.
        if held.request.request_id is not None:  # a durable question's record keeps who
            by = held.settlement.answered_by
            if by is not None:
                self.service.attribute(held.request, by)
        run_after(held.followups, lambda: self._answered(held, outcome))
        if not answering.done():
            answering.set_result(outcome)

    def _outcome(
        self, held: HeldRequest, settled: asyncio.Future[AskUserQuestionAnswer | PassOn]
    ) -> AskUserQuestionAnswer | PassOn:
        """What the person's settlement of ``held`` gives the asker (it raises what it holds,
        after the card shows how it ended)."""
        key = held.key
        try:
            return settled.result()
        except BaseException as error:
            self._held.pop(key, None)
            if isinstance(error, asyncio.CancelledError):
                self._settled_without_answer(held)
            elif isinstance(error, UserQuestionError) and error.code == "ASK_TIMED_OUT":
                self.continued.after_timeout(held)
            elif isinstance(error, UserQuestionError):
                self._outcomes.mark(key, "cancelled", cancelled_notice(error.code))
            raise
        finally:
            self.claims.release(key)

    def _answered(self, held: HeldRequest, answer: AskUserQuestionAnswer) -> None:
        # In a burst of answers, with the burst's other cards (the views see them together).
        self._settle_with_burst(lambda: self._mark_answered(held, answer))

    def _mark_answered(self, held: HeldRequest, answer: AskUserQuestionAnswer) -> None:
        if self._held.get(held.key) is held:
            del self._held[held.key]
        self._outcomes.mark(
            held.key,
            "answered",
            answer=answer,
            questions=held.request.questions,
            by=held.settlement.answerer,
        )

    def _settled_without_answer(self, held: HeldRequest) -> None:
        signal = held.request.signal
        reason = signal.reason if signal is not None and signal.aborted else None
        if isinstance(reason, UserQuestionError) and reason.code == "ASK_TIMED_OUT":
            self.continued.after_timeout(held)
        elif not self._closed:
            self._outcomes.mark(held.key, "cancelled", Notice("agent-stopped"))

    # -- cell views --------------------------------------------------------------------------
    def cell_view(self) -> CellView:
        """A new view of only the cards asked inside its :meth:`CellView.collecting` block.

        The panel keeps every card and the cell view a copy of its own, kept in step; what its
        views send is checked and acted on here, as if sent by a view of the panel. It closes
        with the panel.
        """
        return self._cell_views.new()

    def set_card(self, card: Card | Mapping[str, Any]) -> Card:
        """Add ``card``, or replace the card with the same key in place (in its cell view too)."""
        with self._lock:
            model = super().set_card(card)
            self._cell_views.put(model)
        return model

    def settle_card(self, key: str, status: SettledStatus, **fields: Any) -> WireCard:
        """Settle card ``key`` (see :meth:`QuestionWidget.settle_card`), in its cell view too."""
        with self._lock:
            wire = super().settle_card(key, status, **fields)
            self._cell_views.put(wire)
        return wire

    def remove_card(self, key: str) -> Card:
        """Remove the card with ``key`` (from its cell view too) and return it."""
        with self._lock:
            removed = super().remove_card(key)
            self._cell_views.remove(key)
        return removed

    def send_message(self, message: KernelMessage | Mapping[str, Any]) -> None:
        """Send a kernel → view message (validated); the cell view it concerns gets it too."""
        super().send_message(message)
        self._cell_views.send(message)

    # -- the transcript ----------------------------------------------------------------------
    def write_record(self, markdown: str) -> None:
        """Append a Markdown record to the transcript shown under the panel (shortly); nothing
        when the panel keeps no transcript."""
        if self._keeps_transcript:
            self._transcript.add(markdown)

    def write_rule_record(
        self,
        question: AskUserQuestionItem,
        answer: AskUserQuestionAnswer,
        *,
        denied: bool,
        rule: str | None = None,
    ) -> None:
        """Record a tool approval an approval rule answered without a card, in the panel's
        language: ``Allowed by rule`` (with ``rule``, where it is written) or ``Denied by
        rule`` (the answer's reason names the rule)."""
        language = language_of(self.language)
        title = RECORD_WORDS[language]["denied-by-rule" if denied else "allowed-by-rule"]
        self.write_record(record([question], title, answer, rule, language=language))

    def _write_card_record(self, key: str, markdown: str) -> None:
        if self._keeps_transcript:  # (write_record's check, inline: a record per settled card)
            self._transcript.add(markdown)
        self._cell_views.record(key, markdown)

    @property
    def records(self) -> list[str]:
        """The Markdown records of every settled card, oldest first (none without a
        transcript)."""
        self._settle_waiting()
        return self._transcript.records

    def _ipython_display_(self) -> None:
        display_with_transcript(self, self._transcript if self._keeps_transcript else None)

    def _publish_rules(self, rows: list[dict[str, Any]]) -> None:
        if not self._closed:
            self.approval_rules = rows

    def _publish_rules_notice(self, notice: Notice) -> None:
        if not self._closed:
            self.rules_notice = {
                "code": notice.code,
                "params": dict(notice.params),
                "text": notice.text(),
            }

    def _send_frame(self, key: str, remaining_ms: int) -> None:
        if key in self._held and not self._closed:
            self.send_frame(key, remaining_ms)

    def live(self, key: str) -> HeldRequest | None:
        """The request behind pending card ``key``."""
        self._settle_waiting()
        return self._held.get(key)

    # -- view messages -----------------------------------------------------------------------
    def _receive(self, message: ViewMessage) -> None:
        # Possibly on a subshell thread: handle on the loop that awaits the card (an agent may run
        # its own loop on a worker thread), else on the loop the panel last answered on.
        held = self._held.get(getattr(message, "key", ""))
        loop = held.settlement.loop if held is not None else self._answer_loop.current
        if loop is not None and loop is _running_loop():  # already there: no callback to make
            self._dispatcher.handle(message)
            return
        call_on(loop, lambda: self._dispatcher.handle(message))

    # -- lifetime ----------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        """Whether the panel was closed (it no longer answers)."""
        return self._closed

    def close(self) -> None:
        """Stop answering: unregister, hand held requests down the waterfall, close the widget."""
        if hasattr(self, "_off") and not self._closed:
            self._settle_waiting()  # a held burst's answered cards: answered, not passed on
            self._closed = True
            self._off()
            self.claims.close()
            self.continued.close()
            self.rules_list.close()
            if self.inbox is not None:
                self.inbox.close()
            for held in list(self._held.values()):
                held.settlement.resolve(PASS_ON)
            self._transcript.flush()
            self._cell_views.close()
        super().close()
