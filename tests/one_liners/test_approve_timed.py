"""``approve`` / ``approve_blocking`` with ``timeout=`` and ``on_timeout=``: an approval is never
a timed question (the spec: it blocks until the person decides, no late answer), so its time
running out withdraws the card and ``on_timeout`` decides what returns; on an injected clock."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

import pytest

import ipyask
from ipyask._notebook._one_liners import _default_notebook
from ipyask.testing import ManualClock, ScriptedAnswerer

T = TypeVar("T")


@pytest.fixture(autouse=True)
def _default_service_on_the_clock(
    svc: ipyask.UserQuestions, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_default_notebook, "_service", svc)


async def run_out(clock: ManualClock, asking: Awaitable[T]) -> T:
    """``asking``, its window run out by the clock while no one answers."""
    task = asyncio.ensure_future(asking)
    for _ in range(100):
        if task.done():
            break
        await asyncio.sleep(0)
        clock.advance(10_000)
    return await task


class Stuck:
    """Shows the card and never decides (a person who is away)."""

    async def __call__(self, request: object, next: object) -> None:
        await asyncio.Event().wait()


async def test_nobody_decides_in_time_pending_raises_timed_out(
    svc: ipyask.UserQuestions, clock: ManualClock
) -> None:
    svc.on_request(Stuck())
    with pytest.raises(ipyask.UserQuestionError) as caught:
        await run_out(clock, ipyask.approve("Deploy to staging?", timeout=30))
    assert caught.value.code == "ASK_TIMED_OUT"
    assert "within 30 s" in str(caught.value) and "cannot be answered late" in str(caught.value)


@pytest.mark.parametrize(
    ("on_timeout", "returned"),
    [("reject", "Not now"), ("Not now", "Not now"), ("Ship it", "Ship it")],
)
async def test_on_timeout_declares_the_label_returned(
    svc: ipyask.UserQuestions, clock: ManualClock, on_timeout: str, returned: str
) -> None:
    svc.on_request(Stuck())
    asking = ipyask.approve(
        "Deploy to staging?", approve="Ship it", reject="Not now", timeout=30, on_timeout=on_timeout
    )
    assert await run_out(clock, asking) == returned


async def test_the_window_is_the_timeout(svc: ipyask.UserQuestions, clock: ManualClock) -> None:
    """With no answerer at all (a script), the declared decision comes when the time is up."""
    task = asyncio.ensure_future(ipyask.approve("Deploy?", timeout=30, on_timeout="reject"))
    for _ in range(5):
        await asyncio.sleep(0)
    clock.advance(29_999)
    for _ in range(5):
        await asyncio.sleep(0)
    assert not task.done()
    clock.advance(1)
    assert await task == "Reject"


async def test_answered_in_its_window_is_the_persons_label(svc: ipyask.UserQuestions) -> None:
    script = ScriptedAnswerer({"approval": "Approve"})
    script.register(svc)
    assert await ipyask.approve("Deploy?", timeout=30, on_timeout="reject") == "Approve"
    assert not script.requests[0].timed  # an approval blocks: never a timed question


async def test_the_withdrawn_card_says_the_agent_went_on_without_it(
    svc: ipyask.UserQuestions, clock: ManualClock
) -> None:
    panel = ipyask.QuestionPanel(svc)
    try:
        asking = ipyask.approve("Deploy?", timeout=30, on_timeout="reject")
        assert await run_out(clock, asking) == "Reject"
        for _ in range(5):
            await asyncio.sleep(0)  # the card settles a loop turn later
        (card,) = panel.cards
        assert card["status"] == "expired"
        assert card["noticeCode"] == "late-reply-impossible"  # went on, takes no late answer
    finally:
        panel.close()


def test_the_blocking_form_takes_them_too(svc: ipyask.UserQuestions) -> None:
    ScriptedAnswerer({"approval": "Reject"}).register(svc)
    assert ipyask.approve_blocking("Deploy?", timeout=30) == "Reject"


async def test_bad_values_are_refused_before_asking() -> None:
    with pytest.raises(ValueError, match="needs a timeout"):
        await ipyask.approve("Deploy?", on_timeout="reject")
    with pytest.raises(ValueError, match="'pending', 'reject', 'Reject', 'Approve' for"):
        await ipyask.approve("Deploy?", timeout=30, on_timeout="later")
    with pytest.raises(ipyask.UserQuestionError) as caught:
        await ipyask.approve("Deploy?", timeout=0)
    assert caught.value.code == "BAD_TIMEOUT"
