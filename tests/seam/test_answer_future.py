"""An answerer may return an ``AnswerFuture`` (the seam awaits it without a task), and a
``Settlement`` runs its done callbacks at once for a result, a loop turn later otherwise."""

from __future__ import annotations

import asyncio
import contextvars

import pytest

import ipyask
from ipyask import UserQuestionError
from ipyask._waterfall import AnswerFuture
from ipyask.host import Settlement

from ._helpers import answer, drain, question

REQUEST = {"questions": [question("q1", "A", "B")]}

_seen: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="outside")


async def test_a_result_runs_the_callbacks_at_once_in_their_context() -> None:
    settlement: Settlement[str] = Settlement()
    calls: list[tuple[str, str]] = []
    token = _seen.set("registered")
    settlement.add_done_callback(lambda future: calls.append((future.result(), _seen.get())))
    _seen.reset(token)
    assert settlement.resolve("yes")
    assert calls == [("yes", "registered")]  # no loop turn in between
    await drain()
    assert calls == [("yes", "registered")]  # and only once
    assert await settlement == "yes"


@pytest.mark.parametrize("awaited", [False, True])
async def test_a_result_schedules_no_loop_turn_for_the_callbacks_it_ran(
    awaited: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each answer settles one: a loop turn scheduled for callbacks already run costs every
    # answer a handle on the loop for nothing.
    settlement: Settlement[str] = Settlement()
    waiter = asyncio.ensure_future(_awaited(settlement)) if awaited else None
    await drain()  # an awaiting task has made the settlement's future
    seen: list[str] = []
    settlement.add_done_callback(lambda future: seen.append(future.result()))
    loop = asyncio.get_running_loop()
    scheduled: list[object] = []
    call_soon = loop.call_soon

    def counted(callback: object, *args: object, **kwargs: object) -> object:
        scheduled.append(callback)
        return call_soon(callback, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(loop, "call_soon", counted)
    assert settlement.resolve("yes")
    assert seen == ["yes"]
    # Only the awaiting task's wake-up, if a task awaits.
    assert len(scheduled) == (1 if awaited else 0)
    monkeypatch.undo()
    if waiter is not None:
        assert await waiter == "yes"
    await drain()
    assert seen == ["yes"]


async def test_an_error_or_a_cancel_runs_the_callbacks_a_loop_turn_later() -> None:
    rejected: Settlement[str] = Settlement()
    cancelled: Settlement[str] = Settlement()
    seen: list[object] = []
    rejected.add_done_callback(lambda future: seen.append(future.exception()))
    cancelled.add_done_callback(lambda future: seen.append(future.cancelled()))
    error = UserQuestionError.of("ASK_CANCELLED")
    assert rejected.reject(error)
    cancelled.cancel()
    assert seen == []
    await drain()
    assert seen == [error, True]
    assert cancelled.resolve("late")  # won (nothing settled it), but changes nothing
    assert seen == [error, True]
    with pytest.raises(asyncio.CancelledError):
        await cancelled


async def test_the_seam_awaits_an_answer_future_without_a_task(svc) -> None:
    futures: list[AnswerFuture] = []

    def answerer(request, next):
        future = AnswerFuture()
        futures.append(future)
        return future

    svc.on_request(answerer)
    tasks_before = len(asyncio.all_tasks())
    asking = asyncio.ensure_future(svc.ask(REQUEST))
    await drain()
    assert len(asyncio.all_tasks()) == tasks_before + 1  # the asking task only
    futures[0].set_result(answer(("q1", ["A"])))
    assert (await asking).answers[0].selected == ["A"]


async def test_an_aborted_ask_abandons_its_answer_future(svc) -> None:
    abandoned: list[str] = []

    def answerer(request, next):
        return AnswerFuture(lambda: abandoned.append("stop waiting"))

    svc.on_request(answerer)
    controller = ipyask.host.AbortController()
    asking = asyncio.ensure_future(svc.ask({**REQUEST, "signal": controller.signal}))
    await drain()
    controller.abort()
    with pytest.raises(UserQuestionError) as raised:
        await asking
    assert raised.value.code == "ASK_ABORTED"
    assert abandoned == ["stop waiting"]


async def test_a_cancelled_asker_abandons_its_answer_future(svc) -> None:
    abandoned: list[str] = []

    def answerer(request, next):
        return AnswerFuture(lambda: abandoned.append("stop waiting"))

    svc.on_request(answerer)
    asking = asyncio.ensure_future(svc.ask(REQUEST))
    await drain()
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking
    assert abandoned == ["stop waiting"]


async def test_a_settlement_with_keep_context_false_runs_its_callback_where_it_is_settled() -> None:
    settlement: Settlement[str] = Settlement()
    calls: list[tuple[str, str]] = []
    token = _seen.set("registered")
    settlement.add_done_callback(
        lambda future: calls.append((future.result(), _seen.get())), keep_context=False
    )
    _seen.reset(token)
    token = _seen.set("settling")
    assert settlement.resolve("yes")
    _seen.reset(token)
    assert calls == [("yes", "settling")]


async def test_a_callback_added_after_an_await_began_still_runs() -> None:
    settlement: Settlement[str] = Settlement()
    waiter = asyncio.ensure_future(_awaited(settlement))
    await drain()  # the waiter awaits: the settlement's future exists now
    seen: list[str] = []
    settlement.add_done_callback(lambda future: seen.append(future.result()))
    assert settlement.resolve("yes")
    assert seen == ["yes"]
    assert await waiter == "yes"


async def _awaited(settlement: Settlement[str]) -> str:
    return await settlement
