"""Typed results of ``tool-approval`` and ``form`` questions, read from plain answer items.

The seam's answer shape stays: the chosen label names the decision and ``custom`` carries its
text (edited arguments or form values as JSON text, a reason, a reply). The readers here check
an item against what its card offered and turn it into a :class:`ToolDecision` or a
:class:`FormResult`; the writers build the item for a decision (used by the testing tools).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ._field_problems import FieldProblem, FieldProblemCode, problem_texts
from ._form_schema import form_value_problems, parse_form_schema
from ._json_schema import json_schema_problems
from ._rule_patterns import read_always_scope
from ._vocabulary import (
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    FormIntent,
    ToolApprovalIntent,
)
from .errors import BadAnswerError

__all__ = [
    "BadAnswerError",
    "DecisionKind",
    "FormAction",
    "FormResult",
    "ToolDecision",
    "answer_errors",
    "answer_problems",
    "form_answer_item",
    "form_result",
    "tool_answer_item",
    "tool_decision",
]

DecisionKind = Literal["approve", "always", "edit", "reject", "respond", "never", "stop"]
FormAction = Literal["accept", "decline", "cancel"]


class ToolDecision(BaseModel):
    """The person's decision on a tool call.

    ``arguments`` are the arguments to run the tool with: the edited ones for ``edit``, else the
    proposed ones. ``message`` is the reason of a ``reject``, ``never`` or ``stop`` (may be
    ``None``), the reply of a ``respond`` (the tool's stand-in result), or for an ``always``
    the person scoped, the allow rule they added (``write_file(path="notes/**")``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: DecisionKind
    arguments: dict[str, Any]
    message: str | None = None

    @property
    def approved(self) -> bool:
        """Whether the tool should run (``approve``, ``always`` or ``edit``)."""
        return self.kind in ("approve", "always", "edit")


class FormResult(BaseModel):
    """The outcome of a form: ``accept`` with values valid against the schema, ``decline`` (an
    explicit no) or ``cancel`` (dismissed without a decision)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    action: FormAction
    values: dict[str, Any] | None = None
    """The submitted values; only when accepted."""

    @property
    def accepted(self) -> bool:
        """Whether the person submitted values."""
        return self.action == "accept"


def _text(custom: str | None) -> str | None:
    return custom if custom is not None and custom.strip() else None


class _NotAnObject(ValueError):
    def __init__(self, problem: FieldProblem) -> None:
        super().__init__(problem.text())
        self.problem = problem


_NOT_AN_OBJECT: dict[str, tuple[FieldProblemCode, FieldProblemCode]] = {
    "arguments": ("arguments-not-json", "arguments-not-object"),
    "values": ("values-not-json", "values-not-object"),
}


def _load_object(custom: str, what: Literal["arguments", "values"]) -> dict[str, Any]:
    """The JSON object in ``custom``; raises :class:`_NotAnObject` saying what is wrong."""
    not_json, not_object = _NOT_AN_OBJECT[what]
    try:
        value = json.loads(custom)
    except json.JSONDecodeError as error:
        params = {"detail": error.msg, "line": str(error.lineno)}
        raise _NotAnObject(FieldProblem(not_json, params)) from None
    if not isinstance(value, dict):
        raise _NotAnObject(FieldProblem(not_object))
    return value


Problems = dict[str, FieldProblem]
"""What is wrong per field (``""`` for the whole answer)."""


def _whole(code: FieldProblemCode, **params: str) -> Problems:
    return {"": FieldProblem(code, params)}


def _chosen(
    question: AskUserQuestionItem, item: AskUserQuestionAnswerItem, by_label: dict[str, str]
) -> str | Problems | None:
    """The role of the chosen label, ``None`` when none is chosen, or ``{"": problem}``."""
    if item.id != question.id:
        return _whole("other-question", item=repr(item.id), question=repr(question.id))
    if len(item.selected) > 1:
        return _whole("one-decision")
    if not item.selected:
        return None
    label = item.selected[0]
    if label not in by_label:
        offered = ", ".join(json.dumps(label) for label in by_label)
        return _whole("not-offered", label=json.dumps(label), offered=offered)
    return by_label[label]


def _read_tool(
    question: AskUserQuestionItem, item: AskUserQuestionAnswerItem
) -> ToolDecision | Problems:
    intent = question.intent
    if not isinstance(intent, ToolApprovalIntent):
        raise TypeError(f"question {question.id} is not a tool approval")
    labels = intent.decision_labels()
    chosen = _chosen(question, item, {label: kind for kind, label in labels.items()})
    if isinstance(chosen, dict):
        return chosen
    text = _text(item.custom)
    kind = chosen
    if kind is None:  # free text alone, as a client without this intent sends it
        if text is None:
            return _whole("needs-decision")
        kind = next((k for k in ("respond", "reject") if k in labels), None)
        if kind is None:
            return _whole("text-needs-decision")
    proposed = dict(intent.tool.arguments)
    if kind == "always" and item.custom is not None:
        return _scoped_always(intent, item.custom)
    if kind in ("approve", "always"):
        if item.custom is not None:
            return _whole("takes-no-text", decision=kind)
        return ToolDecision(kind=kind, arguments=proposed)
    if kind == "edit":
        if item.custom is None:
            return _whole("edit-needs-arguments")
        try:
            arguments = _load_object(item.custom, "arguments")
        except _NotAnObject as problem:
            return {"": problem.problem}
        errors = json_schema_problems(intent.tool.input_schema, arguments)
        if errors:
            return dict(errors)
        return ToolDecision(kind="edit", arguments=arguments)
    if kind == "respond" and text is None:
        return _whole("respond-needs-text")
    assert kind in ("reject", "respond", "never", "stop")
    return ToolDecision(kind=kind, arguments=proposed, message=text)


def _scoped_always(intent: ToolApprovalIntent, custom: str) -> ToolDecision | Problems:
    """An Always allow with its scope in ``custom`` (an ipyask extension, docs/rules.md)."""
    tool = intent.tool
    scope = read_always_scope(tool.name, tool.arguments, custom)
    if isinstance(scope, FieldProblem):
        return {"rule": scope}
    return ToolDecision(kind="always", arguments=dict(tool.arguments), message=scope.rule.text)


def _read_form(
    question: AskUserQuestionItem, item: AskUserQuestionAnswerItem
) -> FormResult | Problems:
    intent = question.intent
    if not isinstance(intent, FormIntent):
        raise TypeError(f"question {question.id} is not a form")
    labels = intent.action_labels()
    chosen = _chosen(question, item, {label: action for action, label in labels.items()})
    if isinstance(chosen, dict):
        return chosen
    action = chosen
    if action is None:
        if item.custom is not None:
            action = "accept"  # values typed as free text, as a client without this intent sends
        elif "cancel" in labels:
            action = "cancel"  # a skipped form was dismissed without a decision
        else:
            return _whole("form-needs-answer")
    if action in ("decline", "cancel"):
        if item.custom is not None:
            return _whole("takes-no-values", action=action)
        return FormResult(action=action)
    values: dict[str, Any] = {}
    if item.custom is not None:
        try:
            values = _load_object(item.custom, "values")
        except _NotAnObject as problem:
            return {"": problem.problem}
    errors = form_value_problems(parse_form_schema(intent.requested_schema), values)
    if errors:
        return errors
    return FormResult(action="accept", values=values)


def answer_errors(question: AskUserQuestionItem, item: AskUserQuestionAnswerItem) -> dict[str, str]:
    """What is wrong with ``item`` as the answer to a ``tool-approval`` or ``form`` question,
    per field (``""`` for the whole answer); empty when it fits, and for any other question."""
    return problem_texts(answer_problems(question, item))


def answer_problems(question: AskUserQuestionItem, item: AskUserQuestionAnswerItem) -> Problems:
    """:func:`answer_errors` as codes, for a text in another language."""
    if isinstance(question.intent, ToolApprovalIntent):
        read: object = _read_tool(question, item)
    elif isinstance(question.intent, FormIntent):
        read = _read_form(question, item)
    else:
        return {}
    return read if isinstance(read, dict) else {}


def tool_decision(question: AskUserQuestionItem, item: AskUserQuestionAnswerItem) -> ToolDecision:
    """The decision ``item`` gives on tool-approval ``question``; raises :class:`BadAnswerError`
    when it is outside the offered decisions or the edited arguments break the tool's schema.

    A label alone is that decision; free text without a label (a client that shows the generic
    flow) is a ``respond`` when offered, else a ``reject`` with that reason.
    """
    read = _read_tool(question, item)
    if isinstance(read, dict):
        raise BadAnswerError(question.id, problem_texts(read))
    return read


def form_result(question: AskUserQuestionItem, item: AskUserQuestionAnswerItem) -> FormResult:
    """The outcome ``item`` gives on form ``question``; raises :class:`BadAnswerError` (per
    field) when the values do not fit the schema.

    Free text without a label is read as the values' JSON (accept); a skipped form is a cancel
    when cancel is offered.
    """
    read = _read_form(question, item)
    if isinstance(read, dict):
        raise BadAnswerError(question.id, problem_texts(read))
    return read


def _label(offered: dict[str, str], role: str, question: AskUserQuestionItem) -> str:
    if role not in offered:
        raise ValueError(
            f"question {question.id} does not offer {role} (it offers {list(offered)})"
        )
    return offered[role]


def tool_answer_item(
    question: AskUserQuestionItem,
    kind: DecisionKind,
    *,
    arguments: dict[str, Any] | None = None,
    message: str | None = None,
) -> AskUserQuestionAnswerItem:
    """The answer item for decision ``kind``: its label, with the edited arguments (as JSON
    text) for ``edit`` or ``message`` for ``reject``, ``respond``, ``never`` and ``stop``. Not
    checked."""
    intent = question.intent
    if not isinstance(intent, ToolApprovalIntent):
        raise TypeError(f"question {question.id} is not a tool approval")
    label = _label(intent.decision_labels(), kind, question)
    custom = json.dumps(arguments, ensure_ascii=False) if kind == "edit" else message
    return AskUserQuestionAnswerItem(id=question.id, selected=[label], custom=custom)


def form_answer_item(
    question: AskUserQuestionItem, action: FormAction, values: dict[str, Any] | None = None
) -> AskUserQuestionAnswerItem:
    """The answer item for form ``action``: its label, with ``values`` as JSON text when
    accepted. Not checked."""
    intent = question.intent
    if not isinstance(intent, FormIntent):
        raise TypeError(f"question {question.id} is not a form")
    label = _label(intent.action_labels(), action, question)
    custom = json.dumps(values or {}, ensure_ascii=False) if action == "accept" else None
    return AskUserQuestionAnswerItem(id=question.id, selected=[label], custom=custom)
