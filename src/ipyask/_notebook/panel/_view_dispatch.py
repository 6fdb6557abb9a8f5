"""Dispatches validated view messages to the held requests, continued cards and claims.

Runs on the event loop. A message that cannot act (unknown or settled card, forged or duplicate
answer, wrong kind of card) changes nothing and gets an ``error`` reply to the view that sent it;
no exception leaves :meth:`ViewMessageDispatcher.handle`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from ..._answered_by import Attribution, Door, environment_identity
from ..._errors import HarnessError, UserQuestionError
from ..._field_problems import FieldProblem, ProblemLanguage, problem_texts
from ..._vocabulary import AskUserQuestionAnswer, AskUserQuestionItem
from ...widget import (
    AnswerMessage,
    CancelMessage,
    ClaimMessage,
    HeartbeatMessage,
    HoldMessage,
    QuestionWidget,
    ReleaseMessage,
    RemoveRuleMessage,
    TimedOutMessage,
    ViewErrorCode,
    ViewMessage,
    view_error_code,
)
from ._always_rules import RuleProblem
from ._answer_checks import BatchProblem, batch_problem
from ._claims import ClaimTracker
from ._continued_cards import ContinuedCards
from ._held_request import HeldRequest
from ._inbox_cards import InboxCards

__all__ = ["CANCELLED_BY_PERSON", "Refused", "ViewMessageDispatcher"]

CANCELLED_BY_PERSON = "The person cancelled this question instead of answering it."
"""What the agent reads (``ASK_CANCELLED``) when the person cancels a card."""

log = logging.getLogger("ipyask")

AddRules = Callable[[list[AskUserQuestionItem], AskUserQuestionAnswer], RuleProblem | None]
"""Adds the rules of an answer's scoped Always allows before it settles (see
:mod:`._always_rules`); returns why one could not be added."""

_LANGUAGES: tuple[ProblemLanguage, ...] = ("en", "zh")


class Refused(Exception):
    """A view message that changes nothing; its code and message go back to the view, with
    per-field errors of question ``question_id`` when an answer's fields were refused."""

    def __init__(
        self,
        code: ViewErrorCode,
        message: str,
        question_id: str | None = None,
        problems: Mapping[str, FieldProblem] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.question_id = question_id
        self.problems = dict(problems) if problems else None

    @classmethod
    def bad_answer(cls, problem: BatchProblem) -> Refused:
        """``BAD_ANSWER`` for a batch that does not fit its card."""
        return cls("BAD_ANSWER", problem.message, problem.question_id, problem.problems)


class ViewMessageDispatcher:
    """Acts on the view messages of one panel.

    ``widget`` is the panel (its cards, and errors to its views); ``held`` its pending requests
    by card key; ``claims`` and ``continued`` its claim tracker and continued cards; ``inbox``
    the cards of its store's open questions, if it has a store. ``identity``: the ``(who, host)``
    its settlements are recorded under (read from the environment at each one when ``None``).
    """

    def __init__(
        self,
        widget: QuestionWidget,
        held: Mapping[str, HeldRequest],
        claims: ClaimTracker,
        continued: ContinuedCards,
        inbox: InboxCards | None = None,
        door_of: Callable[[str], Door] | None = None,
        add_rules: AddRules | None = None,
        remove_rule: Callable[[str], None] | None = None,
        identity: tuple[str, str | None] | None = None,
    ) -> None:
        self._widget = widget
        self._identity = identity
        self._add_rules = add_rules
        self._remove_rule = remove_rule
        self._held = held
        self._claims = claims
        self._continued = continued
        self._inbox = inbox
        self._door_of = door_of

    def _by(self, held: HeldRequest, view_id: str | None, door: Door | None = None) -> Attribution:
        """Who settles ``held`` from view ``view_id``: this kernel's user, through the cell view
        or the panel the view belongs to (or ``door``), having seen its card. Its record (with
        the card's digest) is made only if something keeps it."""
        if door is None:
            door = self._door_of(view_id) if self._door_of and view_id else "panel"
        questions = held.request.questions
        return Attribution(
            door,
            lambda: [question.to_wire() for question in questions],
            identity=self._identity or environment_identity(),
        )

    def handle(self, message: ViewMessage) -> None:
        """Act on ``message``; refusals and failures are reported to its view."""
        key = getattr(message, "key", None)
        try:
            self._dispatch(message)
        except Refused as refusal:
            self._reply(
                refusal.code,
                str(refusal),
                key,
                message.view_id,
                question_id=refusal.question_id,
                problems=refusal.problems,
            )
        except HarnessError as error:
            self._reply(view_error_code(error.code), error.message, key, message.view_id)
        except Exception as error:
            log.exception("ipyask: handling a view message failed")
            self._reply("INTERNAL_ERROR", str(error) or type(error).__name__, key, message.view_id)

    def _reply(
        self,
        code: ViewErrorCode,
        text: str,
        key: str | None,
        view_id: str,
        *,
        question_id: str | None = None,
        problems: dict[str, FieldProblem] | None = None,
    ) -> None:
        # Field problems go out in every language: a view shows those of its own.
        texts: dict[ProblemLanguage, dict[str, str]] | None = None
        if problems:
            texts = {language: problem_texts(problems, language) for language in _LANGUAGES}
        try:
            self._widget.send_error(
                code,
                text,
                key=key,
                view_id=view_id,
                question_id=question_id,
                fields=texts["en"] if texts else None,
                field_texts=texts,
            )
        except Exception:
            log.exception("ipyask: could not send an error to the view")

    def _dispatch(self, message: ViewMessage) -> None:
        if isinstance(message, AnswerMessage):  # first: most messages of a busy panel are
            self._answer(message)
        elif isinstance(message, HeartbeatMessage):
            self._claims.heartbeat(message.view_id, message.keys)
        elif isinstance(message, ReleaseMessage):
            self._claims.release(message.key, message.view_id)
        elif isinstance(message, CancelMessage):
            if self._inbox_card(message.key):
                raise Refused("KEYED_CARD", "a card with a call id is hidden, not cancelled")
            held = self._pending(message.key)
            if held.call_id is not None:
                raise Refused("KEYED_CARD", "a card with a call id is hidden, not cancelled")
            held.settlement.reject(
                UserQuestionError(CANCELLED_BY_PERSON, "ASK_CANCELLED"),
                self._by(held, message.view_id),
            )
        elif isinstance(message, ClaimMessage):
            held = self._timed(message.key)
            assert held.agent is not None and held.call_id is not None  # a timed wait has both
            self._claims.claim(message.key, message.view_id, held.agent, held.call_id)
        elif isinstance(message, HoldMessage):
            self._timed(message.key)
            if not self._widget.store.card(message.key).held:
                self._widget.update_card(message.key, held=True)
        elif isinstance(message, RemoveRuleMessage):
            if self._remove_rule is not None:
                self._remove_rule(message.rule_id)
        elif isinstance(message, TimedOutMessage):
            held = self._timed(message.key)
            if self._widget.store.card(message.key).held:
                raise Refused("HELD", "the person is taking time to answer this question")
            held.settlement.reject(
                UserQuestionError.of("ASK_TIMED_OUT"), self._by(held, None, "timeout")
            )

    def _pending(self, key: str) -> HeldRequest:
        held = self._held.get(key)
        if held is not None:
            return held
        try:
            card = self._widget.store.card(key)
        except KeyError:
            raise Refused("UNKNOWN_CARD", f"there is no question card {key!r}") from None
        raise Refused("NOT_PENDING", f"this question is {card.status}; it no longer takes that")

    def _inbox_card(self, key: str) -> bool:
        """Whether card ``key`` shows a question of the store (open, or settled since)."""
        inbox = self._inbox
        if inbox is None or key in self._held:  # a local ask's card
            return False
        if inbox.holds(key):  # open: known without parsing the card
            return True
        store = self._widget.store
        return key in store and store.card(key).source is not None

    def _timed(self, key: str) -> HeldRequest:
        held = self._pending(key)
        if not held.request.timed:
            raise Refused("NOT_TIMED", "this question has no countdown")
        return held

    def _answer(self, message: AnswerMessage) -> None:
        # Checked against the kernel's own record: the card as asked, or as the store keeps it.
        if self._continued.holds(message.key):
            card = self._widget.store.card(message.key)
            problem = batch_problem(card, message.answer)
            if problem is not None:
                raise Refused.bad_answer(problem)
            door = self._door_of(message.view_id) if self._door_of else "panel"
            self._add_scoped_rules(card.questions, message.answer)
            if not self._continued.answer(message.key, message.answer, door):
                raise Refused("NOT_ANSWERABLE", "this question is no longer answerable")
            return
        if self._inbox is not None and self._inbox_card(message.key):
            self._answer_in_inbox(self._inbox, message)
            return
        held = self._pending(message.key)
        problem = batch_problem(held, message.answer)
        if problem is not None:
            raise Refused.bad_answer(problem)
        if held.settlement.settled:
            raise Refused("ALREADY_ANSWERED", "this question was already answered")
        self._add_scoped_rules(held.request.questions, message.answer)  # before the next call
        if not held.settlement.resolve(message.answer, self._by(held, message.view_id)):
            raise Refused("ALREADY_ANSWERED", "this question was already answered")

    def _add_scoped_rules(
        self, questions: list[AskUserQuestionItem], answer: AskUserQuestionAnswer
    ) -> None:
        """Add the rules the answer's scoped Always allows ask for; a rule that cannot be added
        refuses the answer (the card stays answerable) naming what is wrong."""
        if self._add_rules is None:
            return
        failed = self._add_rules(questions, answer)
        if failed is not None:
            question_id, text, problem = failed
            raise Refused("BAD_ANSWER", text, question_id, {"rule": problem})

    def _answer_in_inbox(self, inbox: InboxCards, message: AnswerMessage) -> None:
        # A claim on the store: the first answer of any view or process wins.
        if inbox.store_closed:
            raise Refused(
                "NOT_ANSWERABLE",
                f"the store {inbox.store.location} was closed: this question stays open there;"
                " open the store again to answer it",
            )
        problem = batch_problem(self._widget.store.card(message.key), message.answer)
        if problem is not None:
            raise Refused.bad_answer(problem)
        waiting = inbox.unsaved(message.key)
        result = inbox.answer(message.key, message.answer)
        if result is None and waiting:  # the card's notice is unchanged: this reply re-arms it
            raise Refused(
                "NOT_SAVED_YET",
                "an earlier answer to this question still waits for the store; this one "
                "replaces it and is saved when the store takes it",
            )
        if result is None:
            return  # not saved yet: the card's notice says so, and it is saved by itself
        if result.status == "already-resolved":
            raise Refused("ALREADY_ANSWERED", "this question was already answered")
        if result.status == "not-pending":
            raise Refused("NOT_PENDING", "this question is no longer in the store")
