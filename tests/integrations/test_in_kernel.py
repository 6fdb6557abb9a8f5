"""Each bridge in a real ipykernel with no service given: the default panel shows itself in the
cell that started the agent, and a person (HeadlessFrontend) answers its cards over the comm."""

from __future__ import annotations

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
