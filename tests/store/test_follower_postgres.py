"""A store's follower when its PostgreSQL listening connection goes away (real DB): it never
spins, and it says when its subscribers will hear nothing more."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ipyask.store import PostgresStore, Store, StoreClosedError, open_store
from ipyask.store._follow import StoreFollower, Subscription
from ipyask.testing import ManualClock

from ._postgres_only import POSTGRES_ONLY

pytestmark = POSTGRES_ONLY

psycopg = pytest.importorskip("psycopg")

LISTENING = (
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
    " AND (query LIKE 'LISTEN %' OR query LIKE 'UNLISTEN %')"
)


@pytest.fixture
def observer(location: str) -> Iterator[Any]:
    with psycopg.connect(location, autocommit=True) as connection:
        yield connection


class CountingFeeds:
    """Counts the follower's waits on the feeds ``store`` opens (one a turn of its loop)."""

    def __init__(self, store: Store) -> None:
        self.waits = 0
        opened = store.changes

        def changes(sessions: Any = None) -> Any:
            feed = opened(sessions)
            wait = feed.wait

            def counted(timeout: float | None) -> bool:
                self.waits += 1
                return wait(timeout)

            feed.wait = counted
            return feed

        store.changes = changes


class Calls:
    """A subscriber that counts its calls and can wait for the next one."""

    def __init__(self) -> None:
        self.count = 0
        self._called = threading.Condition()

    def __call__(self) -> None:
        with self._called:
            self.count += 1
            self._called.notify_all()

    def more_than(self, count: int, seconds: float = 10.0) -> bool:
        with self._called:
            return self._called.wait_for(lambda: self.count > count, seconds)


def eventually(check: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_a_follower_whose_store_closes_under_a_subscriber_stops_and_says_so(
    location: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = open_store(location)
    feeds = CountingFeeds(store)
    follower = StoreFollower(store)
    calls = Calls()
    unsubscribe = follower.subscribe(Subscription(calls, also_when_idle=True))
    try:
        with caplog.at_level(logging.WARNING, logger="ipyask"):
            store.close()  # the listener closes: each wait on its feed returns at once
            assert eventually(lambda: not follower.running)  # the thread ended
        # one wait ended by the close (maybe one more begun meanwhile), then no more turns
        assert feeds.waits <= 3
        assert calls.count <= 2
        assert f"the store {store.location} was closed while 1 subscriber" in caplog.text
        with pytest.raises(StoreClosedError, match=f"the store {store.location} was closed"):
            follower.subscribe(Subscription(calls))  # a closed store follows nothing new
    finally:
        unsubscribe()


def test_a_terminated_listening_backend_leaves_the_follower_waiting_not_spinning(
    location: str, observer: Any
) -> None:
    clock = ManualClock()
    store, writer = PostgresStore(location, clock=clock), open_store(location)
    feeds = CountingFeeds(store)
    follower = StoreFollower(store)
    calls = Calls()
    unsubscribe = follower.subscribe(Subscription(calls))
    try:
        (pid,) = {row[0] for row in observer.execute(LISTENING)}
        observer.execute("SELECT pg_terminate_backend(%s)", (pid,))
        assert eventually(lambda: clock.pending == [100])  # down; its first retry 100 ms on
        waits = feeds.waits
        # While the connection is down a wait lasts its whole IDLE_WAIT: over half of one the
        # follower waits at most once more, however fast its thread could turn.
        time.sleep(StoreFollower.IDLE_WAIT / 2)
        assert feeds.waits <= waits + 1
        assert follower.running and calls.count == 0
        writer.append_event("s1", {"type": "turn/start", "turn": 1})  # missed while down
        clock.advance(100)  # listening again: the subscriber is called to read what it missed
        assert calls.more_than(0)
        count = calls.count
        writer.append_event("s1", {"type": "turn/end", "turn": 1})
        assert calls.more_than(count)
    finally:
        unsubscribe()
        store.close()
        writer.close()
