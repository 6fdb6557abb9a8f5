"""ipyask.integrations.langgraph against the real LangGraph and LangChain, with a fake chat model.

A scripted person answers; each test checks what the graph got back (the tool ran or not, with
which arguments, what the model read afterwards).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Annotated, Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Send, interrupt
from pydantic import Field
from typing_extensions import TypedDict

import ipyask
from ipyask.integrations import langgraph as bridge
from ipyask.testing import Approve, Edit, Other, Reject, Respond, ScriptedAnswerer


class ToolCallingFake(FakeMessagesListChatModel):
    """Answers with ``responses`` in turn and keeps the messages of every call."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ToolCallingFake:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


deleted: list[str] = []


@tool
def delete_file(path: str, force: bool = False) -> str:
    """Delete a file."""
    deleted.append(path)
    return f"deleted {path}"


@pytest.fixture(autouse=True)
def _no_files_deleted_yet() -> None:
    deleted.clear()


def calls(*paths: str) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[
            {"name": "delete_file", "args": {"path": p}, "id": f"call-{i}"}
            for i, p in enumerate(paths)
        ],
    )


def agent(
    model: ToolCallingFake,
    allowed: list[str] | None = None,
    mode: str = "batched",
) -> Any:
    decisions = allowed or ["approve", "edit", "reject", "respond"]
    middleware = HumanInTheLoopMiddleware(
        interrupt_on={"delete_file": {"allowed_decisions": decisions}},  # type: ignore[typeddict-item]
        interrupt_mode=mode,  # type: ignore[arg-type]
    )
    return create_agent(
        model, tools=[delete_file], middleware=[middleware], checkpointer=InMemorySaver()
    )


CONFIG = {"configurable": {"thread_id": "t"}}
START_INPUT = {"messages": [("user", "clean up")]}


def tool_messages(model: ToolCallingFake) -> list[ToolMessage]:
    return [m for m in model.seen[-1] if isinstance(m, ToolMessage)]


@pytest.mark.parametrize("mode", ["batched", "per_call"])
async def test_approve_runs_the_tool(svc: ipyask.UserQuestions, mode: str) -> None:
    model = ToolCallingFake(responses=[calls("a.txt"), AIMessage(content="done")])
    script = ScriptedAnswerer({"delete_file": Approve()})
    script.register(svc)
    result = await bridge.run(agent(model, mode=mode), START_INPUT, CONFIG, service=svc)
    assert result["messages"][-1].content == "done"
    assert "__interrupt__" not in result
    assert deleted == ["a.txt"]
    (question,) = script.requests[0].questions
    intent = question.intent
    assert isinstance(intent, ipyask.ToolApprovalIntent)
    assert (intent.tool.name, intent.tool.arguments) == ("delete_file", {"path": "a.txt"})
    assert list(intent.decision_labels()) == ["approve", "edit", "reject", "respond"]
    assert "Tool: delete_file" in (question.detail or "")  # the middleware's description


@pytest.mark.parametrize("mode", ["batched", "per_call"])
async def test_edit_runs_the_tool_with_the_edited_arguments(
    svc: ipyask.UserQuestions, mode: str
) -> None:
    model = ToolCallingFake(responses=[calls("a.txt"), AIMessage(content="done")])
    ScriptedAnswerer({"delete_file": Edit({"path": "b.txt", "force": True})}).register(svc)
    await bridge.run(agent(model, mode=mode), START_INPUT, CONFIG, service=svc)
    assert deleted == ["b.txt"]
    (result,) = tool_messages(model)
    assert "deleted b.txt" in str(result.content)
    assert '"path": "b.txt"' in str(result.content)  # LangChain's notice of the edit


async def test_per_call_cards_take_the_tool_schema_and_decisions_from_the_interrupt(
    svc: ipyask.UserQuestions,
) -> None:
    model = ToolCallingFake(responses=[calls("a.txt"), AIMessage(content="done")])
    script = ScriptedAnswerer({"delete_file": Approve()})
    script.register(svc)
    graph = agent(model, allowed=["approve", "edit"], mode="per_call")
    await bridge.run(graph, START_INPUT, CONFIG, service=svc)
    intent = script.requests[0].questions[0].intent
    assert isinstance(intent, ipyask.ToolApprovalIntent)
    assert list(intent.decision_labels()) == ["approve", "edit"]
    assert intent.tool.call_id == "call-0"
    schema = intent.tool.input_schema or {}
    assert schema["required"] == ["path"]
    assert set(schema["properties"]) == {"path", "force"}


async def test_an_edit_outside_the_tool_schema_is_refused_before_the_graph_sees_it(
    svc: ipyask.UserQuestions,
) -> None:
    """A forged answer (no scripted person would send it): the bridge reads every decision with
    ``ipyask.tool_decision``, which checks it against the card."""

    def forged(request: ipyask.AskUserQuestionRequest, next: ipyask.Next) -> dict[str, Any]:
        edit = {"id": "delete_file", "selected": ["Edit"], "custom": '{"path": 3}'}
        return {"answers": [edit]}

    svc.on_request(forged)
    model = ToolCallingFake(responses=[calls("a.txt"), AIMessage(content="done")])
    with pytest.raises(ipyask.BadAnswerError) as caught:
        await bridge.run(agent(model, mode="per_call"), START_INPUT, CONFIG, service=svc)
    assert "path" in caught.value.field_errors
    assert deleted == []


@pytest.mark.parametrize("mode", ["batched", "per_call"])
async def test_reject_with_a_reason_reaches_the_model(svc: ipyask.UserQuestions, mode: str) -> None:
    model = ToolCallingFake(responses=[calls("a.txt"), AIMessage(content="ok")])
    ScriptedAnswerer({"delete_file": Reject("keep it, it is the only copy")}).register(svc)
    await bridge.run(agent(model, mode=mode), START_INPUT, CONFIG, service=svc)
    assert deleted == []
    (result,) = tool_messages(model)
    assert result.status == "error"
    assert "keep it, it is the only copy" in str(result.content)
    assert str(result.content).startswith("User rejected the tool call for `delete_file`")


async def test_reject_without_a_reason_gets_langchains_default(svc: ipyask.UserQuestions) -> None:
    model = ToolCallingFake(responses=[calls("a.txt"), AIMessage(content="ok")])
    ScriptedAnswerer({"delete_file": Reject()}).register(svc)
    await bridge.run(agent(model), START_INPUT, CONFIG, service=svc)
    (result,) = tool_messages(model)
    assert "The tool was not executed" in str(result.content)


@pytest.mark.parametrize("mode", ["batched", "per_call"])
async def test_respond_answers_for_the_tool(svc: ipyask.UserQuestions, mode: str) -> None:
    model = ToolCallingFake(responses=[calls("a.txt"), AIMessage(content="ok")])
    ScriptedAnswerer({"delete_file": Respond("a.txt is already gone")}).register(svc)
    await bridge.run(agent(model, mode=mode), START_INPUT, CONFIG, service=svc)
    assert deleted == []
    (result,) = tool_messages(model)
    assert (result.content, result.status) == ("a.txt is already gone", "success")


async def test_a_decision_the_action_does_not_allow_is_not_offered(
    svc: ipyask.UserQuestions,
) -> None:
    model = ToolCallingFake(responses=[calls("a.txt"), AIMessage(content="ok")])
    ScriptedAnswerer({"delete_file": Respond("no")}).register(svc)
    graph = agent(model, allowed=["approve", "reject"])
    with pytest.raises(ipyask.UserQuestionError, match="does not offer respond"):
        await bridge.run(graph, START_INPUT, CONFIG, service=svc)
    assert deleted == []


@pytest.mark.parametrize("mode", ["batched", "per_call"])
async def test_several_tool_calls_are_asked_in_one_batch(
    svc: ipyask.UserQuestions, mode: str
) -> None:
    """Batched: one interrupt with two actions; per call: two interrupts pending at once."""
    model = ToolCallingFake(responses=[calls("a.txt", "b.txt"), AIMessage(content="ok")])
    script = ScriptedAnswerer(
        {"delete_file": Approve(), "delete_file-2": Reject("not b"), "Run delete_file?": Approve()}
    )
    script.register(svc)
    await bridge.run(agent(model, mode=mode), START_INPUT, CONFIG, service=svc)
    assert len(script.requests) == 1
    asked = script.requests[0].questions
    assert [q.id for q in asked] == ["delete_file", "delete_file-2"]
    assert deleted == ["a.txt"]
    contents = {m.tool_call_id: str(m.content) for m in tool_messages(model)}
    assert contents["call-0"] == "deleted a.txt"
    assert "not b" in contents["call-1"]


# -- plain graphs: ipyask requests and other values ----------------------------------------------


class Fanout(TypedDict):
    topics: list[str]
    picked: Annotated[list[str], operator.add]


def fanout_graph() -> Any:
    """Each topic goes to its own branch (``Send``), which asks with the same question id."""

    def pick(state: dict[str, str]) -> dict[str, list[str]]:
        topic = state["topic"]
        answer = interrupt(
            {
                "questions": [
                    {
                        "id": "choice",
                        "question": f"Which {topic}?",
                        "options": [{"label": f"{topic} A"}, {"label": f"{topic} B"}],
                    }
                ]
            }
        )
        (item,) = answer["answers"]
        return {"picked": [f"{item['id']}={item['selected'][0]}"]}

    builder = StateGraph(Fanout)
    builder.add_node("pick", pick)
    builder.add_conditional_edges(
        START, lambda s: [Send("pick", {"topic": t}) for t in s["topics"]], ["pick"]
    )
    return builder.compile(checkpointer=InMemorySaver())


async def test_parallel_ipyask_requests_with_colliding_ids_get_their_own_answers(
    svc: ipyask.UserQuestions,
) -> None:
    script = ScriptedAnswerer({"Which database?": "database B", "Which cache?": "cache A"})
    script.register(svc)
    result = await bridge.run(
        fanout_graph(), {"topics": ["database", "cache"], "picked": []}, CONFIG, service=svc
    )
    assert sorted(result["picked"]) == ["choice=cache A", "choice=database B"]
    (request,) = script.requests
    assert sorted(q.id for q in request.questions) == ["choice", "choice-2"]


class Note(TypedDict):
    asked: Any
    reply: str


def value_graph(value: Any) -> Any:
    def ask(state: Note) -> dict[str, str]:
        return {"reply": interrupt(state["asked"])}

    builder = StateGraph(Note)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    return builder.compile(checkpointer=InMemorySaver())


async def test_a_string_interrupt_is_asked_as_a_free_text_question(
    svc: ipyask.UserQuestions,
) -> None:
    script = ScriptedAnswerer({"What is the project called?": Other("ipyask")})
    script.register(svc)
    graph = value_graph(None)
    result = await bridge.run(graph, {"asked": "What is the project called?"}, CONFIG, service=svc)
    assert result["reply"] == "ipyask"
    assert script.requests[0].questions[0].options is None


async def test_any_other_value_is_shown_as_json_and_answered_with_text(
    svc: ipyask.UserQuestions,
) -> None:
    script = ScriptedAnswerer({"answer": Other("ship it")})
    script.register(svc)
    asked = {"draft": "release notes", "lines": 3}
    result = await bridge.run(value_graph(None), {"asked": asked}, CONFIG, service=svc)
    assert result["reply"] == "ship it"
    detail = script.requests[0].questions[0].detail or ""
    assert detail.startswith("```json\n") and '"draft": "release notes"' in detail


async def test_a_graph_without_interrupts_returns_what_ainvoke_returns(
    svc: ipyask.UserQuestions,
) -> None:
    model = ToolCallingFake(responses=[AIMessage(content="nothing to do")])
    result = await bridge.run(agent(model), START_INPUT, CONFIG, service=svc)
    direct = await agent(ToolCallingFake(responses=[AIMessage(content="nothing to do")])).ainvoke(
        START_INPUT, CONFIG
    )
    assert [m.content for m in result["messages"]] == [m.content for m in direct["messages"]]


async def test_the_frameworks_own_error_surfaces_unchanged(svc: ipyask.UserQuestions) -> None:
    """A graph compiled without a checkpointer stops at its interrupt but cannot be resumed."""
    ScriptedAnswerer({"Name?": Other("Ada")}).register(svc)
    builder = StateGraph(Note)
    builder.add_node("ask", lambda state: {"reply": interrupt("Name?")})
    builder.add_edge(START, "ask")
    graph = builder.compile()
    with pytest.raises(RuntimeError) as caught:
        await bridge.run(graph, {"asked": None}, CONFIG, service=svc)
    assert type(caught.value) is RuntimeError
    assert str(caught.value) == "Cannot use Command(resume=...) without checkpointer"


class Pair(TypedDict):
    approved: str
    named: str


async def test_an_approval_request_is_asked_alone_beside_the_batch(
    svc: ipyask.UserQuestions,
) -> None:
    """The specification asks an ``approval`` question alone; the other interrupt still goes out
    at the same time, in its own request."""
    approval = {
        "id": "deploy",
        "question": "Deploy now?",
        "detail": "",
        "options": [{"label": "Reject"}, {"label": "Approve"}],
        "intent": {"kind": "approval", "approve": "Approve", "reject": "Reject"},
    }

    def approve(state: Pair) -> dict[str, str]:
        answer = interrupt({"questions": [approval]})
        return {"approved": answer["answers"][0]["selected"][0]}

    def name(state: Pair) -> dict[str, str]:
        return {"named": interrupt("Release name?")}

    builder = StateGraph(Pair)
    builder.add_node("approve", approve)
    builder.add_node("name", name)
    builder.add_edge(START, "approve")
    builder.add_edge(START, "name")
    graph = builder.compile(checkpointer=InMemorySaver())
    script = ScriptedAnswerer({"deploy": "Approve", "Release name?": Other("1.0")})
    script.register(svc)
    result = await bridge.run(graph, {"approved": "", "named": ""}, CONFIG, service=svc)
    assert (result["approved"], result["named"]) == ("Approve", "1.0")
    assert sorted(len(r.questions) for r in script.requests) == [1, 1]
