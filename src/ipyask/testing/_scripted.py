"""``ScriptedAnswerer``: answers questions from a script, for unit tests of agent code."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Union

from .._agents import Agent
from .._errors import UserQuestionError
from .._service import UserQuestions
from .._vocabulary import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionRequest,
)
from .._waterfall import Next

__all__ = ["SKIP", "TIME_OUT", "Other", "Reply", "ScriptedAnswerer"]


@dataclass(frozen=True)
class Other:
    """A free-text answer; with ``selected`` for a multi-select question that also picks labels."""

    text: str
    selected: Sequence[str] = ()


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
    str, Sequence[str], Other, _Marker, Callable[[AskUserQuestionItem], "Reply"]
]
"""A label, labels, :class:`Other` text, :data:`SKIP`, :data:`TIME_OUT`, or a function of the
question returning one of those."""


class ScriptedAnswerer:
    """Answers each question from ``script``, looked up by question id, then question text.

    A request with a question the script does not know is delegated with ``next()`` when
    ``delegate_unknown`` (the default), else it fails with a ``LookupError``. Labels are checked
    against the offered options unless the question has no options. Every request seen is kept
    in :attr:`requests`.
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
        return self.script.get(question.question)

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
