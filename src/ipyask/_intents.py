"""The intent rules ``ask()`` enforces, which the type system cannot express."""

from __future__ import annotations

import json
from collections.abc import Mapping

from ._errors import UserQuestionError
from ._form_schema import FormSchemaError, parse_form_schema
from ._vocabulary import (
    ApprovalIntent,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    FormIntent,
    PlanReviewIntent,
    ToolApprovalIntent,
)

__all__ = ["check_intents"]


def _labels(question: AskUserQuestionItem) -> list[str]:
    return [option.label for option in question.options or []]


def check_intents(request: AskUserQuestionRequest) -> None:
    """Raise ``BAD_INTENT`` for the first question, in order, whose intent cannot hold.

    Every known intent needs its ``approve`` label among the question's options, then a
    ``detail`` (an empty string counts). An ``approval`` also needs: to be the only question of a
    request without a timed wait, single-select, with distinct approve / reject / always labels
    that are exactly the offered options. ipyask's ``tool-approval`` and ``form`` need a
    single-select question whose options are exactly their distinct decision labels, JSON
    arguments and an object ``inputSchema`` (tool approval), and a ``requestedSchema`` inside the
    MCP elicitation subset (form). Unknown intent kinds are presentation hints only and are never
    rejected.
    """
    for question in request.questions:
        intent = question.intent
        if isinstance(intent, ToolApprovalIntent):
            _check_tool_approval(question, intent)
            continue
        if isinstance(intent, FormIntent):
            _check_form(question, intent)
            continue
        if not isinstance(intent, (PlanReviewIntent, ApprovalIntent)):
            continue
        labels = _labels(question)
        if intent.approve not in labels:
            raise UserQuestionError.bad_intent_label(
                question.id, intent.kind, "approve", intent.approve
            )
        if question.detail is None:
            raise UserQuestionError.bad_intent(
                question.id, intent.kind, "without the detail it reviews"
            )
        if isinstance(intent, ApprovalIntent):
            _check_approval(request, question, intent, labels)


def _check_approval(
    request: AskUserQuestionRequest,
    question: AskUserQuestionItem,
    intent: ApprovalIntent,
    labels: list[str],
) -> None:
    def fail(problem: str) -> UserQuestionError:
        return UserQuestionError.bad_intent(question.id, intent.kind, problem)

    if len(request.questions) != 1:
        count = len(request.questions)
        raise fail(f"in a request of {count} questions; an approval must be asked alone")
    if request.timed:
        raise fail("with a timed wait; an approval blocks until the user decides")
    if question.multi_select:
        raise fail("with multiSelect; an approval takes exactly one decision")
    roles = {"approve": intent.approve, "reject": intent.reject}
    if intent.always is not None:
        roles["always"] = intent.always
    _check_labels_are_options(question, intent.kind, roles, "approve, reject and always", "action")


def _check_labels_are_options(
    question: AskUserQuestionItem, kind: str, roles: dict[str, str], names: str, noun: str
) -> None:
    """The intent's role labels are distinct and exactly the question's options."""
    labels = _labels(question)
    actions = list(roles.values())
    if len(set(actions)) != len(actions):
        raise UserQuestionError.bad_intent(
            question.id, kind, f"whose {names} labels are not distinct"
        )
    for role, label in roles.items():
        if label not in labels:
            raise UserQuestionError.bad_intent_label(question.id, kind, role, label)
    for position, label in enumerate(labels):
        if label not in actions:
            raise UserQuestionError.bad_intent(
                question.id,
                kind,
                f"offers option {_quote(label)}, which is none of its {noun} labels",
            )
        if label in labels[:position]:
            raise UserQuestionError.bad_intent(
                question.id, kind, f"offers option {_quote(label)} more than once"
            )


def _check_tool_approval(question: AskUserQuestionItem, intent: ToolApprovalIntent) -> None:
    def fail(problem: str) -> UserQuestionError:
        return UserQuestionError.bad_intent(question.id, intent.kind, problem)

    if question.multi_select:
        raise fail("with multiSelect; a tool approval takes exactly one decision")
    roles = intent.decision_labels()
    if not roles:
        raise fail("without any decision (approve, always, edit, reject, respond, never or stop)")
    _check_labels_are_options(question, intent.kind, roles, "decision", "decision")
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


def _check_form(question: AskUserQuestionItem, intent: FormIntent) -> None:
    if question.multi_select:
        raise UserQuestionError.bad_intent(
            question.id, intent.kind, "with multiSelect; a form is answered once"
        )
    _check_labels_are_options(
        question, intent.kind, intent.action_labels(), "accept, decline and cancel", "action"
    )
    try:
        parse_form_schema(intent.requested_schema)
    except FormSchemaError as error:
        raise UserQuestionError.bad_intent(
            question.id, intent.kind, f"whose requestedSchema is refused: {error}"
        ) from None


def _quote(label: str) -> str:
    return json.dumps(label, ensure_ascii=False)
