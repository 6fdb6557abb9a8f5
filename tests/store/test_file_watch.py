"""SQLite change feeds woken by the kernel's file-change notices (Linux), with the timed
``data_version`` check as the fallback."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ipyask.store import SQLiteStore
from ipyask.store import _sqlite as sqlite_module
from ipyask.store._file_watch import FileWatch
from ipyask.store._sqlite import SQLiteChangeFeed

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


def _watch_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "ipyask-store-files"]


@linux
def test_a_write_to_the_store_files_is_noticed_and_other_files_are_not(tmp_path: Path) -> None:
    noticed = threading.Event()
    watch = FileWatch(tmp_path / "q.sqlite3", noticed.set)
    try:
        (tmp_path / "notes.txt").write_text("not the store")
        (tmp_path / "q.sqlite3-wal").write_bytes(b"frame")
        assert noticed.wait(5.0)
        assert watch.notices == 1 and watch.alive
    finally:
        watch.close()
    assert not watch._thread.is_alive()
    watch.close()  # twice is fine


@linux
def test_after_a_notice_the_watch_sleeps_through_writes_until_a_feed_arms_it(
    tmp_path: Path,
) -> None:
    """A burst of commits (followed by the feeds on their timer) does not wake the watch's
    thread at every write; armed again, it drops the notices of writes made before."""
    noticed = threading.Event()
    wal = tmp_path / "q.sqlite3-wal"
    watch = FileWatch(tmp_path / "q.sqlite3", noticed.set)
    try:
        wal.write_bytes(b"frame")
        assert noticed.wait(5.0)
        noticed.clear()
        for frame in range(4):
            with wal.open("ab") as log:
                log.write(b"frame %d" % frame)
            time.sleep(0.25)  # a second of writes, longer than any pause between reads
        assert not noticed.is_set() and watch.notices == 1 and not watch.armed
        watch.arm()
        assert watch.armed and not noticed.wait(0.3)  # the writes before arm() are not told
        wal.write_bytes(b"after")
        assert noticed.wait(5.0)
        assert watch.notices == 2
    finally:
        watch.close()


@linux
def test_a_blocked_feed_wakes_on_another_connections_commit_without_a_timer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the timer's window has ended, only the write notice can wake the feed in time: its
    timer would next check 8 s later. After the notice it checks at once and, should the
    commit's counter not have moved yet (a WAL write is noticed before it), 4 s later."""
    monkeypatch.setattr(SQLiteChangeFeed, "MIN_INTERVAL", 4.0)
    monkeypatch.setattr(SQLiteChangeFeed, "MAX_INTERVAL", 3600.0)
    path = tmp_path / "q.sqlite3"
    watcher, writer = SQLiteStore(path), SQLiteStore(path)
    feed = watcher.changes()
    try:
        assert feed.wait(SQLiteChangeFeed.AFTER_WRITE + 0.2) is False  # the timer's window ended
        woke: list[bool] = []
        waiting = threading.Thread(target=lambda: woke.append(feed.wait(None)))
        waiting.start()
        writer.append_event("s1", {"type": "turn/start", "turn": 1})
        waiting.join(6.0)
        assert woke == [True]
    finally:
        feed.close()
        watcher.close()
        writer.close()


@linux
def test_an_idle_feed_does_not_check_on_a_timer_where_writes_are_noticed(
    tmp_path: Path,
) -> None:
    store = SQLiteStore(tmp_path / "q.sqlite3")
    feed = store.changes()
    try:
        assert feed.wait(SQLiteChangeFeed.AFTER_WRITE + 0.2) is False  # its timer's window
        before = feed.checks
        assert feed.wait(1.0) is False
        assert feed.checks - before <= 2  # the timer would have checked every 200 ms
    finally:
        feed.close()
        store.close()


@linux
def test_the_feeds_of_a_store_share_one_watch_that_closes_with_the_store(
    tmp_path: Path,
) -> None:
    before = len(_watch_threads())  # other tests' stores may still be open
    store = SQLiteStore(tmp_path / "q.sqlite3")
    feeds = [store.changes(), store.changes()]
    watch = store.file_watch()
    assert watch is not None and len(_watch_threads()) == before + 1
    for feed in feeds:
        feed.close()
    store.close()
    assert store.file_watch() is None and not watch._thread.is_alive()


def test_without_notices_a_feed_checks_on_a_timer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_module, "open_file_watch", lambda path, on_write: None)
    path = tmp_path / "q.sqlite3"
    watcher, writer = SQLiteStore(path), SQLiteStore(path)
    feed = watcher.changes()
    try:
        assert watcher.file_watch() is None
        woke: list[bool] = []
        waiting = threading.Thread(target=lambda: woke.append(feed.wait(10.0)))
        waiting.start()
        writer.append_event("s1", {"type": "turn/start", "turn": 1})
        # The kernel's notice can come before the commit shows (its check then finds nothing
        # and the feed listens on); a notice once the commit shows ends the pause for certain.
        if not _until(lambda: woke == [True], within=0.5):
            watcher._written()
        waiting.join(5.0)
        assert woke == [True]
    finally:
        feed.close()
        watcher.close()
        writer.close()


@linux
def test_a_removed_folder_ends_the_watch_and_the_feeds_check_on_a_timer(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "store"
    folder.mkdir()
    noticed = threading.Event()
    watch = FileWatch(folder / "q.sqlite3", noticed.set)
    try:
        folder.rmdir()
        assert noticed.wait(5.0)
        assert not watch.alive
    finally:
        watch.close()


def _until(condition: Callable[[], bool], within: float = 5.0) -> bool:
    """Whether ``condition`` held within ``within`` seconds (looked at every millisecond)."""
    ends = time.monotonic() + within
    while not condition():
        if time.monotonic() > ends:
            return False
        time.sleep(0.001)
    return True


def _long_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Timer pauses of 30 s and more, and no end to the timer's window: only a notice can end
    a pause within a test."""
    monkeypatch.setattr(SQLiteChangeFeed, "MIN_INTERVAL", 30.0)
    monkeypatch.setattr(SQLiteChangeFeed, "MAX_INTERVAL", 3600.0)
    monkeypatch.setattr(SQLiteChangeFeed, "AFTER_WRITE", 3600.0)


@linux
def test_a_write_notice_ends_a_pause_of_the_timer_with_a_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer committed a few milliseconds after its ask is seen at its notice, not at the
    timer's next check (here 60 s away)."""
    _long_timer(monkeypatch)
    path = tmp_path / "q.sqlite3"
    watcher, writer = SQLiteStore(path), SQLiteStore(path)
    feed = watcher.changes()
    woke: list[bool] = []
    waiting = threading.Thread(target=lambda: woke.append(feed.wait(None)))
    try:
        assert feed.wait(0.01) is False  # a quiet check: the next pause listens for notices
        checks = feed.checks
        waiting.start()
        assert _until(lambda: feed.checks == checks + 1)  # its first check found nothing
        writer.append_event("s1", {"type": "turn/start", "turn": 1})
        # The kernel's notice can come before the commit shows (its check then finds nothing
        # and the feed listens on); a notice once the commit shows ends the pause for certain.
        if not _until(lambda: woke == [True], within=0.5):
            watcher._written()
        waiting.join(5.0)
        assert woke == [True]
    finally:
        feed.close()
        waiting.join(5.0) if waiting.ident else None
        watcher.close()
        writer.close()


@linux
def test_a_notice_before_its_commit_shows_leaves_the_feed_waiting_out_its_pause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notice can come before the commit's counter moves: the feed checks, and again a
    few times shortly after; finding no change, it listens again for the rest of its pause
    (no longer than the timer says)."""
    _long_timer(monkeypatch)
    store = SQLiteStore(tmp_path / "q.sqlite3")
    feed = store.changes()
    woke: list[bool] = []
    waiting = threading.Thread(target=lambda: woke.append(feed.wait(None)))
    after = 1 + len(SQLiteChangeFeed.AFTER_NOTICE)  # the checks a notice leads to
    try:
        assert feed.wait(0.01) is False
        waiting.start()
        assert _until(lambda: store._blocked == 1)  # the pause listens for a notice
        checks = feed.checks
        store._written()  # a notice whose commit does not show (yet)
        assert _until(lambda: feed.checks == checks + after)
        assert _until(lambda: store._blocked == 1)  # listening again
        assert waiting.is_alive() and woke == [] and feed.checks == checks + after
        store._written()  # another, the commit still not showing
        assert _until(lambda: feed.checks == checks + 2 * after)
        assert waiting.is_alive() and woke == []
    finally:
        feed.close()
        waiting.join(5.0) if waiting.ident else None
        store.close()
    assert woke == [False]


@linux
def test_a_commit_that_shows_just_after_its_notice_is_seen_without_waiting_out_the_pause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit's counter moves a moment after the notice of its log write (here: at the
    check after the first): the feed checks again shortly after a notice that found nothing,
    so the change is seen then, not when the timer's pause (here 30 s) ends."""
    _long_timer(monkeypatch)
    store = SQLiteStore(tmp_path / "q.sqlite3")
    feed = store.changes()
    woke: list[bool] = []
    waiting = threading.Thread(target=lambda: woke.append(feed.wait(None)))
    try:
        assert feed.wait(0.01) is False
        version = feed._version
        noticed_at: list[int] = []
        read = feed._data_version

        def moving_after_the_notice() -> int:
            read()  # counted as a check
            if noticed_at and feed.checks > noticed_at[0] + 1:
                return version + 1  # the commit shows from the second check after the notice
            return version

        monkeypatch.setattr(feed, "_data_version", moving_after_the_notice)
        waiting.start()
        assert _until(lambda: store._blocked == 1)  # the pause listens for a notice
        noticed_at.append(feed.checks)
        store._written()
        waiting.join(5.0)
        assert woke == [True]
        assert feed.checks == noticed_at[0] + 2
    finally:
        feed.close()
        waiting.join(5.0) if waiting.ident else None
        store.close()


@linux
def test_the_first_pause_after_a_commit_of_the_same_store_ends_at_a_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An inbox's claim and the agent's next ask: the feed woke for its own store's commit, and
    another process's commit a moment later ends the first pause of the timer (here 30 s) at
    its notice."""
    _long_timer(monkeypatch)
    path = tmp_path / "q.sqlite3"
    watcher, writer = SQLiteStore(path), SQLiteStore(path)
    feed = watcher.changes()
    woke: list[bool] = []
    waiting = threading.Thread(target=lambda: woke.append(feed.wait(None)))
    try:
        watcher.append_event("s1", {"type": "turn/start", "turn": 1})  # its own commit
        assert feed.wait(5.0) is True
        waiting.start()
        assert _until(lambda: watcher._blocked == 1)  # the first pause listens for a notice
        writer.append_event("s1", {"type": "turn/end", "turn": 1})
        waiting.join(5.0)
        assert woke == [True]
    finally:
        feed.close()
        waiting.join(5.0) if waiting.ident else None
        watcher.close()
        writer.close()
