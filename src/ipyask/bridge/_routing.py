"""Routes validated view messages to the held requests, continued cards and claims.

Runs on the event loop. A message that cannot act (unknown or settled card, forged or duplicate
answer, wrong kind of card) changes nothing and gets an ``error`` reply to the view that sent it;
no exception leaves :meth:`ViewRouter.handle`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .._errors import HarnessError, UserQuestionError
from ..widget import (
    AnswerMessage,
    CancelMessage,
    ClaimMessage,
    HeartbeatMessage,
    ReleaseMessage,
    TimedOutMessage,
    ViewErrorCode,
    ViewMessage,
    view_error_code,
)
from ._validate import batch_problem

if TYPE_CHECKING:
    from ._panel import Live, QuestionPanel

__all__ = ["Refused", "ViewRouter"]

log = logging.getLogger("ipyask")


class Refused(Exception):
    """A view message that changes nothing; its code and message go back to the view."""

    def __init__(self, code: ViewErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code


class ViewRouter:
    """Acts on view messages for one panel."""

    def __init__(self, panel: QuestionPanel) -> None:
        self.panel = panel

    def handle(self, message: ViewMessage) -> None:
        """Act on ``message``; refusals and failures are reported to its view."""
        key = getattr(message, "key", None)
        try:
            self._dispatch(message)
        except Refused as refusal:
            self._reply(refusal.code, str(refusal), key, message.view_id)
        except HarnessError as error:
            self._reply(view_error_code(error.code), error.message, key, message.view_id)
        except Exception as error:
            log.exception("ipyask: handling a view message failed")
            self._reply("INTERNAL_ERROR", str(error) or type(error).__name__, key, message.view_id)

    def _reply(self, code: ViewErrorCode, text: str, key: str | None, view_id: str) -> None:
        try:
            self.panel.send_error(code, text, key=key, view_id=view_id)
        except Exception:
            log.exception("ipyask: could not send an error to the view")

    def _dispatch(self, message: ViewMessage) -> None:
        panel = self.panel
        if isinstance(message, HeartbeatMessage):
            panel.claims.heartbeat(message.view_id, message.keys)
        elif isinstance(message, ReleaseMessage):
            panel.claims.release(message.key, message.view_id)
        elif isinstance(message, AnswerMessage):
            self._answer(message)
        elif isinstance(message, CancelMessage):
            live = self._live(message.key)
            if live.call_id is not None:
                raise Refused("KEYED_CARD", "a card with a call id is hidden, not cancelled")
            live.settlement.reject(UserQuestionError.of("ASK_CANCELLED"))
        elif isinstance(message, ClaimMessage):
            live = self._timed(message.key)
            assert live.agent is not None and live.call_id is not None  # a timed wait has both
            panel.claims.claim(message.key, message.view_id, live.agent, live.call_id)
        elif isinstance(message, TimedOutMessage):
            self._timed(message.key).settlement.reject(UserQuestionError.of("ASK_TIMED_OUT"))

    def _live(self, key: str) -> Live:
        live = self.panel.live(key)
        if live is not None:
            return live
        try:
            card = self.panel.store.card(key)
        except KeyError:
            raise Refused("UNKNOWN_CARD", f"there is no question card {key!r}") from None
        raise Refused("NOT_PENDING", f"this question is {card.status}; it no longer takes that")

    def _timed(self, key: str) -> Live:
        live = self._live(key)
        if not live.request.timed:
            raise Refused("NOT_TIMED", "this question has no countdown")
        return live

    def _answer(self, message: AnswerMessage) -> None:
        panel = self.panel
        # Checked against the kernel's own record: the card as asked, or as the store keeps it.
        if panel.continued.holds(message.key):
            problem = batch_problem(panel.store.card(message.key), message.answer)
            if problem is not None:
                raise Refused("BAD_ANSWER", problem)
            panel.continued.answer(message.key, message.answer)
            return
        live = self._live(message.key)
        problem = batch_problem(live.card, message.answer)
        if problem is not None:
            raise Refused("BAD_ANSWER", problem)
        if not live.settlement.resolve(message.answer):
            raise Refused("ALREADY_ANSWERED", "this question was already answered")
