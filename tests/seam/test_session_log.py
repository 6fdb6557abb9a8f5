"""A session's log takes events this process wrote, or a store's change notes told of, without
reading them back, and never with a gap."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ipyask._events import EVENT
from ipyask._session import Session
from ipyask.store import SQLiteStore


def test_a_session_takes_noted_events_without_a_gap_and_says_where_one_is() -> None:
    session = Session("s1")
    session.append({"type": "turn/start", "turn": 1})
    end = {"type": "turn/end", "turn": 1}
    start = {"type": "turn/start", "turn": 2}
    assert session.noted([(0, {"type": "turn/start", "turn": 1}), (1, end)]) is True
    assert [e.type for e in session.events] == ["turn/start", "turn/end"]
    assert session.noted([(3, end)]) is False  # seq 2 is missing: read it
    assert len(session.events) == 2
    assert session.noted([(2, start), (4, end)]) is False  # takes 2, stops before the gap
    assert [e.to_wire() for e in session.events][2] == start
    assert len(session.events) == 3


def test_an_event_a_note_brought_in_already_is_not_read_back(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "q.sqlite3")
    reads: list[Any] = []
    read_events = store.read_events
    store.read_events = lambda *args: reads.append(args) or read_events(*args)  # type: ignore[method-assign]
    try:
        session = Session("s1", store=store)
        reads.clear()
        start = {"type": "turn/start", "turn": 1}
        seq = store.append_event("s1", start)
        assert session.noted([(seq, start)]) is True  # the note came before the writer's reply
        assert session.written(seq, EVENT.validate_python(start)).to_wire() == start
        assert reads == []
        assert len(session.events) == 1
    finally:
        store.close()


def test_a_noted_event_that_is_not_valid_is_left_to_a_read() -> None:
    session = Session("s1")
    assert session.noted([(0, {"type": "turn/start", "turn": "first"})]) is False
    assert session.events == ()
