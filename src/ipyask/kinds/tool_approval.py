"""ipyask extension: one tool call to approve (``tool-approval.js``, with ``tool-screens.js``).

Asks: run this tool call? The chosen label names the decision (approve, always, edit, reject,
respond, never, stop) and ``custom`` carries its text: the edited arguments as JSON text
(``edit``), the optional reason (``reject``, ``never``, ``stop``) or the reply (``respond``).
Its typed result is :class:`ToolDecision`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from .. import _errors, _field_problems, _form_schema, _json_schema, _rule_patterns, _wire
from . import _common

__all__ = [
    "DECISION_LABELS",
    "KIND",
    "DecisionKind",
    "ToolApprovalIntent",
    "ToolApprovalPresentation",
    "ToolCall",
    "ToolDecision",
    "ToolDecisionOption",
    "answer_item",
    "check",
    "mark",
    "present",
    "question_wire",
    "read",
    "scope",
    "words",
]

DecisionKind = Literal["approve", "always", "edit", "reject", "respond", "never", "stop"]


class ToolCall(_wire.WireModel):
    """The tool call a ``tool-approval`` card shows: what would run, with which arguments."""

    name: str = Field(min_length=1)
    """The tool's name, as the model called it."""
    arguments: dict[str, Any]
    """The arguments the model proposed (a JSON object)."""
    input_schema: dict[str, Any] | None = None
    """The tool's JSON Schema for its arguments (``inputSchema``, as MCP names it): edited
    arguments are checked against it, and the card builds its edit form from it when it is a
    flat object of simple fields."""
    call_id: str | None = None
    """The framework's id of this tool call, for the caller's bookkeeping."""


class ToolApprovalIntent(_wire.WireModel):
    """ipyask extension: approve, always allow, edit, reject or respond to one tool call (and,
    where the caller's framework has them, always reject or reject and stop).

    Each decision the caller allows is named by an option label (the options are exactly these
    labels). The chosen label is the answer; ``custom`` carries its text: the edited arguments
    as JSON text (``edit``), the optional reason (``reject``, ``never``, ``stop``) or the reply
    (``respond``).
    ``detail`` is the tool's description (Markdown).
    """

    kind: Literal["tool-approval"] = "tool-approval"
    tool: ToolCall
    approve: str | None = None
    """Run the call once, as proposed."""
    always: str | None = None
    """Run it, and the caller's persistent grant for this tool."""
    edit: str | None = None
    """Run it with the arguments in ``custom`` (JSON text of an object)."""
    reject: str | None = None
    """Do not run it; ``custom`` may give the reason, for the model."""
    respond: str | None = None
    """Do not run it; ``custom`` is returned to the model in place of the tool's result."""
    never: str | None = None
    """Do not run it, and the caller's persistent refusal of this tool; ``custom`` may give the
    reason."""
    stop: str | None = None
    """Do not run it, and stop the agent; ``custom`` may give the reason."""

    def decision_labels(self) -> dict[str, str]:
        """The allowed decisions, ``{kind: label}``, in the order approve, always, edit,
        reject, respond, never, stop."""
        decisions = {
            "approve": self.approve,
            "always": self.always,
            "edit": self.edit,
            "reject": self.reject,
            "respond": self.respond,
            "never": self.never,
            "stop": self.stop,
        }
        return {kind: label for kind, label in decisions.items() if label is not None}


class ToolDecisionOption(_wire.WireModel):
    """One decision a tool-approval card offers: its kind (the card's wording) and label."""

    kind: DecisionKind
    label: str


class ToolApprovalPresentation(_wire.WireModel):
    """ipyask extension: a tool call to approve, with its arguments and allowed decisions.

    The tool's description is the question's ``detail`` (``view.detailHtml``).
    """

    kind: Literal["tool-approval"] = "tool-approval"
    tool_name: str
    arguments: dict[str, Any]
    decisions: list[ToolDecisionOption]
    """In the order approve, always, edit, reject, respond, never, stop."""
    edit_form: _form_schema.FormSchema | None = None
    """The edit form, when the tool's schema is a flat object of form fields; else the card
    edits the arguments as JSON."""
    has_schema: bool = False
    """Whether the kernel checks edited arguments against a tool schema."""


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


DECISION_LABELS: dict[DecisionKind, str] = {
    "approve": "Approve",
    "always": "Always allow",
    "edit": "Edit",
    "reject": "Reject",
    "respond": "Respond",
    "never": "Always reject",
    "stop": "Reject and stop",
}
"""The label of each decision of :func:`question_wire`."""


def check(
    request: _common.RequestLike, question: _common.QuestionLike, intent: ToolApprovalIntent
) -> None:
    """``BAD_INTENT`` unless the question is single-select with its options exactly the
    distinct decision labels, the arguments are JSON and the ``inputSchema`` (if any) is an
    object schema."""

    def fail(problem: str) -> _errors.UserQuestionError:
        return _errors.UserQuestionError.bad_intent(question.id, intent.kind, problem)

    if question.multi_select:
        raise fail("with multiSelect; a tool approval takes exactly one decision")
    roles = intent.decision_labels()
    if not roles:
        raise fail("without any decision (approve, always, edit, reject, respond, never or stop)")
    _common.check_labels_are_options(question, intent.kind, roles, "decision", "decision")
    try:
        json.dumps(intent.tool.arguments, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise fail(f"whose tool arguments are not JSON ({error})") from None
    schema = intent.tool.input_schema
    if schema is not None:
        if schema.get("type", "object") != "object":
            raise fail('whose tool inputSchema is not an object schema ("type": "object")')
        if not isinstance(schema.get("properties", {}), Mapping):
            raise fail('whose tool inputSchema has "properties" that is not an object')


def present(
    question: _common.QuestionLike, intent: ToolApprovalIntent, timed: bool
) -> ToolApprovalPresentation | None:
    """The tool approval card, when the options are exactly the distinct decision labels."""
    decisions = intent.decision_labels()
    if not decisions or not _common.labels_match(question, list(decisions.values())):
        return None
    schema = intent.tool.input_schema
    return ToolApprovalPresentation(
        tool_name=intent.tool.name,
        arguments=intent.tool.arguments,
        decisions=[ToolDecisionOption(kind=k, label=label) for k, label in decisions.items()],
        edit_form=_common.parsed_form(schema) if "edit" in decisions else None,
        has_schema=schema is not None,
    )


def _intent(question: _common.QuestionLike) -> ToolApprovalIntent:
    intent = question.intent
    if not isinstance(intent, ToolApprovalIntent):
        raise TypeError(f"question {question.id} is not a tool approval")
    return intent


def read(
    question: _common.QuestionLike, item: _wire.AskUserQuestionAnswerItem
) -> ToolDecision | _common.Problems:
    """The decision ``item`` gives on tool-approval ``question``, or what is wrong with it."""
    intent = _intent(question)
    labels = intent.decision_labels()
    chosen = _common.chosen(question, item, {label: kind for kind, label in labels.items()})
    if isinstance(chosen, dict):
        return chosen
    text = _common.text(item.custom)
    kind = chosen
    if kind is None:  # free text alone, as a client without this intent sends it
        if text is None:
            return _common.whole("needs-decision")
        kind = next((k for k in ("respond", "reject") if k in labels), None)
        if kind is None:
            return _common.whole("text-needs-decision")
    proposed = dict(intent.tool.arguments)
    if kind == "always" and item.custom is not None:
        return _scoped_always(intent, item.custom)
    if kind in ("approve", "always"):
        if item.custom is not None:
            return _common.whole("takes-no-text", decision=kind)
        return ToolDecision(kind=kind, arguments=proposed)
    if kind == "edit":
        if item.custom is None:
            return _common.whole("edit-needs-arguments")
        loaded = _common.load_object(item.custom, "arguments")
        if isinstance(loaded, _field_problems.FieldProblem):
            return {"": loaded}
        arguments = loaded
        errors = _json_schema.json_schema_problems(intent.tool.input_schema, arguments)
        if errors:
            return dict(errors)
        return ToolDecision(kind="edit", arguments=arguments)
    if kind == "respond" and text is None:
        return _common.whole("respond-needs-text")
    assert kind in ("reject", "respond", "never", "stop")
    return ToolDecision(kind=kind, arguments=proposed, message=text)


def _scoped_always(intent: ToolApprovalIntent, custom: str) -> ToolDecision | _common.Problems:
    """An Always allow with its scope in ``custom`` (an ipyask extension, docs/rules.md)."""
    tool = intent.tool
    scope = _rule_patterns.read_always_scope(tool.name, tool.arguments, custom)
    if isinstance(scope, _field_problems.FieldProblem):
        return {"rule": scope}
    return ToolDecision(kind="always", arguments=dict(tool.arguments), message=scope.rule.text)


def _problems(
    question: _common.QuestionLike,
    intent: ToolApprovalIntent,
    item: _wire.AskUserQuestionAnswerItem,
) -> _common.Problems:
    found = read(question, item)  # its intent is this kind's: the kinds table says so
    return found if isinstance(found, dict) else {}


def answer_item(
    question: _common.QuestionLike,
    kind: DecisionKind,
    *,
    arguments: dict[str, Any] | None = None,
    message: str | None = None,
) -> _wire.AskUserQuestionAnswerItem:
    """The answer item for decision ``kind``: its label, with the edited arguments (as JSON
    text) for ``edit`` or ``message`` for ``reject``, ``respond``, ``never`` and ``stop``. Not
    checked."""
    intent = _intent(question)
    label = _common.offered_label(intent.decision_labels(), kind, question)
    custom = json.dumps(arguments, ensure_ascii=False) if kind == "edit" else message
    return _wire.AskUserQuestionAnswerItem(id=question.id, selected=[label], custom=custom)


def question_wire(
    name: str,
    arguments: Mapping[str, Any],
    *,
    schema: Mapping[str, Any] | None = None,
    decisions: Sequence[DecisionKind] = ("approve", "edit", "reject"),
    description: str | None = None,
    question_id: str = "tool",
) -> dict[str, Any]:
    """The wire form of the question that asks to approve the call of tool ``name`` (see
    :func:`ipyask.host.tool_approval_question`)."""
    unknown = [kind for kind in decisions if kind not in get_args(DecisionKind)]
    if unknown or not decisions:
        raise ValueError(
            f"decisions must be some of {list(get_args(DecisionKind))}, not {list(decisions)}"
        )
    labels = {kind: DECISION_LABELS[kind] for kind in DECISION_LABELS if kind in decisions}
    tool: dict[str, Any] = {"name": name, "arguments": dict(arguments)}
    if schema is not None:
        tool["inputSchema"] = dict(schema)
    item: dict[str, Any] = {
        "id": question_id,
        "question": f"Run {name}?",
        "options": [{"label": label} for label in labels.values()],
        "intent": {"kind": "tool-approval", "tool": tool, **labels},
    }
    if description is not None:
        item["detail"] = description
    return item


def _text_rides(intent: ToolApprovalIntent, selected: Sequence[str]) -> bool:
    return True  # the chosen decision's text is its payload (checked by read)


def mark(intent: ToolApprovalIntent, selected: Sequence[str]) -> _common.Mark | None:
    """``rejected`` when reject, always reject or reject and stop is chosen."""
    refusals = (intent.reject, intent.never, intent.stop)
    return "rejected" if any(r is not None and r in selected for r in refusals) else None


_GONE = object()
"""An argument an edit left out (``None`` is a value)."""


def words(
    intent: ToolApprovalIntent,
    selected: Sequence[str],
    values: dict[str, Any],
    escape: _common.Escape,
) -> str | None:
    """An edit in words, as its card says it: each changed argument (a removed one struck
    through); ``None`` for any other answer."""
    if intent.edit not in selected:
        return None
    proposed = intent.tool.arguments
    names = [n for n in {**proposed, **values} if proposed.get(n, _GONE) != values.get(n, _GONE)]
    return ", ".join(
        f"{escape(n)} → {escape(_common.shown(values[n]))}" if n in values else f"~~{escape(n)}~~"
        for n in names
    )


def scope(
    intent: ToolApprovalIntent, selected: Sequence[str], values: dict[str, Any]
) -> tuple[_common.Scope, str] | None:
    """A scoped Always allow's scope and rule (``{"scope": "session", "rule": "read_file"}``
    in ``custom``, docs/rules.md); ``None`` for any other answer."""
    rule, kind = values.get("rule"), values.get("scope")
    if intent.always not in selected or not isinstance(rule, str):
        return None
    if kind not in ("session", "saved"):
        return None
    return ("always-session" if kind == "session" else "always-saved"), rule


KIND: _common.Kind[ToolApprovalIntent] = _common.Kind(
    name="tool-approval",
    intent=ToolApprovalIntent,
    presentation=ToolApprovalPresentation,
    check=check,
    present=present,
    problems=_problems,
    text_rides=_text_rides,
    mark=mark,
    words=words,
    scope=scope,
)
