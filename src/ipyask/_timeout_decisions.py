"""``on_timeout``: what an unanswered timed question becomes when its window runs out.

``"pending"`` (the seam's behaviour, the default) returns :class:`~ipyask.PendingAnswer`.
``"reject"`` answers each question with its refusal: a tool approval's reject (its reason says
the timeout decided), an approval's reject label, a form's decline (else its cancel).
Any other value is a label the card offers, as the person would click it: a tool approval's
approve, always, reject, never or stop; an approval's labels; a form's decline or cancel; a
plain question's option. Edit, respond and a form's accept are not offered (each needs text
only a person can give). The answer is an ordinary answer batch; the service remembers which
timed calls the timeout decided (:meth:`UserQuestions.timeout_decision`), so the card and the
transcript can say so, and the answers given after it, late, with who gave them
(:meth:`UserQuestions.late_answer`).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from ._answered_by import AnsweredBy
from ._decisions import DecisionKind, tool_answer_item
from ._vocabulary import (
    ApprovalIntent,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    FormIntent,
    ToolApprovalIntent,
)

__all__ = [
    "PENDING",
    "REJECT",
    "TIMEOUT_REASON",
    "LateAnswer",
    "TimeoutDecisions",
    "decision_words",
    "timeout_answer",
]

PENDING = "pending"
REJECT = "reject"
TIMEOUT_REASON = "No answer before the timeout: the timeout decided (on_timeout)."
"""The reason a tool approval rejected by the timeout gives the model."""
MAX_REMEMBERED = 1000
"""How many timed calls' timeout decisions the service remembers (the oldest go first)."""

_TOOL_DECISIONS: tuple[DecisionKind, ...] = ("approve", "always", "reject", "never", "stop")
_WITH_REASON = ("reject", "never", "stop")


def _choices(question: AskUserQuestionItem) -> tuple[dict[str, AskUserQuestionAnswerItem], str]:
    """The labels a timeout may choose on ``question`` (each with its answer item), and the
    label ``"reject"`` stands for (``""`` when the question has no refusal)."""
    intent = question.intent
    qid = question.id
    if isinstance(intent, ToolApprovalIntent):
        labels = intent.decision_labels()
        items = {
            labels[kind]: tool_answer_item(
                question, kind, message=TIMEOUT_REASON if kind in _WITH_REASON else None
            )
            for kind in _TOOL_DECISIONS
            if kind in labels
        }
        return items, labels.get("reject", "")
    if isinstance(intent, ApprovalIntent):
        offered = [intent.reject, intent.approve, *([intent.always] if intent.always else [])]
        items = {label: AskUserQuestionAnswerItem(id=qid, selected=[label]) for label in offered}
        return items, intent.reject
    if isinstance(intent, FormIntent):
        actions = intent.action_labels()
        refusals = [actions[action] for action in ("decline", "cancel") if action in actions]
        items = {label: AskUserQuestionAnswerItem(id=qid, selected=[label]) for label in refusals}
        return items, refusals[0] if refusals else ""
    options = question.options or []
    items = {
        option.label: AskUserQuestionAnswerItem(id=qid, selected=[option.label])
        for option in options
    }
    return items, ""


def timeout_answer(
    questions: list[AskUserQuestionItem], on_timeout: object
) -> AskUserQuestionAnswer | None:
    """The answer batch ``on_timeout`` gives ``questions`` when their window runs out;
    ``None`` for ``"pending"``. Raises :class:`ValueError` naming the values allowed."""
    if on_timeout == PENDING:
        return None
    choices = [_choices(question) for question in questions]
    if isinstance(on_timeout, str):
        if on_timeout == REJECT and all(refusal for _, refusal in choices):
            return AskUserQuestionAnswer(answers=[items[refusal] for items, refusal in choices])
        if on_timeout != REJECT and all(on_timeout in items for items, _ in choices):
            return AskUserQuestionAnswer(answers=[items[on_timeout] for items, _ in choices])
    allowed = [PENDING]
    if all(refusal for _, refusal in choices):
        allowed.append(REJECT)
    labels = [label for label in choices[0][0] if all(label in items for items, _ in choices)]
    allowed.extend(label for label in labels if label not in allowed)
    raise ValueError(
        f"on_timeout must be one of {', '.join(repr(value) for value in allowed)} for this "
        f"question, not {on_timeout!r} ('pending' leaves it answerable late; 'reject' and a "
        "decision's label answer it when its time runs out)"
    )


def decision_words(answer: AskUserQuestionAnswer) -> str:
    """The labels a timeout chose, for a person to read (``Reject``, ``Decline``)."""
    return ", ".join(dict.fromkeys(label for item in answer.answers for label in item.selected))


logger = logging.getLogger("ipyask")


@dataclass(frozen=True)
class LateAnswer:
    """An answer given after the timeout had decided its question: what the person answered,
    who they are and through which door (``answered_by``), and what the timeout had decided,
    which the agent went on with."""

    answer: AskUserQuestionAnswer
    answered_by: AnsweredBy | None
    decided: AskUserQuestionAnswer


class TimeoutDecisions:
    """Which timed calls the timeout answers, and with what (the latest :data:`MAX_REMEMBERED`).

    Planned when the call is asked (a view's countdown may end it before the asker hears), so
    whoever sees its timeout can tell what the asker was given."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._planned: OrderedDict[tuple[Any, str], AskUserQuestionAnswer] = OrderedDict()
        self._late: OrderedDict[tuple[Any, str], LateAnswer] = OrderedDict()

    def plan(self, owner: object, call_id: str, answer: AskUserQuestionAnswer | None) -> None:
        """Remember ``answer`` as what the timeout gives ``call_id`` (``None``: pending)."""
        with self._lock:
            self._planned.pop((owner, call_id), None)
            if answer is not None:
                self._planned[(owner, call_id)] = answer
                while len(self._planned) > MAX_REMEMBERED:
                    self._planned.popitem(last=False)

    def planned(self, owner: object, call_id: str) -> AskUserQuestionAnswer | None:
        """What the timeout gives (or gave) ``call_id``; ``None`` when it leaves it pending."""
        with self._lock:
            return self._planned.get((owner, call_id))

    def note_late(
        self,
        owner: object,
        call_id: str,
        answer: AskUserQuestionAnswer,
        by: AnsweredBy | None,
    ) -> LateAnswer | None:
        """Record ``answer``, given by ``by`` after the timeout decided ``call_id``, as late
        (logged); ``None`` when the timeout did not decide it."""
        with self._lock:
            decided = self._planned.get((owner, call_id))
            if decided is None:
                return None
            late = LateAnswer(answer, by, decided)
            self._late.pop((owner, call_id), None)
            self._late[(owner, call_id)] = late
            while len(self._late) > MAX_REMEMBERED:
                self._late.popitem(last=False)
        who = f" by {by.name} through the {by.door} door" if by is not None else ""
        logger.info(
            "late answer to %s%s, after the timeout had decided %s: recorded, not sent to the "
            "agent, which went on with the timeout's decision",
            call_id,
            who,
            decision_words(decided),
        )
        return late

    def late(self, owner: object, call_id: str) -> LateAnswer | None:
        """The answer given to ``call_id`` after its timeout decided, if any."""
        with self._lock:
            return self._late.get((owner, call_id))
