"""An ask costs the store as few statements as its guarantees allow: the record and its
``asked`` event are written without reading first, a repeat of the call still finds the first
record and writes nothing, and an asker whose session the store watch follows already does not
read its record back."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import ipyask
from ipyask._durable import _StoreWatch
from ipyask.store import Store, open_store
from ipyask.store._follow import follower_of
from ipyask.testing import ManualClock

QUESTIONS = [{"id": "q1", "question": "Deploy?", "options": [{"label": "Yes"}]}]


def counted(store: Any, name: str) -> list[Any]:
    """The calls of ``store.<name>`` from now on (their first argument each)."""
    calls: list[Any] = []
    method = getattr(store, name)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[0] if args else None)
        return method(*args, **kwargs)

    setattr(store, name, wrapped)
    return calls


def asked_ids(store: Store, session_id: str) -> list[str]:
    return [e["id"] for _, e in store.read_events(session_id) if e["type"].endswith("/asked")]


def test_an_ask_writes_without_reading_and_a_repeat_writes_nothing(
    open_at: Callable[[], Store],
) -> None:
    store = open_at()
    feed = store.changes()  # a PostgreSQL store with a listener sends its ask in one pipeline
    try:
        selects = counted(store, "_select")
        first, seq = store.open_question_at("s1", "c1", QUESTIONS, request_id="r1")
        assert selects == [] and seq == 0 and first.id == "r1"
        again, seq_again = store.open_question_at("s1", "c1", QUESTIONS, request_id="r2")
        assert again.id == "r1" and seq_again is None
        assert asked_ids(store, "s1") == ["r1"]
        other, seq_other = store.open_question_at("s1", "c2", QUESTIONS, request_id="r3")
        assert seq_other == 1 and other.id == "r3"
        assert asked_ids(store, "s1") == ["r1", "r3"]
        assert store.question("r2") is None
    finally:
        feed.close()


async def test_an_asker_of_a_followed_session_does_not_read_its_record(location: str) -> None:
    async with ipyask.connect(location, agent="worker") as agent:
        reads = counted(agent.store, "question")
        asks = [
            asyncio.ensure_future(agent.ask({"questions": QUESTIONS}, call_id=f"c{i}"))
            for i in range(3)
        ]
        answerer = open_store(location)
        try:
            while len(pending := answerer.pending_questions()) < 3:
                await asyncio.sleep(0.01)
            assert len(reads) == 1  # the first asker's: the watch began following then
            service = ipyask.UserQuestions(store=answerer)
            for record in pending:
                service.respond(None, record.id, {"answers": [{"id": "q1", "selected": ["Yes"]}]})
            answers = await asyncio.wait_for(asyncio.gather(*asks), 20)
        finally:
            answerer.close()
        assert [a.answers[0].selected for a in answers] == [["Yes"]] * 3


async def test_an_agent_asking_one_question_after_another_reads_no_record_and_subscribes_once(
    location: str,
) -> None:
    async with ipyask.connect(location, agent="worker") as agent:
        follower = follower_of(agent.store)
        reads = counted(agent.store, "question")
        subscribed = counted(follower, "subscribe")
        answerer = open_store(location)
        service = ipyask.UserQuestions(store=answerer)
        try:
            for i in range(4):
                asked = asyncio.ensure_future(agent.ask({"questions": QUESTIONS}, call_id=f"c{i}"))
                while not (pending := answerer.pending_questions()):
                    await asyncio.sleep(0.005)
                service.respond(
                    None, pending[0].id, {"answers": [{"id": "q1", "selected": ["Yes"]}]}
                )
                assert (await asyncio.wait_for(asked, 20)).answers[0].selected == ["Yes"]
        finally:
            answerer.close()
        # The first ask subscribed and read its record; the watch kept following the session
        # between asks, so the others did neither.
        assert len(subscribed) == 1 and len(reads) == 1


async def test_the_watch_stops_following_a_session_a_while_after_its_last_ask(
    location: str,
) -> None:
    clock = ManualClock()
    async with ipyask.connect(location, agent="worker") as agent:
        agent.service._durable._clock = clock  # the clock of its store watches
        follower = follower_of(agent.store)
        answerer = open_store(location)
        try:
            asked = asyncio.ensure_future(agent.ask({"questions": QUESTIONS}, call_id="c1"))
            while not (pending := answerer.pending_questions()):
                await asyncio.sleep(0.005)
            ipyask.UserQuestions(store=answerer).respond(
                None, pending[0].id, {"answers": [{"id": "q1", "selected": ["Yes"]}]}
            )
            await asyncio.wait_for(asked, 20)
        finally:
            answerer.close()
        # Quiet seconds pass on the follower; the session is kept until the clock says so.
        await asyncio.sleep(2.5 * follower.IDLE_WAIT)
        assert follower.subscribers == 1
        clock.advance(_StoreWatch.KEEP_MS)
        for _ in range(400):
            if follower.subscribers == 0:
                break
            await asyncio.sleep(0.01)
        assert follower.subscribers == 0
