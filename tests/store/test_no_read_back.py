"""A session on a store takes in what this process wrote without reading it back; what other
processes wrote in between is still read, exactly once and in order."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from ipyask._durable import StoreBook
from ipyask._session import Session, UserMessage
from ipyask.host import SessionEvent, TurnStartEvent
from ipyask.store import Store

QUESTIONS = [{"id": "q1", "question": "Deploy?", "options": [{"label": "Yes"}]}]


class Reads:
    """Counts the store's session-log reads (wraps ``read_events`` of one store object)."""

    def __init__(self, store: Store) -> None:
        self.count = 0
        read = store.read_events

        def counted(session_id: str, after: int = -1) -> list[Any]:
            self.count += 1
            return read(session_id, after)

        store.read_events = counted  # type: ignore[method-assign]


class Seen:
    """A session listener recording every event it is told of, in order."""

    def __init__(self) -> None:
        self.events: list[SessionEvent] = []

    def event_appended(self, session: Session, event: SessionEvent) -> None:
        self.events.append(event)

    def message_claimed(self, session: Session, message: UserMessage, turn: int) -> None:
        pass

    def message_discarded(self, session: Session, message: UserMessage) -> None:
        pass


def turns(events: tuple[SessionEvent, ...] | list[SessionEvent]) -> list[Any]:
    return [(event.type, getattr(event, "turn", getattr(event, "id", None))) for event in events]


def start(turn: int) -> Mapping[str, Any]:
    return {"type": "turn/start", "turn": turn}


def test_an_append_is_not_read_back(open_at: Callable[[], Store]) -> None:
    store = open_at()
    session = Session("s1", store=store)
    reads = Reads(store)
    seen = Seen()
    session.subscribe(seen)
    first = session.append(start(1))
    session.end_turn(1)
    assert reads.count == 0
    assert isinstance(first, TurnStartEvent) and session.events[0] is first
    assert turns(session.events) == [("turn/start", 1), ("turn/end", 1)]
    assert turns(seen.events) == turns(session.events)
    assert [seq for seq, _ in store.read_events("s1")] == [0, 1]


def test_events_another_process_appended_in_between_are_read_once_in_order(
    open_at: Callable[[], Store],
) -> None:
    store, other = open_at(), open_at()
    session = Session("s1", store=store)
    seen = Seen()
    session.subscribe(seen)
    reads = Reads(store)
    session.append(start(1))
    assert reads.count == 0
    other.append_event("s1", start(2))  # the other process: this session has not read it
    other.append_event("s1", start(3))
    session.append(start(4))  # lands after them: they are read, with it, once
    assert reads.count == 1
    assert turns(session.events) == [("turn/start", n) for n in (1, 2, 3, 4)]
    assert session.sync() == ()
    other.append_event("s1", start(5))
    session.sync()
    session.append(start(6))
    expected = [("turn/start", n) for n in range(1, 7)]
    assert turns(session.events) == expected
    assert turns(seen.events) == expected  # each told once, in order
    assert [event["turn"] for _, event in store.read_events("s1")] == list(range(1, 7))


def test_a_concurrent_writer_never_leaves_a_gap_or_a_duplicate(
    open_at: Callable[[], Store],
) -> None:
    store, other = open_at(), open_at()
    session = Session("s1", store=store)
    seen = Seen()
    session.subscribe(seen)
    rounds = 40

    def write_elsewhere() -> None:
        for n in range(rounds):
            other.append_event("s1", {"type": "turn/end", "turn": n})

    writer = threading.Thread(target=write_elsewhere)
    writer.start()
    for n in range(rounds):
        session.append(start(n))
    writer.join()
    session.sync()
    stored = [(event["type"], event["turn"]) for _, event in store.read_events("s1")]
    assert turns(session.events) == stored and len(stored) == 2 * rounds
    assert turns(seen.events) == stored


def test_opening_a_question_takes_in_its_asked_event_without_reading_it_back(
    open_at: Callable[[], Store],
) -> None:
    store, other = open_at(), open_at()
    session = Session("s1", store=store)
    session.append(start(1))
    reads = Reads(store)
    book = StoreBook(store, session)
    record = book.open("c1", QUESTIONS, "agent")
    assert reads.count == 0
    assert turns(session.events) == [("turn/start", 1), ("user-questions/asked", record.id)]
    # Another process appends before the next question: it is read (once) with it.
    other.append_event("s1", start(2))
    second = book.open("c2", QUESTIONS, "agent")
    assert reads.count == 1
    expected = [
        ("turn/start", 1),
        ("user-questions/asked", record.id),
        ("turn/start", 2),
        ("user-questions/asked", second.id),
    ]
    assert turns(session.events) == expected
    assert book.open("c1", QUESTIONS, "agent") == record  # found: nothing written or read
    assert reads.count == 1 and len(session.events) == 4
    assert [(e["type"], e.get("turn", e.get("id"))) for _, e in other.read_events("s1")] == expected
