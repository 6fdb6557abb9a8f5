"""The one check of an answer batch against the questions it answers.

``answer()`` (a late reply), a claim on a durable record (``respond``) and the panel (a card's
answer) all refuse a batch with :func:`batch_problem`: a batch the agent could not use is never
recorded or delivered, and the question stays answerable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ._decisions import BadAnswerError, answer_problems
from ._errors import UserQuestionError
from ._field_problems import FieldProblem, ProblemLanguage, problem_texts
from ._vocabulary import AskUserQuestionAnswer, AskUserQuestionAnswerItem, AskUserQuestionItem
from .kinds import kind_of

__all__ = ["BatchProblem", "batch_problem", "check_batch", "items_problem"]


@dataclass(frozen=True)
class BatchProblem:
    """Why a batch cannot answer its questions; ``problems`` says, per field of question
    ``question_id`` (``""`` for its whole answer), what is wrong, for a card to show."""

    message: str
    question_id: str | None = None
    problems: dict[str, FieldProblem] = field(default_factory=dict)

    @property
    def fields(self) -> dict[str, str]:
        """What is wrong per field, in English."""
        return problem_texts(self.problems)

    def fields_in(self, language: ProblemLanguage) -> dict[str, str]:
        """What is wrong per field, in ``language``."""
        return problem_texts(self.problems, language)

    def error(self) -> UserQuestionError:
        """``BAD_ANSWER``: per field of the question at fault when there is one
        (:class:`~ipyask.errors.BadAnswerError`), else for the whole batch."""
        if self.question_id is None:
            return UserQuestionError(self.message, "BAD_ANSWER")
        return BadAnswerError(self.question_id, self.fields or {"": self.message})


def _item_problem(question: AskUserQuestionItem, item: AskUserQuestionAnswerItem) -> str | None:
    selected, custom = item.selected, item.custom
    offered = [option.label for option in question.options or []]
    for label in selected:
        if label not in offered:
            return f"{label!r} is not an option of question {question.id}"
    if len(selected) > 1 and len(set(selected)) != len(selected):
        return f"question {question.id} has a label selected twice"
    # A tool approval's or form's chosen label carries its text (checked by answer_errors); a
    # plan review's decline carries what the person wants changed (ipyask's choice): the kind
    # says whether text rides with the chosen label.
    intent = question.intent
    kind = kind_of(intent)
    rich = kind is not None and kind.text_rides(intent, selected)
    if not question.multi_select:
        if len(selected) > 1:
            return f"question {question.id} takes one option, not {len(selected)}"
        if selected and custom is not None and not rich:
            return f"question {question.id} is single-select: free text replaces the option"
    return None if kind is None else kind.item_problem(question, intent, item)


def batch_problem(
    questions: Sequence[AskUserQuestionItem], answer: AskUserQuestionAnswer, call_id: str
) -> BatchProblem | None:
    """Why ``answer`` cannot answer ``questions`` (of the call ``call_id``), or ``None``.

    The batch names each question exactly once (in any order); selected labels must be offered
    options (free text travels in ``custom``); a single-select item picks at most one option and
    never both an option and free text (except a tool approval's or form's label, whose text is
    its payload, and a plan review's decline, whose text says what to change); an approval takes
    exactly one of its actions and no text. A tool approval's and a form's item must be an
    offered decision whose arguments or values fit the schema (:func:`ipyask.host.answer_errors`),
    reported per field.
    """
    by_id = {item.id: item for item in answer.answers}
    if len(by_id) != len(answer.answers) or sorted(by_id) != sorted(q.id for q in questions):
        return BatchProblem(UserQuestionError.bad_answer(call_id, len(questions)).message)
    return items_problem(questions, [by_id[question.id] for question in questions])


def items_problem(
    questions: Sequence[AskUserQuestionItem], items: Sequence[AskUserQuestionAnswerItem]
) -> BatchProblem | None:
    """What :func:`batch_problem` finds once the batch names each question once: ``items[i]``
    answers ``questions[i]`` (a caller that checked the order already skips the look-up)."""
    for question, item in zip(questions, items, strict=True):
        problem = _item_problem(question, item)
        if problem is not None:
            return BatchProblem(problem, question.id)
        problems = answer_problems(question, item)
        if problems:
            fields = problem_texts(problems)
            shown = "; ".join(f"{name}: {text}" if name else text for name, text in fields.items())
            return BatchProblem(f"question {question.id}: {shown}", question.id, problems)
    return None


def check_batch(
    questions: Sequence[AskUserQuestionItem], answer: AskUserQuestionAnswer, call_id: str
) -> None:
    """Raise ``BAD_ANSWER`` (:meth:`BatchProblem.error`) when :func:`batch_problem` finds one."""
    problem = batch_problem(questions, answer, call_id)
    if problem is not None:
        raise problem.error()
