"""``ScriptedAnswerer``: answers questions from a script, for unit tests of agent code."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

from .._agents import Agent
from .._decisions import answer_errors, form_answer_item, tool_answer_item
from .._errors import UserQuestionError
from .._service import UserQuestions
from .._vocabulary import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionRequest,
)
from .._waterfall import Next
from ..kinds import form, kind_of, tool_approval

__all__ = [
    "SKIP",
    "TIME_OUT",
    "AlwaysAllow",
    "AlwaysReject",
    "Approve",
    "Cancel",
    "Decline",
    "Edit",
    "Other",
    "Reject",
    "RejectAndStop",
    "Reply",
    "Respond",
    "ScriptedAnswerer",
]


@dataclass(frozen=True)
class Other:
    """A free-text answer; with ``selected`` for a multi-select question that also picks labels."""

    text: str
    selected: Sequence[str] = ()


@dataclass(frozen=True)
class Approve:
    """Tool approval: run the call as proposed."""


@dataclass(frozen=True)
class AlwaysAllow:
    """Tool approval: run it, and grant the tool from now on (the caller's persistent grant)."""


@dataclass(frozen=True)
class Edit:
    """Tool approval: run it with these arguments instead."""

    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Reject:
    """Tool approval: do not run it; ``message`` tells the model why."""

    message: str | None = None


@dataclass(frozen=True)
class AlwaysReject:
    """Tool approval: do not run it, and refuse the tool from now on (the caller's persistent
    refusal); ``message`` tells the model why."""

    message: str | None = None


@dataclass(frozen=True)
class RejectAndStop:
    """Tool approval: do not run it, and stop the agent; ``message`` tells it why."""

    message: str | None = None


@dataclass(frozen=True)
class Respond:
    """Tool approval: do not run it; ``text`` goes to the model in place of its result."""

    text: str


@dataclass(frozen=True)
class Decline:
    """Form: an explicit no."""


@dataclass(frozen=True)
class Cancel:
    """Form: dismissed without a decision."""


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


SKIP = _Marker("SKIP")
"""Skip the question (an item with empty ``selected`` and no ``custom``)."""
TIME_OUT = _Marker("TIME_OUT")
"""Let the countdown run out: the answerer rejects with ``ASK_TIMED_OUT``."""

Reply = Union[  # noqa: UP007 (a recursive alias needs Union at run time)
    str,
    Sequence[str],
    Other,
    _Marker,
    Approve,
    AlwaysAllow,
    Edit,
    Reject,
    Respond,
    AlwaysReject,
    RejectAndStop,
    Decline,
    Cancel,
    Mapping[str, Any],
    Callable[[AskUserQuestionItem], "Reply"],
]
"""A label, labels, :class:`Other` text, :data:`SKIP`, :data:`TIME_OUT`; for a tool approval
:class:`Approve`, :class:`AlwaysAllow`, :class:`Edit`, :class:`Reject`, :class:`Respond`,
:class:`AlwaysReject` or :class:`RejectAndStop`; for a form a ``dict`` of field values,
:class:`Decline` or :class:`Cancel`; or a function of the
question returning one of those."""


class ScriptedAnswerer:
    """Answers each question from ``script``, looked up by question id, then question text, then
    (for a tool approval) the tool's name.

    A request with a question the script does not know is delegated with ``next()`` when
    ``delegate_unknown`` (the default), else it fails with a ``LookupError``. Labels are checked
    against the offered options unless the question has no options. Every request seen is kept
    in :attr:`requests`. Tool decisions and form values are checked against what the card
    offers (its decisions, the tool's argument schema, the form's schema): a script that answers
    outside them fails with a ``ValueError``.
    """

    def __init__(self, script: Mapping[str, Reply], *, delegate_unknown: bool = True) -> None:
        self.script = dict(script)
        self.delegate_unknown = delegate_unknown
        self.requests: list[AskUserQuestionRequest] = []

    def register(
        self, service: UserQuestions, *, agent: Agent | None = None, prepend: bool = False
    ) -> Callable[[], None]:
        """Add this answerer to ``service``'s waterfall; returns the function that removes it."""
        return service.on_request(self, agent=agent, prepend=prepend)

    def _reply_for(self, question: AskUserQuestionItem) -> Reply | None:
        if question.id in self.script:
            return self.script[question.id]
        if question.question in self.script:
            return self.script[question.question]
        intent = tool_approval.KIND.of(question.intent)
        return self.script.get(intent.tool.name) if intent is not None else None

    async def __call__(self, request: AskUserQuestionRequest, next: Next) -> AskUserQuestionAnswer:
        replies = [self._reply_for(question) for question in request.questions]
        if any(reply is None for reply in replies):
            if self.delegate_unknown:
                return await next()
            missing = [q.id for q, r in zip(request.questions, replies, strict=True) if r is None]
            raise LookupError(f"the script has no answer for question(s) {', '.join(missing)}")
        self.requests.append(request)
        items = []
        for question, reply in zip(request.questions, replies, strict=True):
            while callable(reply) and not isinstance(reply, (_Marker, Other)):
                reply = reply(question)
            if reply is TIME_OUT:
                raise UserQuestionError.of("ASK_TIMED_OUT")
            items.append(_item(question, reply))
        return AskUserQuestionAnswer(answers=items)


def _item(question: AskUserQuestionItem, reply: object) -> AskUserQuestionAnswerItem:
    rich = _rich_item(question, reply)
    if rich is not None:
        problems = answer_errors(question, rich)
        if problems:
            shown = "; ".join(f"{key}: {text}" if key else text for key, text in problems.items())
            raise ValueError(f"the script's answer to question {question.id} is refused: {shown}")
        return rich
    if reply is SKIP:
        return AskUserQuestionAnswerItem(id=question.id, selected=[])
    if isinstance(reply, Other):
        selected = list(reply.selected) if question.multi_select else []
        _check_labels(question, selected)
        return AskUserQuestionAnswerItem(id=question.id, selected=selected, custom=reply.text)
    labels = [reply] if isinstance(reply, str) else list(reply)  # type: ignore[call-overload]
    if len(labels) > 1 and not question.multi_select:
        raise ValueError(f"question {question.id} is single-select; the script gives {labels}")
    _check_labels(question, labels)
    return AskUserQuestionAnswerItem(id=question.id, selected=labels)


def _check_labels(question: AskUserQuestionItem, labels: list[str]) -> None:
    offered = [option.label for option in question.options or []]
    for label in labels:
        if offered and label not in offered:
            raise ValueError(
                f"the script answers question {question.id} with {label!r}, "
                f"which is none of its options {offered}"
            )


_TOOL_REPLIES = (Approve, AlwaysAllow, Edit, Reject, Respond, AlwaysReject, RejectAndStop)
_FORM_REPLIES = (Decline, Cancel, Mapping)


def _rich_item(question: AskUserQuestionItem, reply: object) -> AskUserQuestionAnswerItem | None:
    """The item for a tool decision or form reply; ``None`` for the plain replies. Each is
    written by the question's kind, which must be the reply's."""
    kind = kind_of(question.intent)
    name = kind.name if kind is not None else None
    if isinstance(reply, _TOOL_REPLIES):
        if name != tool_approval.KIND.name:
            raise ValueError(f"the script gives a tool decision to question {question.id}")
        return _tool_item(question, reply)
    if isinstance(reply, _FORM_REPLIES):
        if name != form.KIND.name:
            raise ValueError(f"the script gives form values to question {question.id}")
        return _form_item(question, reply)
    return None


def _tool_item(question: AskUserQuestionItem, reply: object) -> AskUserQuestionAnswerItem:
    if isinstance(reply, Approve):
        return tool_answer_item(question, "approve")
    if isinstance(reply, AlwaysAllow):
        return tool_answer_item(question, "always")
    if isinstance(reply, Edit):
        return tool_answer_item(question, "edit", arguments=dict(reply.arguments))
    if isinstance(reply, Reject):
        return tool_answer_item(question, "reject", message=reply.message)
    if isinstance(reply, Respond):
        return tool_answer_item(question, "respond", message=reply.text)
    if isinstance(reply, AlwaysReject):
        return tool_answer_item(question, "never", message=reply.message)
    assert isinstance(reply, RejectAndStop)
    return tool_answer_item(question, "stop", message=reply.message)


def _form_item(question: AskUserQuestionItem, reply: object) -> AskUserQuestionAnswerItem:
    if isinstance(reply, Decline):
        return form_answer_item(question, "decline")
    if isinstance(reply, Cancel):
        return form_answer_item(question, "cancel")
    assert isinstance(reply, Mapping)
    return form_answer_item(question, "accept", dict(reply))
