"""The pydantic-ai bridge behind :mod:`ipyask.integrations.pydantic_ai` (documented there)."""

from __future__ import annotations

from typing import Any

from .._decisions import tool_decision
from .._service import UserQuestions
from ._batch import ask_groups, unique_id
from ._framework import missing_framework
from ._tool_cards import tool_question

try:
    from pydantic_ai import DeferredToolRequests, DeferredToolResults, ToolApproved, ToolDenied
    from pydantic_ai.capabilities import HandleDeferredToolCalls
    from pydantic_ai.tools import RunContext
except ImportError as _error:
    raise missing_framework("pydantic_ai", "pydantic-ai", _error) from _error

__all__ = ["approvals", "resolve"]

_DENIED = ToolDenied().message
"""pydantic-ai's own text for a denied call."""


def approvals(*, service: UserQuestions | None = None) -> HandleDeferredToolCalls[Any]:
    """A capability that asks for every approval-required tool call inline.

    ``service`` asks the questions (default: the default panel of :func:`ipyask.ask_batch`).
    """

    async def handle(
        ctx: RunContext[Any], requests: DeferredToolRequests
    ) -> DeferredToolResults | None:
        if not requests.approvals:
            return None  # nothing to approve: the next capability, or the run's output, has them
        return await resolve(requests, service=service)

    return HandleDeferredToolCalls(handler=handle)


async def resolve(
    requests: DeferredToolRequests, *, service: UserQuestions | None = None
) -> DeferredToolResults:
    """Ask for every call in ``requests.approvals``; returns their results, keyed by call id."""
    taken: set[str] = set()
    questions = [
        tool_question(
            unique_id(call.tool_name, taken),
            name=call.tool_name,
            arguments=call.args_as_dict(),
            decisions=("approve", "edit", "reject"),
            call_id=call.tool_call_id,
        )
        for call in requests.approvals
    ]
    (answers,) = await ask_groups([questions], service) if questions else ([],)
    results: dict[str, bool | ToolApproved | ToolDenied] = {}
    for call, question, answer in zip(requests.approvals, questions, answers, strict=True):
        decision = tool_decision(question, answer)
        if decision.kind == "edit":
            results[call.tool_call_id] = ToolApproved(override_args=decision.arguments)
        elif decision.kind == "reject":
            reason = decision.message
            results[call.tool_call_id] = ToolDenied(
                _DENIED if reason is None else f"{_DENIED} The user's reason: {reason}"
            )
        else:
            results[call.tool_call_id] = True
    return DeferredToolResults(approvals=results)
