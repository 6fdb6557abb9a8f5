"""The pydantic-ai bridge behind :mod:`ipyask.integrations.pydantic_ai` (documented there)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._decisions import tool_decision
from .._service import UserQuestions
from .._timeout_decisions import TIMEOUT_REASON
from ._asking import timing
from ._batch import ask_groups, unique_id
from ._framework import missing_framework
from ._tool_cards import card_detail, tool_question

try:
    from pydantic_ai import (
        Agent,
        DeferredToolRequests,
        DeferredToolResults,
        ToolApproved,
        ToolDenied,
    )
    from pydantic_ai.capabilities import HandleDeferredToolCalls
    from pydantic_ai.tools import RunContext, ToolDefinition
    from pydantic_ai.toolsets import FunctionToolset
except ImportError as _error:
    raise missing_framework("pydantic_ai", "pydantic-ai", _error) from _error

__all__ = ["approvals", "resolve"]

_DENIED = ToolDenied().message
"""pydantic-ai's own text for a denied call."""


def approvals(
    *,
    service: UserQuestions | None = None,
    timeout: float | None = None,
    on_timeout: str = "pending",
) -> HandleDeferredToolCalls[Any]:
    """A capability that asks for every approval-required tool call inline.

    ``service`` asks the questions (default: the default panel of :func:`ipyask.ask_batch`).

    ``timeout`` (seconds; ``None``, the default, waits for the person) asks each batch timed:
    when no one answers in time, ``on_timeout`` decides: ``"pending"`` (the default) and
    ``"reject"`` reject the calls with a reason saying no one answered in time, and a card
    decision's label (``"Approve"``) answers as the person's click would. Bad values raise
    :class:`ValueError`.
    """
    timing(timeout, on_timeout)  # bad values fail here, not in the middle of a run

    async def handle(
        ctx: RunContext[Any], requests: DeferredToolRequests
    ) -> DeferredToolResults | None:
        if not requests.approvals:
            return None  # nothing to approve: the next capability, or the run's output, has them
        return await resolve(
            requests,
            service=service,
            tools=ctx.tools.values(),
            timeout=timeout,
            on_timeout=on_timeout,
        )

    return HandleDeferredToolCalls(handler=handle)


async def resolve(
    requests: DeferredToolRequests,
    *,
    service: UserQuestions | None = None,
    tools: Agent[Any, Any] | Iterable[ToolDefinition] | None = None,
    timeout: float | None = None,
    on_timeout: str = "pending",
) -> DeferredToolResults:
    """Ask for every call in ``requests.approvals``; returns their results, keyed by call id.

    ``tools`` describes the tools called: the agent (its function tools) or their
    ``ToolDefinition`` objects. A card then shows the tool's description and checks an edit against
    its argument schema. ``timeout`` and ``on_timeout`` as for :func:`approvals`.
    """
    timed = timing(timeout, on_timeout)
    definitions = _definitions(tools)
    taken: set[str] = set()
    questions = []
    for call in requests.approvals:
        definition = definitions.get(call.tool_name)
        questions.append(
            tool_question(
                unique_id(call.tool_name, taken),
                name=call.tool_name,
                arguments=call.args_as_dict(),
                decisions=("approve", "edit", "reject"),
                description=card_detail(
                    definition.description if definition is not None else None,
                    requests.metadata.get(call.tool_call_id),
                ),
                schema=definition.parameters_json_schema if definition is not None else None,
                call_id=call.tool_call_id,
            )
        )
    (answers,) = await ask_groups([questions], service, timed) if questions else ([],)
    results: dict[str, bool | ToolApproved | ToolDenied] = {}
    for call, question, answer in zip(requests.approvals, questions, answers, strict=True):
        decision = tool_decision(question, answer)
        if decision.kind == "edit":
            results[call.tool_call_id] = ToolApproved(override_args=decision.arguments)
        elif decision.kind == "reject":
            reason = decision.message
            results[call.tool_call_id] = ToolDenied(_denial(reason))
        else:
            results[call.tool_call_id] = True
    return DeferredToolResults(approvals=results)


def _denial(reason: str | None) -> str:
    if reason is None:
        return _DENIED
    if reason == TIMEOUT_REASON:  # the timeout decided, not the user
        return f"{_DENIED} {reason}"
    return f"{_DENIED} The user's reason: {reason}"


def _definitions(
    tools: Agent[Any, Any] | Iterable[ToolDefinition] | None,
) -> Mapping[str, ToolDefinition]:
    """The tool definitions by name; an agent's are those of its function tools (other toolsets
    list their tools only during a run)."""
    if tools is None:
        return {}
    if isinstance(tools, Agent):
        return {
            name: tool.tool_def
            for toolset in tools.toolsets
            if isinstance(toolset, FunctionToolset)
            for name, tool in toolset.tools.items()
        }
    return {definition.name: definition for definition in tools}
