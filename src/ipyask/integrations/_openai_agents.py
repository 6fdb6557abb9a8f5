"""The OpenAI Agents SDK bridge behind :mod:`ipyask.integrations.openai_agents` (see there)."""

from __future__ import annotations

import json
from typing import Any

from .._decisions import ToolDecision, tool_decision
from .._rule_patterns import AlwaysScope
from .._service import UserQuestions
from .._timeout_decisions import TIMEOUT_REASON
from .._vocabulary import AskUserQuestionItem
from ._always import chosen_scope, keep_rule
from ._asking import Timing, timing
from ._batch import ask_groups, unique_id
from ._framework import missing_framework
from ._tool_cards import tool_question

try:
    from agents import (
        Agent,
        FunctionTool,
        RunContextWrapper,
        Runner,
        RunResult,
        RunState,
        ToolApprovalItem,
    )
    from agents.items import TResponseInputItem
    from agents.tool import DEFAULT_APPROVAL_REJECTION_MESSAGE
except ImportError as _error:
    raise missing_framework("openai_agents", "openai-agents", _error) from _error

__all__ = ["run"]


async def run(
    agent: Agent[Any],
    input: str | list[TResponseInputItem] | RunState[Any],
    *,
    service: UserQuestions | None = None,
    timeout: float | None = None,
    on_timeout: str = "pending",
    **runner_kwargs: Any,
) -> RunResult:
    """Run ``agent`` to its end, asking for every tool approval; returns the final result.

    ``runner_kwargs`` go to every ``Runner.run`` (``context``, ``max_turns``, ``run_config``,
    ...). ``service`` asks the questions (default: the default panel of
    :func:`ipyask.ask_batch`). The SDK's own errors surface unchanged.

    ``timeout`` (seconds; ``None``, the default, waits for the person) asks each batch timed:
    when no one answers in time, ``on_timeout`` decides: ``"pending"`` (the default) and
    ``"reject"`` reject the calls with a reason saying no one answered in time, and a card
    decision's label (``"Approve"``) answers as the person's click would. Bad values raise
    :class:`ValueError`.
    """
    timed = timing(timeout, on_timeout)
    result = await Runner.run(agent, input, **runner_kwargs)
    while result.interruptions:
        state = result.to_state()
        tools = await _tools(result.interruptions, result.context_wrapper)
        await _decide(state, result.interruptions, tools, service, timed)
        result = await Runner.run(agent, state, **runner_kwargs)
    return result


async def _decide(
    state: RunState[Any],
    items: list[ToolApprovalItem],
    tools: dict[int, list[FunctionTool]],
    service: UserQuestions | None,
    timed: Timing | None,
) -> None:
    taken: set[str] = set()
    questions = [
        _card(item, unique_id(item.name or "tool", taken), _function_tool(item, tools))
        for item in items
    ]
    (answers,) = await ask_groups([questions], service, timed)
    for item, question, answer in zip(items, questions, answers, strict=True):
        decision = tool_decision(question, answer)
        if decision.kind in ("reject", "never"):
            state.reject(
                item,
                always_reject=decision.kind == "never",
                rejection_message=_rejection(decision.message),
            )
        else:
            scope = chosen_scope(question, answer) if decision.kind == "always" else None
            if scope is not None:
                keep_rule(service, scope)
            name = item.qualified_name or item.name or "tool"
            state.approve(item, always_approve=_always_approve(decision, scope, name))


def _always_approve(decision: ToolDecision, scope: AlwaysScope | None, tool_name: str) -> bool:
    """Whether the SDK is told to approve the tool from now on: for an Always allow whose rule
    covers every call of the tool (the SDK's grant is the whole tool); a narrower rule approves
    this call, and the rule answers the next matching ones."""
    if decision.kind != "always":
        return False
    return scope is None or scope.rule.covers_every_call(tool_name)


def _card(
    item: ToolApprovalItem, question_id: str, tool: FunctionTool | None
) -> AskUserQuestionItem:
    name = item.qualified_name or item.name or "tool"
    return tool_question(
        question_id,
        name=name,
        arguments=_arguments(item.arguments),
        decisions=("approve", "always", "reject", "never"),
        description=tool.description or None if tool is not None else None,
        schema=tool.params_json_schema if tool is not None else None,
        call_id=item.call_id,
    )


async def _tools(
    items: list[ToolApprovalItem], context: RunContextWrapper[Any]
) -> dict[int, list[FunctionTool]]:
    """The function tools of each asking agent (by ``id``), its MCP servers' tools included (the
    SDK lists those only during a run)."""
    tools: dict[int, list[FunctionTool]] = {}
    for agent in {id(item.agent): item.agent for item in items}.values():
        listed = await agent.get_all_tools(context)
        tools[id(agent)] = [tool for tool in listed if isinstance(tool, FunctionTool)]
    return tools


def _function_tool(
    item: ToolApprovalItem, tools: dict[int, list[FunctionTool]]
) -> FunctionTool | None:
    """The function tool the call is for, when the SDK describes it."""
    for tool in tools.get(id(item.agent), []):
        if tool.name == item.name:
            return tool
    return None


def _arguments(text: str | None) -> dict[str, Any]:
    """The call's arguments: the SDK gives JSON text (an object for function tools)."""
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {"input": text}
    return value if isinstance(value, dict) else {"input": value}


def _rejection(reason: str | None) -> str | None:
    """What the model reads for a rejected call: ``None`` leaves the SDK's default text (or the
    run's own formatter); a reason follows that default text, so the model still learns the call
    did not run."""
    if reason is None:
        return None
    if reason == TIMEOUT_REASON:  # the timeout decided, not the user
        return f"{DEFAULT_APPROVAL_REJECTION_MESSAGE} {reason}"
    return f"{DEFAULT_APPROVAL_REJECTION_MESSAGE} The user's reason: {reason}"
