"""The cards of LangGraph's own interrupt shapes (see :mod:`ipyask.integrations.langgraph`).

- a plain value (``interrupt("…")``, ``interrupt({"question": …, "details": …})``): its question
  with *Yes* (``True``), *No* (``False``) or a typed reply (the text);
- a value with a ``response_schema``: a form from the schema when it fits the form subset, else
  the JSON of the answer, checked against the schema before the graph sees it;
- the Agent Inbox format (a list of ``HumanInterrupt``): one tool-approval card per item, offering
  the actions its ``config`` allows; resumed with the list of ``HumanResponse``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from pydantic import TypeAdapter

from .._decisions import DecisionKind, form_result, tool_decision
from .._form_schema import FormSchemaError, parse_form_schema
from .._json_schema import json_schema_errors
from .._vocabulary import (
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    ToolApprovalIntent,
)
from ._batch import unique_id
from ._texts import Language, text
from ._tool_cards import tool_question

__all__ = ["AskAgain", "Asked", "inbox_card", "is_inbox", "schema_card", "value_card"]

_QUESTION_KEYS = ("question", "message", "description", "query", "instruction", "prompt")
"""The fields of a dict value read as its question, first found first."""

_TYPED_YES = {"yes", "y", "true", "是"}
_TYPED_NO = {"no", "n", "false", "否"}
_SUBMIT = "Submit"  # the form card says it in its own language

_NOTHING: Any = object()
"""No details beside the question."""


@dataclass(frozen=True)
class Asked:
    """What one interrupt asks, and how its answers become its answer value."""

    questions: list[AskUserQuestionItem]
    resume: Callable[[list[AskUserQuestionAnswerItem]], Any]


class AskAgain(Exception):
    """Raised by :attr:`Asked.resume` when the answer cannot be the resume value: ``asked`` is the
    card again, saying what was wrong."""

    def __init__(self, asked: Asked) -> None:
        super().__init__("ask again")
        self.asked = asked


def _json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=repr)


def _split(value: object) -> tuple[str | None, Any]:
    """The question a value asks (a string, or a dict's question field) and the rest of it."""
    if isinstance(value, str):
        return value, _NOTHING
    if isinstance(value, Mapping):
        for key in _QUESTION_KEYS:
            text = value.get(key)
            if isinstance(text, str) and text.strip():
                rest = {k: v for k, v in value.items() if k != key}
                return text, rest or _NOTHING
    return None, value


def _details(rest: Any) -> list[str]:
    """The rest of a value as Markdown: one paragraph per field of a dict, else JSON."""
    if rest is _NOTHING:
        return []
    if isinstance(rest, Mapping) and rest:
        shown = []
        for key, item in rest.items():
            if isinstance(item, str) and "\n" not in item:
                shown.append(f"**{key}**: {item}")
            else:
                shown.append(f"**{key}**:\n\n```json\n{_json(item)}\n```")
        return shown
    return [f"```json\n{_json(rest)}\n```"]


# -- a plain value -------------------------------------------------------------------------------


def value_card(value: object, *, hooked: bool, language: Language = "en") -> Asked:
    """Yes (``True``), No (``False``) or a typed reply (the text; typed yes / no count as those);
    ``None`` when skipped. ``hooked``: the answer goes to a resume hook, and the card says so.
    The card's texts are in ``language``."""
    question, rest = _split(value)
    gets = text(language, "hook-gets" if hooked else "graph-resumes-with")
    inline = text(language, "hook-gets-inline" if hooked else "graph-resumes-with-inline")
    yes, no = text(language, "graph-yes"), text(language, "graph-no")
    detail = [
        *_details(rest),
        text(language, "graph-reply-note", yes=yes, no=no, gets=gets, inline=inline),
    ]
    item = AskUserQuestionItem(
        id="answer",
        question=question or text(language, "graph-waits"),
        detail="\n\n".join(detail),
        options=[
            AskUserQuestionOption(
                label=yes, description=text(language, "graph-option", gets=gets, value="True")
            ),
            AskUserQuestionOption(
                label=no, description=text(language, "graph-option", gets=gets, value="False")
            ),
        ],
    )
    return Asked([item], partial(_read_reply, yes))


def _read_reply(yes: str, items: list[AskUserQuestionAnswerItem]) -> Any:
    item = items[0]
    if item.selected:
        return item.selected[0] == yes
    typed_text = item.custom
    if typed_text is None or not typed_text.strip():
        return None
    typed = typed_text.strip().casefold().rstrip(".!。！")
    if typed in _TYPED_YES:
        return True
    if typed in _TYPED_NO:
        return False
    return typed_text


# -- a value with a response_schema --------------------------------------------------------------


def _schema_dict(schema: object) -> dict[str, Any]:
    """The JSON Schema of ``response_schema``: as surfaced (a dict), or of a type."""
    if isinstance(schema, Mapping):
        return dict(schema)
    adapter: TypeAdapter[Any] = TypeAdapter(schema)  # type: ignore[arg-type]  # any type LangGraph took
    return adapter.json_schema()


def _resolve(root: Mapping[str, Any], node: Any) -> Any:
    """``node``, following a local ``$ref`` (``#/$defs/...``) of ``root``; its own keywords (a
    field's title, description, default) stay over the target's."""
    seen = 0
    while isinstance(node, Mapping) and isinstance(node.get("$ref"), str) and seen < 32:
        target: Any = root
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target.get(part) if isinstance(target, Mapping) else None
        if not isinstance(target, Mapping):
            return node
        own = {k: v for k, v in node.items() if k != "$ref"}
        node, seen = {**target, **own}, seen + 1
    return node


def _optional(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    """A pydantic optional field (``anyOf: [X, {"type": "null"}]``, default ``None``) as ``X``:
    leaving it out of the form leaves it to the model's default."""
    members = spec.get("anyOf")
    if not isinstance(members, list) or len(members) != 2 or {"type": "null"} not in members:
        return spec
    (kept,) = [member for member in members if member != {"type": "null"}]
    merged = {k: v for k, v in spec.items() if k != "anyOf"}
    if merged.get("default", 0) is None:
        del merged["default"]
    return {**(kept if isinstance(kept, Mapping) else {}), **merged}


def _form_of(root: Mapping[str, Any]) -> dict[str, Any] | None:
    """``root`` as a schema of the form subset (references resolved, optional fields plain, an
    enum's own title dropped for the field's), or ``None`` when it does not fit."""
    properties = root.get("properties")
    if root.get("type") != "object" or not isinstance(properties, Mapping):
        return None
    fields = {}
    for name, spec in properties.items():
        field = _optional(_resolve(root, _optional(spec) if isinstance(spec, Mapping) else spec))
        fields[name] = field
    form = {k: v for k, v in root.items() if k not in ("$defs", "definitions")}
    form["properties"] = fields
    try:
        parse_form_schema(form)
    except FormSchemaError:
        return None
    return form


def schema_card(value: object, schema: object, language: Language = "en") -> Asked:
    """A form from ``schema`` (a JSON editor beyond the form subset); answered with a value valid
    against the schema (checked before the graph sees it; LangGraph validates its model). The
    card's texts are in ``language``."""
    root = _schema_dict(schema)
    question, rest = _split(value)
    question = question or text(language, "graph-waits")
    return _schema_asked(question, _details(rest), root, None, language)


def _schema_asked(
    question: str,
    details: list[str],
    root: dict[str, Any],
    problem: str | None,
    language: Language,
) -> Asked:
    form = _form_of(root)
    detail = [*details]
    if problem is not None:
        detail.insert(0, text(language, "graph-refused", problem=problem))
    if form is None:
        schema_text = f"```json\n{_json(root)}\n```"
        detail.append(f"{text(language, 'graph-json-schema')}\n\n{schema_text}")
        item = AskUserQuestionItem(id="answer", question=question, detail="\n\n".join(detail))
    else:
        item = AskUserQuestionItem.model_validate(
            {
                "id": "answer",
                "question": question,
                "detail": "\n\n".join(detail),
                "options": [{"label": _SUBMIT}],
                "intent": {"kind": "form", "requestedSchema": form, "accept": _SUBMIT},
            }
        )

    def resume(items: list[AskUserQuestionAnswerItem]) -> Any:
        answer, problem = _schema_answer(item, items[0], form is not None, language)
        if problem is None:
            problem = "; ".join(
                f"{path}: {message}" if path else message
                for path, message in json_schema_errors(root, answer)
            )
        if problem:
            raise AskAgain(_schema_asked(question, details, root, problem, language))
        return answer

    return Asked([item], resume)


def _schema_answer(
    question: AskUserQuestionItem,
    item: AskUserQuestionAnswerItem,
    is_form: bool,
    language: Language,
) -> tuple[Any, str | None]:
    """The answer's value, or a problem that makes it none (in ``language``)."""
    if is_form:
        return form_result(question, item).values, None
    if item.custom is None or not item.custom.strip():
        return None, text(language, "graph-needs-answer")
    try:
        return json.loads(item.custom), None
    except json.JSONDecodeError as error:
        line = str(error.lineno)
        return None, text(language, "graph-bad-json", problem=error.msg, line=line)


# -- the Agent Inbox format ----------------------------------------------------------------------

_INBOX_DECISIONS: dict[str, DecisionKind] = {
    "allow_accept": "approve",
    "allow_edit": "edit",
    "allow_respond": "respond",
    "allow_ignore": "reject",
}
_INBOX_KINDS: tuple[DecisionKind, ...] = ("approve", "edit", "respond", "reject")


def _inbox_labels(language: Language) -> dict[str, str]:
    """The Agent Inbox's names for its decisions (accept, ignore) in ``language``; Edit and
    Respond are ipyask's own labels, which the card words itself."""
    return {
        "approve": text(language, "inbox-accept"),
        "edit": "Edit",
        "respond": "Respond",
        "reject": text(language, "inbox-ignore"),
    }


def is_inbox(value: object) -> bool:
    """Whether ``value`` is a list of Agent Inbox ``HumanInterrupt``."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(
            isinstance(item, Mapping)
            and isinstance(item.get("action_request"), Mapping)
            and isinstance(item["action_request"].get("args", {}), Mapping)
            and isinstance(item.get("config"), Mapping)
            for item in value
        )
    )


def inbox_card(
    requests: Sequence[Mapping[str, Any]],
    schemas: Mapping[str, dict[str, Any]],
    language: Language = "en",
) -> Asked:
    """One tool-approval card per ``HumanInterrupt`` offering its allowed actions (*Accept*,
    *Edit*, *Respond*, *Ignore*, named in ``language``); resumed with one ``HumanResponse`` per
    item, in order. ``schemas`` are the argument schemas of tools known by name (checks an
    edit)."""
    taken: set[str] = set()
    labels = _inbox_labels(language)
    questions = [
        _inbox_question(request, index, taken, schemas, labels)
        for index, request in enumerate(requests)
    ]

    def resume(items: list[AskUserQuestionAnswerItem]) -> list[dict[str, Any]]:
        return [
            _human_response(question, item) for question, item in zip(questions, items, strict=True)
        ]

    return Asked(questions, resume)


def _inbox_question(
    request: Mapping[str, Any],
    index: int,
    taken: set[str],
    schemas: Mapping[str, dict[str, Any]],
    labels: Mapping[str, str],
) -> AskUserQuestionItem:
    action = request["action_request"]
    name = str(action.get("action") or "action")
    config = request["config"]
    decisions = [kind for key, kind in _INBOX_DECISIONS.items() if config.get(key)]
    if not decisions:
        raise ValueError(
            f"the Agent Inbox interrupt {index} ({name!r}) allows no action: its config sets "
            "none of allow_accept, allow_edit, allow_respond, allow_ignore; allow at least one"
        )
    description = request.get("description")
    item = tool_question(
        unique_id(name, taken),
        name=name,
        arguments=action.get("args") or {},
        decisions=[kind for kind in _INBOX_KINDS if kind in decisions],
        description=description if isinstance(description, str) and description else None,
        schema=schemas.get(name),
    )
    return _relabelled(item, labels)


def _relabelled(item: AskUserQuestionItem, names: Mapping[str, str]) -> AskUserQuestionItem:
    """``item`` with the Agent Inbox's names for its decisions (accept, ignore)."""
    intent = item.intent
    assert isinstance(intent, ToolApprovalIntent)  # tool_question made it
    labels = {kind: names[kind] for kind in intent.decision_labels()}
    intent = ToolApprovalIntent.model_validate(
        {**intent.model_dump(by_alias=True, exclude_none=True), **labels}
    )
    options = [AskUserQuestionOption(label=label) for label in intent.decision_labels().values()]
    return item.model_copy(update={"intent": intent, "options": options})


def _human_response(
    question: AskUserQuestionItem, item: AskUserQuestionAnswerItem
) -> dict[str, Any]:
    """The ``HumanResponse``: accept and ignore with ``args`` ``None`` (ignore with its reason
    when one was typed), response with the text, edit with the edited ``ActionRequest``."""
    decision = tool_decision(question, item)
    intent = question.intent
    assert isinstance(intent, ToolApprovalIntent)  # _inbox_question made it
    if decision.kind == "edit":
        return {"type": "edit", "args": {"action": intent.tool.name, "args": decision.arguments}}
    if decision.kind == "respond":
        return {"type": "response", "args": decision.message}
    if decision.kind == "reject":
        return {"type": "ignore", "args": decision.message}
    return {"type": "accept", "args": None}
