"""ipyask.integrations.langgraph against the real LangGraph and LangChain, with a fake chat model.

A scripted person answers; each test checks what the graph got back (the tool ran or not, with
which arguments, what the model read afterwards).
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Sequence
from typing import Annotated, Any, Literal

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.prebuilt.interrupt import ActionRequest, HumanInterrupt, HumanInterruptConfig
from langgraph.types import Command, Send, interrupt
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

import ipyask
from ipyask.integrations import langgraph as bridge
from ipyask.integrations._langgraph_cards import inbox_card
from ipyask.testing import SKIP, Approve, Edit, Other, Reject, Respond, ScriptedAnswerer


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
    assert isinstance(intent, ipyask.protocol.ToolApprovalIntent)
    assert (intent.tool.name, intent.tool.arguments) == ("delete_file", {"path": "a.txt"})
    assert list(intent.decision_labels()) == ["approve", "edit", "reject", "respond"]
    # the middleware's description, without its Python repr of the arguments the card shows
    assert question.detail == "Tool execution requires approval"


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
    assert isinstance(intent, ipyask.protocol.ToolApprovalIntent)
    assert list(intent.decision_labels()) == ["approve", "edit"]
    assert intent.tool.call_id == "call-0"
    schema = intent.tool.input_schema or {}
    assert schema["required"] == ["path"]
    assert set(schema["properties"]) == {"path", "force"}


@pytest.mark.parametrize("mode", ["batched", "per_call"])
async def test_an_edit_outside_the_tool_schema_is_refused_before_the_graph_sees_it(
    svc: ipyask.UserQuestions, mode: str
) -> None:
    """A forged answer (no scripted person would send it): the bridge reads every decision with
    ``ipyask.host.tool_decision``, which checks it against the card. Batched requests carry no
    schema: the card takes it from the graph's tool node."""

    def forged(
        request: ipyask.protocol.AskUserQuestionRequest, next: ipyask.host.Next
    ) -> dict[str, Any]:
        edit = {"id": "delete_file", "selected": ["Edit"], "custom": '{"path": 3}'}
        return {"answers": [edit]}

    svc.on_request(forged)
    model = ToolCallingFake(responses=[calls("a.txt"), AIMessage(content="done")])
    with pytest.raises(ipyask.errors.BadAnswerError) as caught:
        await bridge.run(agent(model, mode=mode), START_INPUT, CONFIG, service=svc)
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


async def test_a_string_interrupt_is_the_question_and_a_typed_reply_its_text(
    svc: ipyask.UserQuestions,
) -> None:
    script = ScriptedAnswerer({"What is the project called?": Other("ipyask")})
    script.register(svc)
    graph = value_graph(None)
    result = await bridge.run(graph, {"asked": "What is the project called?"}, CONFIG, service=svc)
    assert result["reply"] == "ipyask"
    (question,) = script.requests[0].questions
    assert [(o.label, o.description) for o in question.options or []] == [
        ("Yes", "The graph resumes with True"),
        ("No", "The graph resumes with False"),
    ]
    assert "A typed reply: the graph resumes with your text" in (question.detail or "")


async def test_a_value_without_a_question_field_is_shown_field_by_field(
    svc: ipyask.UserQuestions,
) -> None:
    script = ScriptedAnswerer({"answer": Other("ship it")})
    script.register(svc)
    asked = {"draft": "release notes", "lines": 3}
    result = await bridge.run(value_graph(None), {"asked": asked}, CONFIG, service=svc)
    assert result["reply"] == "ship it"
    detail = script.requests[0].questions[0].detail or ""
    assert detail.startswith("**draft**: release notes\n\n**lines**:\n\n```json\n3\n```")


@pytest.mark.parametrize(("reply", "resumed"), [(SKIP, None), (Other(" YES "), True)])
async def test_a_skip_resumes_with_none_and_typed_yes_is_true(
    svc: ipyask.UserQuestions, reply: Any, resumed: Any
) -> None:
    ScriptedAnswerer({"Go?": reply}).register(svc)
    result = await bridge.run(value_graph(None), {"asked": "Go?"}, CONFIG, service=svc)
    assert result["reply"] is resumed


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
    with pytest.raises(RuntimeError) as streamed:  # the stream's interrupt is asked, then refused
        async for _ in bridge.stream(graph, {"asked": None}, CONFIG, service=svc):
            pass
    assert str(streamed.value) == "Cannot use Command(resume=...) without checkpointer"


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


# -- LangGraph's documented interrupt shapes, as the docs write them ----------------------------


class Action(TypedDict):
    action_details: str
    status: str | None


transfers: list[str] = []


def approval_graph() -> Any:
    """The "Approve or reject" full example of the interrupts page: the graph routes on the truth
    of the resume value."""

    def approval(state: Action) -> Command[Literal["proceed", "cancel"]]:
        is_approved = interrupt(
            {
                "question": "Do you want to proceed with this action?",
                "details": state["action_details"],
            }
        )
        return Command(goto="proceed" if is_approved else "cancel")

    def proceed(state: Action) -> dict[str, str]:
        transfers.append(state["action_details"])
        return {"status": "approved"}

    builder = StateGraph(Action)
    builder.add_node("approval", approval)
    builder.add_node("proceed", proceed)
    builder.add_node("cancel", lambda state: {"status": "rejected"})
    builder.add_edge(START, "approval")
    builder.add_edge("proceed", END)
    builder.add_edge("cancel", END)
    return builder.compile(checkpointer=InMemorySaver())


@pytest.fixture(autouse=True)
def _no_transfers_yet() -> None:
    transfers.clear()


@pytest.mark.parametrize(
    ("reply", "status"),
    [("No", "rejected"), (Other("no"), "rejected"), ("Yes", "approved")],
    ids=["no-button", "typed-no", "yes-button"],
)
async def test_the_approval_gate_resumes_with_true_or_false(
    svc: ipyask.UserQuestions, reply: Any, status: str
) -> None:
    """https://docs.langchain.com/oss/python/langgraph/interrupts#approve-or-reject: "pass True to
    approve or False to reject". A "no", clicked or typed, must not transfer the money."""
    script = ScriptedAnswerer({"Do you want to proceed with this action?": reply})
    script.register(svc)
    start = {"action_details": "Transfer $500", "status": "pending"}
    result = await bridge.run(approval_graph(), start, CONFIG, service=svc)
    assert result["status"] == status
    assert transfers == (["Transfer $500"] if status == "approved" else [])
    (question,) = script.requests[0].questions
    assert question.question == "Do you want to proceed with this action?"
    assert (question.detail or "").startswith("**details**: Transfer $500\n\n")


async def test_the_approval_gate_streams_and_answers_its_interrupt(
    svc: ipyask.UserQuestions,
) -> None:
    """https://docs.langchain.com/oss/python/langgraph/interrupts#approve-or-reject, driven by
    ``stream``: the chunks of the first run (up to the interrupt), then those of the resumed run."""
    ScriptedAnswerer({"Do you want to proceed with this action?": "Yes"}).register(svc)
    start = {"action_details": "Transfer $500", "status": "pending"}
    chunks = [
        chunk
        async for chunk in bridge.stream(
            approval_graph(), start, CONFIG, service=svc, stream_mode="updates"
        )
    ]
    assert [next(iter(chunk)) for chunk in chunks] == ["__interrupt__", "approval", "proceed"]
    assert chunks[-1] == {"proceed": {"status": "approved"}}
    assert transfers == ["Transfer $500"]


async def test_stream_answers_interrupts_in_any_stream_mode(svc: ipyask.UserQuestions) -> None:
    """``messages`` chunks never show interrupts: the bridge reads them from the saved state."""
    ScriptedAnswerer({"Do you want to proceed with this action?": "No"}).register(svc)
    start = {"action_details": "Transfer $500", "status": "pending"}
    graph = approval_graph()
    async for _ in bridge.stream(graph, start, CONFIG, service=svc, stream_mode="messages"):
        pass
    assert (await graph.aget_state(CONFIG)).values["status"] == "rejected"


class ChatState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


@tool
def human_assistance(query: str) -> str:
    """Request assistance from a human."""
    human_response = interrupt({"query": query})
    return str(human_response["data"])


async def test_the_tutorials_human_assistance_tool_with_a_resume_hook(
    svc: ipyask.UserQuestions,
) -> None:
    """https://docs.langchain.com/oss/python/langgraph/add-human-in-the-loop (the chatbot
    tutorial's ``human_assistance`` tool reads ``interrupt({"query": query})["data"]``): the
    app's resume shape comes from the ``resume=`` hook."""
    expert = "We, the experts, recommend LangGraph for building your agent."
    script = ScriptedAnswerer({"I need expert guidance for building an AI agent.": Other(expert)})
    script.register(svc)
    ask = AIMessage(
        content="",
        tool_calls=[
            {
                "name": "human_assistance",
                "args": {"query": "I need expert guidance for building an AI agent."},
                "id": "call-1",
            }
        ],
    )
    model = ToolCallingFake(responses=[ask, AIMessage(content="Thanks, LangGraph it is.")])

    def chatbot(state: ChatState) -> dict[str, list[BaseMessage]]:
        return {"messages": [model.bind_tools([human_assistance]).invoke(state["messages"])]}

    builder = StateGraph(ChatState)
    builder.add_node("chatbot", chatbot)
    builder.add_node("tools", ToolNode(tools=[human_assistance]))
    builder.add_conditional_edges("chatbot", tools_condition)
    builder.add_edge("tools", "chatbot")
    builder.add_edge(START, "chatbot")
    graph = builder.compile(checkpointer=InMemorySaver())
    hooked: list[Any] = []

    def resume(value: Any, answer: Any) -> dict[str, Any]:
        hooked.append((value, answer))
        return {"data": answer}

    start = {"messages": [("user", "I need some expert guidance for building an AI agent.")]}
    result = await bridge.run(graph, start, CONFIG, service=svc, resume=resume)
    assert hooked == [({"query": "I need expert guidance for building an AI agent."}, expert)]
    (answered,) = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert answered.content == expert
    assert result["messages"][-1].content == "Thanks, LangGraph it is."
    (question,) = script.requests[0].questions
    assert "Your resume hook gets `True`" in (question.detail or "")


class Decision(BaseModel):
    approved: bool
    note: str | None = None


class Answered(TypedDict):
    answer: Any


def schema_graph(value: Any, schema: Any) -> Any:
    def node(state: Answered) -> Answered:
        return {"answer": interrupt(value, response_schema=schema)}

    builder = StateGraph(Answered)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    return builder.compile(checkpointer=InMemorySaver())


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"approved": True}, Decision(approved=True)),
        (
            {"approved": False, "note": "not this week"},
            Decision(approved=False, note="not this week"),
        ),
    ],
)
async def test_a_response_schema_is_asked_as_a_form_and_resumes_with_the_model(
    svc: ipyask.UserQuestions, values: dict[str, Any], expected: Decision
) -> None:
    """https://docs.langchain.com/oss/python/langgraph/interrupts#define-an-interrupt-response-schema
    (``interrupt({"question": "approve?"}, response_schema=Decision)``)."""
    script = ScriptedAnswerer({"approve?": values})
    script.register(svc)
    result = await bridge.run(
        schema_graph({"question": "approve?"}, Decision), {"answer": None}, CONFIG, service=svc
    )
    assert result["answer"] == expected
    (question,) = script.requests[0].questions
    intent = question.intent
    assert isinstance(intent, ipyask.protocol.FormIntent)
    assert intent.requested_schema["properties"]["note"] == {"type": "string", "title": "Note"}
    assert intent.requested_schema["required"] == ["approved"]


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Paint(BaseModel):
    color: Color
    coats: int | None = None


async def test_a_schema_with_an_enum_reference_and_an_optional_number_is_a_form(
    svc: ipyask.UserQuestions,
) -> None:
    """Pydantic writes an enum as a ``$defs`` reference and ``int | None`` as ``anyOf`` with
    null: the form resolves both."""
    script = ScriptedAnswerer({"Which paint?": {"color": "blue"}})
    script.register(svc)
    graph = schema_graph("Which paint?", Paint)
    result = await bridge.run(graph, {"answer": None}, CONFIG, service=svc)
    assert result["answer"] == Paint(color=Color.BLUE)
    intent = script.requests[0].questions[0].intent
    assert isinstance(intent, ipyask.protocol.FormIntent)
    assert intent.requested_schema["properties"] == {
        "color": {"enum": ["red", "blue"], "title": "Color", "type": "string"},
        "coats": {"type": "integer", "title": "Coats"},
    }


class Release(BaseModel):
    version: str
    platforms: list[dict[str, str]]


async def test_a_schema_beyond_the_form_subset_takes_json_checked_before_the_graph_sees_it(
    svc: ipyask.UserQuestions,
) -> None:
    """A nested schema: the answer is JSON text; one outside the schema is asked again, saying
    why, and never reaches LangGraph's validation."""
    replies = iter(
        [
            Other("{not json"),
            Other('{"version": "1.0", "platforms": "linux"}'),
            Other('{"version": "1.0", "platforms": [{"os": "linux"}]}'),
        ]
    )
    script = ScriptedAnswerer({"What do we ship?": lambda question: next(replies)})
    script.register(svc)
    value = {"question": "What do we ship?"}
    result = await bridge.run(schema_graph(value, Release), {"answer": None}, CONFIG, service=svc)
    assert result["answer"] == Release(version="1.0", platforms=[{"os": "linux"}])
    first, second, third = (r.questions[0] for r in script.requests)
    assert first.intent is None and '"platforms"' in (first.detail or "")
    assert "not valid JSON" in (second.detail or "")
    assert "platforms" in (third.detail or "").split("\n\n")[0]  # the refusal comes first


def inbox_graph(allow_edit: bool = False, allow_others: bool = True) -> Any:
    """The ``HumanInterrupt`` example of ``langgraph.prebuilt.interrupt`` (Agent Inbox)."""

    def review(state: Answered) -> Answered:
        request = HumanInterrupt(
            action_request=ActionRequest(
                action="run_command",
                args={"command": "ls", "args": ["-l"]},
            ),
            config=HumanInterruptConfig(
                allow_ignore=allow_others,
                allow_respond=allow_others,
                allow_edit=allow_edit,
                allow_accept=allow_others,
            ),
            description="Please review the command before execution",
        )
        response = interrupt([request])[0]
        return {"answer": response}

    builder = StateGraph(Answered)
    builder.add_node("review", review)
    builder.add_edge(START, "review")
    return builder.compile(checkpointer=InMemorySaver())


@pytest.mark.parametrize(
    ("reply", "response"),
    [
        (Approve(), {"type": "accept", "args": None}),
        (Respond("use ls -la instead"), {"type": "response", "args": "use ls -la instead"}),
        (Reject(), {"type": "ignore", "args": None}),
        (Reject("not on prod"), {"type": "ignore", "args": "not on prod"}),  # the reason stays
        (
            Edit({"command": "ls", "args": ["-la"]}),
            {
                "type": "edit",
                "args": {"action": "run_command", "args": {"command": "ls", "args": ["-la"]}},
            },
        ),
    ],
    ids=["accept", "respond", "ignore", "ignore-with-reason", "edit"],
)
async def test_agent_inbox_interrupts_get_human_responses(
    svc: ipyask.UserQuestions, reply: Any, response: dict[str, Any]
) -> None:
    """https://reference.langchain.com/python/langgraph.prebuilt/interrupt/HumanInterrupt
    (``response = interrupt([request])[0]``, a ``HumanResponse``)."""
    script = ScriptedAnswerer({"run_command": reply})
    script.register(svc)
    graph = inbox_graph(allow_edit=isinstance(reply, Edit))
    result = await bridge.run(graph, {"answer": None}, CONFIG, service=svc)
    assert result["answer"] == response
    (question,) = script.requests[0].questions
    intent = question.intent
    assert isinstance(intent, ipyask.protocol.ToolApprovalIntent)
    assert intent.tool.arguments == {"command": "ls", "args": ["-l"]}
    assert question.detail == "Please review the command before execution"
    offered = intent.decision_labels()
    expected = {"approve": "Accept", "reject": "Ignore", "respond": "Respond"}
    if isinstance(reply, Edit):
        expected["edit"] = "Edit"
    assert offered == dict(sorted(expected.items(), key=lambda kv: list(offered).index(kv[0])))
    assert [o.label for o in question.options or []] == list(offered.values())


async def test_an_agent_inbox_interrupt_that_allows_nothing_is_refused_by_name(
    svc: ipyask.UserQuestions,
) -> None:
    graph = inbox_graph(allow_edit=False, allow_others=False)
    with pytest.raises(ValueError, match=r"'run_command'.* allows no action"):
        await bridge.run(graph, {"answer": None}, CONFIG, service=svc)


async def test_a_resume_hook_may_be_async(svc: ipyask.UserQuestions) -> None:
    ScriptedAnswerer({"Go?": "No"}).register(svc)

    async def resume(value: Any, answer: Any) -> str:
        return f"{value} {answer}"

    result = await bridge.run(
        value_graph(None), {"asked": "Go?"}, CONFIG, service=svc, resume=resume
    )
    assert result["reply"] == "Go? False"


async def test_a_chinese_panel_gets_the_graph_card_in_chinese(svc: ipyask.UserQuestions) -> None:
    panel = ipyask.QuestionPanel(svc, language="zh")
    script = ScriptedAnswerer({"发布吗？": "是"})
    script.register(svc, prepend=True)
    try:
        result = await bridge.run(value_graph(None), {"asked": "发布吗？"}, CONFIG, service=svc)
    finally:
        panel.close()
    assert result["reply"] is True
    (question,) = script.requests[0].questions
    assert [(o.label, o.description) for o in question.options or []] == [
        ("是", "图恢复运行时收到 True"),
        ("否", "图恢复运行时收到 False"),
    ]
    assert "输入的回复：图恢复运行时收到你输入的文字" in (question.detail or "")


async def test_a_chinese_agent_inbox_card_names_accept_and_ignore_in_chinese(
    svc: ipyask.UserQuestions,
) -> None:
    asked = inbox_card(
        [{"action_request": {"action": "send", "args": {}}, "config": {"allow_accept": True,
          "allow_ignore": True, "allow_edit": True}}],
        {},
        "zh",
    )  # fmt: skip
    (question,) = asked.questions
    assert [o.label for o in question.options or []] == ["接受", "Edit", "忽略"]
    (ignore,) = [o for o in question.options or [] if o.label == "忽略"]
    item = ipyask.protocol.AskUserQuestionAnswerItem(id=question.id, selected=[ignore.label])
    assert asked.resume([item]) == [{"type": "ignore", "args": None}]
