"""The LangGraph bridge behind :mod:`ipyask.integrations.langgraph` (documented there)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from .._decisions import DecisionKind, tool_decision
from .._service import UserQuestions
from .._vocabulary import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    ToolApprovalIntent,
)
from ._batch import ask_groups, unique_id
from ._framework import missing_framework
from ._tool_cards import tool_question

try:
    from langchain_core.runnables import RunnableConfig
    from langgraph.pregel import Pregel
    from langgraph.types import Command, Interrupt
except ImportError as _error:
    raise missing_framework("langgraph", "langgraph", _error) from _error

__all__ = ["run"]

_INTERRUPTS = "__interrupt__"
"""The key under which ``ainvoke`` returns the interrupts the graph stopped at."""

_LANGCHAIN_DECISIONS: tuple[DecisionKind, ...] = ("approve", "edit", "reject", "respond")
"""The decisions LangChain's middleware knows (it has no persistent grant)."""


async def run(
    graph: Pregel[Any, Any, Any, Any],
    input: Any,
    config: RunnableConfig | None = None,
    *,
    service: UserQuestions | None = None,
) -> Any:
    """Run ``graph`` to its end, asking every interrupt; returns what ``ainvoke`` returns.

    ``service`` asks the questions (default: the default panel of :func:`ipyask.ask_batch`).
    The framework's own errors (a graph without a checkpointer, a decision it refuses) surface
    unchanged.
    """
    result = await graph.ainvoke(input, config)
    while interrupts := _pending(result):
        resume = await _answer(interrupts, service)
        result = await graph.ainvoke(Command(resume=resume), config)
    return result


def _pending(result: Any) -> list[Interrupt]:
    if not isinstance(result, Mapping):
        return []
    found = result.get(_INTERRUPTS) or ()
    return [item for item in found if isinstance(item, Interrupt)]


@dataclass(frozen=True)
class _Asked:
    """What one interrupt asks, and how its answers become its resume value."""

    questions: list[AskUserQuestionItem]
    resume: Callable[[list[AskUserQuestionAnswerItem]], Any]


async def _answer(interrupts: Sequence[Interrupt], service: UserQuestions | None) -> dict[str, Any]:
    asked = [_ask_for(interrupt) for interrupt in interrupts]
    answers = await ask_groups([a.questions for a in asked], service)
    return {
        interrupt.id: a.resume(items)
        for interrupt, a, items in zip(interrupts, asked, answers, strict=True)
    }


def _ask_for(interrupt: Interrupt) -> _Asked:
    value = interrupt.value
    if isinstance(value, Mapping):
        if value.get("type") == "tool_approval" and isinstance(value.get("args"), Mapping):
            return _per_call(value, interrupt.response_schema)
        if isinstance(value.get("action_requests"), list):
            return _batched(value)
        if isinstance(value.get("questions"), list):
            try:
                request = AskUserQuestionRequest.model_validate(dict(value))
            except ValidationError:
                pass  # not an ipyask request after all: shown as a value
            else:
                return _Asked(request.questions, _answer_batch)
    return _value_card(value)


def _answer_batch(items: list[AskUserQuestionAnswerItem]) -> dict[str, Any]:
    return AskUserQuestionAnswer(answers=items).to_wire()


# -- LangChain's HumanInTheLoopMiddleware ----------------------------------------------------------


def _batched(request: Mapping[str, Any]) -> _Asked:
    """One card per action of a batched ``HITLRequest``; resumed with ``{"decisions": [...]}``."""
    configs = {
        config.get("action_name"): config
        for config in request.get("review_configs") or []
        if isinstance(config, Mapping)
    }
    taken: set[str] = set()
    questions = []
    for action in request["action_requests"]:
        config = configs.get(action.get("name"), {})
        questions.append(
            tool_question(
                unique_id(str(action["name"]), taken),
                name=str(action["name"]),
                arguments=action.get("args") or {},
                decisions=_allowed(config.get("allowed_decisions")),
                description=action.get("description"),
                schema=config.get("args_schema"),
            )
        )

    def resume(items: list[AskUserQuestionAnswerItem]) -> dict[str, Any]:
        return {
            "decisions": [
                _langchain_decision(question, item)
                for question, item in zip(questions, items, strict=True)
            ]
        }

    return _Asked(questions, resume)


def _per_call(request: Mapping[str, Any], schema: Any) -> _Asked:
    """One card for a per-call ``ToolApprovalRequest``; resumed with one decision."""
    root = schema if isinstance(schema, Mapping) else {}
    name = str(request["name"])
    question = tool_question(
        name,
        name=name,
        arguments=request["args"],
        decisions=_allowed(_decision_types(root) or None),
        description=request.get("description") or None,
        schema=_edit_schema(root),
        call_id=request.get("tool_call_id"),
    )

    def resume(items: list[AskUserQuestionAnswerItem]) -> dict[str, Any]:
        return _langchain_decision(question, items[0])

    return _Asked([question], resume)


def _allowed(types: object) -> list[DecisionKind]:
    if not isinstance(types, list):
        return ["approve", "reject"]  # what every configuration allows
    return [kind for kind in _LANGCHAIN_DECISIONS if kind in types]


def _langchain_decision(
    question: AskUserQuestionItem, item: AskUserQuestionAnswerItem
) -> dict[str, Any]:
    """The decision in LangChain's shape: approve, edit (``edited_action``: the same tool with
    the edited arguments), reject (``message`` when a reason was given), respond (``message``)."""
    decision = tool_decision(question, item)
    if decision.kind == "edit":
        action = {"name": _tool_name(question), "args": decision.arguments}
        return {"type": "edit", "edited_action": action}
    if decision.kind in ("reject", "respond") and decision.message is not None:
        return {"type": decision.kind, "message": decision.message}
    return {"type": decision.kind}


def _tool_name(question: AskUserQuestionItem) -> str:
    assert isinstance(question.intent, ToolApprovalIntent)  # every card built here has one
    return question.intent.tool.name


def _resolve(root: Mapping[str, Any], node: Any) -> Any:
    """``node``, following a local ``$ref`` (``#/$defs/...``) of ``root``."""
    seen = 0
    while isinstance(node, Mapping) and isinstance(node.get("$ref"), str) and seen < 32:
        target: Any = root
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target.get(part) if isinstance(target, Mapping) else None
        node, seen = target, seen + 1
    return node


def _branches(root: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The decision branches of a ``response_schema``: its ``oneOf`` / ``anyOf``, or itself."""
    members = root.get("oneOf") or root.get("anyOf") or [root]
    resolved = (_resolve(root, member) for member in members)
    return [branch for branch in resolved if isinstance(branch, Mapping)]


def _branch_type(root: Mapping[str, Any], branch: Mapping[str, Any]) -> object:
    kind = _resolve(root, (branch.get("properties") or {}).get("type"))
    return kind.get("const") if isinstance(kind, Mapping) else None


def _decision_types(root: Mapping[str, Any]) -> list[str]:
    return [str(t) for b in _branches(root) if (t := _branch_type(root, b)) is not None]


def _edit_schema(root: Mapping[str, Any]) -> dict[str, Any] | None:
    """The tool's argument schema from the ``edit`` branch (``edited_action.args``)."""
    for branch in _branches(root):
        if _branch_type(root, branch) != "edit":
            continue
        action = _resolve(root, (branch.get("properties") or {}).get("edited_action"))
        args = _resolve(root, (action or {}).get("properties", {}).get("args"))
        if not isinstance(args, Mapping):
            return None
        schema = dict(args)
        if "$defs" in root and "$ref" in json.dumps(schema):
            schema["$defs"] = root["$defs"]  # its own references, resolvable on their own
        return schema
    return None


# -- any other value ---------------------------------------------------------------------------


def _value_card(value: object) -> _Asked:
    if isinstance(value, str):
        question = AskUserQuestionItem(id="answer", question=value)
    else:
        shown = json.dumps(value, indent=2, ensure_ascii=False, default=repr)
        question = AskUserQuestionItem(
            id="answer", question="The graph waits for your answer", detail=f"```json\n{shown}\n```"
        )

    def resume(items: list[AskUserQuestionAnswerItem]) -> str:
        return items[0].custom or ""

    return _Asked([question], resume)
