"""Approval rules answer the frameworks' tool approvals with no card: the service has no other
answerer, so a call the rules leave to the person fails with NO_PROVIDER."""

from __future__ import annotations

from typing import Any

import pytest
from agents import Agent as AgentsAgent
from agents import function_tool
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call
from claude_agent_sdk.types import (
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai.models.function import FunctionModel

import ipyask
from ipyask.integrations import openai_agents, pydantic_ai
from ipyask.integrations.claude import can_use_tool

from ._agents_fakes import tool_outputs
from ._pydantic_fakes import DeletingModel

RULES = """
allow = ['delete_file(path="build/**")']
deny = ['delete_file(path="*.md")']
"""

deleted: list[str] = []


@pytest.fixture(autouse=True)
def _no_files_deleted_yet() -> None:
    deleted.clear()


@pytest.fixture
def rules(svc: ipyask.UserQuestions) -> ipyask.Rules:
    loaded = ipyask.Rules.parse(RULES, "rules.toml")
    loaded.register(svc)
    return loaded


DENIED = 'Denied by rule delete_file(path="*.md") (rules.toml:3)'


# -- OpenAI Agents SDK -------------------------------------------------------------------------


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file from the workspace."""
    deleted.append(path)
    return f"deleted {path}"


def scripted(*paths: str) -> ScriptedModel:
    calls = [
        function_call("delete_file", {"path": p}, call_id=f"call-{i}") for i, p in enumerate(paths)
    ]
    return ScriptedModel([ModelStep(output=calls), ModelStep(output=[assistant_message("done")])])


async def test_openai_agents_runs_a_call_a_rule_allows(
    svc: ipyask.UserQuestions, rules: ipyask.Rules
) -> None:
    model = scripted("build/out.o")
    agent = AgentsAgent(name="janitor", model=model, tools=[delete_file])
    result = await openai_agents.run(agent, "clean up", service=svc)
    assert result.final_output == "done"
    assert deleted == ["build/out.o"]
    assert [applied.decision.kind for applied in rules.decisions] == ["allow"]


async def test_openai_agents_tells_the_model_why_a_rule_denied_a_call(
    svc: ipyask.UserQuestions, rules: ipyask.Rules
) -> None:
    model = scripted("README.md", "build/a.o")
    agent = AgentsAgent(name="janitor", model=model, tools=[delete_file])
    await openai_agents.run(agent, "clean up", service=svc)
    assert deleted == ["build/a.o"]
    assert tool_outputs(model) == {
        "call-0": f"Tool execution was not approved. The user's reason: {DENIED}",
        "call-1": "deleted build/a.o",
    }


async def test_openai_agents_asks_the_person_about_a_call_no_rule_decides(
    svc: ipyask.UserQuestions, rules: ipyask.Rules
) -> None:
    agent = AgentsAgent(name="janitor", model=scripted("src/main.py"), tools=[delete_file])
    with pytest.raises(ipyask.UserQuestionError) as raised:
        await openai_agents.run(agent, "clean up", service=svc)
    assert raised.value.code == "NO_PROVIDER"
    assert deleted == []


# -- pydantic-ai -------------------------------------------------------------------------------


def pydantic_agent(model: DeletingModel, svc: ipyask.UserQuestions) -> PydanticAgent[None, Any]:
    made: PydanticAgent[None, Any] = PydanticAgent(
        FunctionModel(model), capabilities=[pydantic_ai.approvals(service=svc)]
    )

    @made.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        """Delete a file."""
        deleted.append(path)
        return f"deleted {path}"

    return made


async def test_pydantic_ai_runs_a_call_a_rule_allows_and_denies_another(
    svc: ipyask.UserQuestions, rules: ipyask.Rules
) -> None:
    model = DeletingModel("build/out.o", "notes.md")
    result = await pydantic_agent(model, svc).run("clean up")
    assert result.output == "done"
    assert deleted == ["build/out.o"]
    returned = {part.tool_call_id: str(part.content) for part in model.returns}
    assert returned == {
        "call-0": "deleted build/out.o",
        "call-1": f"The tool call was denied. The user's reason: {DENIED}",
    }
    assert [applied.decision.kind for applied in rules.decisions] == ["allow", "deny"]


async def test_pydantic_ai_asks_the_person_about_a_call_no_rule_decides(
    svc: ipyask.UserQuestions, rules: ipyask.Rules
) -> None:
    with pytest.raises(ipyask.UserQuestionError) as raised:
        await pydantic_agent(DeletingModel("build/a.o", "src/main.py"), svc).run("clean up")
    assert raised.value.code == "NO_PROVIDER"
    assert deleted == []
    assert rules.decisions == []


# -- Claude Agent SDK --------------------------------------------------------------------------


async def test_claudes_permission_callback_follows_the_rules(svc: ipyask.UserQuestions) -> None:
    rules = ipyask.Rules.parse(
        "allow = ['Bash(command=\"git status*\")']\ndeny = ['Bash(command=\"rm *\")']", "rules.toml"
    )
    rules.register(svc)
    callback = can_use_tool(service=svc)
    context = ToolPermissionContext(tool_use_id="toolu_1")
    allowed = await callback("Bash", {"command": "git status --short"}, context)
    assert allowed == PermissionResultAllow()
    denied = await callback("Bash", {"command": "rm notes.txt"}, context)
    assert isinstance(denied, PermissionResultDeny)
    assert denied.message == 'Denied by rule Bash(command="rm *") (rules.toml:2)'
    with pytest.raises(ipyask.UserQuestionError) as raised:
        await callback("Bash", {"command": "git push"}, context)
    assert raised.value.code == "NO_PROVIDER"
