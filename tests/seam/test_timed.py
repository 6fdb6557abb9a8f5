from __future__ import annotations

import asyncio

import pytest

import ipyask
from ipyask import PendingAnswer, UserQuestionError
from ipyask.testing import ManualClock

from ._helpers import answer, drain, question


class Card:
    """A client answerer that holds timed requests until the test settles them."""

    def __init__(self) -> None:
        self.requests: list[ipyask.protocol.AskUserQuestionRequest] = []
        self.futures: list[asyncio.Future[ipyask.protocol.AskUserQuestionAnswer]] = []
        self.arrived = asyncio.Event()

    async def __call__(self, request, next):
        future = asyncio.get_running_loop().create_future()
        self.requests.append(request)
        self.futures.append(future)
        self.arrived.set()
        return await future


def timed(svc, agent, call_id="call_1", timeout_ms=5000, signal=None):
    request = {"questions": [question("q1", "A", "B")], "agent": agent}
    if signal is not None:
        request["signal"] = signal
    return asyncio.ensure_future(svc.ask_timed(request, call_id, timeout_ms))


async def test_an_answer_inside_the_window_is_returned(svc, agent) -> None:
    card = Card()
    svc.on_request(card)
    task = timed(svc, agent)
    await card.arrived.wait()
    forwarded = card.requests[0]
    assert forwarded.wait == ipyask.host.QuestionWait(call_id="call_1", timed=True)
    assert forwarded.signal is not None and not forwarded.signal.aborted
    card.futures[0].set_result(answer(("q1", ["B"])))
    assert await task == answer(("q1", ["B"]))
    assert svc.live_wait(agent, "call_1") is None
    assert forwarded.signal.aborted  # the wait closed behind the answer


async def test_the_client_countdown_rejection_becomes_pending(svc, agent) -> None:
    card = Card()
    svc.on_request(card)
    task = timed(svc, agent)
    await card.arrived.wait()
    card.futures[0].set_exception(UserQuestionError.of("ASK_TIMED_OUT"))
    assert await task == PendingAnswer(call_id="call_1")


async def test_the_host_deadline_without_a_claim_gives_pending_and_spares_the_turn(
    svc, agent, clock: ManualClock
) -> None:
    turn = ipyask.host.AbortController()
    card = Card()
    svc.on_request(card)
    task = timed(svc, agent, signal=turn.signal)
    await card.arrived.wait()
    clock.advance(4999)
    await drain()
    assert not task.done()
    clock.advance(1)
    result = await task
    assert result == PendingAnswer(call_id="call_1")
    assert result.to_wire() == {"pending": True, "callId": "call_1"}
    reason = card.requests[0].signal.reason  # type: ignore[union-attr]
    assert isinstance(reason, UserQuestionError) and reason.code == "ASK_TIMED_OUT"
    assert not turn.signal.aborted


async def test_with_no_answerer_the_wait_holds_until_the_deadline(svc, agent, clock) -> None:
    task = timed(svc, agent, timeout_ms=1000)
    await drain()
    assert not task.done()
    clock.advance(1000)
    assert await task == PendingAnswer(call_id="call_1")


async def test_a_turn_abort_ends_the_wait_as_aborted(svc, agent, clock) -> None:
    turn = ipyask.host.AbortController()
    card = Card()
    svc.on_request(card)
    task = timed(svc, agent, signal=turn.signal)
    await card.arrived.wait()
    reason = RuntimeError("user pressed stop")
    turn.abort(reason)
    with pytest.raises(UserQuestionError) as caught:
        await task
    assert caught.value.code == "ASK_ABORTED"
    assert clock.pending == []


async def test_a_turn_already_aborted_ends_at_once(svc, agent) -> None:
    turn = ipyask.host.AbortController()
    turn.abort()
    with pytest.raises(UserQuestionError) as caught:
        await timed(svc, agent, signal=turn.signal)
    assert caught.value.code == "ASK_ABORTED"


async def test_no_answerer_and_a_turn_abort_is_aborted(svc, agent) -> None:
    turn = ipyask.host.AbortController()
    task = timed(svc, agent, signal=turn.signal)
    await drain()
    turn.abort()
    with pytest.raises(UserQuestionError) as caught:
        await task
    assert caught.value.code == "ASK_ABORTED"


async def test_unload_aborts_a_live_wait(svc, agent) -> None:
    card = Card()
    svc.on_request(card)
    task = timed(svc, agent)
    await card.arrived.wait()
    await svc.aclose()
    with pytest.raises(UserQuestionError) as caught:
        await task
    assert caught.value.code == "ASK_ABORTED"


@pytest.mark.parametrize("code", ["ASK_CANCELLED", "NO_PROVIDER_X"])
async def test_other_client_codes_are_rethrown(svc, agent, code) -> None:
    card = Card()
    svc.on_request(card)
    task = timed(svc, agent)
    await card.arrived.wait()
    card.futures[0].set_exception(UserQuestionError("nope", code))
    with pytest.raises(UserQuestionError) as caught:
        await task
    assert caught.value.code == code


async def test_a_non_harness_failure_is_a_provider_error(svc, agent) -> None:
    card = Card()
    svc.on_request(card)
    task = timed(svc, agent)
    await card.arrived.wait()
    card.futures[0].set_exception(TypeError("bad state"))
    with pytest.raises(UserQuestionError) as caught:
        await task
    assert caught.value.code == "PROVIDER_ERROR"
    assert isinstance(caught.value.__cause__, TypeError)


@pytest.mark.parametrize(
    "timeout", [0, -1, 2_147_483_648, 1.5, float("nan"), float("inf"), True, False, "5", None]
)
async def test_bad_timeouts_are_refused_before_anything_else(svc, timeout) -> None:
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask_timed({"questions": []}, "c", timeout)
    assert caught.value.code == "BAD_TIMEOUT"
    assert str(caught.value) == "timeout must fit a positive platform timer"


@pytest.mark.parametrize("timeout", [1, 2_147_483_647, 5.0])
async def test_timeouts_in_range_are_accepted(svc, agent, clock, timeout) -> None:
    task = timed(svc, agent, timeout_ms=timeout)
    await drain()
    assert clock.pending == [int(timeout)]
    clock.advance(timeout)
    assert await task == PendingAnswer(call_id="call_1")


async def test_a_timed_ask_needs_a_live_agent(svc) -> None:
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask_timed({"questions": [question()]}, "c", 10)
    assert caught.value.code == "CALLER_NOT_LIVE"


async def test_a_second_wait_for_the_same_call_is_refused(svc, agent) -> None:
    first = timed(svc, agent)
    await drain()
    with pytest.raises(UserQuestionError) as caught:
        await timed(svc, agent)
    assert caught.value.code == "DUPLICATE_WAIT"
    assert str(caught.value) == "the question call already has a foreground wait"
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    assert svc.live_wait(agent, "call_1") is None


async def test_cancelling_a_timed_ask_is_an_abort(svc, agent) -> None:
    task = timed(svc, agent)
    await drain()
    task.cancel()
    with pytest.raises(ipyask.AskCancelledError) as caught:
        await task
    assert caught.value.code == "ASK_ABORTED"


async def claim(svc, agent, call_id="call_1", signal=None):
    stream = svc.attach_wait(agent, call_id, signal)
    frames = [frame async for frame in _first(stream)]
    return stream, frames


async def _first(stream):
    async for frame in stream:
        yield frame
        return


async def test_attach_yields_one_frame_then_ends_with_the_wait(svc, agent, clock) -> None:
    card = Card()
    svc.on_request(card)
    task = timed(svc, agent)
    await card.arrived.wait()
    clock.advance(1200)
    stream = svc.attach_wait(agent, "call_1")
    frame = await stream.__anext__()
    assert frame.remaining_ms == 3800
    ended = asyncio.ensure_future(stream.__anext__())
    await drain()
    assert not ended.done()
    card.futures[0].set_result(answer(("q1", ["A"])))
    await task
    with pytest.raises(StopAsyncIteration):
        await ended


async def test_a_claim_pauses_the_host_timer_without_moving_the_deadline(svc, agent, clock) -> None:
    card = Card()
    svc.on_request(card)
    task = timed(svc, agent, timeout_ms=5000)
    await card.arrived.wait()
    clock.advance(1000)
    client = ipyask.host.AbortController()
    stream = svc.attach_wait(agent, "call_1", client.signal)
    assert (await stream.__anext__()).remaining_ms == 4000
    assert clock.pending == []
    clock.advance(2000)
    client.abort()
    await drain()
    assert clock.pending == [5000]
    clock.advance(1999)
    await drain()
    assert not task.done()
    clock.advance(1)
    assert await task == PendingAnswer(call_id="call_1")


async def test_after_a_claim_past_the_deadline_the_wait_expires_at_once(svc, agent, clock) -> None:
    card = Card()
    svc.on_request(card)
    task = timed(svc, agent, timeout_ms=5000)
    await card.arrived.wait()
    stream = svc.attach_wait(agent, "call_1")
    await stream.__anext__()
    clock.advance(10_000)
    await drain()
    assert not task.done()
    await stream.aclose()
    clock.advance(0)
    assert await task == PendingAnswer(call_id="call_1")
    assert clock.now_ms() == 10_000


async def test_two_claims_keep_the_timer_off_until_both_leave(svc, agent, clock) -> None:
    task = timed(svc, agent, timeout_ms=5000)
    await drain()
    first, second = ipyask.host.AbortController(), ipyask.host.AbortController()
    one = svc.attach_wait(agent, "call_1", first.signal)
    two = svc.attach_wait(agent, "call_1", second.signal)
    assert (await one.__anext__()).remaining_ms == 5000
    clock.advance(100)
    assert (await two.__anext__()).remaining_ms == 4900
    wait = svc.live_wait(agent, "call_1")
    assert wait is not None and wait.claims == 2
    first.abort()
    await drain()
    assert wait.claims == 1 and not wait.armed
    second.abort()
    await drain()
    assert wait.claims == 0 and wait.armed
    clock.advance(4900)
    assert await task == PendingAnswer(call_id="call_1")


async def test_a_wait_knows_its_whole_window_as_time_passes(svc, agent, clock) -> None:
    task = timed(svc, agent, timeout_ms=5000)
    await drain()
    wait = svc.live_wait(agent, "call_1")
    assert wait is not None and wait.window_ms == 5000
    clock.advance(1500)
    assert wait.window_ms == 5000  # the whole window, not what is left of it
    clock.advance(3500)
    assert await task == PendingAnswer(call_id="call_1")


async def test_attaching_to_an_expired_unclaimed_wait_closes_it(svc, agent, clock) -> None:
    task = timed(svc, agent, timeout_ms=1000)
    await drain()
    wait = svc.live_wait(agent, "call_1")
    assert wait is not None
    # Time passes without the timer getting to run yet (a busy loop).
    clock._now = 1500
    frames = [frame async for frame in svc.attach_wait(agent, "call_1")]
    assert frames == []
    assert wait.signal.aborted
    assert await task == PendingAnswer(call_id="call_1")


async def test_attach_yields_nothing_for_unknown_closed_or_aborted(svc, agent) -> None:
    assert [f async for f in svc.attach_wait(agent, "unknown")] == []
    task = timed(svc, agent)
    await drain()
    aborted = ipyask.host.AbortController()
    aborted.abort()
    assert [f async for f in svc.attach_wait(agent, "call_1", aborted.signal)] == []
    wait = svc.live_wait(agent, "call_1")
    assert wait is not None and wait.claims == 0
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    wait.close(None)
    assert [f async for f in wait.attach()] == []


async def test_attach_wait_checks_liveness(svc, agent) -> None:
    stale = ipyask.Agent("main")
    with pytest.raises(UserQuestionError) as caught:
        await svc.attach_wait(stale, "call_1").__anext__()
    assert caught.value.code == "CALLER_NOT_LIVE"


async def test_a_turn_abort_ends_claim_streams(svc, agent, clock) -> None:
    turn = ipyask.host.AbortController()
    task = timed(svc, agent, signal=turn.signal)
    await drain()
    stream = svc.attach_wait(agent, "call_1")
    await stream.__anext__()
    turn.abort()
    with pytest.raises(StopAsyncIteration):
        await stream.__anext__()
    with pytest.raises(UserQuestionError):
        await task
