"""Wake-ups from threads that are not the event loop's (comm handlers on subshell threads)."""

from __future__ import annotations

import asyncio
import threading

import pytest

import ipyask
from ipyask import PendingAnswer

from ._helpers import answer, drain, question


def in_thread(fn) -> None:
    thread = threading.Thread(target=fn)
    thread.start()
    thread.join()


async def test_an_answerer_settled_from_another_thread(svc) -> None:
    slots: list[ipyask.host.Settlement[ipyask.protocol.AskUserQuestionAnswer]] = []
    arrived = asyncio.Event()

    async def card(request, next):
        slot: ipyask.host.Settlement[ipyask.protocol.AskUserQuestionAnswer] = (
            ipyask.host.Settlement()
        )
        slots.append(slot)
        arrived.set()
        return await slot

    svc.on_request(card)
    task = asyncio.ensure_future(svc.ask({"questions": [question("q1", "A")]}))
    await arrived.wait()
    results: list[bool] = []
    in_thread(lambda: results.append(slots[0].resolve(answer(("q1", ["A"])))))
    in_thread(lambda: results.append(slots[0].resolve(answer(("q1", ["B"])))))
    in_thread(lambda: results.append(slots[0].reject(RuntimeError("late"))))
    assert results == [True, False, False]
    assert await asyncio.wait_for(task, 5) == answer(("q1", ["A"]))


async def test_racing_threads_settle_a_slot_exactly_once(svc) -> None:
    slot: ipyask.host.Settlement[int] = ipyask.host.Settlement()
    wins: list[int] = []
    barrier = threading.Barrier(8)

    def race(n: int) -> None:
        barrier.wait()
        if slot.resolve(n):
            wins.append(n)

    threads = [threading.Thread(target=race, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(wins) == 1
    assert await asyncio.wait_for(slot, 5) == wins[0]


async def test_an_abort_from_another_thread_ends_the_ask(svc) -> None:
    controller = ipyask.host.AbortController()
    arrived = asyncio.Event()

    async def waits(request, next):
        arrived.set()
        await asyncio.Event().wait()

    svc.on_request(waits)
    task = asyncio.ensure_future(svc.ask({"questions": [question()], "signal": controller.signal}))
    await arrived.wait()
    listener_threads: list[int] = []
    controller.signal.add_listener(lambda: listener_threads.append(threading.get_ident()))
    in_thread(controller.abort)
    assert controller.signal.aborted  # recorded at once
    with pytest.raises(ipyask.UserQuestionError) as caught:
        await asyncio.wait_for(task, 5)
    assert caught.value.code == "ASK_ABORTED"
    assert listener_threads == [threading.get_ident()]  # listeners ran on the loop thread


async def test_a_claim_released_from_another_thread_restores_the_deadline(
    svc, agent, clock
) -> None:
    task = asyncio.ensure_future(
        svc.ask_timed({"questions": [question()], "agent": agent}, "c1", 5000)
    )
    await drain()
    client = ipyask.host.AbortController()
    stream = svc.attach_wait(agent, "c1", client.signal)
    await stream.__anext__()
    wait = svc.live_wait(agent, "c1")
    assert wait is not None and not wait.armed
    clock.advance(6000)
    in_thread(client.abort)
    await drain()
    assert wait.claims == 0
    clock.advance(0)
    assert await asyncio.wait_for(task, 5) == PendingAnswer(call_id="c1")


async def test_a_controller_made_off_loop_still_wakes_the_loop_safely(svc, agent, clock) -> None:
    task = asyncio.ensure_future(
        svc.ask_timed({"questions": [question()], "agent": agent}, "c1", 5000)
    )
    await drain()
    made: list[ipyask.host.AbortController] = []
    in_thread(lambda: made.append(ipyask.host.AbortController()))
    stream = svc.attach_wait(agent, "c1", made[0].signal)
    await stream.__anext__()
    in_thread(made[0].abort)
    await drain()
    wait = svc.live_wait(agent, "c1")
    assert wait is not None and wait.claims == 0 and wait.armed
    clock.advance(5000)
    assert await asyncio.wait_for(task, 5) == PendingAnswer(call_id="c1")
