"""The store contract, against a real SQLite file and a real PostgreSQL database."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import ipyask
from ipyask.host import TurnStartEvent
from ipyask.store import (
    SCHEMA_VERSION,
    SQLiteStore,
    Store,
    StoreVersionError,
    Terminal,
    open_store,
)
from ipyask.testing import ManualClock, drain_loop

QUESTIONS = [{"id": "q1", "question": "Deploy?", "options": [{"label": "Yes"}]}]
YES = {"answers": [{"id": "q1", "selected": ["Yes"]}]}


def answered(answer: dict[str, object] = YES) -> Terminal:
    return Terminal.model_validate({"outcome": "answered", "answer": answer})


def test_a_question_is_found_by_session_and_call_id(store: Store) -> None:
    first, created = store.open_question("s1", "c1", QUESTIONS, request_id="r1", agent_id="a")
    again, created_again = store.open_question("s1", "c1", [], request_id="r2")
    other, created_other = store.open_question("s2", "c1", QUESTIONS, request_id="r3")
    assert (created, created_again, created_other) == (True, False, True)
    assert again == first and first.id == "r1" and other.id == "r3"
    assert (first.agent_id, first.questions, first.terminal) == ("a", QUESTIONS, None)
    assert store.question_for_call("s1", "c1") == first
    assert store.question("r2") is None
    assert store.read_events("s1") == [
        (0, {"type": "user-questions/asked", "id": "r1", "callId": "c1", "questions": QUESTIONS})
    ]


def test_the_first_claim_wins_and_is_logged_once(store: Store) -> None:
    store.append_event("s1", {"type": "turn/start", "turn": 1})
    store.open_question("s1", "c1", QUESTIONS, request_id="r1")
    assert store.resolve_question("r1", answered()).to_wire() == {
        "status": "accepted",
        "outcome": "answered",
        "answer": YES,
    }
    late = store.resolve_question("r1", Terminal(outcome="cancelled"))
    assert late.to_wire() == {"status": "already-resolved", "outcome": "answered", "answer": YES}
    assert store.resolve_question("nope", answered()).status == "not-pending"
    assert [seq for seq, _ in store.read_events("s1")] == [0, 1, 2]
    assert store.read_events("s1", after=1) == [
        (2, {"type": "user-questions/answered", "id": "r1", "outcome": "answered", "answer": YES})
    ]


def test_racing_claims_from_many_connections_accept_exactly_one(
    open_at: Callable[[], Store],
) -> None:
    open_at().open_question("s1", "c1", QUESTIONS, request_id="r1")
    stores = [open_at() for _ in range(6)]
    results: list[str] = []
    start = threading.Barrier(len(stores))

    def claim(store: Store, n: int) -> None:
        start.wait()
        answer = {"answers": [{"id": "q1", "selected": [str(n)]}]}
        results.append(store.resolve_question("r1", answered(answer)).status)

    threads = [threading.Thread(target=claim, args=(s, n)) for n, s in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["accepted"] + ["already-resolved"] * 5
    kinds = [event["type"] for _, event in stores[0].read_events("s1")]
    assert kinds == ["user-questions/asked", "user-questions/answered"]


def test_pending_lists_every_session_oldest_first(store: Store) -> None:
    for n, session in enumerate(["s1", "s2", "s1"]):
        store.open_question(session, f"c{n}", QUESTIONS, request_id=f"r{n}")
    store.resolve_question("r1", answered())
    assert [r.id for r in store.pending_questions()] == ["r0", "r2"]
    assert [r.id for r in store.pending_questions("s1")] == ["r0", "r2"]
    assert store.pending_questions("s2") == []
    assert all(r.origin and r.asked_at for r in store.pending_questions())


def test_a_change_feed_wakes_on_a_commit_by_another_connection(
    open_at: Callable[[], Store],
) -> None:
    watcher, writer = open_at(), open_at()
    feed = watcher.changes()
    try:
        assert feed.wait(0.05) is False
        woke: list[bool] = []
        waiting = threading.Thread(target=lambda: woke.append(feed.wait(10.0)))
        waiting.start()
        writer.append_event("s1", {"type": "turn/start", "turn": 1})
        waiting.join(5.0)
        assert woke == [True]
        assert feed.wait(0.05) is False
    finally:
        feed.close()


def test_a_change_feed_closed_from_another_thread_ends_its_wait(
    open_at: Callable[[], Store],
) -> None:
    """Closing a feed while another thread waits on it must not close the connection under that
    wait (SQLite crashes the process): the wait returns False and the feed is closed."""
    for _ in range(20):
        feed = open_at().changes()
        woke: list[bool] = []
        waiting = threading.Thread(target=lambda f=feed, w=woke: w.append(f.wait(10.0)))
        waiting.start()
        feed.close()
        waiting.join(5.0)
        assert woke == [False]
        assert feed.wait(0.01) is False  # closed stays closed
        feed.close()  # twice is fine


def test_a_store_written_by_a_newer_ipyask_is_refused_unchanged(location: str) -> None:
    store = open_store(location)
    store.append_event("s1", {"type": "turn/start", "turn": 1})
    newer = SCHEMA_VERSION + 1
    if isinstance(store, SQLiteStore):
        store.close()
        with sqlite3.connect(location) as db:
            db.execute(f"PRAGMA user_version = {newer}")
    else:
        with store._lock, store._db.transaction():  # a newer ipyask's migration, by hand
            store._db.execute(
                "UPDATE ipyask_meta SET value = %s WHERE key = 'schema_version'", (str(newer),)
            )
        store.close()
    with pytest.raises(StoreVersionError) as refused:
        open_store(location)
    message = str(refused.value)
    assert f"schema version {newer}, written by a newer ipyask" in message
    assert f"reads schema versions up to {SCHEMA_VERSION}" in message
    if isinstance(store, SQLiteStore):
        with sqlite3.connect(location) as db:
            assert db.execute("PRAGMA user_version").fetchone()[0] == newer
            assert db.execute("SELECT COUNT(*) FROM ipyask_events").fetchone()[0] == 1


def test_an_unversioned_sqlite_file_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    sqlite3.connect(path).close()  # an empty database: schema version 0
    store = SQLiteStore(path)
    store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_open_store_reads_the_environment_then_the_default_next_to_the_notebook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("IPYASK_STORE", raising=False)
    store = open_store()
    assert Path(store.location) == Path(".ipyask/questions.sqlite3")
    assert (tmp_path / ".ipyask" / "questions.sqlite3").exists()
    store.close()
    monkeypatch.setenv("IPYASK_STORE", str(tmp_path / "elsewhere.sqlite3"))
    store = open_store()
    assert store.location == str(tmp_path / "elsewhere.sqlite3")
    store.close()


def test_a_postgres_url_without_psycopg_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(ImportError, match=r"pip install 'ipyask\[postgres\]'"):
        open_store("postgresql://nobody@/nothing")


# -- the seam on a store ------------------------------------------------------------------------
def asker(store: Store, name: str = "agent") -> tuple[ipyask.UserQuestions, ipyask.Agent]:
    svc = ipyask.UserQuestions(clock=ManualClock(), store=store)
    agent = svc.agents.enter(ipyask.Agent(name, session=svc.open_session(name)))
    if not agent.session.events:
        agent.session.append(TurnStartEvent(turn=1))
    return svc, agent


def request(agent: ipyask.Agent) -> dict[str, object]:
    return {"questions": QUESTIONS, "agent": agent, "callId": "call-1"}


async def test_a_session_on_a_store_reloads_its_log(open_at: Callable[[], Store]) -> None:
    _, agent = asker(open_at())
    agent.session.append({"type": "tool/call", "callId": "x", "name": "t", "arguments": "{}"})
    reopened = ipyask.host.Session("agent", store=open_at())
    assert [e.to_wire() for e in reopened.events] == [e.to_wire() for e in agent.session.events]
    assert len(reopened.events) == 2


async def test_a_question_survives_the_asking_process(open_at: Callable[[], Store]) -> None:
    svc, agent = asker(open_at())
    asking = asyncio.ensure_future(svc.ask(request(agent)))
    await drain_loop()
    await svc.aclose()  # the kernel restarts while the agent waits
    with pytest.raises(ipyask.UserQuestionError):
        await asking
    restarted, again = asker(open_at())
    [record] = restarted.pending()
    assert (record.call_id, record.agent_id, record.questions) == ("call-1", "agent", QUESTIONS)
    assert restarted.respond(None, record.id, YES).status == "accepted"
    # the re-run agent asks the same call again: the recorded answer, at once
    result = await restarted.ask(request(again))
    assert result.to_wire() == YES
    kinds = [e.to_wire()["type"] for e in again.session.events]
    assert kinds == ["turn/start", "user-questions/asked", "user-questions/answered"]
    await restarted.aclose()


async def test_an_answer_from_another_connection_reaches_the_waiting_asker(
    open_at: Callable[[], Store],
) -> None:
    svc, agent = asker(open_at())
    asking = asyncio.ensure_future(svc.ask(request(agent)))
    await drain_loop()
    inbox = ipyask.UserQuestions(store=open_at())
    [record] = inbox.pending()
    assert inbox.respond(None, record.id, YES).status == "accepted"
    assert (await asyncio.wait_for(asking, 10)).to_wire() == YES
    assert inbox.respond(None, record.id, YES).status == "already-resolved"
    await svc.aclose()


async def test_a_cancel_from_another_connection_ends_the_asker(
    open_at: Callable[[], Store],
) -> None:
    svc, agent = asker(open_at())
    asking = asyncio.ensure_future(svc.ask(request(agent)))
    await drain_loop()
    inbox = ipyask.connect(open_at(), agent="inbox")
    [record] = inbox.pending()
    assert inbox.cancel(record.id).status == "accepted"
    with pytest.raises(ipyask.UserQuestionError) as caught:
        await asyncio.wait_for(asking, 10)
    assert caught.value.code == "ASK_CANCELLED"
    await inbox.aclose()
    await svc.aclose()


async def test_connect_asks_and_answers_through_the_store(
    open_at: Callable[[], Store],
) -> None:
    clock = ManualClock()
    agent = ipyask.connect(open_at(), agent="worker-1", clock=clock)
    inbox = ipyask.connect(open_at(), agent="notebook")
    timed = asyncio.ensure_future(agent.ask_timed({"questions": QUESTIONS}, "c1", 5_000))
    await drain_loop()
    clock.advance(4_999)
    await drain_loop()
    assert not timed.done()
    clock.advance(1)
    await drain_loop()
    assert (await timed).to_wire() == {"pending": True, "callId": "c1"}
    [record] = inbox.pending()
    assert (record.agent_id, record.session_id, record.call_id) == ("worker-1", "worker-1", "c1")
    assert inbox.answer(record.id, YES).status == "accepted"
    assert (await agent.ask({"questions": QUESTIONS}, "c1")).to_wire() == YES
    assert (await agent.ask_timed({"questions": QUESTIONS}, "c1", 1)).to_wire() == YES
    await agent.aclose()
    await inbox.aclose()


async def test_an_answer_committed_before_the_asker_watches_is_not_missed(
    open_at: Callable[[], Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ipyask._durable import StoreBook

    svc, agent = asker(open_at())
    inbox = open_at()
    record_and_sync = StoreBook.open_together

    async def answered_at_once(self: StoreBook, *args: Any, **kwargs: Any) -> object:
        record, seq = await record_and_sync(self, *args, **kwargs)
        inbox.resolve_question(record.id, answered())  # the inbox is faster than the asker
        self.store.read_events("agent")
        assert self.session is not None
        self.session.sync()
        return record, seq

    monkeypatch.setattr(StoreBook, "open_together", answered_at_once)
    assert (await asyncio.wait_for(svc.ask(request(agent)), 10)).to_wire() == YES
    await svc.aclose()


def test_a_burst_does_not_leave_the_sqlite_log_as_large_as_the_burst(tmp_path: Path) -> None:
    """A reader holding a snapshot keeps the write-ahead log from restarting during a burst; once
    it lets go, the next checkpoint truncates the log to the store's limit (16 MiB)."""
    path = tmp_path / "burst.sqlite3"
    store = SQLiteStore(path)
    reader = sqlite3.connect(path)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM sqlite_master").fetchone()  # holds a snapshot
        padding = "x" * 100_000
        for index in range(250):  # about 25 MB through the log
            store.append_event("burst", {"type": "note", "index": index, "padding": padding})
        assert Path(f"{path}-wal").stat().st_size > 20 * 1024 * 1024
        reader.execute("COMMIT")
        for index in range(3):  # a checkpoint, then a write that restarts the log
            store.append_event("after", {"type": "note", "index": index})
        assert Path(f"{path}-wal").stat().st_size <= 16 * 1024 * 1024
    finally:
        reader.close()
        store.close()
