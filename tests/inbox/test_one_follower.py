"""One follower of a store per store object and process: the inbox and the durable asks
waiting on the same store share its thread and its change feed."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import ipyask
from ipyask.store import SQLiteStore
from ipyask.store._follow import Subscription, follower_of

from ._helpers import DEPLOY, YES, View, until


def _threads(name: str) -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == name]


class CountingStore(SQLiteStore):
    """A SQLite store that counts the change feeds opened on it."""

    feeds = 0

    def changes(self, sessions: Any = None) -> Any:
        self.feeds += 1
        return super().changes(sessions)


async def test_an_inbox_and_an_asker_on_one_store_share_one_follower(location: str) -> None:
    store = CountingStore(Path(location))
    before = set(_threads("ipyask-store-follow"))  # earlier tests' followers, ending by now
    panel = ipyask.inbox(store)
    view = View(panel)
    try:
        async with ipyask.connect(store, agent="worker") as conn:
            asking = asyncio.ensure_future(conn.ask(DEPLOY, call_id="step-1"))
            [card] = await until(lambda: [c for c in panel.cards if c["status"] == "pending"])
            assert follower_of(store).subscribers == 2  # the inbox and the waiting asker
            assert store.feeds == 1
            assert len(set(_threads("ipyask-store-follow")) - before) == 1
            view.answer(card["key"], YES)
            assert (await asyncio.wait_for(asking, 10)).to_wire() == YES
        await until(lambda: follower_of(store).subscribers == 1)  # the asker's watch left
    finally:
        panel.close()
        await panel.service.aclose()
        store.close()
    assert follower_of(store).subscribers == 0
    await until(lambda: not follower_of(store).running)  # a moment after the last one left


def test_a_subscriber_right_after_the_last_one_left_finds_the_feed_still_open(
    tmp_path: Path,
) -> None:
    store = CountingStore(tmp_path / "q.sqlite3")
    other = SQLiteStore(tmp_path / "q.sqlite3")
    try:
        follower = follower_of(store)
        woke = threading.Event()
        stop = follower.subscribe(Subscription(woke.set))
        other.append_event("s1", {"type": "turn/start", "turn": 1})
        assert woke.wait(5.0)
        stop()
        stop()  # twice is fine
        # An agent asking its next question: the same feed and thread, no new connection.
        again = threading.Event()
        stop = follower.subscribe(Subscription(again.set))
        assert store.feeds == 1
        other.append_event("s1", {"type": "turn/end", "turn": 1})
        assert again.wait(5.0)
        stop()
    finally:
        other.close()
        store.close()


def test_the_feed_ends_once_nobody_subscribed_for_a_wait_and_the_next_starts_one(
    tmp_path: Path,
) -> None:
    store = CountingStore(tmp_path / "q.sqlite3")
    other = SQLiteStore(tmp_path / "q.sqlite3")
    try:
        follower = follower_of(store)
        follower.IDLE_WAIT = 0.05  # the quiet waits end sooner
        stop = follower.subscribe(Subscription(lambda: None))
        stop()
        deadline = time.monotonic() + 10
        while follower.running:  # the thread retires the feed by itself
            assert time.monotonic() < deadline, "the follower's feed was not retired"
            time.sleep(0.01)
        again = threading.Event()
        stop = follower.subscribe(Subscription(again.set))
        assert store.feeds == 2
        other.append_event("s1", {"type": "turn/end", "turn": 1})
        assert again.wait(5.0)
        stop()
    finally:
        other.close()
        store.close()


def test_a_failing_subscriber_does_not_keep_the_others_from_hearing(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "q.sqlite3")
    woke = threading.Event()

    def fails() -> None:
        raise RuntimeError("a bug in one subscriber")

    follower = follower_of(store)
    stops = [follower.subscribe(Subscription(fails)), follower.subscribe(Subscription(woke.set))]
    try:
        store.append_event("s1", {"type": "turn/start", "turn": 1})
        assert woke.wait(5.0)
    finally:
        for stop in stops:
            stop()
        store.close()
