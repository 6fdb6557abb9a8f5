"""ipyask extension: a form of typed fields (``form.js``), answered, declined or cancelled.

Asks for the values of a flat object schema in the MCP elicitation subset. The chosen label is
the action (accept, decline, cancel); an accepted form carries its values as the JSON text of an
object in ``custom``. Its typed result is :class:`FormResult`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from .. import _errors, _field_problems, _form_schema, _wire
from . import _common

__all__ = [
    "FORM_LABELS",
    "KIND",
    "FormAction",
    "FormIntent",
    "FormPresentation",
    "FormResult",
    "answer_item",
    "check",
    "mark",
    "present",
    "question_wire",
    "read",
    "words",
]

FormAction = Literal["accept", "decline", "cancel"]


class FormIntent(_wire.WireModel):
    """ipyask extension: a form of typed fields, answered, declined or cancelled.

    ``requested_schema`` (``requestedSchema``, as MCP names it) is a flat object schema in the
    MCP elicitation subset. The options are exactly the ``accept``, ``decline`` and ``cancel``
    labels; an accepted form carries its values as the JSON text of an object in ``custom``.
    """

    kind: Literal["form"] = "form"
    requested_schema: dict[str, Any]
    accept: str
    """Submit the values."""
    decline: str | None = None
    """An explicit no: the person will not give these values."""
    cancel: str | None = None
    """Dismissed without a decision."""

    def action_labels(self) -> dict[str, str]:
        """The offered actions, ``{action: label}``, in the order accept, decline, cancel."""
        actions = {"accept": self.accept, "decline": self.decline, "cancel": self.cancel}
        return {action: label for action, label in actions.items() if label is not None}


class FormPresentation(_wire.WireModel):
    """ipyask extension: a form of typed fields with Submit and, when offered, Decline and
    Cancel."""

    kind: Literal["form"] = "form"
    form: _form_schema.FormSchema
    accept: str
    decline: str | None = None
    cancel: str | None = None


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


FORM_LABELS = {"accept": "Submit", "decline": "Decline", "cancel": "Cancel"}
"""The labels of a form's actions."""


def check(request: _common.RequestLike, question: _common.QuestionLike, intent: FormIntent) -> None:
    """``BAD_INTENT`` unless the question is single-select with its options exactly the
    distinct action labels and the ``requestedSchema`` is inside the MCP elicitation subset."""
    if question.multi_select:
        raise _errors.UserQuestionError.bad_intent(
            question.id, intent.kind, "with multiSelect; a form is answered once"
        )
    _common.check_labels_are_options(
        question, intent.kind, intent.action_labels(), "accept, decline and cancel", "action"
    )
    try:
        _form_schema.parse_form_schema(intent.requested_schema)
    except _form_schema.FormSchemaError as error:
        raise _errors.UserQuestionError.bad_intent(
            question.id, intent.kind, f"whose requestedSchema is refused: {error}"
        ) from None


def present(
    question: _common.QuestionLike, intent: FormIntent, timed: bool
) -> FormPresentation | None:
    """The form card, when the schema is inside the subset and the options are exactly the
    distinct action labels."""
    form = _common.parsed_form(intent.requested_schema)
    if form is None or not _common.labels_match(question, list(intent.action_labels().values())):
        return None
    return FormPresentation(
        form=form, accept=intent.accept, decline=intent.decline, cancel=intent.cancel
    )


def _intent(question: _common.QuestionLike) -> FormIntent:
    intent = question.intent
    if not isinstance(intent, FormIntent):
        raise TypeError(f"question {question.id} is not a form")
    return intent


def read(
    question: _common.QuestionLike, item: _wire.AskUserQuestionAnswerItem
) -> FormResult | _common.Problems:
    """The outcome ``item`` gives on form ``question``, or what is wrong with it."""
    intent = _intent(question)
    labels = intent.action_labels()
    chosen = _common.chosen(question, item, {label: action for action, label in labels.items()})
    if isinstance(chosen, dict):
        return chosen
    action = chosen
    if action is None:
        if item.custom is not None:
            action = "accept"  # values typed as free text, as a client without this intent sends
        elif "cancel" in labels:
            action = "cancel"  # a skipped form was dismissed without a decision
        else:
            return _common.whole("form-needs-answer")
    if action in ("decline", "cancel"):
        if item.custom is not None:
            return _common.whole("takes-no-values", action=action)
        return FormResult(action=action)
    values: dict[str, Any] = {}
    if item.custom is not None:
        loaded = _common.load_object(item.custom, "values")
        if isinstance(loaded, _field_problems.FieldProblem):
            return {"": loaded}
        values = loaded
    schema = _form_schema.parse_form_schema(intent.requested_schema)
    errors = _form_schema.form_value_problems(schema, values)
    if errors:
        return errors
    return FormResult(action="accept", values=values)


def _problems(
    question: _common.QuestionLike, intent: FormIntent, item: _wire.AskUserQuestionAnswerItem
) -> _common.Problems:
    found = read(question, item)  # its intent is this kind's: the kinds table says so
    return found if isinstance(found, dict) else {}


def answer_item(
    question: _common.QuestionLike, action: FormAction, values: dict[str, Any] | None = None
) -> _wire.AskUserQuestionAnswerItem:
    """The answer item for form ``action``: its label, with ``values`` as JSON text when
    accepted. Not checked."""
    intent = _intent(question)
    label = _common.offered_label(intent.action_labels(), action, question)
    custom = json.dumps(values or {}, ensure_ascii=False) if action == "accept" else None
    return _wire.AskUserQuestionAnswerItem(id=question.id, selected=[label], custom=custom)


def question_wire(
    message: str,
    schema: Mapping[str, Any],
    *,
    detail: str | None = None,
    question_id: str = "form",
) -> dict[str, Any]:
    """The wire form of the question that asks for the values of form ``schema`` (see
    :func:`ipyask.host.form_question`)."""
    item: dict[str, Any] = {
        "id": question_id,
        "question": message,
        "options": [{"label": label} for label in FORM_LABELS.values()],
        "intent": {"kind": "form", "requestedSchema": dict(schema), **FORM_LABELS},
    }
    if detail is not None:
        item["detail"] = detail
    return item


def _text_rides(intent: FormIntent, selected: Sequence[str]) -> bool:
    return True  # the accepted values are the label's payload (checked by read)


def mark(intent: FormIntent, selected: Sequence[str]) -> _common.Mark | None:
    """``declined`` or ``dismissed`` (cancel) when that action is chosen."""
    if intent.decline is not None and intent.decline in selected:
        return "declined"
    if intent.cancel is not None and intent.cancel in selected:
        return "dismissed"
    return None


def words(
    intent: FormIntent, selected: Sequence[str], values: dict[str, Any], escape: _common.Escape
) -> str | None:
    """Submitted values in words, as the card shows them: each value under its field's title,
    a choice under its option's title; ``None`` for any other answer."""
    if intent.accept not in selected:
        return None
    try:
        fields = _form_schema.parse_form_schema(intent.requested_schema).fields
    except _form_schema.FormSchemaError:
        return None
    parts = []
    for field in fields:
        if field.name not in values:
            continue
        titles = {o.value: o.title for o in getattr(field, "options", [])}
        value = values[field.name]
        chosen = value if isinstance(value, list) else [value]
        text = ", ".join(
            _common.shown(titles.get(v) or v) if isinstance(v, str) else _common.shown(v)
            for v in chosen
        )
        parts.append(f"{escape(field.title or field.name)}: {escape(text)}")
    return " · ".join(parts)


KIND: _common.Kind[FormIntent] = _common.Kind(
    name="form",
    intent=FormIntent,
    presentation=FormPresentation,
    check=check,
    present=present,
    problems=_problems,
    text_rides=_text_rides,
    mark=mark,
    words=words,
)
