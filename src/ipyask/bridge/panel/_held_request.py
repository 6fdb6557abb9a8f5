"""``HeldRequest``: a request the panel holds as a pending card while the person decides."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..._agents import Agent
from ..._settlement import Settlement
from ..._vocabulary import AskUserQuestionAnswer, AskUserQuestionRequest
from ...widget import Card

__all__ = ["PASS_ON", "HeldRequest", "PassOn"]


class PassOn:
    """Settles a held request when its panel closes: the request goes on down the waterfall."""


PASS_ON = PassOn()


@dataclass(slots=True)
class HeldRequest:
    """A request the panel holds while the person decides; ``key`` names its card."""

    key: str
    request: AskUserQuestionRequest
    card: Card
    """The card as asked: what an answer is checked against (never the synced state)."""
    settlement: Settlement[AskUserQuestionAnswer | PassOn] = field(default_factory=Settlement)

    @property
    def agent(self) -> Agent | None:
        return self.request.agent

    @property
    def call_id(self) -> str | None:
        return self.request.call_id
