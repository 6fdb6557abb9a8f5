"""Asking what a framework waits for, all at once: one request, each group's own question ids.

A framework may wait for several things at once (LangGraph's parallel interrupts, several tool
calls of one model turn). Each is a *group* of questions with the ids its caller chose, and ids
of different groups may collide; the person still sees them in one request, so each question is
asked under an id unique in the request and its answer is handed back under its original id.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

from .._service import UserQuestions
from .._vocabulary import (
    ApprovalIntent,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionRequest,
)
from ._asking import Timing, ask

__all__ = ["Group", "ask_groups", "unique_id"]

T = TypeVar("T")

Group = Sequence[AskUserQuestionItem]
"""The questions of one thing a framework waits for, under the ids its caller chose."""


def unique_id(preferred: str, taken: set[str]) -> str:
    """``preferred``, or ``preferred-2``, ``-3``… when taken; the result is added to ``taken``."""
    candidate, number = preferred, 1
    while candidate in taken:
        number += 1
        candidate = f"{preferred}-{number}"
    taken.add(candidate)
    return candidate


async def ask_groups(
    groups: Sequence[Group], service: UserQuestions | None, timed: Timing | None = None
) -> list[list[AskUserQuestionAnswerItem]]:
    """Ask every group's questions and return each group's answers, in its order, under its ids.

    The groups go out as one request, except a group holding an ``approval`` question, which the
    specification asks alone (those requests are asked at the same time as the batch).
    ``service`` ``None`` asks on the default panel (:func:`ipyask.ask_batch`); ``timed`` asks
    each request timed (see :func:`._asking.ask`).
    """
    alone = [i for i, group in enumerate(groups) if _asked_alone(group)]
    together = [i for i in range(len(groups)) if i not in alone]
    batches = [[i] for i in alone] + ([together] if together else [])
    answered = await _all([_ask_batch([groups[i] for i in b], service, timed) for b in batches])
    answers: list[list[AskUserQuestionAnswerItem]] = [[] for _ in groups]
    for batch, batch_answers in zip(batches, answered, strict=True):
        for index, group_answers in zip(batch, batch_answers, strict=True):
            answers[index] = group_answers
    return answers


def _asked_alone(group: Group) -> bool:
    return any(isinstance(question.intent, ApprovalIntent) for question in group)


async def _ask_batch(
    groups: Sequence[Group], service: UserQuestions | None, timed: Timing | None
) -> list[list[AskUserQuestionAnswerItem]]:
    taken: set[str] = set()
    asked: list[AskUserQuestionItem] = []
    origin: dict[str, tuple[int, str]] = {}
    for index, group in enumerate(groups):
        for question in group:
            batch_id = unique_id(question.id, taken)
            origin[batch_id] = (index, question.id)
            asked.append(question.model_copy(update={"id": batch_id}))
    request = AskUserQuestionRequest(questions=asked)
    batch = await ask(request, service, timed)
    return _split(batch, origin, len(groups))


def _split(
    batch: AskUserQuestionAnswer, origin: dict[str, tuple[int, str]], count: int
) -> list[list[AskUserQuestionAnswerItem]]:
    by_id = {item.id: item for item in batch.answers}
    answers: list[list[AskUserQuestionAnswerItem]] = [[] for _ in range(count)]
    for batch_id, (index, original) in origin.items():  # in the order the questions were asked
        answers[index].append(by_id[batch_id].model_copy(update={"id": original}))
    return answers


async def _all(asks: Sequence[Coroutine[Any, Any, T]]) -> list[T]:
    """Run ``asks`` at once; the first to fail cancels the others and its error is raised."""
    if len(asks) == 1:
        return [await asks[0]]
    tasks = [asyncio.ensure_future(ask) for ask in asks]
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()
