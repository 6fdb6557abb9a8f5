"""Claiming several durable questions at once (a person answering many cards): one transaction
of the store, each claim settled, reported and checked as a single claim is."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

import ipyask
from helpers.server_processes import HAS_PROC, server_wakeups
from ipyask.store import Store, Terminal, open_store
from ipyask.testing import drain_loop, new_database

GENERIC = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "SQLite"}, {"label": "Postgres"}],
}


def answer(label: str) -> dict[str, Any]:
    return {"answers": [{"id": "db", "selected": [label]}]}


def terminal(label: str) -> Terminal:
    return Terminal.model_validate({"outcome": "answered", "answer": answer(label)})


def open_one(store: Store, session: str, call: str) -> str:
    record, _ = store.open_question(session, call, [GENERIC], request_id=f"{session}-{call}")
    return record.id


def test_a_batch_settles_each_open_record_and_reports_every_claim_in_order(
    open_at: Callable[[], Store],
) -> None:
    store, other = open_at(), open_at()
    first, second = open_one(store, "s1", "c1"), open_one(store, "s2", "c1")
    settled = open_one(store, "s1", "c2")
    assert other.resolve_question(settled, terminal("Postgres")).status == "accepted"

    results = store.resolve_questions(
        [
            (first, terminal("SQLite")),
            (second, terminal("Postgres")),
            (settled, terminal("SQLite")),
            ("no-such-record", terminal("SQLite")),
            (first, terminal("Postgres")),  # the same record again: the first claim won
        ]
    )

    assert [(r.status, r.answer) for r in results] == [
        ("accepted", answer("SQLite")),
        ("accepted", answer("Postgres")),
        ("already-resolved", answer("Postgres")),
        ("not-pending", None),
        ("already-resolved", answer("SQLite")),
    ]
    assert other.pending_questions() == []
    answered = [
        (event["id"], event["answer"])
        for session in ("s1", "s2")
        for _, event in other.read_events(session)
        if event["type"] == "user-questions/answered"
    ]
    assert sorted(answered) == sorted(
        [(settled, answer("Postgres")), (first, answer("SQLite")), (second, answer("Postgres"))]
    )
    assert store.resolve_questions([]) == []


async def test_answering_many_cards_checks_each_answer_and_claims_the_rest_at_once(
    open_at: Callable[[], Store],
) -> None:
    worker = ipyask.connect(open_at(), agent="worker")
    inbox = ipyask.connect(open_at(), agent="notebook")
    asking = [
        asyncio.ensure_future(worker.ask({"questions": [GENERIC]}, f"c{i}")) for i in range(3)
    ]
    await drain_loop()
    records = {r.call_id: r.id for r in inbox.pending()}
    good, bad, late = records["c0"], records["c1"], records["c2"]
    assert inbox.answer(late, answer("Postgres")).status == "accepted"

    claims = inbox.service.respond_many(
        None,
        [
            (good, answer("SQLite")),
            (bad, answer("MySQL")),  # not an option: refused, the question stays open
            (late, answer("SQLite")),
            (bad, {"answers": "none"}),  # not an answer batch at all
            ("no-such-record", answer("SQLite")),
        ],
        who="ada",
    )

    assert [c.id for c in claims] == [good, bad, late, bad, "no-such-record"]
    assert [None if c.result is None else c.result.status for c in claims] == [
        "accepted",
        None,
        "already-resolved",
        None,
        "not-pending",
    ]
    assert claims[0].result is not None and claims[0].result.answered_by is not None
    assert claims[0].result.answered_by.who == "ada"
    assert claims[2].result is not None and claims[2].result.answer == answer("Postgres")
    refusals = [c.error for c in claims if c.error is not None]
    assert [e.code for e in refusals] == ["BAD_ANSWER", "BAD_ANSWER"]
    assert "'MySQL' is not an option of question db" in refusals[0].message
    assert [r.id for r in inbox.pending()] == [bad]
    assert (await asyncio.wait_for(asking[0], 10)).to_wire() == answer("SQLite")
    assert (await asyncio.wait_for(asking[2], 10)).to_wire() == answer("Postgres")
    assert not asking[1].done()
    assert inbox.answer(bad, answer("Postgres")).status == "accepted"
    assert (await asyncio.wait_for(asking[1], 10)).to_wire() == answer("Postgres")
    await worker.aclose()
    await inbox.aclose()


@pytest.mark.postgres
def test_two_batches_claiming_the_same_records_in_opposite_orders_do_not_deadlock(
    postgres_cluster: str,
) -> None:
    """Each batch takes its records' locks in one order. Here each batch first waits for a
    record that another transaction holds; taken in the order given, the first batch would
    then hold r1 and wait for r2, the second hold r2 and wait for r1."""
    psycopg = pytest.importorskip("psycopg")
    location = new_database(postgres_cluster)
    first, second = open_store(location), open_store(location)
    ids = [open_one(first, "s1", "c1"), open_one(first, "s2", "c1")]
    holders = [psycopg.connect(location) for _ in ids]
    observer = psycopg.connect(location, autocommit=True)
    results: dict[str, list[str]] = {}

    def claim(name: str, store: Store, order: list[str]) -> None:
        claimed = store.resolve_questions([(i, terminal(name)) for i in order])
        results[name] = [r.status for r in claimed]

    def waiting(blocked_by: int | None = None) -> int:
        """How many backends wait for a lock (held by ``blocked_by``, if given)."""
        row = observer.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            " AND datname = current_database()"
            " AND (%s::int IS NULL OR %s::int = ANY(pg_blocking_pids(pid)))",
            (blocked_by, blocked_by),
        ).fetchone()
        return int(row[0]) if row else 0

    try:
        for holder, record in zip(holders, ids, strict=True):  # each record held by another
            holder.execute("SELECT 1 FROM ipyask_questions WHERE id = %s FOR UPDATE", (record,))
        batches = [
            threading.Thread(target=claim, args=("SQLite", first, ids)),
            threading.Thread(target=claim, args=("Postgres", second, ids[::-1])),
        ]
        for batch in batches:
            batch.start()
        assert eventually(lambda: waiting() == 2)
        released = holders[0].info.backend_pid
        holders[0].rollback()  # r1 free: the batch that takes it then waits for r2
        assert eventually(lambda: waiting(released) == 0 and waiting() == 2)
        holders[1].rollback()
        for batch in batches:
            batch.join(30.0)
        assert sorted(results) == ["Postgres", "SQLite"]
        assert sorted(results["SQLite"] + results["Postgres"]) == [
            "accepted",
            "accepted",
            "already-resolved",
            "already-resolved",
        ]
        assert first.pending_questions() == []
    finally:
        for connection in [*holders, observer]:
            connection.close()
        first.close()
        second.close()


def eventually(check: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.mark.postgres
@pytest.mark.skipif(not HAS_PROC, reason="counts the server's wake-ups in /proc")
def test_a_postgresql_batch_costs_the_server_a_few_round_trips_whatever_its_size(
    postgres_cluster: str,
) -> None:
    """Every record's update goes to the server in one pipeline, the sessions' locks, events
    and notification with COMMIT in another: 100 claims wake the store's server process far
    fewer times than a statement at a time did (twice per claim at least)."""
    store = open_store(new_database(postgres_cluster))
    try:
        ids = [open_one(store, f"s{i % 12}", f"c{i}") for i in range(100)]
        backend = store._db.info.backend_pid  # type: ignore[attr-defined]
        before = server_wakeups(backend)
        results = store.resolve_questions([(i, terminal("Postgres")) for i in ids])
        wakeups = server_wakeups(backend) - before
        assert [r.status for r in results] == ["accepted"] * 100
        # A statement at a time, the server wakes for each of the 200 and more statements after
        # its reply to the one before; a pipeline it reads as it comes (about 30 here).
        assert wakeups < 100
        answered = [
            event["id"]
            for session in range(12)
            for _, event in store.read_events(f"s{session}")
            if event["type"] == "user-questions/answered"
        ]
        assert sorted(answered) == sorted(ids)
        assert store.pending_questions() == []
    finally:
        store.close()
