"""How a bridge asks: on the service it was given, or on the default service and panel;
until the person answers, or timed (``timeout=`` / ``on_timeout=`` of the bridges)."""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from .._agents import Agent
from .._errors import UserQuestionError
from .._notebook import ask_batch, default_service, show_panel
from .._service import UserQuestions
from .._timeout_decisions import PENDING, REJECT, timeout_answer
from .._vocabulary import AskUserQuestionAnswer, AskUserQuestionRequest, PendingAnswer

__all__ = ["Timing", "ask", "chosen_service", "timing"]

_BRIDGE_AGENTS: WeakKeyDictionary[UserQuestions, Agent] = WeakKeyDictionary()
"""The live agent timed bridge questions belong to, one per service."""


@dataclass(frozen=True)
class Timing:
    """How long a bridge waits for the person, and what the window's end decides."""

    timeout: float
    """Seconds."""
    on_timeout: str


def timing(timeout: float | None, on_timeout: str) -> Timing | None:
    """The checked ``timeout=`` / ``on_timeout=`` of a bridge; ``None``: wait for the person.

    Raises :class:`ValueError` naming what is wrong (whether ``on_timeout`` is a decision a
    card offers is checked when a card is asked)."""
    if not isinstance(on_timeout, str) or not on_timeout:
        raise ValueError(
            f"on_timeout must be 'pending', 'reject' or a decision's label, not {on_timeout!r}"
        )
    if timeout is None:
        if on_timeout != PENDING:
            raise ValueError(
                f"on_timeout={on_timeout!r} needs timeout= (seconds) to act on; without a "
                "timeout the bridge waits for the person"
            )
        return None
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        raise ValueError(
            f"timeout must be a positive number of seconds (or None to wait for the person), "
            f"not {timeout!r}"
        )
    if round(timeout * 1000) < 1 or round(timeout * 1000) > 2_147_483_647:
        raise ValueError(f"timeout must be from 0.001 to 2147483.647 seconds, not {timeout!r}")
    return Timing(float(timeout), on_timeout)


async def ask(
    request: AskUserQuestionRequest, service: UserQuestions | None, timed: Timing | None = None
) -> AskUserQuestionAnswer:
    """Ask ``request`` on ``service``; ``None`` means the default service, its panel shown in
    the running cell and the cell's wait helped as for :func:`ipyask.ask`.

    ``timed`` asks it as a timed question (a fresh call id, the bridge's agent): when the
    window runs out, ``on_timeout`` answers it. ``"pending"`` answers with each question's
    refusal (a bridge cannot wait for a late answer: its run goes on) when every question has
    one, and otherwise raises ``UserQuestionError`` ``ASK_TIMED_OUT``."""
    if timed is None:
        if service is not None:
            return await service.ask(request)
        return await ask_batch(request)
    on_timeout = timed.on_timeout
    if on_timeout == PENDING and _refusable(request):
        on_timeout = REJECT
    outcome = await _ask_timed(request, service, round(timed.timeout * 1000), on_timeout)
    if isinstance(outcome, PendingAnswer):
        raise UserQuestionError(
            f"no one answered within {timed.timeout:g} s, and these questions have no refusal "
            "to answer with: the run stops here (give on_timeout= one of the card's decisions "
            "to go on instead)",
            "ASK_TIMED_OUT",
        )
    return outcome


def _refusable(request: AskUserQuestionRequest) -> bool:
    try:
        timeout_answer(request.questions, REJECT)
    except ValueError:
        return False
    return True


async def _ask_timed(
    request: AskUserQuestionRequest,
    service: UserQuestions | None,
    timeout_ms: int,
    on_timeout: str,
) -> AskUserQuestionAnswer | PendingAnswer:
    call_id = f"bridge-{uuid.uuid4().hex[:12]}"
    if service is None:
        from .._notebook._one_liners import _default_notebook

        return await _default_notebook.ask_timed_in_cell(request, call_id, timeout_ms, on_timeout)
    if request.agent is None:
        request = request.model_copy(update={"agent": _bridge_agent(service)})
    return await service.ask_timed(request, call_id, timeout_ms, on_timeout=on_timeout)


def _bridge_agent(service: UserQuestions) -> Agent:
    agent = _BRIDGE_AGENTS.get(service)
    if agent is None or not service.agents.is_live(agent):
        agent = _BRIDGE_AGENTS[service] = service.agents.enter(Agent("agent-bridge"))
    return agent


def chosen_service(service: UserQuestions | None) -> UserQuestions:
    """``service``, or the default one with its panel shown in the running cell (for a bridge
    whose questions arrive later, from other tasks)."""
    if service is not None:
        return service
    show_panel()
    return default_service()
