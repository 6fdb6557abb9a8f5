from __future__ import annotations

import asyncio

import pytest

import ipyask
from ipyask.testing import ManualClock


async def drain(rounds: int = 20) -> None:
    """Let every ready callback and task on the loop run."""
    for _ in range(rounds):
        await asyncio.sleep(0)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def svc(clock: ManualClock) -> ipyask.UserQuestions:
    return ipyask.UserQuestions(clock=clock)


@pytest.fixture
def agent(svc: ipyask.UserQuestions) -> ipyask.Agent:
    return svc.agents.enter(ipyask.Agent("main"))


def question(qid: str = "q1", *labels: str, **extra: object) -> dict[str, object]:
    item: dict[str, object] = {"id": qid, "question": f"Question {qid}?"}
    if labels:
        item["options"] = [{"label": label} for label in labels]
    item.update(extra)
    return item


def answer(*items: tuple[str, list[str]]) -> ipyask.AskUserQuestionAnswer:
    return ipyask.AskUserQuestionAnswer.model_validate(
        {"answers": [{"id": qid, "selected": selected} for qid, selected in items]}
    )
