"""An inbox survives store faults: nothing clicked is lost, and the cards heal by themselves.

PostgreSQL (marked ``postgres``): a restart or killed backends, and a click while the server is
down. SQLite: a file locked beyond the busy timeout, read-only, or full; the card says why its
answer is not saved yet, and the retry runs on the service's injected clock.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

import ipyask
from helpers.sqlite_faults import SQLITE_FAULTS
from ipyask._notebook.panel._texts import NOTICES
from ipyask.store import SQLiteStore, open_store
from ipyask.testing import ManualClock, new_database, postgres_stopped, restart_postgres

from ._helpers import DEPLOY, NO, YES, View, until


def pending(panel: ipyask.QuestionPanel) -> list[dict[str, Any]]:
    return [card for card in panel.cards if card["status"] == "pending"]


def terminate_every_backend(location: str) -> None:
    import psycopg

    with psycopg.connect(location, autocommit=True) as observer:
        observer.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


FAULTS: dict[str, Callable[[str], None]] = {
    "pg_ctl restart -m fast": restart_postgres,
    "pg_terminate_backend": terminate_every_backend,
}


@pytest.fixture
def pg_location(postgres_cluster: str) -> str:
    pytest.importorskip("psycopg")
    return new_database(postgres_cluster)


@pytest.fixture
async def pg_inbox(pg_location: str) -> AsyncIterator[ipyask.QuestionPanel]:
    panel = ipyask.inbox(pg_location)
    yield panel
    panel.close()
    await panel.service.aclose()
    assert panel.inbox is not None
    panel.inbox.store.close()


@pytest.mark.postgres
@pytest.mark.parametrize("fault", FAULTS)
async def test_after_a_postgres_fault_the_click_is_recorded_and_new_questions_show(
    fault: str, pg_inbox: ipyask.QuestionPanel, pg_location: str
) -> None:
    view = View(pg_inbox)
    async with ipyask.connect(pg_location, agent="worker-1") as first:
        asking = asyncio.ensure_future(first.ask(DEPLOY, call_id="c1"))
        [card] = await until(lambda: pending(pg_inbox))
        FAULTS[fault](pg_location)
        view.answer(card["key"], YES)
        assert (await asyncio.wait_for(asking, 30)).to_wire() == YES
        assert pg_inbox.get_card(card["key"]).status == "answered"
        record = first.store.question(card["key"])
        assert record is not None and record.terminal is not None
        assert record.terminal.answer == YES
    # Every question asked after the fault shows in the inbox.
    async with ipyask.connect(pg_location, agent="worker-2") as second:
        later = [asyncio.ensure_future(second.ask(DEPLOY, call_id=f"after-{n}")) for n in range(3)]
        cards = await until(lambda: len(pending(pg_inbox)) == 3 and pending(pg_inbox), 30)
        assert sorted(c["callId"] for c in cards) == ["after-0", "after-1", "after-2"]
        for shown in cards:
            view.answer(shown["key"], NO)
        assert [a.to_wire() for a in await asyncio.wait_for(asyncio.gather(*later), 30)] == [NO] * 3
    assert view.errors == []


@pytest.mark.postgres
async def test_a_click_while_postgres_is_down_is_saved_once_it_is_back(
    pg_inbox: ipyask.QuestionPanel, pg_location: str
) -> None:
    view = View(pg_inbox)
    async with ipyask.connect(pg_location, agent="worker-1") as agent:
        asking = asyncio.ensure_future(agent.ask(DEPLOY, call_id="c1"))
        [card] = await until(lambda: pending(pg_inbox))
        with postgres_stopped(pg_location):
            view.answer(card["key"], YES)
            shown = pg_inbox.get_card(card["key"])
            assert shown.status == "pending"
            assert shown.notice_code == "store-unreachable"
            assert shown.notice == "Not saved yet: the store is unreachable; retrying…"
            assert view.errors == []  # no INTERNAL_ERROR: the card says what happens
        assert (await asyncio.wait_for(asking, 30)).to_wire() == YES
        await until(lambda: pg_inbox.get_card(card["key"]).status == "answered", 30)
        assert pg_inbox.get_card(card["key"]).notice is None
    assert view.errors == []


# -- SQLite ------------------------------------------------------------------------------------


@pytest.fixture
async def sqlite_inbox(location: str) -> AsyncIterator[tuple[ipyask.QuestionPanel, ManualClock]]:
    clock = ManualClock()
    store = open_store(location)
    panel = ipyask.QuestionPanel(ipyask.UserQuestions(store=store, clock=clock))
    yield panel, clock
    panel.close()
    await panel.service.aclose()
    store.close()


async def ask_on(location: str) -> tuple[ipyask.Connection, asyncio.Future[Any]]:
    agent = ipyask.connect(location, agent="worker-1")
    big = {**DEPLOY, "questions": [{**DEPLOY["questions"][0], "detail": "x" * 20_000}]}
    return agent, asyncio.ensure_future(agent.ask(big, call_id="c1"))


@pytest.mark.parametrize("fault", ["locked", "read-only", "full"])
async def test_an_answer_the_sqlite_store_cannot_take_says_why_and_is_saved_later(
    fault: str,
    sqlite_inbox: tuple[ipyask.QuestionPanel, ManualClock],
    location: str,
) -> None:
    panel, clock = sqlite_inbox
    assert panel.inbox is not None
    store = panel.inbox.store
    assert isinstance(store, SQLiteStore)
    view = View(panel)
    agent, asking = await ask_on(location)
    try:
        [card] = await until(lambda: pending(panel))
        undo = SQLITE_FAULTS[fault](store)
        try:
            view.answer(card["key"], YES)
            shown = panel.get_card(card["key"])
            assert view.errors == []
            assert shown.status == "pending"
            assert shown.notice_code == f"store-{fault}"
            assert shown.notice_params == {"location": location}
            assert shown.notice is not None and location in shown.notice
            assert "retrying" in shown.notice
            assert "{location}" in NOTICES["zh"][f"store-{fault}"]
            assert clock.pending == [100]
            clock.advance(100)  # still failing: the next retry waits twice as long
            assert panel.get_card(card["key"]).status == "pending"
            assert clock.pending == [300]
            # The person answers again meanwhile: told it waits, and the newer answer goes.
            view.answer(card["key"], NO)
            assert [error["code"] for error in view.errors] == ["NOT_SAVED_YET"]
            assert clock.pending == [300]
        finally:
            undo()
        clock.advance(200)
        assert panel.get_card(card["key"]).status == "answered"
        assert panel.get_card(card["key"]).answer.to_wire() == NO
        assert panel.get_card(card["key"]).notice is None
        assert clock.pending == []
        assert (await asyncio.wait_for(asking, 10)).to_wire() == NO
        assert len(view.errors) == 1
    finally:
        await agent.aclose()
