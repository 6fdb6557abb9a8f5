"""PostgreSQL: an ask's and a claim's notifications carry a note of what they wrote (the event
and, for an ask, who asked), so a process following the session need not read it back; every
other write, and a note too long for a notification, names the bare session."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from ipyask.store import PostgresStore, Terminal, open_store
from ipyask.store._postgres import CHANNEL, NOTE_LIMIT, session_channel
from ipyask.store._records import ChangeNote

from ._postgres_only import POSTGRES_ONLY, QUESTIONS

psycopg = pytest.importorskip("psycopg")

pytestmark = POSTGRES_ONLY

YES = Terminal.model_validate(
    {
        "outcome": "answered",
        "answer": {"answers": [{"id": "q1", "selected": ["Yes"]}]},
        "answeredBy": {"who": "ada", "door": "api", "at": 1.5},
    }
)


@pytest.fixture
def observer(location: str) -> Iterator[Any]:
    connection = psycopg.connect(location, autocommit=True)
    yield connection
    connection.close()


def heard(observer: Any, count: int) -> list[tuple[str, str]]:
    return [(n.channel, n.payload) for n in observer.notifies(timeout=2.0, stop_after=count)]


def test_an_ask_and_a_claim_notify_a_note_of_what_they_wrote(
    store: PostgresStore, observer: Any
) -> None:
    observer.execute(f"LISTEN {CHANNEL}")
    observer.execute(f'LISTEN "{session_channel("s1")}"')
    store.append_event("s1", {"type": "turn/start", "turn": 1})
    assert heard(observer, 2) == [(CHANNEL, "s1"), (session_channel("s1"), "s1")]  # bare

    record, created = store.open_question(
        "s1", "c1", QUESTIONS, agent_id="deployer", request_id="r1", assignee="ada"
    )
    assert created
    (channel, payload), (other, same) = heard(observer, 2)
    assert {channel, other} == {CHANNEL, session_channel("s1")} and payload == same
    note = ChangeNote.model_validate_json(payload)
    [(seq, event)] = store.read_events("s1", after=0)
    assert (note.session_id, note.seq, note.event) == ("s1", seq, event)
    assert note.record() == record  # the whole open record: the inbox's card needs no read
    assert note.settled() is None

    assert store.resolve_question("r1", YES).status == "accepted"
    [(_, payload), _] = heard(observer, 2)
    note = ChangeNote.model_validate_json(payload)
    [(seq, event)] = store.read_events("s1", after=1)
    assert (note.session_id, note.seq, note.event) == ("s1", seq, event)
    settled = store.question("r1")
    assert settled is not None
    assert note.settled() == ("r1", settled.terminal)
    assert note.record() is None


def test_a_note_too_long_for_a_notification_names_the_bare_session(
    store: PostgresStore, observer: Any
) -> None:
    observer.execute(f'LISTEN "{session_channel("s1")}"')
    long = [{"id": "q1", "question": "x" * NOTE_LIMIT}]
    store.open_question("s1", "c1", long, request_id="r1")
    assert heard(observer, 1) == [(session_channel("s1"), "s1")]
    assert store.resolve_question("r1", YES).status == "accepted"  # a short note again
    [(_, payload)] = heard(observer, 1)
    assert ChangeNote.model_validate_json(payload).settled() is not None


def test_a_feed_hands_on_the_notes_of_a_wake_or_none_when_a_change_was_not_told(
    store: PostgresStore, location: str
) -> None:
    writer = open_store(location)
    feed = store.changes(sessions=lambda: {"s1", "{s2"})
    try:
        writer.open_question("s1", "c1", QUESTIONS, request_id="r1")
        writer.open_question("{s2", "c1", QUESTIONS, request_id="r2")  # a brace, no note
        notes: list[ChangeNote] = []
        while len(notes) < 2:
            assert feed.wait(5.0) is True
            assert feed.notes is not None
            notes += feed.notes
        assert [(n.session_id, n.seq) for n in notes] == [("s1", 0), ("{s2", 0)]
        writer.append_event("{s2", {"type": "turn/start", "turn": 1})
        assert feed.wait(5.0) is True
        assert feed.notes is None  # read the store: what changed was not told
    finally:
        feed.close()
        writer.close()


def test_a_store_tells_its_own_feeds_of_its_asks_and_claims_and_drops_the_server_s_echo(
    store: PostgresStore,
) -> None:
    """The store hands its own asks' and claims' notes to its feeds as they commit; its
    listener drops the server's notifications of them (they would wake the process again)."""
    feed = store.changes(sessions=lambda: {"s1"})
    listener = store._listener
    assert listener is not None
    try:
        record, _ = store.open_question("s1", "c1", QUESTIONS, request_id="r1")
        assert feed.wait(0) is True  # told before open_question returned
        assert feed.notes is not None
        [asked] = feed.notes
        assert (asked.seq, asked.record()) == (0, record)
        assert store.resolve_question("r1", YES).status == "accepted"
        assert feed.wait(0) is True
        assert feed.notes is not None
        [answered] = feed.notes
        assert answered.settled() == ("r1", YES)
        deadline = time.monotonic() + 5
        while listener.own < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert listener.own == 2  # both echoes came back and were dropped
        assert feed.wait(0.2) is False  # and woke nobody
    finally:
        feed.close()
