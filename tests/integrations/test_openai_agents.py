"""ipyask.integrations.openai_agents against the real OpenAI Agents SDK and its ScriptedModel.

A scripted person answers; each test checks what the run got back (the tool ran or not, what the
model read afterwards).
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

import mcp
import pytest
from agents import Agent, MaxTurnsExceeded, function_tool
from agents.mcp import MCPServer as AgentsMCPServer
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call
from mcp.server.mcpserver import MCPServer

import ipyask
from ipyask.integrations import openai_agents as bridge
from ipyask.testing import AlwaysAllow, AlwaysReject, Approve, Edit, Reject, ScriptedAnswerer

from ._agents_fakes import tool_outputs

deleted: list[str] = []


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file from the workspace."""
    deleted.append(path)
    return f"deleted {path}"


@pytest.fixture(autouse=True)
def _no_files_deleted_yet() -> None:
    deleted.clear()


def step(*paths: str, first: int = 0) -> ModelStep:
    return ModelStep(
        output=[
            function_call("delete_file", {"path": p}, call_id=f"call-{first + i}")
            for i, p in enumerate(paths)
        ]
    )


def done(text: str = "done") -> ModelStep:
    return ModelStep(output=[assistant_message(text)])


def agent(model: ScriptedModel) -> Agent[Any]:
    return Agent(name="janitor", model=model, tools=[delete_file])


async def test_approve_runs_the_tool(svc: ipyask.UserQuestions) -> None:
    model = ScriptedModel([step("a.txt"), done()])
    script = ScriptedAnswerer({"delete_file": Approve()})
    script.register(svc)
    result = await bridge.run(agent(model), "clean up", service=svc)
    assert result.final_output == "done"
    assert result.interruptions == []
    assert deleted == ["a.txt"]
    assert tool_outputs(model) == {"call-0": "deleted a.txt"}


async def test_the_card_shows_the_tool_and_offers_what_the_sdk_supports(
    svc: ipyask.UserQuestions,
) -> None:
    model = ScriptedModel([step("a.txt"), done()])
    script = ScriptedAnswerer({"delete_file": Approve()})
    script.register(svc)
    await bridge.run(agent(model), "clean up", service=svc)
    (question,) = script.requests[0].questions
    intent = question.intent
    assert isinstance(intent, ipyask.protocol.ToolApprovalIntent)
    assert (intent.tool.name, intent.tool.arguments) == ("delete_file", {"path": "a.txt"})
    assert intent.tool.call_id == "call-0"
    assert list(intent.decision_labels()) == ["approve", "always", "reject", "never"]
    assert question.detail == "Delete a file from the workspace."
    assert (intent.tool.input_schema or {})["required"] == ["path"]


async def test_an_edit_is_not_offered(svc: ipyask.UserQuestions) -> None:
    """The SDK cannot run a call with other arguments, so the card has no Edit."""
    model = ScriptedModel([step("a.txt"), done()])
    ScriptedAnswerer({"delete_file": Edit({"path": "b.txt"})}).register(svc)
    with pytest.raises(ipyask.UserQuestionError, match="does not offer edit"):
        await bridge.run(agent(model), "clean up", service=svc)
    assert deleted == []


async def test_always_allow_is_the_sdks_persistent_grant(svc: ipyask.UserQuestions) -> None:
    model = ScriptedModel([step("a.txt"), step("b.txt", first=1), done()])
    script = ScriptedAnswerer({"delete_file": AlwaysAllow()})
    script.register(svc)
    result = await bridge.run(agent(model), "clean up", service=svc)
    assert result.final_output == "done"
    assert deleted == ["a.txt", "b.txt"]
    assert len(script.requests) == 1  # the second call ran on the grant, unasked


async def test_approve_asks_again_next_time(svc: ipyask.UserQuestions) -> None:
    model = ScriptedModel([step("a.txt"), step("b.txt", first=1), done()])
    script = ScriptedAnswerer({"delete_file": Approve()})
    script.register(svc)
    await bridge.run(agent(model), "clean up", service=svc)
    assert len(script.requests) == 2


async def test_reject_with_a_reason_reaches_the_model(svc: ipyask.UserQuestions) -> None:
    model = ScriptedModel([step("a.txt"), done("ok")])
    ScriptedAnswerer({"delete_file": Reject("it is the only copy")}).register(svc)
    result = await bridge.run(agent(model), "clean up", service=svc)
    assert result.final_output == "ok"
    assert deleted == []
    assert tool_outputs(model) == {
        "call-0": "Tool execution was not approved. The user's reason: it is the only copy"
    }


async def test_reject_without_a_reason_gets_the_sdks_default(svc: ipyask.UserQuestions) -> None:
    model = ScriptedModel([step("a.txt"), done("ok")])
    ScriptedAnswerer({"delete_file": Reject()}).register(svc)
    await bridge.run(agent(model), "clean up", service=svc)
    assert tool_outputs(model) == {"call-0": "Tool execution was not approved."}


async def test_several_calls_of_one_turn_are_asked_in_one_batch(
    svc: ipyask.UserQuestions,
) -> None:
    model = ScriptedModel([step("a.txt", "b.txt"), done("ok")])
    script = ScriptedAnswerer({"delete_file": Approve(), "delete_file-2": Reject("not b")})
    script.register(svc)
    await bridge.run(agent(model), "clean up", service=svc)
    (request,) = script.requests
    asked = [q.intent.tool.arguments for q in request.questions]  # type: ignore[union-attr]
    assert asked == [{"path": "a.txt"}, {"path": "b.txt"}]
    assert deleted == ["a.txt"]
    outputs = tool_outputs(model)
    assert outputs["call-0"] == "deleted a.txt"
    assert outputs["call-1"].endswith("The user's reason: not b")


async def test_runner_arguments_and_the_sdks_errors_pass_through(
    svc: ipyask.UserQuestions,
) -> None:
    """``max_turns`` reaches every ``Runner.run``: the resumed run stops with the SDK's error."""
    model = ScriptedModel([step("a.txt"), step("b.txt", first=1), done()])
    ScriptedAnswerer({"delete_file": Approve()}).register(svc)
    with pytest.raises(MaxTurnsExceeded, match="Max turns \\(1\\) exceeded"):
        await bridge.run(agent(model), "clean up", service=svc, max_turns=1)


async def test_a_run_without_approvals_is_runner_run(svc: ipyask.UserQuestions) -> None:
    model = ScriptedModel([done("hello")])
    result = await bridge.run(agent(model), "hi", service=svc)
    assert result.final_output == "hello"
    assert model.calls[0].input == [{"content": "hi", "role": "user"}]


async def test_always_reject_is_the_sdks_persistent_refusal(svc: ipyask.UserQuestions) -> None:
    """``state.reject(item, always_reject=True)``
    (https://openai.github.io/openai-agents-python/human_in_the_loop/): the tool's later calls
    are rejected without a card, with the person's reason."""
    model = ScriptedModel([step("a.txt"), step("b.txt", first=1), done("ok")])
    script = ScriptedAnswerer({"delete_file": AlwaysReject("never delete here")})
    script.register(svc)
    result = await bridge.run(agent(model), "clean up", service=svc)
    assert result.final_output == "ok"
    assert deleted == []
    assert len(script.requests) == 1  # the second call was refused on the decision, unasked
    reason = "Tool execution was not approved. The user's reason: never delete here"
    assert tool_outputs(model)["call-1"] == reason


class InMemoryServer(AgentsMCPServer):
    """The Agents SDK's MCP server interface over the MCP SDK's in-memory client, every tool
    needing approval."""

    def __init__(self, server: MCPServer) -> None:
        super().__init__(require_approval="always")
        self.server = server
        self.stack = AsyncExitStack()
        self.client: mcp.Client | None = None

    @property
    def name(self) -> str:
        return "archive"

    async def connect(self) -> None:
        self.client = await self.stack.enter_async_context(mcp.Client(self.server))

    async def cleanup(self) -> None:
        await self.stack.aclose()

    def connected(self) -> mcp.Client:
        assert self.client is not None
        return self.client

    async def list_tools(self, run_context: Any = None, agent: Any = None) -> list[Any]:
        return list((await self.connected().list_tools()).tools)

    async def call_tool(
        self, tool_name: str, arguments: dict[str, Any] | None, meta: dict[str, Any] | None = None
    ) -> Any:
        return await self.connected().call_tool(tool_name, arguments or {})

    async def list_prompts(self) -> Any:
        return await self.connected().list_prompts()

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        return await self.connected().get_prompt(name, arguments)


def archive_server() -> MCPServer:
    server = MCPServer("archive")

    @server.tool()
    def archive_file(path: str, days: int = 30) -> str:
        """Move a file to the archive for some days."""
        return f"archived {path} for {days} days"

    return server


async def test_a_tool_from_an_mcp_server_shows_its_description_and_schema(
    svc: ipyask.UserQuestions,
) -> None:
    """Tools of ``Agent(mcp_servers=[...])`` with ``require_approval``
    (https://openai.github.io/openai-agents-python/mcp/) are listed by the SDK only during a
    run; their card still shows the MCP tool's description and argument schema."""
    model = ScriptedModel(
        [ModelStep(output=[function_call("archive_file", {"path": "a.txt"}, call_id="c")]), done()]
    )
    script = ScriptedAnswerer({"archive_file": Approve()})
    script.register(svc)
    server = InMemoryServer(archive_server())
    await server.connect()
    try:
        archivist = Agent(name="archivist", model=model, mcp_servers=[server])
        result = await bridge.run(archivist, "archive a.txt", service=svc)
    finally:
        await server.cleanup()
    assert result.final_output == "done"
    assert "archived a.txt for 30 days" in str(tool_outputs(model)["c"])
    (question,) = script.requests[0].questions
    assert question.detail == "Move a file to the archive for some days."
    assert isinstance(question.intent, ipyask.protocol.ToolApprovalIntent)
    schema = question.intent.tool.input_schema
    assert schema is not None
    assert schema["properties"]["path"]["type"] == "string"
    assert schema["required"] == ["path"]
