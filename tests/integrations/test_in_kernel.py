"""Each bridge in a real ipykernel with no service given: the default panel shows itself in the
cell that started the agent, and a person (HeadlessFrontend) answers its cards over the comm."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from ipyask.testing import HeadlessFrontend

pytestmark = pytest.mark.kernel

RESULT = "r = await asyncio.wait_for(task, 30)\nprint({expression})"


@pytest.fixture(scope="module")
def fe() -> Iterator[HeadlessFrontend]:
    """A kernel of this module's own: its default panel is the only panel there."""
    with HeadlessFrontend(timeout=30) as front:
        front.execute("import asyncio, ipyask")
        yield front


def test_langgraph_hitl_middleware(fe: HeadlessFrontend) -> None:
    fe.execute(
        """
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from ipyask.integrations import langgraph as lg

class FakeModel(FakeMessagesListChatModel):
    def bind_tools(self, tools, **kwargs):
        return self

deleted = []

@tool
def delete_file(path: str) -> str:
    '''Delete a file.'''
    deleted.append(path)
    return f"deleted {path}"

call = {"name": "delete_file", "args": {"path": "a.txt"}, "id": "c1"}
model = FakeModel(responses=[AIMessage(content="", tool_calls=[call]), AIMessage(content="done")])
allowed = {"allowed_decisions": ["approve", "edit", "reject"]}
hitl = HumanInTheLoopMiddleware(interrupt_on={"delete_file": allowed})
graph = create_agent(model, tools=[delete_file], middleware=[hitl], checkpointer=InMemorySaver())
task = asyncio.ensure_future(
    lg.run(graph, {"messages": [("user", "clean up")]}, {"configurable": {"thread_id": "k"}})
)
"""
    )
    card = fe.wait_for_card("Run delete_file?")
    (question,) = card["questions"]
    assert [o["label"] for o in question["options"]] == ["Approve", "Edit", "Reject"]
    assert question["intent"]["tool"]["arguments"] == {"path": "a.txt"}
    fe.edit(card["key"], {"path": "b.txt"})
    shown = fe.execute(RESULT.format(expression="r['messages'][-1].content, deleted")).stdout
    assert shown.strip() == "done ['b.txt']"
    assert fe.kernel.handler_errors == []


def test_langgraph_free_text_interrupt(fe: HeadlessFrontend) -> None:
    fe.execute(
        """
from typing_extensions import TypedDict
from langgraph.graph import START, StateGraph
from langgraph.types import interrupt

class State(TypedDict):
    name: str

builder = StateGraph(State)
builder.add_node("ask", lambda state: {"name": interrupt("What is the project called?")})
builder.add_edge(START, "ask")
graph = builder.compile(checkpointer=InMemorySaver())
task = asyncio.ensure_future(lg.run(graph, {"name": ""}, {"configurable": {"thread_id": "n"}}))
"""
    )
    key = fe.wait_for_card("What is the project called?")["key"]
    fe.type_other(key, "ipyask")
    fe.submit(key)
    assert fe.execute(RESULT.format(expression="r")).stdout.strip() == "{'name': 'ipyask'}"


def test_openai_agents_always_allow(fe: HeadlessFrontend) -> None:
    fe.execute(
        """
from agents import Agent, function_tool, set_tracing_disabled
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call
from ipyask.integrations import openai_agents

set_tracing_disabled(True)
deleted = []

@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    '''Delete a file.'''
    deleted.append(path)
    return f"deleted {path}"

model = ScriptedModel([
    ModelStep(output=[function_call("delete_file", {"path": "a.txt"}, call_id="c1")]),
    ModelStep(output=[function_call("delete_file", {"path": "b.txt"}, call_id="c2")]),
    ModelStep(output=[assistant_message("done")]),
])
agent = Agent(name="janitor", model=model, tools=[delete_file])
task = asyncio.ensure_future(openai_agents.run(agent, "clean up"))
"""
    )
    card = fe.wait_for_card("Run delete_file?")
    fe.approve_tool(card["key"], always=True)
    assert [o["label"] for o in card["questions"][0]["options"]] == [
        "Approve",
        "Always allow",
        "Reject",
        "Always reject",
    ]
    shown = fe.execute(RESULT.format(expression="r.final_output, deleted")).stdout
    assert shown.strip() == "done ['a.txt', 'b.txt']"  # b.txt ran on the grant, unasked


def test_pydantic_ai_capability(fe: HeadlessFrontend) -> None:
    fe.execute(
        """
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from ipyask.integrations import pydantic_ai

def model(messages, info):
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart("delete_file", {"path": "a.txt"})])
    return ModelResponse(parts=[TextPart(f"done: {messages[-1].parts[0].content}")])

agent = PydanticAgent(FunctionModel(model), capabilities=[pydantic_ai.approvals()])

@agent.tool_plain(requires_approval=True)
def delete_file(path: str) -> str:
    return f"deleted {path}"

task = asyncio.ensure_future(agent.run("clean up"))
"""
    )
    fe.reject(fe.wait_for_card("Run delete_file?")["key"], "keep it")
    shown = fe.execute(RESULT.format(expression="r.output")).stdout.strip()
    assert shown == "done: The tool call was denied. The user's reason: keep it"


def test_mcp_serve_a_late_answer_waits_for_the_client_to_call_again(fe: HeadlessFrontend) -> None:
    """A timed question over MCP goes pending; the person answers the card later; the card says
    the answer waits for the MCP client; the client's second call with the callId gets it."""
    fe.execute(
        """
import json, httpx2, mcp
from mcp.client.streamable_http import streamable_http_client
from ipyask.integrations.mcp import serve

svc = ipyask.UserQuestions()
panel = ipyask.QuestionPanel(svc)  # this test's own panel: the newest the view sees
display(panel)
server = await serve(service=svc, progress_every=0.2)

async def call(arguments):
    headers = {"Authorization": f"Bearer {server.token}"}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        mcp.Client(streamable_http_client(server.url, http_client=http)) as session,
    ):
        return (await session.call_tool("ask_user_question", arguments)).structured_content

Q = {"id": "fmt", "question": "Which format should the MCP report use?",
     "options": [{"label": "Markdown"}, {"label": "PDF"}]}
task = asyncio.ensure_future(call({"questions": [Q], "timeout": 30}))
"""
    )
    key = fe.wait_for_card("Which format should the MCP report use?")["key"]
    fe.claim(key)
    fe.kernel.wait_for(lambda: fe.frames(key), timeout=10, what="a frame")
    fe.time_out(key)
    pending = json.loads(fe.execute(RESULT.format(expression="json.dumps(r)")).stdout)
    assert pending["pending"] is True
    assert "call ask_user_question again" in pending["message"]
    call_id = pending["callId"]
    fe.wait_for_status(key, "continued")
    fe.answer(key, {"fmt": "PDF"})
    fe.kernel.wait_for(
        lambda: fe.card(key).get("noticeCode") == "reply-awaits-reask", timeout=10, what="notice"
    )
    card = fe.card(key)
    assert card["status"] == "continued"
    assert card["notice"] == (
        "Answer saved. The MCP client gets it when it calls ask_user_question again with "
        f"callId {call_id}; until then it waits here."
    )
    assert "next step" not in card["notice"]
    fe.execute(
        f"task = asyncio.ensure_future(call({{'questions': [Q], 'callId': {call_id!r}, "
        "'timeout': 5}))"
    )
    collected = json.loads(fe.execute(RESULT.format(expression="json.dumps(r)")).stdout)
    assert collected == {"answers": [{"id": "fmt", "selected": ["PDF"]}]}
    card = fe.wait_for_status(key, "answered")  # now the client has it
    assert card.get("noticeCode") is None
    # Another pending question, answered only after the server closed: nobody can collect it.
    fe.execute("task = asyncio.ensure_future(call({'questions': [{**Q, 'id': 'again'}]}))")
    again = fe.wait_for_card(lambda c: c["questions"][0]["id"] == "again")["key"]
    fe.claim(again)
    fe.kernel.wait_for(lambda: fe.frames(again), timeout=10, what="a frame")
    fe.time_out(again)
    assert json.loads(fe.execute(RESULT.format(expression="json.dumps(r)")).stdout)["pending"]
    fe.wait_for_status(again, "continued")
    fe.execute("await server.aclose()")
    fe.answer(again, {"again": "Markdown"})
    card = fe.wait_for_status(again, "answered")
    assert card["noticeCode"] == "reply-kept"


def test_pydantic_ai_edit_outside_the_tools_schema_is_refused_by_the_panel(
    fe: HeadlessFrontend,
) -> None:
    """https://ai.pydantic.dev/deferred-tools/: the tool definition's argument schema is the
    card's; the panel refuses an edit that breaks it (per field) and the card stays pending."""
    fe.execute(
        """
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from ipyask.integrations import pydantic_ai

def model(messages, info):
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart("drop_table", {"table": "users"})])
    return ModelResponse(parts=[TextPart(f"done: {messages[-1].parts[0].content}")])

agent = PydanticAgent(FunctionModel(model), capabilities=[pydantic_ai.approvals()])

@agent.tool_plain(requires_approval=True)
def drop_table(table: str) -> str:
    '''Drop a table from the production database.'''
    return f"dropped {table}"

task = asyncio.ensure_future(agent.run("tidy up"))
"""
    )
    card = fe.wait_for_card("Run drop_table?")
    (question,) = card["questions"]
    assert question["detail"] == "Drop a table from the production database."
    errors = len(fe.errors())
    fe.edit(card["key"], {"table": 5})
    refusal = fe.wait_for_error(since=errors)
    assert set(refusal["fields"]) == {"table"}
    assert fe.card(card["key"])["status"] == "pending"
    fe.edit(card["key"], {"table": "users_old"})
    shown = fe.execute(RESULT.format(expression="r.output")).stdout.strip()
    assert shown == "done: dropped users_old"


def test_openai_agents_always_reject(fe: HeadlessFrontend) -> None:
    """``state.reject(item, always_reject=True)``
    (https://openai.github.io/openai-agents-python/human_in_the_loop/): one click on the card,
    and the tool's next call is rejected without a card."""
    fe.execute(
        """
from agents import Agent, function_tool, set_tracing_disabled
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call
from ipyask.integrations import openai_agents

set_tracing_disabled(True)
removed = []

@function_tool(needs_approval=True)
def remove_file(path: str) -> str:
    '''Remove a file.'''
    removed.append(path)
    return f"removed {path}"

model = ScriptedModel([
    ModelStep(output=[function_call("remove_file", {"path": "c.txt"}, call_id="c3")]),
    ModelStep(output=[function_call("remove_file", {"path": "d.txt"}, call_id="c4")]),
    ModelStep(output=[assistant_message("kept")]),
])
agent = Agent(name="careful", model=model, tools=[remove_file])
task = asyncio.ensure_future(openai_agents.run(agent, "clean up"))
"""
    )
    card = fe.wait_for_card("Run remove_file?")
    fe.reject(card["key"], "keep everything", always=True)
    shown = fe.execute(RESULT.format(expression="r.final_output, removed")).stdout
    assert shown.strip() == "kept []"
    asked = [c for c in fe.cards() if "remove_file" in c["questions"][0]["question"]]
    assert len(asked) == 1  # the second call was rejected unasked


LANGGRAPH_DOCS = """
from typing import Any
from typing_extensions import TypedDict
from pydantic import BaseModel
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.prebuilt.interrupt import ActionRequest, HumanInterrupt, HumanInterruptConfig
from langgraph.types import interrupt
from ipyask.integrations import langgraph as lg

def one_node(state_type, node):
    builder = StateGraph(state_type)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    return builder.compile(checkpointer=InMemorySaver())

class Gate(TypedDict):
    action_details: str
    status: str

def approval_node(state):
    is_approved = interrupt({"question": "Do you want to proceed with this action?",
                             "details": state["action_details"]})
    return {"status": "approved" if is_approved else "rejected"}

class Decision(BaseModel):
    approved: bool
    note: str = ""

class Answered(TypedDict):
    answer: Any

def schema_node(state):
    return {"answer": interrupt({"question": "Ship the release?"}, response_schema=Decision)}

def inbox_node(state):
    request = HumanInterrupt(
        action_request=ActionRequest(action="run_command", args={"command": "ls"}),
        config=HumanInterruptConfig(allow_ignore=True, allow_respond=True, allow_edit=True,
                                    allow_accept=True),
        description="Please review the command before execution",
    )
    return {"answer": interrupt([request])[0]}
"""


def test_langgraph_docs_approval_gate_no_is_false(fe: HeadlessFrontend) -> None:
    """https://docs.langchain.com/oss/python/langgraph/interrupts#approve-or-reject, answered on
    the card: No resumes with False, and the transfer is not approved."""
    fe.execute(
        LANGGRAPH_DOCS + "task = asyncio.ensure_future(lg.run(one_node(Gate, approval_node), "
        "{'action_details': 'Transfer $500', 'status': 'pending'}, "
        "{'configurable': {'thread_id': 'gate'}}))"
    )
    card = fe.wait_for_card("Do you want to proceed with this action?")
    assert [o["label"] for o in card["questions"][0]["options"]] == ["Yes", "No"]
    fe.choose(card["key"], "No")
    fe.submit(card["key"])
    assert fe.execute(RESULT.format(expression="r['status']")).stdout.strip() == "rejected"


def test_langgraph_docs_response_schema_is_a_form(fe: HeadlessFrontend) -> None:
    """https://docs.langchain.com/oss/python/langgraph/interrupts#define-an-interrupt-response-schema:
    the card is a form of the model's fields; the graph resumes with a valid ``Decision``."""
    fe.execute(
        LANGGRAPH_DOCS + "task = asyncio.ensure_future(lg.run(one_node(Answered, schema_node), "
        "{'answer': None}, {'configurable': {'thread_id': 'schema'}}))"
    )
    key = fe.wait_for_card("Ship the release?")["key"]
    fe.fill(key, {"approved": True, "note": "go"})
    shown = fe.execute(RESULT.format(expression="repr(r['answer'])")).stdout.strip()
    assert shown == "Decision(approved=True, note='go')"


def test_langgraph_docs_agent_inbox_edit(fe: HeadlessFrontend) -> None:
    """https://reference.langchain.com/python/langgraph.prebuilt/interrupt/HumanInterrupt: one
    tool-approval card per ``HumanInterrupt``; an Edit resumes with an ``edit`` HumanResponse."""
    fe.execute(
        LANGGRAPH_DOCS + "task = asyncio.ensure_future(lg.run(one_node(Answered, inbox_node), "
        "{'answer': None}, {'configurable': {'thread_id': 'inbox'}}))"
    )
    key = fe.wait_for_card("Run run_command?")["key"]
    fe.edit(key, {"command": "ls -la"})
    shown = fe.execute(RESULT.format(expression="r['answer']")).stdout.strip()
    assert (
        shown
        == "{'type': 'edit', 'args': {'action': 'run_command', 'args': {'command': 'ls -la'}}}"
    )
    assert fe.kernel.handler_errors == []
