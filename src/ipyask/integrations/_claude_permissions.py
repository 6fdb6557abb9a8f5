"""The Claude Agent SDK's permission prompts as ipyask questions, and the answers as
permission results."""

from __future__ import annotations

import dataclasses
from typing import Any

from claude_agent_sdk.types import (
    CanUseTool,
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionRuleValue,
    PermissionUpdate,
    ToolPermissionContext,
)

from .._decisions import DecisionKind, tool_decision
from .._rich_questions import tool_approval_question
from .._rule_patterns import AlwaysScope, Rule
from .._rules import rules_of
from .._service import UserQuestions
from .._vocabulary import (
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
)
from ._always import bridge_rules_service, chosen_scope, keep_rule
from ._asking import Timing, ask
from ._markdown_text import code_span, literal
from ._texts import Language, card_language, text

__all__ = ["ASK_USER_QUESTION", "DEFAULT_DENIAL", "claude_updates", "make_can_use_tool"]

ASK_USER_QUESTION = "AskUserQuestion"
"""The Claude Code tool whose questions are asked as they are, not approved."""
DEFAULT_DENIAL = "The user rejected this tool call."
"""The denial message when the person gives no reason."""


def make_can_use_tool(service: UserQuestions | None, timed: Timing | None = None) -> CanUseTool:
    """The callback; see :func:`ipyask.integrations.claude.can_use_tool`."""

    async def can_use_tool(
        tool_name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        if tool_name == ASK_USER_QUESTION and isinstance(tool_input.get("questions"), list):
            return await _ask_user_question(tool_input, service, timed)
        return await _approve(tool_name, tool_input, context, service, timed)

    return can_use_tool


# -- AskUserQuestion -----------------------------------------------------------------------


async def _ask_user_question(
    tool_input: dict[str, Any], service: UserQuestions | None, timed: Timing | None
) -> PermissionResult:
    questions: list[Any] = tool_input["questions"]
    items = [_question(index, raw) for index, raw in enumerate(questions)]
    answer = await ask(AskUserQuestionRequest(questions=items), service, timed)
    by_id = {item.id: item for item in answer.answers}
    answers: dict[str, str] = {}
    for item in items:
        text = _answer_text(by_id[item.id], bool(item.multi_select))
        if text is not None:
            answers[item.question] = text
    return PermissionResultAllow(updated_input={"questions": questions, "answers": answers})


def _question(index: int, raw: Any) -> AskUserQuestionItem:
    """One Claude question as an ipyask question: the vocabularies match field for field."""
    if not isinstance(raw, dict) or not isinstance(raw.get("question"), str):
        raise ValueError(f"AskUserQuestion questions[{index}] has no question text")
    options = [
        AskUserQuestionOption(
            label=str(option["label"]),
            description=option.get("description") if isinstance(option, dict) else None,
        )
        for option in raw.get("options") or []
        if isinstance(option, dict) and "label" in option
    ]
    header = raw.get("header")
    return AskUserQuestionItem(
        id=f"q{index + 1}",
        question=raw["question"],
        header=header if isinstance(header, str) and header else None,
        options=options or None,
        multi_select=bool(raw.get("multiSelect")),
    )


def _answer_text(item: AskUserQuestionAnswerItem, multi_select: bool) -> str | None:
    """The answer as the SDK's CLI writes it: a label, labels joined with ", ", or the text
    typed under "Other" (after the labels of a multi-select); ``None`` when skipped."""
    typed = item.custom.strip() if item.custom is not None and item.custom.strip() else None
    if multi_select:
        parts = [*item.selected, *([typed] if typed is not None else [])]
        return ", ".join(parts) if parts else None
    if typed is not None:
        return typed
    return item.selected[0] if item.selected else None


# -- every other tool ----------------------------------------------------------------------


async def _approve(
    tool_name: str,
    tool_input: dict[str, Any],
    context: ToolPermissionContext,
    service: UserQuestions | None,
    timed: Timing | None,
) -> PermissionResult:
    # A lasting grant is the prompt's suggestions or an ipyask rule: with neither, no offer.
    decisions: list[DecisionKind] = ["approve", "edit", "reject", "stop"]
    if context.suggestions or rules_of(bridge_rules_service(service)) is not None:
        decisions.insert(1, "always")
    language = card_language(service)
    item = tool_approval_question(
        tool_name,
        tool_input,
        decisions=decisions,
        description=_detail(context, language),
        question_id="permission",
    )
    item = item.model_copy(update={"question": _prompt(tool_name, context, language)})
    answer = await ask(AskUserQuestionRequest(questions=[item]), service, timed)
    decision = tool_decision(item, answer.answers[0])
    if decision.kind == "approve":
        return PermissionResultAllow()
    if decision.kind == "edit":
        return PermissionResultAllow(updated_input=decision.arguments)
    if decision.kind == "always":
        scope = chosen_scope(item, answer.answers[0])
        if scope is not None:
            keep_rule(service, scope)
        updates = claude_updates(scope, tool_name, context.suggestions)
        return PermissionResultAllow(updated_permissions=updates)
    # "stop" is the SDK's deny with interrupt: the agent stops instead of trying another way.
    return PermissionResultDeny(
        message=decision.message or DEFAULT_DENIAL, interrupt=decision.kind == "stop"
    )


def claude_updates(
    scope: AlwaysScope | None, tool_name: str, suggestions: list[PermissionUpdate]
) -> list[PermissionUpdate]:
    """What Claude is told to remember for an Always allow.

    A plain Always allow (no scope: no ipyask rules to add to) grants the prompt's suggestions
    as they are. A scoped one grants only the suggestions that allow no more than the person's
    rule (allow rules for this tool that :func:`_within` the rule; never a mode switch or added
    directories), for this session (``destination="session"``) or, saved, where Claude
    suggested keeping them. What Claude is not told, ipyask's rule answers at its next prompt.
    """
    if scope is None:
        return list(suggestions)
    kept = []
    for suggestion in suggestions:
        if suggestion.type != "addRules" or suggestion.behavior != "allow":
            continue
        values = suggestion.rules or []
        if not values or not all(_within(scope.rule, tool_name, value) for value in values):
            continue
        if scope.scope == "session":
            suggestion = dataclasses.replace(suggestion, destination="session")
        kept.append(suggestion)
    return kept


def _within(rule: Rule, tool_name: str, value: PermissionRuleValue) -> bool:
    """Whether Claude's rule ``value`` allows no call of ``tool_name`` that ``rule`` does not:
    the rule covers every call of the tool; or its only pattern is ``command`` and it matches
    Claude's literal command, or Claude's prefix ``p:*`` lies under its ``"q**"`` (``p``
    starts with the literal ``q``)."""
    if value.tool_name != tool_name:
        return False
    if rule.covers_every_call(tool_name):
        return True
    content = value.rule_content
    if not content or set(rule.patterns) != {"command"}:
        return False
    prefix = content.endswith(":*")
    literal = content[:-2] if prefix else content
    if any(char in literal for char in "*?") or not rule.matches(tool_name, {"command": literal}):
        return False
    if not prefix:
        return True
    glob = rule.patterns["command"]
    under = glob[:-2]
    return (
        glob.endswith("**")
        and not any(char in under for char in "*?")
        and literal.startswith(under)
    )


def _prompt(tool_name: str, context: ToolPermissionContext, language: Language) -> str:
    if context.title:
        return context.title
    return text(language, "claude-allow", name=context.display_name or tool_name)


def _detail(context: ToolPermissionContext, language: Language) -> str | None:
    lines = []
    if context.description:
        lines.append(literal(context.description))
    if context.decision_reason:
        lines.append(text(language, "claude-why", reason=literal(context.decision_reason)))
    if context.blocked_path:
        lines.append(text(language, "claude-blocked-path", path=code_span(context.blocked_path)))
    return "\n\n".join(lines) if lines else None
