"""A PostgreSQL store keeps one ``LISTEN`` connection, shared by its change feeds (real DB)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import ipyask
from helpers.server_processes import HAS_PROC, server_wakeups
from ipyask.store import PostgresStore, Store, StoreClosedError, Terminal, open_store
from ipyask.store._postgres import CHANNEL, session_channel
from ipyask.store._records import ChangeNote
from ipyask.testing import ManualClock

from ._postgres_only import POSTGRES_ONLY

pytestmark = POSTGRES_ONLY

psycopg = pytest.importorskip("psycopg")

LISTENING = (
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
    " AND (query LIKE %s OR query LIKE %s)"
)


@pytest.fixture
def observer(location: str) -> Iterator[Any]:
    """A plain connection that looks at the database's sessions."""
    with psycopg.connect(location, autocommit=True) as connection:
        yield connection


def listening(observer: Any) -> set[int]:
    """Backend pids whose last statement is a change feed's ``LISTEN`` (or ``UNLISTEN``)."""
    return {row[0] for row in observer.execute(LISTENING, ("LISTEN %", "UNLISTEN %"))}


def eventually(check: Callable[[], bool], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def told(payload: str) -> tuple[str, int]:
    """The session and position an ask's or a claim's notification tells of (its note)."""
    note = ChangeNote.model_validate_json(payload)
    return note.session_id, note.seq


def answered(label: str) -> Terminal:
    return Terminal.model_validate(
        {"outcome": "answered", "answer": {"answers": [{"id": "q", "selected": [label]}]}}
    )


async def test_sequential_asks_share_one_listening_connection(
    location: str, observer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox = open_store(location)
    agent = ipyask.connect(location, agent="worker")
    opened: list[str] = []
    real_connect = psycopg.connect

    def counting_connect(*args: Any, **kwargs: Any) -> Any:
        opened.append(str(args[0]) if args else "")
        return real_connect(*args, **kwargs)

    monkeypatch.setattr(psycopg, "connect", counting_connect)
    listeners: set[int] = set()
    try:
        for i in range(5):
            call = f"c{i}"
            asking = asyncio.ensure_future(
                agent.ask({"questions": [{"id": "q", "question": f"{call}?"}]}, call)
            )
            while not (pending := inbox.pending_questions()):
                await asyncio.sleep(0.01)
            listeners |= listening(observer)
            assert inbox.resolve_question(pending[0].id, answered(call)).status == "accepted"
            answer = await asyncio.wait_for(asking, 10)
            assert answer.answers[0].selected == [call]
        assert len(opened) == 1  # the listener, opened with the first ask's feed
        assert len(listeners) == 1
    finally:
        await agent.aclose()
        inbox.close()
    assert eventually(lambda: not listening(observer))  # closed with the store


def test_feeds_of_one_store_wake_together_and_end_with_the_store(
    location: str, observer: Any
) -> None:
    watcher, writer = open_store(location), open_store(location)
    feeds = [watcher.changes() for _ in range(3)]
    assert len(listening(observer)) == 1
    woke: list[bool] = []
    waiting = [threading.Thread(target=lambda f=f: woke.append(f.wait(10.0))) for f in feeds]
    for thread in waiting:
        thread.start()
    writer.append_event("s1", {"type": "turn/start", "turn": 1})
    for thread in waiting:
        thread.join(5.0)
    assert woke == [True, True, True]
    feeds[0].close()  # one feed closed: the others still wake
    writer.append_event("s1", {"type": "turn/end", "turn": 1})
    assert feeds[1].wait(5.0) is True
    assert feeds[2].wait(5.0) is True
    assert feeds[0].wait(0.01) is False
    ended: list[bool] = []
    blocked = threading.Thread(target=lambda: ended.append(feeds[2].wait(30.0)))
    blocked.start()
    watcher.close()
    blocked.join(5.0)
    assert ended == [False]
    assert eventually(lambda: not listening(observer))
    writer.close()
    with pytest.raises(StoreClosedError, match="was closed: open it again"):
        watcher.changes()


def test_a_lost_listening_connection_is_opened_again_at_backed_off_delays(
    location: str, observer: Any
) -> None:
    clock = ManualClock()
    watcher, writer = PostgresStore(location, clock=clock), open_store(location)
    try:
        feed = watcher.changes()
        (pid,) = listening(observer)
        observer.execute("SELECT pg_terminate_backend(%s)", (pid,))
        assert eventually(lambda: clock.pending == [100])  # the first retry, 100 ms on
        assert feed.wait(0.05) is False  # down: the feed waits, it does not fail
        writer.append_event("s1", {"type": "turn/start", "turn": 1})  # missed by the listener
        clock.advance(100)
        assert feed.wait(10.0) is True  # listening again: the feed wakes to read what it missed
        assert len(listening(observer)) == 1
        assert watcher.changes() is not None and len(listening(observer)) == 1
        writer.append_event("s1", {"type": "turn/end", "turn": 1})
        assert feed.wait(10.0) is True
    finally:
        watcher.close()
        writer.close()


def test_a_store_opens_no_listening_connection_until_a_feed_is_asked_for(
    location: str, observer: Any
) -> None:
    store: Store = open_store(location)
    try:
        store.append_event("s1", {"type": "turn/start", "turn": 1})
        assert listening(observer) == set()
    finally:
        store.close()


def test_a_feed_that_follows_sessions_wakes_only_for_theirs(location: str) -> None:
    watcher, writer = open_store(location), open_store(location)
    followed = {"s1"}
    feed = watcher.changes(sessions=lambda: followed)
    every = watcher.changes()
    try:
        writer.append_event("s2", {"type": "turn/start", "turn": 1})
        assert every.wait(5.0) is True
        assert feed.wait(0.3) is False  # s2's change arrived and was skipped
        writer.append_event("s1", {"type": "turn/start", "turn": 1})
        assert feed.wait(5.0) is True
        followed.add("s2")  # the sessions are read as each change arrives
        writer.append_event("s2", {"type": "turn/end", "turn": 1})
        assert feed.wait(5.0) is True
    finally:
        feed.close()
        every.close()
        watcher.close()
        writer.close()


def test_a_listener_hears_only_the_sessions_its_feeds_follow(location: str) -> None:
    """An agent's process is not woken by other sessions' commits; an inbox's hears them all."""
    watcher, writer = PostgresStore(location), PostgresStore(location)
    followed = {"s1"}
    feed = watcher.changes(sessions=lambda: followed)
    listener = watcher._listener
    assert listener is not None
    try:
        assert listener.channels == {session_channel("s1")}
        writer.append_event("s2", {"type": "turn/start", "turn": 1})
        writer.append_event("s1", {"type": "turn/start", "turn": 1})
        assert feed.wait(5.0) is True
        assert listener.notifications == 1  # s1's only: s2's commit never reached this process
        followed.add("s2")
        feed.sessions_changed()  # listening for s2 when this returns
        assert listener.channels == {session_channel("s1"), session_channel("s2")}
        writer.append_event("s2", {"type": "turn/end", "turn": 1})
        assert feed.wait(5.0) is True
        every = watcher.changes()
        assert listener.channels == {CHANNEL}
        writer.append_event("s3", {"type": "turn/start", "turn": 1})
        assert every.wait(5.0) is True
        every.close()
    finally:
        feed.close()
        watcher.close()
        writer.close()


def test_a_store_whose_last_feed_closed_stops_listening(location: str) -> None:
    watcher, writer = PostgresStore(location), PostgresStore(location)
    try:
        feed = watcher.changes()
        listener = watcher._listener
        assert listener is not None and listener.channels == {CHANNEL}
        feed.close()
        assert eventually(lambda: listener.channels == set())
        before = listener.notifications
        writer.append_event("s1", {"type": "turn/start", "turn": 1})
        again = watcher.changes(sessions=lambda: {"s2"})  # listening for s2 only, from now
        writer.append_event("s2", {"type": "turn/start", "turn": 1})
        assert again.wait(5.0) is True
        assert listener.notifications == before + 1  # s1's commit never reached this process
        again.close()
    finally:
        watcher.close()
        writer.close()


def test_a_transaction_notifies_each_session_once_on_each_channel(
    location: str, observer: Any
) -> None:
    store = PostgresStore(location)
    observer.execute(f"LISTEN {CHANNEL}")
    observer.execute(f'LISTEN "{session_channel("s1")}"')
    try:
        store.open_question("s1", "c1", [{"id": "q", "question": "Go?"}], request_id="r1")
        heard = [(n.channel, told(n.payload)) for n in observer.notifies(timeout=1.0, stop_after=3)]
        assert sorted(heard) == sorted([(CHANNEL, ("s1", 0)), (session_channel("s1"), ("s1", 0))])
    finally:
        store.close()


def test_an_ask_and_a_claim_notify_as_they_commit_without_the_listening_thread(
    location: str, observer: Any
) -> None:
    """An ask and a claim send their notifications in their own transactions: the other side's
    listener hears each as it commits, not after the writer's listening thread wakes and sends
    a statement of its own."""
    store = PostgresStore(location)
    feed = store.changes()  # the store listens (and would send notifications from its thread)
    listener = store._listener
    assert listener is not None
    observer.execute(f'LISTEN "{session_channel("s1")}"')
    observer.execute(f"LISTEN {CHANNEL}")
    try:
        with listener.changed:  # its thread cannot send meanwhile
            record, _ = store.open_question("s1", "c1", [{"id": "q"}], request_id="r1")
            heard = [
                (n.channel, told(n.payload)) for n in observer.notifies(timeout=2.0, stop_after=2)
            ]
            assert sorted(heard) == sorted(
                [(CHANNEL, ("s1", 0)), (session_channel("s1"), ("s1", 0))]
            )
            assert store.resolve_question(record.id, answered("yes")).status == "accepted"
            heard = [
                (n.channel, told(n.payload)) for n in observer.notifies(timeout=2.0, stop_after=2)
            ]
            assert sorted(heard) == sorted(
                [(CHANNEL, ("s1", 1)), (session_channel("s1"), ("s1", 1))]
            )
        assert listener.sent == 0  # both came with their commits
        again = store.resolve_question(record.id, answered("no"))
        assert again.status == "already-resolved" and again.answer == answered("yes").answer
        assert [e["type"] for _, e in store.read_events("s1")] == [
            "user-questions/asked",
            "user-questions/answered",
        ]
    finally:
        feed.close()
        store.close()


@pytest.mark.skipif(not HAS_PROC, reason="counts wake-ups in /proc")
def test_a_burst_of_commits_is_notified_once_and_wakes_no_other_session_s_listener(
    location: str, observer: Any
) -> None:
    """The server wakes every listening connection of the database at every notifying commit,
    whatever its channels (PostgreSQL 15): a store that listens notifies the commits made
    while its last notification was being sent all at once, so a burst of an agent's commits
    costs another process's listener one wake-up on the server, and none in the process."""
    bystander, agent = PostgresStore(location), PostgresStore(location)
    elsewhere = bystander.changes(sessions=lambda: {"elsewhere"})
    mine = agent.changes(sessions=lambda: {"mine"})
    watching, sending = bystander._listener, agent._listener
    assert watching is not None and watching._db is not None
    assert sending is not None
    observer.execute(f'LISTEN "{session_channel("mine")}"')
    server_process = watching._db.info.backend_pid
    try:
        before, sent = server_wakeups(server_process), sending.sent
        with sending.changed:  # its thread is busy meanwhile: the commits wait to be notified
            for turn in range(20):
                agent.append_event("mine", {"type": "turn/start", "turn": turn})
        assert eventually(lambda: sending.sent == sent + 1)
        heard = [n.payload for n in observer.notifies(timeout=1.0)]
        assert heard == ["mine"]  # twenty commits, one notification
        assert mine.wait(5.0) is True  # the agent's own feed heard it
        assert elsewhere.wait(0.5) is False
        assert watching.notifications == 0
        assert server_wakeups(server_process) - before < 10  # once per commit would be 20+
    finally:
        elsewhere.close()
        mine.close()
        bystander.close()
        agent.close()
