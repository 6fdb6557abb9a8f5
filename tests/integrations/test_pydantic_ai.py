"""ipyask.integrations.pydantic_ai against the real pydantic-ai, with its FunctionModel.

A scripted person answers; each test checks what the run got back (the tool ran or not, with
which arguments, what the model read afterwards).
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ToolApproved, ToolDenied
from pydantic_ai.capabilities import HandleDeferredToolCalls
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

import ipyask
from ipyask.integrations import pydantic_ai as bridge
from ipyask.testing import AlwaysAllow, Approve, Edit, Reject, Respond, ScriptedAnswerer

deleted: list[str] = []


class Model:
    """A FunctionModel that calls ``delete_file`` once per path, then answers ``done``; it keeps
    the tool returns it read."""

    def __init__(self, *paths: str) -> None:
        self.paths = paths
        self.returns: list[ToolReturnPart] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(
                parts=[
                    ToolCallPart("delete_file", {"path": p}, tool_call_id=f"call-{i}")
                    for i, p in enumerate(self.paths)
                ]
            )
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        self.returns = [part for part in last.parts if isinstance(part, ToolReturnPart)]
        return ModelResponse(parts=[TextPart("done")])


def agent(model: Model, *, capabilities: list[Any], output_type: Any = str) -> Agent[None, Any]:
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


def returned(model: Model) -> dict[str, tuple[str, str | None]]:
    """``{call id: (content, outcome)}`` of what the model read back."""
    return {
        part.tool_call_id: (str(part.content), getattr(part, "outcome", None))
        for part in model.returns
    }


async def test_approve_runs_the_tool(svc: ipyask.UserQuestions) -> None:
    model = Model("a.txt")
    script = ScriptedAnswerer({"delete_file": Approve()})
    script.register(svc)
    result = await agent(model, capabilities=[bridge.approvals(service=svc)]).run("clean up")
    assert result.output == "done"
    assert deleted == ["a.txt"]
    (question,) = script.requests[0].questions
    intent = question.intent
    assert isinstance(intent, ipyask.ToolApprovalIntent)
    assert (intent.tool.name, intent.tool.arguments) == ("delete_file", {"path": "a.txt"})
    assert intent.tool.call_id == "call-0"
    assert list(intent.decision_labels()) == ["approve", "edit", "reject"]


async def test_edit_runs_the_tool_with_override_args(svc: ipyask.UserQuestions) -> None:
    model = Model("a.txt")
    ScriptedAnswerer({"delete_file": Edit({"path": "b.txt", "force": True})}).register(svc)
    await agent(model, capabilities=[bridge.approvals(service=svc)]).run("clean up")
    assert deleted == ["b.txt"]
    assert returned(model)["call-0"][0] == "deleted b.txt"


async def test_reject_with_a_reason_reaches_the_model(svc: ipyask.UserQuestions) -> None:
    model = Model("a.txt")
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
    model = Model("a.txt")
    ScriptedAnswerer({"delete_file": Reject()}).register(svc)
    await agent(model, capabilities=[bridge.approvals(service=svc)]).run("clean up")
    assert returned(model) == {"call-0": ("The tool call was denied.", "denied")}


@pytest.mark.parametrize("reply", [Respond("gone already"), AlwaysAllow()], ids=repr)
async def test_decisions_pydantic_ai_has_no_answer_for_are_not_offered(
    svc: ipyask.UserQuestions, reply: Any
) -> None:
    ScriptedAnswerer({"delete_file": reply}).register(svc)
    made = agent(Model("a.txt"), capabilities=[bridge.approvals(service=svc)])
    with pytest.raises(ipyask.UserQuestionError, match="does not offer"):
        await made.run("clean up")
    assert deleted == []


async def test_several_calls_of_one_turn_are_asked_in_one_batch(
    svc: ipyask.UserQuestions,
) -> None:
    model = Model("a.txt", "b.txt")
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
    model = Model("a.txt", "b.txt")
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
    """An approved call the tool cannot take (an unknown argument) is pydantic-ai's error."""
    ScriptedAnswerer({"delete_file": Edit({"path": "a.txt", "color": "red"})}).register(svc)

    def retries(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart("delete_file", {"path": "a.txt"})])

    made: Agent[None, str] = Agent(
        FunctionModel(retries), capabilities=[bridge.approvals(service=svc)], retries=0
    )

    @made.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        return path

    with pytest.raises(UnexpectedModelBehavior, match="exceeded max retries"):
        await made.run("clean up")
