"""Scoped Always allow through the framework bridges: the person's scope (this session, or saved
as a rule) reaches Claude's permission updates and the Agents SDK's ``always_approve`` only as
far as the person's rule reaches, and ipyask's rule answers the framework's next matching call.

Driven with the real SDK types (Claude) and the Agents SDK's own ScriptedModel; no network."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, function_tool
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call
from claude_agent_sdk.types import (
    PermissionResultAllow,
    PermissionRuleValue,
    PermissionUpdate,
    ToolPermissionContext,
)

import ipyask
from ipyask._rule_patterns import parse_rule
from ipyask.integrations import openai_agents
from ipyask.integrations.claude import can_use_tool
from ipyask.protocol import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionRequest,
    ToolApprovalIntent,
)


class ScopedAlways:
    """A person who answers every tool approval with Always allow for ``scope`` and ``rule``."""

    def __init__(self, scope: str, rule: str) -> None:
        self.custom = json.dumps({"scope": scope, "rule": rule})
        self.rule = parse_rule("allow", rule)
        self.asked: list[AskUserQuestionRequest] = []

    def __call__(self, request: AskUserQuestionRequest, next: object) -> AskUserQuestionAnswer:
        """Always allow with the rule; a call outside the rule is approved once."""
        self.asked.append(request)
        items = []
        for question in request.questions:
            intent = question.intent
            assert isinstance(intent, ToolApprovalIntent) and intent.always is not None
            if self.rule.matches(intent.tool.name, intent.tool.arguments):
                item = AskUserQuestionAnswerItem(
                    id=question.id, selected=[intent.always], custom=self.custom
                )
            else:
                item = AskUserQuestionAnswerItem(id=question.id, selected=[intent.approve])
            items.append(item)
        return AskUserQuestionAnswer(answers=items)

    def arguments(self) -> list[dict[str, Any]]:
        """The arguments of each call the person was asked about."""
        asked = [request.questions[0].intent for request in self.asked]
        return [intent.tool.arguments for intent in asked if isinstance(intent, ToolApprovalIntent)]


@pytest.fixture
def rules(svc: ipyask.UserQuestions, tmp_path: Path) -> ipyask.Rules:
    made = ipyask.Rules(path=tmp_path / "rules.toml")
    made.register(svc)
    return made


def person(svc: ipyask.UserQuestions, scope: str, rule: str) -> ScopedAlways:
    answering = ScopedAlways(scope, rule)
    svc.on_request(answering)
    return answering


# -- Claude ------------------------------------------------------------------------------------


def grant(content: str | None, destination: Any = "localSettings") -> PermissionUpdate:
    return PermissionUpdate(
        type="addRules",
        rules=[PermissionRuleValue(tool_name="Bash", rule_content=content)],
        behavior="allow",
        destination=destination,
    )


ACCEPT_EDITS = PermissionUpdate(type="setMode", mode="acceptEdits", destination="session")
ADD_DIRECTORY = PermissionUpdate(
    type="addDirectories", directories=["/tmp"], destination="localSettings"
)


def context(*suggestions: PermissionUpdate) -> ToolPermissionContext:
    return ToolPermissionContext(tool_use_id="toolu_1", suggestions=list(suggestions))


async def test_claude_this_session_grants_for_the_session_and_the_rule_answers_next(
    svc: ipyask.UserQuestions, rules: ipyask.Rules
) -> None:
    answering = person(svc, "session", "Bash")
    callback = can_use_tool(service=svc)
    result = await callback(
        "Bash", {"command": "npm test"}, context(grant("npm test"), ACCEPT_EDITS, ADD_DIRECTORY)
    )
    # Claude remembers for this session only; a mode switch or a directory is never granted.
    assert result == PermissionResultAllow(updated_permissions=[grant("npm test", "session")])
    assert [(rule.text, rule.source) for rule in rules.rules] == [("Bash", "this session")]
    assert not rules.path.exists()
    again = await callback("Bash", {"command": "ls"}, context(grant("ls")))
    assert again == PermissionResultAllow()  # answered by ipyask's rule, no card
    assert len(answering.asked) == 1
    assert [decision.tool_name for decision in rules.decisions] == ["Bash"]


async def test_claude_saved_keeps_claudes_destination_and_writes_the_rule(
    svc: ipyask.UserQuestions, rules: ipyask.Rules
) -> None:
    person(svc, "saved", 'Bash(command="npm test")')
    result = await can_use_tool(service=svc)(
        "Bash",
        {"command": "npm test"},
        context(grant("npm test"), grant("npm:*"), grant(None)),
    )
    # Only the suggestion no wider than the person's rule: not npm:*, not all of Bash.
    assert result == PermissionResultAllow(updated_permissions=[grant("npm test")])
    assert rules.path.read_text() == "allow = ['Bash(command=\"npm test\")']\n"


@pytest.mark.parametrize(
    ("rule", "suggested", "kept"),
    [
        ('Bash(command="npm test**")', "npm test:*", True),  # the prefix is within it
        ('Bash(command="npm **")', "npm test:*", True),
        ('Bash(command="npm test*")', "npm test:*", False),  # * stops at /, npm test:* does not
        ('Bash(command="npm test")', "npm test:*", False),
        ('Bash(command="npm t*st**")', "npm test:*", False),  # a glob before **: not a prefix
        ('Bash(command="npm test*", description="**")', "npm test:*", False),
        ('Bash(command="npm *")', "npm test", True),  # exactly npm test: the rule allows it
        ('Bash(command="npm test")', "npm test", True),
        ('Bash(command="npm test")', "npm test --watch", False),
        ('Bash(command="npm test")', "npm *", False),  # Claude's text is a glob: not literal
    ],
)
async def test_claude_a_command_suggestion_is_kept_only_within_the_rule(
    svc: ipyask.UserQuestions, rules: ipyask.Rules, rule: str, suggested: str, kept: bool
) -> None:
    person(svc, "session", rule)
    result = await can_use_tool(service=svc)(
        "Bash", {"command": "npm test", "description": "tests"}, context(grant(suggested))
    )
    expected = [grant(suggested, "session")] if kept else []
    assert result == PermissionResultAllow(updated_permissions=expected)


async def test_claude_offers_always_allow_with_rules_even_without_suggestions(
    svc: ipyask.UserQuestions, rules: ipyask.Rules
) -> None:
    answering = person(svc, "session", 'Bash(command="make")')
    result = await can_use_tool(service=svc)("Bash", {"command": "make"}, context())
    assert result == PermissionResultAllow(updated_permissions=[])
    assert len(answering.asked) == 1
    assert [rule.text for rule in rules.rules] == ['Bash(command="make")']


async def test_a_rule_the_panel_added_already_is_not_added_twice(
    svc: ipyask.UserQuestions, rules: ipyask.Rules
) -> None:
    rules.add("Bash", "session")  # as a panel does before the answer reaches the bridge
    person(svc, "session", "Bash")
    await can_use_tool(service=svc)("Bash", {"command": "npm test"}, context(grant("x")))
    assert [rule.text for rule in rules.rules] == ["Bash"]


# -- OpenAI Agents SDK -------------------------------------------------------------------------

deleted: list[str] = []


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file from the workspace."""
    deleted.append(path)
    return f"deleted {path}"


@pytest.fixture(autouse=True)
def _no_files_deleted_yet() -> None:
    deleted.clear()


def janitor(*paths: str) -> Agent[Any]:
    steps = [
        ModelStep(output=[function_call("delete_file", {"path": path}, call_id=f"call-{i}")])
        for i, path in enumerate(paths)
    ]
    model = ScriptedModel([*steps, ModelStep(output=[assistant_message("done")])])
    return Agent(name="janitor", model=model, tools=[delete_file])


async def test_agents_a_rule_for_the_whole_tool_is_the_sdks_always_approve(
    svc: ipyask.UserQuestions, rules: ipyask.Rules
) -> None:
    answering = person(svc, "session", "delete_file")
    await openai_agents.run(janitor("a.txt", "b.md"), "clean up", service=svc)
    assert deleted == ["a.txt", "b.md"]
    assert len(answering.asked) == 1
    assert rules.decisions == []  # the SDK approved b.md itself: no second prompt at all
    assert [rule.text for rule in rules.rules] == ["delete_file"]


async def test_agents_a_narrowed_rule_approves_once_and_the_rule_answers_what_it_covers(
    svc: ipyask.UserQuestions, rules: ipyask.Rules
) -> None:
    answering = person(svc, "saved", 'delete_file(path="*.txt")')
    await openai_agents.run(janitor("a.txt", "b.txt", "c.md"), "clean up", service=svc)
    # b.txt: the rule answered the SDK's prompt; c.md: outside the rule, the person was asked.
    assert [decision.arguments for decision in rules.decisions] == [{"path": "b.txt"}]
    assert answering.arguments() == [{"path": "a.txt"}, {"path": "c.md"}]
    assert deleted == ["a.txt", "b.txt", "c.md"]
    assert rules.path.read_text() == "allow = ['delete_file(path=\"*.txt\")']\n"
