"""Agents waiting on a PostgreSQL store get their answers across a restart or a killed backend.

Each agent has its own store object (its own connections), as an agent process would. The fault
ends every connection of the database; the agents' watches reconnect by themselves and read what
was committed meanwhile.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import ipyask
from helpers.agent_processes import finish, start_agent
from ipyask.store import PostgresStore, Store, StoreUnavailableError, Terminal, open_store
from ipyask.testing import postgres_stopped, restart_postgres

from ._postgres_only import POSTGRES_ONLY

pytestmark = POSTGRES_ONLY

psycopg = pytest.importorskip("psycopg")

DEPLOY = {
    "questions": [
        {"id": "q1", "question": "Deploy?", "options": [{"label": "Yes"}, {"label": "No"}]}
    ]
}
AGENTS = ("worker-1", "worker-2", "worker-3")


def answer_of(label: str) -> dict[str, Any]:
    return {"answers": [{"id": "q1", "selected": [label]}]}


def terminate_every_backend(location: str) -> None:
    with psycopg.connect(location, autocommit=True) as observer:
        observer.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


def restart(location: str) -> None:
    restart_postgres(location)


FAULTS: dict[str, Callable[[str], None]] = {
    "pg_ctl restart -m fast": restart,
    "pg_terminate_backend": terminate_every_backend,
}


@pytest.fixture
def answerer(location: str) -> Iterator[Store]:
    store = open_store(location)
    yield store
    store.close()


async def until_pending(store: Store, count: int) -> list[Any]:
    for _ in range(1000):
        pending = store.pending_questions()
        if len(pending) >= count:
            return pending
        await asyncio.sleep(0.01)
    raise AssertionError(f"fewer than {count} questions pending")


@pytest.mark.parametrize("fault", FAULTS)
async def test_waiting_agents_get_their_answers_after_the_fault(
    fault: str, location: str, answerer: Store
) -> None:
    agents = [ipyask.connect(location, agent=name) for name in AGENTS]
    try:
        asking = [asyncio.ensure_future(agent.ask(DEPLOY, call_id="deploy")) for agent in agents]
        pending = await until_pending(answerer, len(AGENTS))
        FAULTS[fault](location)
        # One answer right after the fault, before any agent's watch is back: not missed.
        by_agent = {record.agent_id: record for record in pending}
        for name in AGENTS:
            terminal = Terminal(outcome="answered", answer=answer_of(name))
            assert answerer.resolve_question(by_agent[name].id, terminal).status == "accepted"
        answers = await asyncio.wait_for(asyncio.gather(*asking), 30)
        assert [answer.to_wire() for answer in answers] == [answer_of(name) for name in AGENTS]
        # Asking after the fault works too, and its answer arrives.
        again = asyncio.ensure_future(agents[0].ask(DEPLOY, call_id="deploy-2"))
        [record] = await until_pending(answerer, 1)
        answerer.resolve_question(record.id, Terminal(outcome="answered", answer=answer_of("No")))
        assert (await asyncio.wait_for(again, 30)).to_wire() == answer_of("No")
    finally:
        for agent in agents:
            await agent.aclose()


def test_store_connections_give_up_and_notice_a_dropped_network(location: str) -> None:
    store = PostgresStore(location + "&keepalives_idle=5")
    try:
        feed = store.changes()
        listener = store._listener
        assert listener is not None and listener._db is not None
        for connection in (store._db, listener._db):
            parameters = connection.info.get_parameters()
            assert parameters["connect_timeout"] == "10"
            assert parameters["keepalives"] == "1"
            assert parameters["keepalives_idle"] == "5"  # the conninfo's own value wins
            assert parameters["tcp_user_timeout"] == "60000"
        feed.close()
    finally:
        store.close()


@pytest.mark.slow
def test_an_agent_process_gets_its_answer_after_a_restart(location: str, answerer: Store) -> None:
    agent = start_agent(location)
    try:
        for _ in range(3000):
            pending = answerer.pending_questions()
            if pending:
                break
            time.sleep(0.01)
        [record] = pending
        restart_postgres(location)
        terminal = Terminal(outcome="answered", answer=answer_of("Yes"))
        assert answerer.resolve_question(record.id, terminal).status == "accepted"
        assert finish(agent)["answer"] == answer_of("Yes")
    finally:
        agent.kill()


def test_opening_a_store_that_cannot_be_reached_says_so(location: str) -> None:
    with postgres_stopped(location), pytest.raises(StoreUnavailableError) as raised:
        open_store(location)
    assert raised.value.fault == "unreachable"
    assert "is unreachable" in str(raised.value)
    assert "check that the database server is running" in str(raised.value).lower()
    open_store(location).close()  # and it opens once the server is back
