"""What every question kind shares: the shapes it reads, its table entry and the label rules.

A kind sees a question through :class:`QuestionLike` and a request through :class:`RequestLike`
(the vocabulary's models fit both), so that the vocabulary can import the kinds, never the
reverse.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, TypeVar

from .. import _errors, _field_problems, _form_schema, _wire

__all__ = [
    "Escape",
    "Kind",
    "Mark",
    "Problems",
    "QuestionLike",
    "RequestLike",
    "Scope",
    "check_approve_and_detail",
    "check_labels_are_options",
    "chosen",
    "labels",
    "labels_match",
    "load_object",
    "offered_label",
    "parsed_form",
    "quote",
    "shown",
    "text",
    "whole",
]

IntentT = TypeVar("IntentT")


class QuestionLike(Protocol):
    """A question as a kind reads it (:class:`~ipyask.protocol.AskUserQuestionItem` is one)."""

    @property
    def id(self) -> str: ...
    @property
    def question(self) -> str: ...
    @property
    def detail(self) -> str | None: ...
    @property
    def options(self) -> Sequence[_wire.AskUserQuestionOption] | None: ...
    @property
    def multi_select(self) -> bool | None: ...
    @property
    def intent(self) -> object: ...


class RequestLike(Protocol):
    """A request as a kind's check reads it
    (:class:`~ipyask.protocol.AskUserQuestionRequest` is one)."""

    @property
    def questions(self) -> Sequence[QuestionLike]: ...
    @property
    def timed(self) -> bool: ...


Problems = dict[str, _field_problems.FieldProblem]
"""What is wrong per field (``""`` for the whole answer)."""

Mark = Literal["rejected", "not-approved", "declined", "dismissed"]
"""What a decision card's answer means when it is a no (the transcript's words for it)."""

Scope = Literal["always-session", "always-saved"]
"""How long the rule a scoped answer adds holds (the transcript's words for it)."""

Escape = Callable[[str], str]
"""Escapes text for Markdown (the transcript's)."""


def _no_check(request: RequestLike, question: QuestionLike, intent: Any) -> None:
    return None


def _no_presentation(question: QuestionLike, intent: Any, timed: bool) -> None:
    return None


def _no_problems(
    question: QuestionLike, intent: Any, item: _wire.AskUserQuestionAnswerItem
) -> Problems:
    return {}


def _no_text(intent: Any, selected: Sequence[str]) -> bool:
    return False


def _no_item_problem(
    question: QuestionLike, intent: Any, item: _wire.AskUserQuestionAnswerItem
) -> str | None:
    return None


def _no_mark(intent: Any, selected: Sequence[str]) -> Mark | None:
    return None


def _no_words(
    intent: Any, selected: Sequence[str], values: dict[str, Any], escape: Escape
) -> str | None:
    return None


def _no_scope(
    intent: Any, selected: Sequence[str], values: dict[str, Any]
) -> tuple[Scope, str] | None:
    return None


@dataclass(frozen=True)
class Kind(Generic[IntentT]):
    """One question kind's entry in the table of kinds: its name (the intent's and the
    presentation's ``kind``, and ``widget/js/presentations/<name>.js``), its models and what
    the code that serves every kind asks it. A hook a kind leaves out does nothing."""

    name: str
    intent: type[IntentT] | None
    """``None`` for the generic flow, which has no intent."""
    presentation: type[_wire.WireModel]
    check: Callable[[RequestLike, QuestionLike, IntentT], None] = _no_check
    """Raise ``BAD_INTENT`` when the intent cannot hold on this question of this request."""
    present: Callable[[QuestionLike, IntentT, bool], _wire.WireModel | None] = _no_presentation
    """The card for the question alone on a card (``timed``: a timed wait), ``None`` when the
    question is not eligible (the generic flow shows it)."""
    problems: Callable[[QuestionLike, IntentT, _wire.AskUserQuestionAnswerItem], Problems] = (
        _no_problems
    )
    """What is wrong with an answer item, per field (empty when it fits)."""
    text_rides: Callable[[IntentT, Sequence[str]], bool] = _no_text
    """Whether free text may ride with the chosen label of a single-select question."""
    item_problem: Callable[[QuestionLike, IntentT, _wire.AskUserQuestionAnswerItem], str | None] = (
        _no_item_problem
    )
    """A rule of the kind on an answer item's shape, checked after the labels' rules."""
    mark: Callable[[IntentT, Sequence[str]], Mark | None] = _no_mark
    words: Callable[[IntentT, Sequence[str], dict[str, Any], Escape], str | None] = _no_words
    """An answer's JSON object text (``custom``) as a person reads it, ``None`` when the kind
    has no words for it."""
    scope: Callable[[IntentT, Sequence[str], dict[str, Any]], tuple[Scope, str] | None] = _no_scope
    """A scoped answer's scope and the rule it adds, read from its JSON object text
    (``custom``); ``None`` when the answer is not scoped. The transcript says them before any
    other words of the answer."""

    def of(self, intent: object) -> IntentT | None:
        """``intent`` when it is this kind's intent model, else ``None``."""
        return intent if self.intent is not None and isinstance(intent, self.intent) else None


def labels(question: QuestionLike) -> list[str]:
    """The question's option labels, in order."""
    return [option.label for option in question.options or []]


def quote(label: str) -> str:
    return json.dumps(label, ensure_ascii=False)


def check_approve_and_detail(question: QuestionLike, kind: str, approve: str) -> None:
    """A reviewed kind's ``approve`` label is an option, and the question has a ``detail``."""
    if approve not in labels(question):
        raise _errors.UserQuestionError.bad_intent_label(question.id, kind, "approve", approve)
    if question.detail is None:
        raise _errors.UserQuestionError.bad_intent(
            question.id, kind, "without the detail it reviews"
        )


def check_labels_are_options(
    question: QuestionLike, kind: str, roles: dict[str, str], names: str, noun: str
) -> None:
    """The intent's role labels are distinct and exactly the question's options."""
    offered = labels(question)
    actions = list(roles.values())
    if len(set(actions)) != len(actions):
        raise _errors.UserQuestionError.bad_intent(
            question.id, kind, f"whose {names} labels are not distinct"
        )
    for role, label in roles.items():
        if label not in offered:
            raise _errors.UserQuestionError.bad_intent_label(question.id, kind, role, label)
    for position, label in enumerate(offered):
        if label not in actions:
            raise _errors.UserQuestionError.bad_intent(
                question.id,
                kind,
                f"offers option {quote(label)}, which is none of its {noun} labels",
            )
        if label in offered[:position]:
            raise _errors.UserQuestionError.bad_intent(
                question.id, kind, f"offers option {quote(label)} more than once"
            )


def labels_match(question: QuestionLike, roles: list[str]) -> bool:
    """Whether a single-select question offers exactly these distinct labels."""
    offered = labels(question)
    return (
        not question.multi_select
        and len(set(roles)) == len(roles)
        and sorted(offered) == sorted(roles)
    )


def parsed_form(schema: dict[str, Any] | None) -> _form_schema.FormSchema | None:
    """The form of ``schema``, ``None`` when there is none or it is outside the subset."""
    if schema is None:
        return None
    try:
        return _form_schema.parse_form_schema(schema)
    except _form_schema.FormSchemaError:
        return None


def shown(value: object) -> str:
    """A value as a person reads it: text as it is, anything else as compact JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def text(custom: str | None) -> str | None:
    """Free text that says something (``None`` for none or blank)."""
    return custom if custom is not None and custom.strip() else None


_NOT_AN_OBJECT: dict[
    str, tuple[_field_problems.FieldProblemCode, _field_problems.FieldProblemCode]
] = {
    "arguments": ("arguments-not-json", "arguments-not-object"),
    "values": ("values-not-json", "values-not-object"),
}


def load_object(
    custom: str, what: Literal["arguments", "values"]
) -> dict[str, Any] | _field_problems.FieldProblem:
    """The JSON object in ``custom``, or the problem saying what is wrong with it."""
    not_json, not_object = _NOT_AN_OBJECT[what]
    try:
        value = json.loads(custom)
    except json.JSONDecodeError as error:
        params = {"detail": error.msg, "line": str(error.lineno)}
        return _field_problems.FieldProblem(not_json, params)
    if not isinstance(value, dict):
        return _field_problems.FieldProblem(not_object)
    return value


def whole(code: _field_problems.FieldProblemCode, **params: str) -> Problems:
    """One problem with the whole answer."""
    return {"": _field_problems.FieldProblem(code, params)}


def chosen(
    question: QuestionLike, item: _wire.AskUserQuestionAnswerItem, by_label: dict[str, str]
) -> str | Problems | None:
    """The role of the chosen label, ``None`` when none is chosen, or ``{"": problem}``."""
    if item.id != question.id:
        return whole("other-question", item=repr(item.id), question=repr(question.id))
    if len(item.selected) > 1:
        return whole("one-decision")
    if not item.selected:
        return None
    label = item.selected[0]
    if label not in by_label:
        offered = ", ".join(json.dumps(label) for label in by_label)
        return whole("not-offered", label=json.dumps(label), offered=offered)
    return by_label[label]


def offered_label(offered: dict[str, str], role: str, question: QuestionLike) -> str:
    """The label of ``role``; raises ``ValueError`` when the question does not offer it."""
    if role not in offered:
        raise ValueError(
            f"question {question.id} does not offer {role} (it offers {list(offered)})"
        )
    return offered[role]
