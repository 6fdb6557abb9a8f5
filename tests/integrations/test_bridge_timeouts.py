"""``timeout=`` / ``on_timeout=`` of the bridges: an unattended run neither hangs nor approves
silently (the injected clock runs the window out; the service has no answerer)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import httpx2
import mcp
import pytest
from agents import Agent as AgentsAgent
from agents import function_tool
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call
from claude_agent_sdk.types import PermissionResultDeny, ToolPermissionContext
from langchain_core.messages import AIMessage
from mcp.client.streamable_http import streamable_http_client
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai.models.function import FunctionModel

import ipyask
from ipyask._notebook._one_liners import _default_notebook
from ipyask.integrations import langgraph, openai_agents, pydantic_ai
from ipyask.integrations.claude import can_use_tool
from ipyask.integrations.mcp import serve
from ipyask.testing import ManualClock

from ._agents_fakes import tool_outputs
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


async def test_the_card_says_the_timeout_decided(
    svc: ipyask.UserQuestions, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel = ipyask.QuestionPanel(svc, heartbeat_timeout_ms=1000)
    monkeypatch.setattr(panel, "send", lambda content, buffers=None: None)
    try:
        capability = pydantic_ai.approvals(service=svc, timeout=30)
        await run_out(clock, pydantic_agent(DeletingModel("a.txt"), capability).run("clean up"))
        await asyncio.sleep(0)
        (card,) = panel.cards
        shown = panel.get_card(str(card["key"]))
        assert shown.notice_code == "decided-by-timeout"
        assert shown.notice_params == {"decision": "Reject"}
        (record,) = panel.records
        assert record.startswith("**Decided by the timeout \\(no answer in time\\)**")
    finally:
        panel.close()


# -- OpenAI Agents SDK -------------------------------------------------------------------------


@function_tool(needs_approval=True)
def remove_file(path: str) -> str:
    """Delete a file from the workspace."""
    deleted.append(path)
    return f"deleted {path}"


async def test_openai_agents_rejects_a_call_no_one_answered_in_time(
    svc: ipyask.UserQuestions, clock: ManualClock
) -> None:
    model = ScriptedModel(
        [
            ModelStep(output=[function_call("remove_file", {"path": "a.txt"}, call_id="c0")]),
            ModelStep(output=[assistant_message("done")]),
        ]
    )
    agent = AgentsAgent(name="janitor", model=model, tools=[remove_file])
    result = await run_out(clock, openai_agents.run(agent, "clean up", service=svc, timeout=30))
    assert result.final_output == "done"
    assert deleted == []
    assert tool_outputs(model) == {
        "c0": "Tool execution was not approved. No answer before the timeout: the timeout "
        "decided (on_timeout)."
    }


# -- Claude Agent SDK --------------------------------------------------------------------------


async def test_claude_denies_a_tool_no_one_answered_in_time(
    svc: ipyask.UserQuestions, clock: ManualClock
) -> None:
    callback = can_use_tool(service=svc, timeout=30)
    context = ToolPermissionContext(tool_use_id="toolu_1")
    denied = await run_out(clock, callback("Bash", {"command": "rm -rf build"}, context))
    assert isinstance(denied, PermissionResultDeny)
    assert "No answer before the timeout" in denied.message
    assert denied.interrupt is False


# -- MCP server --------------------------------------------------------------------------------


async def test_mcp_approve_tool_call_rejects_when_no_one_answers_in_time() -> None:
    clock = ManualClock()
    async with ipyask.UserQuestions(clock=clock) as service:
        server = await serve(service=service, progress_every=0.05, approval_timeout=30)
        try:
            headers = {"Authorization": f"Bearer {server.token}"}
            async with (
                httpx2.AsyncClient(headers=headers) as http,
                mcp.Client(streamable_http_client(server.url, http_client=http)) as session,
            ):
                calling = session.call_tool(
                    "approve_tool_call", {"name": "deploy", "arguments": {"env": "prod"}}
                )
                result = await run_out(clock, calling)
        finally:
            await server.aclose()
    assert result.structured_content == {
        "kind": "reject",
        "arguments": {"env": "prod"},
        "message": "No answer before the timeout: the timeout decided (on_timeout).",
    }


async def test_mcp_serve_refuses_a_bad_approval_timeout(svc: ipyask.UserQuestions) -> None:
    with pytest.raises(ValueError, match="needs timeout="):
        await serve(service=svc, on_approval_timeout="reject")


async def test_with_no_service_the_default_service_asks_timed_as_the_cells_agent(
    svc: ipyask.UserQuestions, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_default_notebook, "_service", svc)
    asked: list[ipyask.protocol.AskUserQuestionRequest] = []
    svc.on_request(lambda request, next: asked.append(request) or next())
    capability = pydantic_ai.approvals(timeout=30)
    model = DeletingModel("a.txt")
    result = await run_out(clock, pydantic_agent(model, capability).run("clean up"))
    assert result.output == "done"
    assert deleted == []
    ((request,),) = [asked]
    assert request.agent is not None and request.agent.id == "notebook-cell"
    assert request.wait is not None and request.wait.timed
