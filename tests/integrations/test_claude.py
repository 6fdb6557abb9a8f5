"""The Claude Agent SDK's permission callback, driven with the SDK's own types."""

from __future__ import annotations

import asyncio
import builtins
import importlib
import sys
from typing import Any

import pytest
from claude_agent_sdk.types import (
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionRuleValue,
    PermissionUpdate,
    ToolPermissionContext,
)

import ipyask
from ipyask.integrations.claude import can_use_tool
from ipyask.testing import (
    SKIP,
    AlwaysAllow,
    Approve,
    Edit,
    Other,
    Reject,
    RejectAndStop,
    ScriptedAnswerer,
)

QUESTIONS: list[dict[str, Any]] = [
    {
        "question": "Which database should the app use?",
        "header": "Database",
        "options": [
            {"label": "Postgres", "description": "A server"},
            {"label": "SQLite", "description": "A file"},
        ],
        "multiSelect": False,
    },
    {
        "question": "Which checks should run?",
        "header": "Checks",
        "options": [{"label": "Lint", "description": ""}, {"label": "Types", "description": ""}],
        "multiSelect": True,
    },
]
GRANT = PermissionUpdate(
    type="addRules",
    rules=[PermissionRuleValue(tool_name="Bash", rule_content="npm test")],
    behavior="allow",
    destination="session",
)


def context(**fields: Any) -> ToolPermissionContext:
    return ToolPermissionContext(tool_use_id="toolu_1", **fields)


def answered(service: ipyask.UserQuestions, script: dict[str, Any]) -> ScriptedAnswerer:
    scripted = ScriptedAnswerer(script, delegate_unknown=False)
    scripted.register(service)
    return scripted


async def test_ask_user_question_is_one_batch_answered_in_the_sdk_shape() -> None:
    service = ipyask.UserQuestions()
    scripted = answered(
        service,
        {
            "Which database should the app use?": "SQLite",
            "Which checks should run?": ["Lint", "Types"],
        },
    )
    result = await can_use_tool(service=service)(
        "AskUserQuestion", {"questions": QUESTIONS}, context()
    )
    assert result == PermissionResultAllow(
        updated_input={
            "questions": QUESTIONS,
            "answers": {
                "Which database should the app use?": "SQLite",
                "Which checks should run?": "Lint, Types",
            },
        }
    )
    (request,) = scripted.requests
    first, second = request.questions
    assert (first.question, first.header, first.multi_select) == (
        "Which database should the app use?",
        "Database",
        False,
    )
    assert [(o.label, o.description) for o in first.options or []] == [
        ("Postgres", "A server"),
        ("SQLite", "A file"),
    ]
    assert second.multi_select is True
    assert first.intent is None  # a plain question, no approval card


async def test_typed_other_text_and_a_skipped_question() -> None:
    service = ipyask.UserQuestions()
    answered(
        service,
        {
            "Which database should the app use?": Other("DuckDB"),
            "Which checks should run?": Other("Tests", selected=["Lint"]),
        },
    )
    callback = can_use_tool(service=service)
    result = await callback("AskUserQuestion", {"questions": QUESTIONS}, context())
    assert isinstance(result, PermissionResultAllow)
    assert result.updated_input is not None
    assert result.updated_input["answers"] == {
        "Which database should the app use?": "DuckDB",
        "Which checks should run?": "Lint, Tests",
    }
    service = ipyask.UserQuestions()
    answered(
        service, {"Which database should the app use?": SKIP, "Which checks should run?": "Lint"}
    )
    result = await can_use_tool(service=service)(
        "AskUserQuestion", {"questions": QUESTIONS}, context()
    )
    assert isinstance(result, PermissionResultAllow)
    assert result.updated_input == {
        "questions": QUESTIONS,
        "answers": {"Which checks should run?": "Lint"},
    }


async def test_a_free_text_question_without_options() -> None:
    service = ipyask.UserQuestions()
    answered(service, {"How many workers?": Other("4")})
    questions = [{"question": "How many workers?", "header": "Workers", "kind": "number"}]
    result = await can_use_tool(service=service)(
        "AskUserQuestion", {"questions": questions}, context()
    )
    assert isinstance(result, PermissionResultAllow)
    assert result.updated_input == {"questions": questions, "answers": {"How many workers?": "4"}}


async def ask_bash(reply: Any, ctx: ToolPermissionContext) -> tuple[Any, ScriptedAnswerer]:
    service = ipyask.UserQuestions()
    scripted = answered(service, {"Bash": reply})
    result = await can_use_tool(service=service)("Bash", {"command": "npm test"}, ctx)
    return result, scripted


async def test_an_ordinary_tool_is_a_tool_approval_card_with_the_context() -> None:
    ctx = context(
        title="Claude wants to run npm test",
        display_name="Run command",
        description="Runs the test suite",
        decision_reason="A hook asked",
        blocked_path="/etc/`secret`",
        suggestions=[GRANT],
    )
    result, scripted = await ask_bash(Approve(), ctx)
    assert result == PermissionResultAllow()
    (question,) = scripted.requests[0].questions
    assert question.question == "Claude wants to run npm test"
    assert isinstance(question.intent, ipyask.protocol.ToolApprovalIntent)
    assert question.intent.tool.name == "Bash"
    assert question.intent.tool.arguments == {"command": "npm test"}
    assert set(question.intent.decision_labels()) == {"approve", "always", "edit", "reject", "stop"}
    assert question.detail is not None
    assert "Runs the test suite" in question.detail
    assert "A hook asked" in question.detail
    assert "``` /etc/`secret` ```" not in question.detail  # a fence longer than the backticks
    assert "`` /etc/`secret` ``" in question.detail


async def test_without_title_the_question_names_the_tool() -> None:
    _, scripted = await ask_bash(Approve(), context())
    (question,) = scripted.requests[0].questions
    assert question.question == "Allow Bash?"
    assert question.detail is None


async def test_edit_allows_with_the_edited_input() -> None:
    result, _ = await ask_bash(Edit({"command": "npm test -- --watch=false"}), context())
    assert result == PermissionResultAllow(updated_input={"command": "npm test -- --watch=false"})


async def test_always_allow_grants_the_contexts_suggestions() -> None:
    result, _ = await ask_bash(AlwaysAllow(), context(suggestions=[GRANT]))
    assert result == PermissionResultAllow(updated_permissions=[GRANT])


async def test_always_allow_is_not_offered_without_suggestions() -> None:
    with pytest.raises(ipyask.UserQuestionError, match="does not offer always"):
        await ask_bash(AlwaysAllow(), context())  # the card has no such button
    _, scripted = await ask_bash(Approve(), context())
    intent = scripted.requests[0].questions[0].intent
    assert isinstance(intent, ipyask.protocol.ToolApprovalIntent)
    assert intent.always is None


async def test_reject_denies_with_the_reason_or_a_clear_default() -> None:
    result, _ = await ask_bash(Reject("not on main"), context())
    assert result == PermissionResultDeny(message="not on main")
    result, _ = await ask_bash(Reject(), context())
    assert isinstance(result, PermissionResultDeny)
    assert result.message == "The user rejected this tool call."
    assert result.interrupt is False


async def test_reject_and_stop_denies_with_interrupt() -> None:
    """``PermissionResultDeny(interrupt=True)`` denies the call and stops the agent
    (https://platform.claude.com/docs/en/agent-sdk/user-input): the card offers it as "Reject
    and stop", with the person's reason or the default."""
    result, scripted = await ask_bash(RejectAndStop("wrong branch"), context())
    assert result == PermissionResultDeny(message="wrong branch", interrupt=True)
    intent = scripted.requests[0].questions[0].intent
    assert isinstance(intent, ipyask.protocol.ToolApprovalIntent)
    assert intent.stop == "Reject and stop"
    result, _ = await ask_bash(RejectAndStop(), context())
    assert result == PermissionResultDeny(
        message="The user rejected this tool call.", interrupt=True
    )


async def test_a_cancelled_prompt_cancels_its_question() -> None:
    service = ipyask.UserQuestions()
    seen: list[str] = []

    async def hold(request: ipyask.protocol.AskUserQuestionRequest, next: ipyask.host.Next) -> Any:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    service.on_request(hold)
    task = asyncio.ensure_future(
        can_use_tool(service=service)("Bash", {"command": "ls"}, context())
    )
    await asyncio.sleep(0.01)
    task.cancel()  # the SDK cancels the callback when the CLI withdraws the prompt
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == ["cancelled"]


def test_importing_without_the_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_sdk(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "claude_agent_sdk" or name.startswith("claude_agent_sdk."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_sdk)
    monkeypatch.delitem(sys.modules, "ipyask.integrations.claude")
    with pytest.raises(ImportError, match=r"pip install 'ipyask\[claude\]'"):
        importlib.import_module("ipyask.integrations.claude")


async def test_a_chinese_panel_gets_the_permission_card_in_chinese() -> None:
    service = ipyask.UserQuestions()
    scripted = answered(service, {"Bash": Approve()})
    panel = ipyask.QuestionPanel(service, language="zh")
    try:
        result = await can_use_tool(service=service)(
            "Bash",
            {"command": "rm -rf build"},
            context(decision_reason="rm is not allowed", blocked_path="/repo/build"),
        )
    finally:
        panel.close()
    assert result == PermissionResultAllow()
    (question,) = scripted.requests[0].questions
    assert question.question == "允许 Bash？"
    assert question.detail == "询问原因：rm is not allowed\n\n被阻止的路径：` /repo/build `"
