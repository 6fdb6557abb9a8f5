"""ipyask.integrations.pydantic_ai against the real pydantic-ai, with its FunctionModel.

A scripted person answers; each test checks what the run got back (the tool ran or not, with
which arguments, what the model read afterwards).
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ToolApproved, ToolDenied
from pydantic_ai.capabilities import HandleDeferredToolCalls
from pydantic_ai.exceptions import ApprovalRequired, ModelRetry, UnexpectedModelBehavior
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import RunContext

import ipyask
import ipyask.host
from ipyask.integrations import pydantic_ai as bridge
from ipyask.testing import AlwaysAllow, Approve, Edit, Reject, Respond, ScriptedAnswerer

from ._pydantic_fakes import DeletingModel

deleted: list[str] = []


def agent(
    model: DeletingModel, *, capabilities: list[Any], output_type: Any = str
) -> Agent[None, Any]:
    made: Agent[None, Any] = Agent(
        FunctionModel(model), capabilities=capabilities, output_type=output_type
    )

    @made.tool_plain(requires_approval=True)
    def delete_file(path: str, force: bool = False) -> str:
        """Delete a file."""
        deleted.append(path)
        return f"deleted {path}"

    return made


@pytest.fixture(autouse=True)
def _no_files_deleted_yet() -> None:
    deleted.clear()


def returned(model: DeletingModel) -> dict[str, tuple[str, str | None]]:
    """``{call id: (content, outcome)}`` of what the model read back."""
    return {
        part.tool_call_id: (str(part.content), getattr(part, "outcome", None))
        for part in model.returns
    }


async def test_approve_runs_the_tool(svc: ipyask.UserQuestions) -> None:
    model = DeletingModel("a.txt")
    script = ScriptedAnswerer({"delete_file": Approve()})
    script.register(svc)
    result = await agent(model, capabilities=[bridge.approvals(service=svc)]).run("clean up")
    assert result.output == "done"
    assert deleted == ["a.txt"]
    (question,) = script.requests[0].questions
    intent = question.intent
    assert isinstance(intent, ipyask.protocol.ToolApprovalIntent)
    assert (intent.tool.name, intent.tool.arguments) == ("delete_file", {"path": "a.txt"})
    assert intent.tool.call_id == "call-0"
    assert list(intent.decision_labels()) == ["approve", "edit", "reject"]


async def test_edit_runs_the_tool_with_override_args(svc: ipyask.UserQuestions) -> None:
    model = DeletingModel("a.txt")
    ScriptedAnswerer({"delete_file": Edit({"path": "b.txt", "force": True})}).register(svc)
    await agent(model, capabilities=[bridge.approvals(service=svc)]).run("clean up")
    assert deleted == ["b.txt"]
    assert returned(model)["call-0"][0] == "deleted b.txt"


async def test_reject_with_a_reason_reaches_the_model(svc: ipyask.UserQuestions) -> None:
    model = DeletingModel("a.txt")
    ScriptedAnswerer({"delete_file": Reject("it is the only copy")}).register(svc)
    result = await agent(model, capabilities=[bridge.approvals(service=svc)]).run("clean up")
    assert result.output == "done"
    assert deleted == []
    assert returned(model) == {
        "call-0": ("The tool call was denied. The user's reason: it is the only copy", "denied")
    }


async def test_reject_without_a_reason_gets_pydantic_ais_default(
    svc: ipyask.UserQuestions,
) -> None:
    model = DeletingModel("a.txt")
    ScriptedAnswerer({"delete_file": Reject()}).register(svc)
    await agent(model, capabilities=[bridge.approvals(service=svc)]).run("clean up")
    assert returned(model) == {"call-0": ("The tool call was denied.", "denied")}


@pytest.mark.parametrize("reply", [Respond("gone already"), AlwaysAllow()], ids=repr)
async def test_decisions_pydantic_ai_has_no_answer_for_are_not_offered(
    svc: ipyask.UserQuestions, reply: Any
) -> None:
    ScriptedAnswerer({"delete_file": reply}).register(svc)
    made = agent(DeletingModel("a.txt"), capabilities=[bridge.approvals(service=svc)])
    with pytest.raises(ipyask.UserQuestionError, match="does not offer"):
        await made.run("clean up")
    assert deleted == []


async def test_several_calls_of_one_turn_are_asked_in_one_batch(
    svc: ipyask.UserQuestions,
) -> None:
    model = DeletingModel("a.txt", "b.txt")
    script = ScriptedAnswerer({"delete_file": Approve(), "delete_file-2": Reject("not b")})
    script.register(svc)
    await agent(model, capabilities=[bridge.approvals(service=svc)]).run("clean up")
    (request,) = script.requests
    assert [q.id for q in request.questions] == ["delete_file", "delete_file-2"]
    assert deleted == ["a.txt"]
    assert returned(model)["call-0"] == ("deleted a.txt", "success")
    assert returned(model)["call-1"][0].endswith("The user's reason: not b")


async def test_resolve_answers_a_run_that_ended_with_deferred_requests(
    svc: ipyask.UserQuestions,
) -> None:
    model = DeletingModel("a.txt", "b.txt")
    made = agent(model, capabilities=[], output_type=[str, DeferredToolRequests])
    first = await made.run("clean up")
    assert isinstance(first.output, DeferredToolRequests)
    ScriptedAnswerer({"delete_file": Edit({"path": "c.txt"}), "delete_file-2": Reject()}).register(
        svc
    )
    results = await bridge.resolve(first.output, service=svc)
    assert results == DeferredToolResults(
        approvals={"call-0": ToolApproved(override_args={"path": "c.txt"}), "call-1": ToolDenied()}
    )
    second = await made.run(message_history=first.all_messages(), deferred_tool_results=results)
    assert second.output == "done"
    assert deleted == ["c.txt"]


async def test_requests_without_approvals_ask_nothing(svc: ipyask.UserQuestions) -> None:
    assert await bridge.resolve(DeferredToolRequests(), service=svc) == DeferredToolResults()


async def test_the_capability_leaves_external_calls_to_their_code(
    svc: ipyask.UserQuestions,
) -> None:
    """Only approvals are asked: a run whose deferred calls are all external ends as usual."""
    handler = bridge.approvals(service=svc).handler
    requests = DeferredToolRequests(calls=[ToolCallPart("fetch", {}, tool_call_id="x")])
    assert await handler(None, requests) is None
    assert isinstance(bridge.approvals(), HandleDeferredToolCalls)


async def test_the_frameworks_own_error_surfaces_unchanged(svc: ipyask.UserQuestions) -> None:
    """An approved call the tool refuses (``ModelRetry``, no retries left) is pydantic-ai's
    error."""
    ScriptedAnswerer({"delete_file": Edit({"path": "b.txt"})}).register(svc)

    def retries(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart("delete_file", {"path": "a.txt"})])

    made: Agent[None, str] = Agent(
        FunctionModel(retries), capabilities=[bridge.approvals(service=svc)], retries=0
    )

    @made.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        raise ModelRetry(f"{path} is locked")

    with pytest.raises(UnexpectedModelBehavior, match="exceeded max retries"):
        await made.run("clean up")


# -- the tool's description, argument schema and approval metadata on the card ----------------

dropped: list[str] = []


def drop_table_agent(
    capabilities: list[Any], *, output_type: Any = str
) -> tuple[Agent[None, Any], list[ToolReturnPart]]:
    """An agent whose model calls ``drop_table(table="users")`` once, then answers ``done``;
    the tool asks for approval with metadata (``ApprovalRequired``). Returns the agent and the
    tool returns the model read."""
    read: list[ToolReturnPart] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(
                parts=[ToolCallPart("drop_table", {"table": "users"}, tool_call_id="call-0")]
            )
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        read.extend(part for part in last.parts if isinstance(part, ToolReturnPart))
        return ModelResponse(parts=[TextPart("done")])

    made: Agent[None, Any] = Agent(
        FunctionModel(model), capabilities=capabilities, output_type=output_type
    )

    @made.tool
    def drop_table(ctx: RunContext[None], table: str) -> str:
        """Drop a table from the production database."""
        if not ctx.tool_call_approved:
            raise ApprovalRequired(metadata={"rows": 1200, "owner": "billing *team*"})
        dropped.append(table)
        return f"dropped {table}"

    return made, read


@pytest.fixture(autouse=True)
def _no_table_dropped_yet() -> None:
    dropped.clear()


async def test_an_edit_outside_the_tools_schema_is_refused_on_the_card(
    svc: ipyask.UserQuestions,
) -> None:
    """pydantic-ai knows each tool's definition (description, argument JSON schema) and lets a
    tool ask for approval with metadata (https://ai.pydantic.dev/deferred-tools/#human-in-the-
    loop-tool-approval): the card shows both and refuses an Edit the schema does not allow."""
    script = ScriptedAnswerer({"drop_table": Edit({"table": 5})})
    script.register(svc)
    made, _ = drop_table_agent([bridge.approvals(service=svc)])
    with pytest.raises(ipyask.UserQuestionError, match="table: "):
        await made.run("tidy up")
    assert dropped == []
    (question,) = script.requests[0].questions
    intent = question.intent
    assert isinstance(intent, ipyask.protocol.ToolApprovalIntent)
    schema = intent.tool.input_schema
    assert schema is not None
    assert schema["properties"]["table"]["type"] == "string"
    assert question.detail is not None
    assert question.detail.startswith("Drop a table from the production database.")
    assert "**rows**: ` 1200 `" in question.detail
    assert r"**owner**: billing \*team\*" in question.detail  # shown as written, not as markup
    edit = ipyask.host.tool_answer_item(question, "edit", arguments={"table": 5})
    assert set(ipyask.host.answer_errors(question, edit)) == {"table"}


async def test_an_edit_outside_the_schema_from_any_client_never_reaches_the_tool(
    svc: ipyask.UserQuestions,
) -> None:
    """The kernel checks the edit again, whoever answered: a client that skips the card's check
    (https://ai.pydantic.dev/deferred-tools/) gets the refusal; the tool does not run."""

    async def careless(
        request: ipyask.protocol.AskUserQuestionRequest, next: ipyask.host.Next
    ) -> Any:
        (question,) = request.questions
        answer = {"id": question.id, "selected": ["Edit"], "custom": '{"table": 5}'}
        return {"answers": [answer]}

    svc.on_request(careless)
    made, _ = drop_table_agent([bridge.approvals(service=svc)])
    with pytest.raises(ipyask.errors.BadAnswerError, match="table"):
        await made.run("tidy up")
    assert dropped == []


async def test_resolve_describes_the_tools_of_the_agent_it_is_given(
    svc: ipyask.UserQuestions,
) -> None:
    """The run-ends flow (https://ai.pydantic.dev/deferred-tools/): ``resolve(output,
    tools=agent)`` shows the agent's tool definitions and the requests' metadata."""
    made, _ = drop_table_agent([], output_type=[str, DeferredToolRequests])
    first = await made.run("tidy up")
    assert isinstance(first.output, DeferredToolRequests)
    script = ScriptedAnswerer({"drop_table": Approve()})
    script.register(svc)
    results = await bridge.resolve(first.output, service=svc, tools=made)
    assert results == DeferredToolResults(approvals={"call-0": True})
    (question,) = script.requests[0].questions
    assert question.detail is not None
    assert "Drop a table" in question.detail
    assert "**rows**" in question.detail
    assert isinstance(question.intent, ipyask.protocol.ToolApprovalIntent)
    assert question.intent.tool.input_schema is not None
    second = await made.run(message_history=first.all_messages(), deferred_tool_results=results)
    assert second.output == "done"
    assert dropped == ["users"]
