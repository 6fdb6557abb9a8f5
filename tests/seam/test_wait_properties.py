"""Any interleaving of claims, releases and time: the wait ends exactly once, at the right time."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

import ipyask
from ipyask import UserQuestionError
from ipyask.host import TimedQuestionWait
from ipyask.testing import ManualClock

from ._helpers import drain

DEADLINE = 5000

operations = st.lists(
    st.one_of(
        st.tuples(st.just("advance"), st.integers(0, 3000)),
        st.tuples(st.just("claim"), st.integers(0, 3)),
        st.tuples(st.just("release"), st.integers(0, 3), st.booleans()),
    ),
    max_size=30,
)


async def scenario(ops: list[tuple]) -> None:
    clock = ManualClock()
    wait = TimedQuestionWait(
        DEADLINE, parent=None, timeout=UserQuestionError.of("ASK_TIMED_OUT"), clock=clock
    )
    ended_at: list[float] = []
    wait.signal.add_listener(lambda: ended_at.append(clock.now_ms()))
    streams: dict[int, tuple[object, ipyask.host.AbortController]] = {}
    now, expected = 0, None

    async def release(key: int, by_abort: bool) -> None:
        stream, controller = streams.pop(key)
        if by_abort:
            controller.abort()
        else:
            await stream.aclose()  # type: ignore[attr-defined]

    for op in ops:
        if op[0] == "advance":
            target = now + op[1]
            if expected is None and not streams and target >= DEADLINE:
                expected = max(now, DEADLINE)
            now = target
            clock.advance(op[1])
        elif op[0] == "claim" and op[1] not in streams:
            controller = ipyask.host.AbortController()
            stream = wait.attach(controller.signal)
            frames = [await stream.__anext__()] if expected is None else []
            if expected is None:
                assert frames[0].remaining_ms == max(0, DEADLINE - now)
                streams[op[1]] = (stream, controller)
            else:
                assert [f async for f in stream] == []
        elif op[0] == "release" and op[1] in streams:
            await release(op[1], op[2])
            if expected is None and not streams and now >= DEADLINE:
                expected = now
        if expected is not None:
            streams.clear()  # every claim ended with the wait
        clock.advance(0)
        await drain(5)
        assert wait.signal.aborted == (expected is not None)
    for key in list(streams):
        await release(key, True)
        if expected is None and not streams:
            expected = max(now, DEADLINE)
    clock.advance(DEADLINE)
    await drain(5)
    if expected is None:
        expected = max(now, DEADLINE)
    assert ended_at == [expected]
    reason = wait.signal.reason
    assert isinstance(reason, UserQuestionError) and reason.code == "ASK_TIMED_OUT"


@settings(max_examples=150, deadline=None)
@given(operations)
def test_claim_release_sequences_end_the_wait_once_at_the_right_time(ops) -> None:
    asyncio.run(scenario(ops))
