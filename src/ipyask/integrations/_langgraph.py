"""The LangGraph bridge behind :mod:`ipyask.integrations.langgraph` (documented there)."""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
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
from ._asking import Timing, timing
from ._batch import ask_groups, unique_id
from ._framework import missing_framework
from ._langgraph_cards import AskAgain, Asked, inbox_card, is_inbox, schema_card, value_card
from ._texts import card_language
from ._tool_cards import tool_question

try:
    from langchain_core.runnables import RunnableConfig
    from langgraph.pregel import Pregel
    from langgraph.types import Command, Interrupt
except ImportError as _error:
    raise missing_framework("langgraph", "langgraph", _error) from _error

__all__ = ["ResumeHook", "run", "stream"]

ResumeHook = Callable[[Any, Any], Any]
"""``resume(value, answer)``: the resume value of an interrupt whose value is ``value``, given
the card's ``answer`` (what ipyask would resume with); may return an awaitable."""

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
    resume: ResumeHook | None = None,
    timeout: float | None = None,
    on_timeout: str = "pending",
) -> Any:
    """Run ``graph`` to its end, asking every interrupt; returns what ``ainvoke`` returns.

    ``service`` asks the questions (default: the default panel of :func:`ipyask.ask_batch`);
    ``resume`` turns each card's answer into the interrupt's resume value. The framework's own
    errors (a graph without a checkpointer, a decision it refuses) surface unchanged.

    ``timeout`` (seconds; ``None``, the default, waits for the person) asks each batch timed:
    when no one answers in time, ``on_timeout`` answers it: ``"reject"`` or a card decision's
    label as with :meth:`ipyask.UserQuestions.ask_timed`, and ``"pending"`` (the default)
    with each card's refusal (its reason says no one answered in time), or, for cards with no
    refusal (a plain question, a form without decline), ``UserQuestionError``
    ``ASK_TIMED_OUT``. Bad values raise :class:`ValueError`.
    """
    answering = _Answering(graph, service, resume, timing(timeout, on_timeout))
    result = await graph.ainvoke(input, config)
    while interrupts := _pending(result):
        result = await graph.ainvoke(Command(resume=await answering.answer(interrupts)), config)
    return result


async def stream(
    graph: Pregel[Any, Any, Any, Any],
    input: Any,
    config: RunnableConfig | None = None,
    *,
    service: UserQuestions | None = None,
    resume: ResumeHook | None = None,
    timeout: float | None = None,
    on_timeout: str = "pending",
    **stream_kwargs: Any,
) -> AsyncIterator[Any]:
    """``graph.astream(input, config, **stream_kwargs)``, answering interrupts as they come.

    Yields every chunk of every run; when a run stops at interrupts they are asked (as by
    :func:`run`, ``timeout`` and ``on_timeout`` too) and the graph is streamed on from
    ``Command(resume=...)`` until it finishes.
    """
    answering = _Answering(graph, service, resume, timing(timeout, on_timeout))
    next_input = input
    while True:
        carried: list[Interrupt] = []
        async for chunk in graph.astream(next_input, config, **stream_kwargs):
            carried.extend(_carried(chunk))
            yield chunk
        interrupts = await _waiting(graph, config, carried)
        if not interrupts:
            return
        next_input = Command(resume=await answering.answer(interrupts))


def _pending(result: Any) -> list[Interrupt]:
    if not isinstance(result, Mapping):
        return []
    found = result.get(_INTERRUPTS) or ()
    return [item for item in found if isinstance(item, Interrupt)]


def _carried(chunk: Any) -> list[Interrupt]:
    """The interrupts a stream chunk carries, in any stream mode that shows them (a chunk, a
    ``(mode, chunk)`` / ``(namespace, chunk)`` tuple, or a ``version="v2"`` part)."""
    if isinstance(chunk, tuple):
        return [found for part in chunk for found in _carried(part)]
    if isinstance(chunk, Mapping):
        if isinstance(chunk.get("data"), Mapping) and "type" in chunk:
            return _carried(chunk["data"])
        return _pending(chunk)
    return []


async def _waiting(
    graph: Pregel[Any, Any, Any, Any], config: RunnableConfig | None, carried: list[Interrupt]
) -> list[Interrupt]:
    """The interrupts a streamed run stopped at: from its saved state (whatever the stream mode
    showed), or those the stream carried when there is no checkpointer (resuming then fails with
    LangGraph's own error)."""
    try:
        state = await graph.aget_state(config or {})
    except ValueError:
        return carried
    return list(state.interrupts)


class _Answering:
    """Asks interrupts and turns the answers into resume values, for one run of a graph."""

    def __init__(
        self,
        graph: Pregel[Any, Any, Any, Any],
        service: UserQuestions | None,
        hook: ResumeHook | None,
        timed: Timing | None = None,
    ) -> None:
        self.service = service
        self.timed = timed
        self.hook = hook
        self.schemas = _tool_schemas(graph)

    async def answer(self, interrupts: Sequence[Interrupt]) -> dict[str, Any]:
        """``{interrupt id: resume value}``; a card whose answer cannot be its value (an answer
        outside its schema) is asked again, saying why."""
        asking = {i: self._ask_for(interrupt) for i, interrupt in enumerate(interrupts)}
        answers: dict[int, Any] = {}
        while asking:
            keys = list(asking)
            items = await ask_groups([asking[k].questions for k in keys], self.service, self.timed)
            again: dict[int, Asked] = {}
            for key, group in zip(keys, items, strict=True):
                try:
                    answers[key] = asking[key].resume(group)
                except AskAgain as refused:
                    again[key] = refused.asked
            asking = again
        return {
            interrupt.id: await self._resume_value(interrupt, answers[i])
            for i, interrupt in enumerate(interrupts)
        }

    async def _resume_value(self, interrupt: Interrupt, answer: Any) -> Any:
        if self.hook is None:
            return answer
        value = self.hook(interrupt.value, answer)
        return await value if inspect.isawaitable(value) else value

    def _ask_for(self, interrupt: Interrupt) -> Asked:
        value = interrupt.value
        if isinstance(value, Mapping):
            if value.get("type") == "tool_approval" and isinstance(value.get("args"), Mapping):
                return _per_call(value, interrupt.response_schema)
            if isinstance(value.get("action_requests"), list):
                return _batched(value, self.schemas)
        if interrupt.response_schema is not None:
            return schema_card(value, interrupt.response_schema, card_language(self.service))
        if is_inbox(value):
            return inbox_card(value, self.schemas, card_language(self.service))
        if isinstance(value, Mapping) and isinstance(value.get("questions"), list):
            try:
                request = AskUserQuestionRequest.model_validate(dict(value))
            except ValidationError:
                pass  # not an ipyask request after all: asked as a value
            else:
                return Asked(request.questions, _answer_batch)
        language = card_language(self.service)
        return value_card(value, hooked=self.hook is not None, language=language)


def _answer_batch(items: list[AskUserQuestionAnswerItem]) -> dict[str, Any]:
    return AskUserQuestionAnswer(answers=items).to_wire()


def _tool_schemas(graph: Pregel[Any, Any, Any, Any]) -> dict[str, dict[str, Any]]:
    """The argument schemas of the tools the graph's tool nodes run, by tool name: they check an
    edit when the interrupt itself carries no schema."""
    schemas: dict[str, dict[str, Any]] = {}
    for node in graph.nodes.values():
        tools = getattr(getattr(node, "bound", None), "tools_by_name", None)
        if not isinstance(tools, Mapping):
            continue
        for name, tool in tools.items():
            schema = _args_schema(tool)
            if schema is not None:
                schemas[str(name)] = schema
    return schemas


def _args_schema(tool: object) -> dict[str, Any] | None:
    schema = getattr(tool, "tool_call_schema", None)
    if isinstance(schema, Mapping):
        return dict(schema)
    to_json = getattr(schema, "model_json_schema", None)
    if not callable(to_json):
        return None
    try:
        found = to_json()
    except Exception:  # a schema pydantic cannot express: edits go unchecked, as before
        return None
    return dict(found) if isinstance(found, Mapping) else None


# -- LangChain's HumanInTheLoopMiddleware ----------------------------------------------------------


def _batched(request: Mapping[str, Any], schemas: Mapping[str, dict[str, Any]]) -> Asked:
    """One card per action of a batched ``HITLRequest``; resumed with ``{"decisions": [...]}``."""
    configs = {
        config.get("action_name"): config
        for config in request.get("review_configs") or []
        if isinstance(config, Mapping)
    }
    taken: set[str] = set()
    questions = []
    for action in request["action_requests"]:
        name = str(action["name"])
        arguments = action.get("args") or {}
        config = configs.get(name, {})
        questions.append(
            tool_question(
                unique_id(name, taken),
                name=name,
                arguments=arguments,
                decisions=_allowed(config.get("allowed_decisions")),
                description=_described(action.get("description"), name, arguments),
                schema=config.get("args_schema") or schemas.get(name),
            )
        )

    def resume(items: list[AskUserQuestionAnswerItem]) -> dict[str, Any]:
        return {
            "decisions": [
                _langchain_decision(question, item)
                for question, item in zip(questions, items, strict=True)
            ]
        }

    return Asked(questions, resume)


def _per_call(request: Mapping[str, Any], schema: Any) -> Asked:
    """One card for a per-call ``ToolApprovalRequest``; resumed with one decision."""
    root = schema if isinstance(schema, Mapping) else {}
    name = str(request["name"])
    question = tool_question(
        name,
        name=name,
        arguments=request["args"],
        decisions=_allowed(_decision_types(root) or None),
        description=_described(request.get("description"), name, request["args"]),
        schema=_edit_schema(root),
        call_id=request.get("tool_call_id"),
    )

    def resume(items: list[AskUserQuestionAnswerItem]) -> dict[str, Any]:
        return _langchain_decision(question, items[0])

    return Asked([question], resume)


def _described(description: object, name: str, arguments: object) -> str | None:
    """The action's description without the ``Tool: …`` / ``Args: {…}`` lines LangChain adds by
    default (the card shows the tool and its arguments itself, as JSON, not as a Python repr)."""
    if not isinstance(description, str):
        return None
    text = description.removesuffix(f"\n\nTool: {name}\nArgs: {arguments}")
    return text or None


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
