"""A process's concurrent asks on a store are written together (a group commit): fewer write
transactions than asks, each ask still its own record with its own result; an ask whose write
fails does not fail the others; a repeated call id still gets the first record."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

import ipyask
from ipyask.store import Store, StoreUnavailableError, Terminal, open_store
from ipyask.store._group_commit import new_record

QUESTIONS = [{"id": "q1", "question": "Deploy?", "options": [{"label": "Yes"}, {"label": "No"}]}]


def writes_of(store: Any) -> list[int]:
    """How many asks each write of asks through ``store`` carried from now on (one number per
    transaction; a call of ``open_question_at`` writes one)."""
    writes: list[int] = []
    one, many = store.open_question_at, getattr(store, "open_questions_at", None)

    def open_one(*args: Any, **kwargs: Any) -> Any:
        writes.append(1)
        return one(*args, **kwargs)

    def open_many(records: Any, turns: Any = None) -> Any:
        writes.append(len(records))
        assert many is not None
        return many(records, turns)

    store.open_question_at, store.open_questions_at = open_one, open_many
    return writes


def request(label: str, question: str = "Deploy?") -> dict[str, Any]:
    return {"questions": [{"id": "q1", "question": question, "options": [{"label": label}]}]}


def picked(label: str) -> dict[str, Any]:
    return {"answers": [{"id": "q1", "selected": [label]}]}


async def until_pending(store: Store, count: int) -> list[Any]:
    for _ in range(2000):
        pending = store.pending_questions()
        if len(pending) >= count:
            return pending
        await asyncio.sleep(0.01)
    raise AssertionError(f"{count} questions were not asked")


def asked_events(store: Store, session_id: str) -> list[dict[str, Any]]:
    return [e for _, e in store.read_events(session_id) if e["type"] == "user-questions/asked"]


async def test_concurrent_asks_share_a_transaction_each_with_its_own_record(
    location: str,
) -> None:
    async with ipyask.connect(location, agent="worker") as agent:
        writes = writes_of(agent.store)
        asks = [
            asyncio.ensure_future(agent.ask(request(f"c{i}"), call_id=f"c{i}")) for i in range(8)
        ]
        answerer = open_store(location)
        try:
            pending = await until_pending(answerer, 8)
            assert sum(writes) == 8 and len(writes) < 8  # every ask written, fewer transactions
            assert len({r.id for r in pending}) == 8
            assert sorted(r.call_id for r in pending) == [f"c{i}" for i in range(8)]
            events = asked_events(answerer, "worker")
            assert sorted(e["callId"] for e in events) == [f"c{i}" for i in range(8)]
            assert {e["id"] for e in events} == {r.id for r in pending}
            service = ipyask.UserQuestions(store=answerer)
            for record in pending:
                service.respond(None, record.id, picked(record.call_id))
            answers = await asyncio.wait_for(asyncio.gather(*asks), 30)
        finally:
            answerer.close()
        assert [a.answers[0].selected for a in answers] == [[f"c{i}"] for i in range(8)]
        log = [e.type for e in agent.agent.session.events]
        assert log.count("user-questions/asked") == 8  # the log took each event in, once


async def test_an_ask_whose_write_fails_does_not_fail_the_others(location: str) -> None:
    async with ipyask.connect(location, agent="worker") as agent:
        writes = writes_of(agent.store)
        good = [
            asyncio.ensure_future(agent.ask(request(f"c{i}"), call_id=f"c{i}")) for i in range(3)
        ]
        # This ask's record cannot be written (a value the database would refuse): its write
        # fails, and with it the first transaction of the group.
        row_of = agent.store._question_row  # type: ignore[attr-defined]

        def refused(record: Any) -> Any:
            if record.call_id == "bad":
                raise ValueError("the database refuses this record")
            return row_of(record)

        agent.store._question_row = refused  # type: ignore[attr-defined]
        bad = asyncio.ensure_future(agent.ask(request("x"), call_id="bad"))
        more = asyncio.ensure_future(agent.ask(request("c3"), call_id="c3"))
        with pytest.raises(ValueError, match="refuses this record"):
            await asyncio.wait_for(bad, 30)
        answerer = open_store(location)
        try:
            pending = await until_pending(answerer, 4)
            assert sorted(r.call_id for r in pending) == ["c0", "c1", "c2", "c3"]
            assert writes[0] == 5  # written together first, then each alone
            service = ipyask.UserQuestions(store=answerer)
            for record in pending:
                service.respond(None, record.id, picked(record.call_id))
            answers = await asyncio.wait_for(asyncio.gather(*good, more), 30)
        finally:
            answerer.close()
        assert [a.answers[0].selected for a in answers] == [[f"c{i}"] for i in range(4)]
        assert [e["callId"] for e in asked_events(agent.store, "worker")].count("bad") == 0


async def test_a_repeated_call_id_gets_the_first_record(location: str) -> None:
    async with ipyask.connect(location, agent="worker") as agent:
        answerer = open_store(location)
        try:
            earlier = asyncio.ensure_future(agent.ask(request("old"), call_id="old"))
            (record,) = await until_pending(answerer, 1)
            ipyask.UserQuestions(store=answerer).respond(None, record.id, picked("old"))
            await asyncio.wait_for(earlier, 30)
            writes = writes_of(agent.store)
            asks = [
                asyncio.ensure_future(agent.ask(request(label), call_id=call))
                for call, label in [("c1", "c1"), ("c1", "c1"), ("old", "old"), ("c2", "c2")]
            ]
            pending = await until_pending(answerer, 2)
            assert len(writes) == 1 and writes[0] == 4  # one transaction for the four asks
            assert sorted(r.call_id for r in pending) == ["c1", "c2"]
            events = asked_events(answerer, "worker")
            assert [e["callId"] for e in events] == ["old", "c1", "c2"]  # nothing for repeats
            service = ipyask.UserQuestions(store=answerer)
            for pending_record in pending:
                service.respond(None, pending_record.id, picked(pending_record.call_id))
            answers = await asyncio.wait_for(asyncio.gather(*asks), 30)
        finally:
            answerer.close()
        assert [a.answers[0].selected for a in answers] == [["c1"], ["c1"], ["old"], ["c2"]]


@pytest.mark.parametrize("with_feed", [True, False])
def test_a_group_of_asks_is_one_transaction_with_a_position_each(
    open_at: Callable[[], Store], with_feed: bool
) -> None:
    from ipyask.store._group_commit import new_record

    store: Any = open_at()
    # A PostgreSQL store with a listener has it notify after the commit; one without notifies
    # inside the transaction (both send the group in one pipeline).
    watcher = open_at()
    feed = (store if with_feed else watcher).changes()
    try:
        first, _ = store.open_question_at("s1", "c0", QUESTIONS, request_id="r0")
        assert feed.wait(10)  # that commit's change
        records = [
            new_record("s1", call, QUESTIONS, request_id=rid, agent_id="a", assignee=None)
            for call, rid in [("c1", "r1"), ("c0", "r2"), ("c2", "r3"), ("c1", "r4")]
        ]
        assert store.open_questions_at(records) == [1, None, 2, None]
        assert feed.wait(10)  # the group's commit was told
        assert [e["id"] for e in asked_events(store, "s1")] == ["r0", "r1", "r3"]
        assert store.question("r2") is None and store.question("r4") is None
        assert store.question_for_call("s1", "c0").id == first.id
        assert store.open_questions_at([]) == []
    finally:
        feed.close()


async def test_asks_of_another_session_in_the_group_are_kept_apart(location: str) -> None:
    store = open_store(location)
    try:
        one = ipyask.connect(store, agent="one")
        two = ipyask.connect(store, agent="two")
        async with one, two:
            writes = writes_of(store)
            asks = [
                asyncio.ensure_future(conn.ask(request(call), call_id=call))
                for conn in (one, two)
                for call in ("a", "b")
            ]
            pending = await until_pending(store, 4)
            assert len(writes) == 1 and writes[0] == 4
            assert sorted((r.session_id, r.call_id) for r in pending) == [
                ("one", "a"), ("one", "b"), ("two", "a"), ("two", "b"),
            ]  # fmt: skip
            assert [e["callId"] for e in asked_events(store, "one")] == ["a", "b"]
            assert [e["callId"] for e in asked_events(store, "two")] == ["a", "b"]
            service = ipyask.UserQuestions(store=store)
            for record in pending:
                service.respond(None, record.id, picked(record.call_id))
            await asyncio.wait_for(asyncio.gather(*asks), 30)
    finally:
        store.close()


async def test_a_store_fault_reaches_every_ask_of_the_group(location: str) -> None:
    async with ipyask.connect(location, agent="worker") as agent:
        store: Any = agent.store

        def unavailable(records: Any, turns: Any = None) -> Any:
            raise StoreUnavailableError(store.location, "locked", "database is locked")

        store.open_questions_at = unavailable
        asks = [
            asyncio.ensure_future(agent.ask(request(f"c{i}"), call_id=f"c{i}")) for i in range(3)
        ]
        results = await asyncio.wait_for(asyncio.gather(*asks, return_exceptions=True), 30)
        assert all(isinstance(r, StoreUnavailableError) for r in results)
        assert store.pending_questions() == []


async def test_asks_of_a_current_log_read_nothing_before_the_write_that_checks_their_turn(
    location: str,
) -> None:
    async with ipyask.connect(location, agent="worker") as agent:
        store: Any = agent.store
        reads: list[str] = []
        read, write = store.read_events, store.open_questions_at
        reads_before_writes: list[int] = []

        def counted(session_id: str, after: int = -1) -> Any:
            reads.append(session_id)
            return read(session_id, after)

        def writing(records: Any, turns: Any = None) -> Any:
            reads_before_writes.append(len(reads))
            return write(records, turns)

        store.read_events, store.open_questions_at = counted, writing
        asks = [
            asyncio.ensure_future(agent.ask(request(f"c{i}"), call_id=f"c{i}")) for i in range(8)
        ]
        answerer = open_store(location)
        try:
            pending = await until_pending(answerer, 8)
            assert reads_before_writes[0] == 0  # the log was current: the write checked the turn
            service = ipyask.UserQuestions(store=answerer)
            for record in pending:
                service.respond(None, record.id, picked(record.call_id))
            await asyncio.wait_for(asyncio.gather(*asks), 30)

            # Another process ended the turn: the writes refuse each ask of the group on its own
            # (its check then reads the log and says why), and write nothing.
            answerer.append_event("worker", {"type": "turn/end", "turn": 1})
            refused = await asyncio.gather(
                *(agent.ask(request(f"d{i}"), call_id=f"d{i}") for i in range(3)),
                return_exceptions=True,
            )
            assert [getattr(r, "code", None) for r in refused] == ["OUTSIDE_TURN"] * 3
            assert len({id(r) for r in refused}) == 3  # each asker its own error
            assert answerer.pending_questions() == []
            assert [e["callId"] for e in asked_events(answerer, "worker")] == [
                f"c{i}" for i in range(8)
            ]
        finally:
            answerer.close()


async def test_an_ask_refused_by_the_write_is_written_once_its_check_finds_a_new_turn(
    location: str,
) -> None:
    async with ipyask.connect(location, agent="worker") as agent:
        other = open_store(location)
        try:
            # Another process ended the turn (the agent's log still shows it open); the write
            # refuses the ask, and the next turn begins before the ask's check reads the log:
            # the check finds the new turn, and the ask is written.
            other.append_event("worker", {"type": "turn/end", "turn": 1})
            store: Any = agent.store
            positions: list[Any] = []
            write = store.open_questions_at

            def writing(records: Any, turns: Any = None) -> Any:
                found = write(records, turns)
                if not positions:
                    other.append_event("worker", {"type": "turn/start", "turn": 2})
                positions.extend(found)
                return found

            store.open_questions_at = writing
            asked = asyncio.ensure_future(agent.ask(request("Yes"), call_id="c1"))
            (record,) = await until_pending(other, 1)
            assert positions[0] == "outside-turn" and isinstance(positions[1], int)
            ipyask.UserQuestions(store=other).respond(None, record.id, picked("Yes"))
            answer = await asyncio.wait_for(asked, 30)
            assert answer.answers[0].selected == ["Yes"]
        finally:
            other.close()


def test_a_write_of_asks_checks_each_turn_after_the_position_its_asker_judged_by(
    store: Store,
) -> None:
    sql: Any = store
    for event in ({"type": "turn/start", "turn": 1}, {"type": "turn/end", "turn": 1}):
        store.append_event("ended", event)
    for event in ({"type": "turn/start", "turn": 1}, {"type": "tool/call", "callId": "x"}):
        store.append_event("open", event)
    records = [
        new_record("ended", "a", QUESTIONS, request_id="r1", agent_id=None, assignee=None),
        new_record("ended", "b", QUESTIONS, request_id="r2", agent_id=None, assignee=None),
        new_record("open", "c", QUESTIONS, request_id="r3", agent_id=None, assignee=None),
        new_record("ended", "d", QUESTIONS, request_id="r4", agent_id=None, assignee=None),
    ]
    # r1 judged before the turn/end (refused), r2 after it (the store does not judge what the
    # asker saw), r3 in an open turn, r4 unchecked.
    assert sql.open_questions_at(records, [0, 1, 1, None]) == ["outside-turn", 2, 2, 3]
    assert sorted(r.id for r in store.pending_questions()) == ["r2", "r3", "r4"]
    with pytest.raises(ValueError, match="one turn position per record"):
        sql.open_questions_at(records, [0])


def test_the_watch_follows_an_ask_only_until_it_reads_past_its_event(store: Store) -> None:
    """An ask written together with others may be committed before its waiter exists: the
    store watch answers for it only while it has handed on no event after the ask's own
    (else the asker reads its record, which an answer read meanwhile has settled)."""
    from ipyask._durable import _StoreWatch, _Waiter
    from ipyask._session import Session

    store.append_event("s", {"type": "turn/start", "turn": 1})
    session = Session("s", store=store)
    watch = _StoreWatch(store, lambda events: None)
    loop = asyncio.new_event_loop()
    try:
        _, first = store.open_question_at("s", "c1", QUESTIONS, request_id="r1")
        _, second = store.open_question_at("s", "c2", QUESTIONS, request_id="r2")
        session.sync()
        assert first == 1 and second == 2
        assert not watch.add(_Waiter(loop, session), first)  # the first subscribes: it reads
        assert watch.add(_Waiter(loop, session), second)  # nothing after it handed on yet
        _, third = store.open_question_at("s", "c3", QUESTIONS, request_id="r3")
        store.resolve_question("r3", Terminal(outcome="cancelled"))
        watch._read_now()  # the watch reads the session (its asked and answered events)
        assert not watch.add(_Waiter(loop, session), third)  # the answer went by: it reads
        assert not watch.add(_Waiter(loop, session), None)  # an earlier ask's record: it reads
    finally:
        watch.stop()
        loop.close()
