"""A store closed under its waiting asks: they end with ``ASK_ABORTED`` naming the store, their
records stay open for a later ask, and nothing keeps trying to read the closed store; a closed
store object refuses every read and write with ``StoreClosedError``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import pytest

import ipyask
from ipyask.errors import UserQuestionError
from ipyask.store import StoreClosedError, Terminal, open_store
from ipyask.store._follow import follower_of

QUESTIONS = [{"id": "q1", "question": "Deploy?", "options": [{"label": "Yes"}, {"label": "No"}]}]


async def _until(check: object, seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.01)):
        if callable(check) and check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition did not come true in time")


async def test_an_ask_waiting_on_a_store_that_closes_ends_with_ask_aborted(
    location: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with ipyask.connect(location, agent="worker") as agent:
        store = agent.store
        asked = asyncio.ensure_future(agent.ask({"questions": QUESTIONS}, call_id="c1"))
        await _until(lambda: bool(store.pending_questions()))
        follower = follower_of(store)
        with caplog.at_level(logging.WARNING, logger="ipyask"):
            store.close()
            with pytest.raises(UserQuestionError) as raised:
                await asyncio.wait_for(asked, 10)
            await _until(lambda: not follower.running)  # its thread ended with the store
        assert raised.value.code == "ASK_ABORTED"
        assert f"the store {store.location} was closed" in str(raised.value)
        assert "ask with the same call id" in str(raised.value)
        # Nothing went on reading the closed store (each read would log a failure).
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert f"the store {store.location} was closed while 1 subscriber" in caplog.text

    # The record stayed open: an ask with the same call id on the store opened again waits
    # for it, and gets the answer given to it.
    again = open_store(location)
    try:
        (record,) = again.pending_questions()
        assert record.call_id == "c1"
        async with ipyask.connect(location, agent="worker") as agent:
            waiting = asyncio.ensure_future(agent.ask({"questions": QUESTIONS}, call_id="c1"))
            await asyncio.sleep(0.05)
            assert [r.id for r in again.pending_questions()] == [record.id]  # no new record
            ipyask.UserQuestions(store=again).respond(
                None, record.id, {"answers": [{"id": "q1", "selected": ["No"]}]}
            )
            answer = await asyncio.wait_for(waiting, 20)
        assert answer.answers[0].selected == ["No"]
    finally:
        again.close()


def test_a_closed_store_says_so_for_every_read_and_write(location: str) -> None:
    store = open_store(location)
    question = [{"id": "q", "question": "Go on?", "options": [{"label": "Yes"}]}]
    record, _ = store.open_question("s1", "c1", question, request_id="r1")
    store.close()
    terminal = Terminal(outcome="answered", answer={"answers": [{"id": "q", "selected": ["Yes"]}]})
    operations: list[Callable[[], object]] = [
        lambda: store.append_event("s1", {"type": "turn/start", "turn": 2}),
        lambda: store.read_events("s1"),
        lambda: store.open_question("s1", "c2", question, request_id="r2"),
        lambda: store.open_question_at("s1", "c2", question, request_id="r2"),
        lambda: store.resolve_question(record.id, terminal),
        lambda: store.resolve_questions([(record.id, terminal)]),
        lambda: store.question(record.id),
        lambda: store.question_for_call("s1", "c1"),
        lambda: store.pending_questions(),
        lambda: store.settled_questions(),
        lambda: store.changes(),
    ]
    for operation in operations:
        with pytest.raises(StoreClosedError) as raised:
            operation()
        assert raised.value.location == store.location
        assert f"the store {store.location} was closed: open it again" in str(raised.value)
    store.close()  # twice is fine
    reopened = open_store(store.location)  # what the message says to do
    try:
        assert [r.id for r in reopened.pending_questions()] == [record.id]
    finally:
        reopened.close()
