"""``HeldRequest``: a request the panel holds as a pending card while the person decides."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from ..._agents import Agent
from ..._followups import Followups
from ..._settlement import Settlement
from ..._vocabulary import AskUserQuestionAnswer, AskUserQuestionItem, AskUserQuestionRequest
from ..._waterfall import AnswerFuture, Next
from ...widget import WaitKind

__all__ = ["PASS_ON", "HeldRequest", "PassOn", "Settled", "wait_of"]


class PassOn:
    """Settles a held request when its panel closes: the request goes on down the waterfall."""


PASS_ON = PassOn()


Settled = asyncio.Future[AskUserQuestionAnswer | PassOn]


@dataclass(slots=True)
class HeldRequest:
    """A request the panel holds while the person decides; ``key`` names its card.

    It is its settlement's callback too: called with the settled future, it hands it to
    ``on_settled`` with itself (one object per pending question, no partial and bound method).
    """

    key: str
    request: AskUserQuestionRequest
    """The request as asked: what an answer is checked against (never the synced state)."""
    next: Next
    """The rest of the waterfall, for a request passed on."""
    answering: AnswerFuture
    """What the asker awaits."""
    on_settled: Callable[[HeldRequest, Settled], None]
    followups: Followups | None
    """The follow-ups of the ask (its callback runs outside the ask's context)."""
    settlement: Settlement[AskUserQuestionAnswer | PassOn] = field(default_factory=Settlement)

    def __call__(self, settled: Settled) -> None:
        self.on_settled(self, settled)

    @property
    def questions(self) -> list[AskUserQuestionItem]:
        return self.request.questions

    @property
    def wait(self) -> WaitKind:
        return wait_of(self.request)

    @property
    def agent(self) -> Agent | None:
        return self.request.agent

    @property
    def call_id(self) -> str | None:
        return self.request.call_id


def wait_of(request: AskUserQuestionRequest) -> WaitKind:
    """How the card of ``request`` waits: ``timed``, keyed (``indefinite``) or ``none``."""
    if request.timed:
        return "timed"
    return "indefinite" if request.call_id is not None else "none"
