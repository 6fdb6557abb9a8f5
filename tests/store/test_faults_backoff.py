"""Retries after a store fault: bounded exponential backoff on an injected clock (no real time)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from ipyask._backoff import Backoff, Pause
from ipyask._durable import _StoreWatch
from ipyask._session import Session
from ipyask.store import StoreUnavailableError
from ipyask.testing import ManualClock


def until(check: Callable[[], Any], seconds: float = 10.0) -> Any:
    """Waits for another thread to get somewhere (not a timing assertion)."""
    deadline = time.monotonic() + seconds
    while not (value := check()):
        assert time.monotonic() < deadline, f"not true within {seconds} s"
        time.sleep(0.005)
    return value


def test_backoff_doubles_up_to_its_cap_and_starts_over_after_a_success() -> None:
    backoff = Backoff(first_ms=100, most_ms=1_000)
    assert [backoff.next_ms() for _ in range(6)] == [100, 200, 400, 800, 1_000, 1_000]
    backoff.reset()
    assert backoff.next_ms() == 100
    with pytest.raises(ValueError, match="first_ms <= most_ms"):
        Backoff(first_ms=10, most_ms=1)


def test_a_pause_ends_when_its_clock_says_or_when_woken() -> None:
    clock = ManualClock()
    pause = Pause(clock)
    slept: list[bool] = []
    sleeper = threading.Thread(target=lambda: slept.append(pause.sleep(250)))
    sleeper.start()
    until(lambda: clock.pending == [250])
    clock.advance(249)
    assert slept == []
    clock.advance(1)
    sleeper.join(5)
    assert slept == [True]
    sleeper = threading.Thread(target=lambda: slept.append(pause.sleep(250)))
    sleeper.start()
    until(lambda: clock.pending == [500])
    pause.wake()
    sleeper.join(5)
    assert slept == [True, False]
    assert pause.sleep(1) is False  # woken for good


class FlakyStore:
    """A store whose session reads fail ``failures`` times, then succeed."""

    location = "flaky.sqlite3"

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.reads = 0

    def read_events(self, session_id: str, after: int = -1) -> list[Any]:
        self.reads += 1
        if self.reads <= self.failures:
            raise StoreUnavailableError(self.location, "locked", "database is locked")
        return []

    def changes(self, sessions: Any = None) -> Any:
        return IdleFeed()


class IdleFeed:
    def __init__(self) -> None:
        self.closed = threading.Event()

    def wait(self, timeout: float | None) -> bool:
        self.closed.wait(timeout)
        return False

    def close(self) -> None:
        self.closed.set()


class Waiting:
    """A stand-in for an asker: only its session is read."""

    def __init__(self, store: FlakyStore) -> None:
        self.session = Session("s1")
        self.session.store = store  # type: ignore[assignment]


def test_a_store_watch_retries_a_store_it_cannot_read_at_backed_off_delays() -> None:
    clock = ManualClock()
    store = FlakyStore(failures=3)
    watch = _StoreWatch(store, lambda events: None, clock)  # type: ignore[arg-type]
    watch.add(Waiting(store))  # type: ignore[arg-type]
    try:
        until(lambda: clock.pending == [100])  # the first read failed: a retry in 100 ms
        assert store.reads == 1
        clock.advance(100)
        until(lambda: clock.pending == [300])  # then 200 ms later
        clock.advance(200)
        until(lambda: clock.pending == [700])  # then 400 ms later
        clock.advance(400)
        until(lambda: store.reads == 4)  # the fourth read works: no more retries
        assert watch.outages == 3
        assert clock.pending == []
    finally:
        watch.stop()
