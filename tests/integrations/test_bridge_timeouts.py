"""``timeout=`` / ``on_timeout=`` of the bridges: an unattended run neither hangs nor approves
silently (the injected clock runs the window out; the service has no answerer)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest
from langchain_core.messages import AIMessage
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai.models.function import FunctionModel

import ipyask
from ipyask.integrations import langgraph, pydantic_ai
from ipyask.testing import ManualClock

from ._pydantic_fakes import DeletingModel
from .test_langgraph import (
    CONFIG,
    START_INPUT,
    ToolCallingFake,
    agent,
    calls,
    deleted,
    tool_messages,
    value_graph,
)

T = TypeVar("T")


@pytest.fixture(autouse=True)
def _no_files_deleted_yet() -> None:
    deleted.clear()


async def run_out(clock: ManualClock, asking: Awaitable[T]) -> T:
    """``asking``, its windows run out by the clock while no one answers."""
    task = asyncio.ensure_future(asking)
    for _ in range(500):
        if task.done():
            break
        await asyncio.sleep(0.01)  # lets the framework reach its ask (some run in threads)
        clock.advance(60_000)
    return await task


# -- LangGraph ---------------------------------------------------------------------------------


@pytest.mark.parametrize("on_timeout", ["pending", "reject"])
async def test_langgraph_rejects_a_tool_call_no_one_answered_in_time(
    svc: ipyask.UserQuestions, clock: ManualClock, on_timeout: str
) -> None:
    model = ToolCallingFake(responses=[calls("a.txt"), AIMessage(content="ok")])
    running = langgraph.run(
        agent(model), START_INPUT, CONFIG, service=svc, timeout=30, on_timeout=on_timeout
    )
    result = await run_out(clock, running)
    assert result["messages"][-1].content == "ok"
    assert deleted == []
    (message,) = tool_messages(model)
    assert message.status == "error"
    assert "No answer before the timeout" in str(message.content)


async def test_langgraph_on_timeout_approve_runs_the_tool(
    svc: ipyask.UserQuestions, clock: ManualClock
) -> None:
    model = ToolCallingFake(responses=[calls("a.txt"), AIMessage(content="done")])
    running = langgraph.run(
        agent(model), START_INPUT, CONFIG, service=svc, timeout=30, on_timeout="Approve"
    )
    result = await run_out(clock, running)
    assert result["messages"][-1].content == "done"
    assert deleted == ["a.txt"]


async def test_langgraph_pending_on_a_question_without_refusal_stops_the_run_saying_why(
    svc: ipyask.UserQuestions, clock: ManualClock
) -> None:
    graph = value_graph(None)
    running = langgraph.run(graph, {"asked": "Which branch?"}, CONFIG, service=svc, timeout=5)
    with pytest.raises(ipyask.UserQuestionError) as raised:
        await run_out(clock, running)
    assert raised.value.code == "ASK_TIMED_OUT"
    assert "no one answered within 5 s" in str(raised.value)


@pytest.mark.parametrize(
    ("timeout", "on_timeout", "says"),
    [
        (None, "reject", "needs timeout="),
        (0, "pending", "positive number of seconds"),
        (True, "pending", "positive number of seconds"),
        (float("nan"), "pending", "positive number of seconds"),
        (5, "", "on_timeout must be"),
    ],
)
async def test_bad_timeout_values_raise_before_anything_runs(
    svc: ipyask.UserQuestions, timeout: Any, on_timeout: str, says: str
) -> None:
    model = ToolCallingFake(responses=[calls("a.txt")])
    with pytest.raises(ValueError, match=says):
        await langgraph.run(
            agent(model), START_INPUT, CONFIG, service=svc, timeout=timeout, on_timeout=on_timeout
        )
    with pytest.raises(ValueError, match=says):
        pydantic_ai.approvals(service=svc, timeout=timeout, on_timeout=on_timeout)
    assert model.seen == []


async def test_a_label_the_card_does_not_offer_is_a_value_error(
    svc: ipyask.UserQuestions, clock: ManualClock
) -> None:
    model = ToolCallingFake(responses=[calls("a.txt")])
    running = langgraph.run(
        agent(model), START_INPUT, CONFIG, service=svc, timeout=5, on_timeout="Maybe"
    )
    with pytest.raises(ValueError, match="on_timeout must be one of"):
        await run_out(clock, running)
    assert deleted == []


# -- pydantic-ai -------------------------------------------------------------------------------


def pydantic_agent(model: DeletingModel, capability: Any) -> PydanticAgent[None, Any]:
    made: PydanticAgent[None, Any] = PydanticAgent(FunctionModel(model), capabilities=[capability])

    @made.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        """Delete a file from the workspace."""
        deleted.append(path)
        return f"deleted {path}"

    return made


async def test_pydantic_ai_denies_a_call_no_one_answered_in_time(
    svc: ipyask.UserQuestions, clock: ManualClock
) -> None:
    model = DeletingModel("a.txt")
    capability = pydantic_ai.approvals(service=svc, timeout=30)
    result = await run_out(clock, pydantic_agent(model, capability).run("clean up"))
    assert result.output == "done"
    assert deleted == []
    (returned,) = [str(part.content) for part in model.returns]
    assert "No answer before the timeout" in returned
    assert "The user's reason" not in returned  # the person gave none


async def test_pydantic_ai_on_timeout_approve_runs_the_call(
    svc: ipyask.UserQuestions, clock: ManualClock
) -> None:
    model = DeletingModel("a.txt")
    capability = pydantic_ai.approvals(service=svc, timeout=30, on_timeout="Approve")
    result = await run_out(clock, pydantic_agent(model, capability).run("clean up"))
    assert result.output == "done"
    assert deleted == ["a.txt"]
