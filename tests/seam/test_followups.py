"""``after_answer``: an answerer's bookkeeping runs once the agent has its answer."""

from __future__ import annotations

import asyncio
import logging

import pytest

import ipyask
from ipyask import UserQuestionError

from ._helpers import answer, drain, question

REQUEST = {"questions": [question("q1", "A", "B")]}


async def test_follow_ups_run_after_the_agent_resumed_in_order(svc) -> None:
    order: list[str] = []

    async def answerer(request, next):
        ipyask.host.after_answer(lambda: order.append("first follow-up"))
        ipyask.host.after_answer(lambda: order.append("second follow-up"))
        order.append("answered")
        return answer(("q1", ["A"]))

    svc.on_request(answerer)

    async def agent() -> None:
        result = await svc.ask(REQUEST)
        order.append(f"agent has {result.answers[0].selected[0]}")
        await asyncio.sleep(0)  # the agent's next await: now the follow-ups run
        order.append("agent goes on")

    await agent()
    assert order == [
        "answered",
        "agent has A",
        "first follow-up",
        "second follow-up",
        "agent goes on",
    ]


async def test_follow_ups_also_run_when_the_ask_fails(svc) -> None:
    ran: list[str] = []

    async def answerer(request, next):
        ipyask.host.after_answer(lambda: ran.append("cleanup"))
        raise UserQuestionError("nope", "ASK_CANCELLED")

    svc.on_request(answerer)
    with pytest.raises(UserQuestionError) as raised:
        await svc.ask(REQUEST)
    assert raised.value.code == "ASK_CANCELLED"
    assert ran == []
    await drain()
    assert ran == ["cleanup"]


async def test_a_follow_up_added_after_the_ask_ended_runs_at_once(svc) -> None:
    ran: list[str] = []
    started = asyncio.Event()

    async def stubborn(request, next):
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            ipyask.host.after_answer(lambda: ran.append("late"))  # the ask is over by now
        raise AssertionError("unreachable")

    svc.on_request(stubborn)
    controller = ipyask.host.AbortController()
    task = asyncio.ensure_future(svc.ask({**REQUEST, "signal": controller.signal}))
    await started.wait()
    controller.abort()
    with pytest.raises(UserQuestionError) as raised:
        await task
    assert raised.value.code == "ASK_ABORTED"
    await drain()
    assert ran == ["late"]


def test_outside_an_ask_a_follow_up_runs_at_once() -> None:
    ran: list[str] = []
    ipyask.host.after_answer(lambda: ran.append("now"))
    assert ran == ["now"]


async def test_a_failing_follow_up_is_logged_and_the_next_still_runs(svc, caplog) -> None:
    ran: list[str] = []

    def broken() -> None:
        raise RuntimeError("view gone")

    async def answerer(request, next):
        ipyask.host.after_answer(broken)
        ipyask.host.after_answer(lambda: ran.append("next"))
        return answer(("q1", ["B"]))

    svc.on_request(answerer)
    with caplog.at_level(logging.ERROR, logger="ipyask"):
        assert (await svc.ask(REQUEST)).answers[0].selected == ["B"]
        await drain()
    assert ran == ["next"]
    assert "a follow-up of an answer failed" in caplog.text
    assert "view gone" in caplog.text


async def test_nested_asks_keep_their_own_follow_ups(svc) -> None:
    inner = ipyask.UserQuestions()
    order: list[str] = []

    async def inner_answerer(request, next):
        ipyask.host.after_answer(lambda: order.append("inner follow-up"))
        return answer(("q1", ["A"]))

    async def outer_answerer(request, next):
        result = await inner.ask(REQUEST)
        order.append("inner ask returned")
        ipyask.host.after_answer(lambda: order.append("outer follow-up"))
        return result

    inner.on_request(inner_answerer)
    svc.on_request(outer_answerer)
    await svc.ask(REQUEST)
    order.append("agent resumed")
    await drain()
    # The inner follow-up waits for its own asker (the outer answerer) only.
    assert order == ["inner ask returned", "inner follow-up", "agent resumed", "outer follow-up"]
