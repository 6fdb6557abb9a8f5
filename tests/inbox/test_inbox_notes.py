"""PostgreSQL: an inbox shows and settles its cards from the notes of the store's commits, and
a waiting asker takes its answer from one, without reading the store back; a change no note
tells of is read as before."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest

import ipyask
from ipyask.store import Store, Terminal, open_store
from ipyask.store._follow import StoreFollower, follower_of
from ipyask.store._records import ANSWERED, ASKED, Asker, ChangeNote
from ipyask.testing import new_database

from ._helpers import DEPLOY, NO, YES, View, until


@pytest.fixture
def pg_location(postgres_cluster: str) -> str:
    pytest.importorskip("psycopg")
    return new_database(postgres_cluster)


@pytest.fixture(autouse=True)
def no_idle_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Waiters read their sessions after each quiet second too: not during these tests."""
    monkeypatch.setattr(StoreFollower, "IDLE_WAIT", 60.0)


@pytest.fixture
def stores() -> Iterator[list[Store]]:
    opened: list[Store] = []
    yield opened
    for store in opened:
        store.close()


def counted_args(owner: Any, name: str) -> list[tuple[Any, ...]]:
    """The arguments of each call of ``owner.<name>`` from now on."""
    calls: list[tuple[Any, ...]] = []
    method = getattr(owner, name)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return method(*args, **kwargs)

    setattr(owner, name, wrapped)
    return calls


def counted(store: Store, *names: str) -> list[str]:
    """The calls of ``store``'s methods ``names`` from now on, by name."""
    calls: list[str] = []
    for name in names:
        method = getattr(store, name)

        def wrapped(*args: Any, _name: str = name, _method: Any = method, **kwargs: Any) -> Any:
            calls.append(_name)
            return _method(*args, **kwargs)

        setattr(store, name, wrapped)
    return calls


def two_stores(location: str, stores: list[Store]) -> tuple[Store, Store]:
    """The inbox's store and another process's, on one database (closed after the test)."""
    inbox_store, elsewhere = open_store(location), open_store(location)
    stores += [inbox_store, elsewhere]
    return inbox_store, elsewhere


def pending(panel: ipyask.QuestionPanel) -> list[dict[str, Any]]:
    return [card for card in panel.cards if card["status"] == "pending"]


@pytest.mark.postgres
async def test_cards_show_and_settle_from_notes_and_the_asker_takes_its_answer_from_one(
    pg_location: str, stores: list[Store]
) -> None:
    inbox_store, elsewhere = two_stores(pg_location, stores)
    panel = ipyask.inbox(inbox_store)
    view = View(panel)
    inbox_reads = counted(inbox_store, "pending_questions", "question", "read_events")
    try:
        async with ipyask.connect(pg_location, agent="worker") as agent:
            await until(lambda: inbox_reads)  # connecting opened a session: no note for that
            inbox_reads.clear()
            asking = asyncio.ensure_future(agent.ask(DEPLOY, call_id="c1"))
            [card] = await until(lambda: pending(panel))
            assert card["source"]["agent"] == "worker"
            assert card["questions"][0]["question"] == "Deploy?"
            agent_reads = counted(agent.store, "read_events", "question", "pending_questions")

            # Answered in another process: the card says so, the asker has its answer.
            by = {"who": "ada", "door": "api", "at": 1.0}
            terminal = Terminal.model_validate(
                {"outcome": "answered", "answer": NO, "answeredBy": by}
            )
            assert elsewhere.resolve_question(card["key"], terminal).status == "accepted"
            assert (await asyncio.wait_for(asking, 10)).to_wire() == NO
            settled = await until(lambda: panel.get_card(card["key"]).status == "answered")
            assert settled
            shown = panel.get_card(card["key"])
            assert shown.answer is not None and shown.answer.to_wire() == NO

            # Answered on the card: the panel's own claim's note changes nothing more, and
            # does not wake the event loop to find that out.
            asking = asyncio.ensure_future(agent.ask(DEPLOY, call_id="c2"))
            [card] = await until(lambda: pending(panel))
            taken = counted_args(panel.inbox, "_take_notes")
            view.answer(card["key"], YES)
            assert (await asyncio.wait_for(asking, 10)).to_wire() == YES
            await asyncio.sleep(0.2)  # the claim's own note has come back by now
            assert taken == []
            assert inbox_reads == []
            assert agent_reads == []
            assert panel.get_card(card["key"]).status == "answered"
    finally:
        panel.close()
        await panel.service.aclose()


@pytest.mark.postgres
async def test_a_change_no_note_tells_of_is_read(pg_location: str, stores: list[Store]) -> None:
    inbox_store, elsewhere = two_stores(pg_location, stores)
    panel = ipyask.inbox(inbox_store)
    reads = counted(inbox_store, "pending_questions")
    try:
        elsewhere.append_event("s1", {"type": "turn/start", "turn": 1})  # a bare notification
        await until(lambda: reads)
        long = {"questions": [{"id": "q1", "question": "x" * 8000}]}  # too long for a note
        elsewhere.open_question("s1", "c1", long["questions"], request_id="r1")
        [card] = await until(lambda: pending(panel))
        assert card["key"] == "r1" and len(reads) >= 2
    finally:
        panel.close()
        await panel.service.aclose()


async def test_a_note_the_inbox_cannot_take_makes_it_read_the_store(
    location: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = open_store(location)
    store.open_question("s1", "c1", DEPLOY["questions"], request_id="r1")
    panel = ipyask.inbox(store)
    assert panel.inbox is not None
    try:
        [card] = await until(lambda: pending(panel))
        reads = counted(store, "pending_questions")
        odd = ChangeNote(session_id="s1", seq=0, event={"type": ASKED}, asker=Asker())
        panel.inbox._noted([odd])  # an ask's note without its question: not understood
        await until(lambda: reads)  # nothing was committed since: the note made it read
        assert "not understood" in caplog.text
        assert [c["key"] for c in pending(panel)] == [card["key"]]
    finally:
        panel.close()
        await panel.service.aclose()
        store.close()


async def test_a_claim_noted_before_its_ask_was_taken_in_settles_the_card(location: str) -> None:
    # The follower hands notes on as they come; the loop takes them in later. A claim's note
    # that comes while its question's ask note still waits there must not be dropped as the
    # note of a card the panel does not have.
    store = open_store(location)
    panel = ipyask.inbox(store)
    assert panel.inbox is not None
    try:
        asker = Asker(agent_id="worker", asked_at=1.0)
        asked = {"type": ASKED, "id": "r1", "callId": "c1", "questions": DEPLOY["questions"]}
        claimed = {"type": ANSWERED, "id": "r1", "outcome": "answered", "answer": NO}
        inbox = panel.inbox

        def follower() -> None:  # the follower's thread, while the loop is busy (joining it)
            inbox._noted([ChangeNote(session_id="s1", seq=0, event=asked, asker=asker)])
            inbox._noted([ChangeNote(session_id="s1", seq=1, event=claimed)])

        thread = threading.Thread(target=follower)
        thread.start()
        thread.join()
        card = await until(lambda: panel.cards and panel.cards[0])
        assert card["key"] == "r1"
        await until(lambda: panel.get_card("r1").status == "answered")

        # Notes of that question now change nothing, and do not wake the loop.
        taken = counted_args(panel.inbox, "_take_notes")
        panel.inbox._noted([ChangeNote(session_id="s1", seq=0, event=asked, asker=asker)])
        panel.inbox._noted([ChangeNote(session_id="s1", seq=1, event=claimed)])
        await asyncio.sleep(0.05)
        assert taken == []
        assert [c["status"] for c in panel.cards] == ["answered"]
    finally:
        panel.close()
        await panel.service.aclose()
        store.close()


@pytest.mark.postgres
async def test_a_change_no_note_tells_of_reads_only_its_sessions(
    pg_location: str, stores: list[Store]
) -> None:
    inbox_store, elsewhere = two_stores(pg_location, stores)
    questions = DEPLOY["questions"]
    elsewhere.open_question("s1", "c1", questions, request_id="r1")
    elsewhere.open_question("s2", "c1", questions, request_id="r2")
    panel = ipyask.inbox(inbox_store)
    try:
        await until(lambda: len(pending(panel)) == 2)
        reads = counted_args(inbox_store, "pending_questions")
        long = [{"id": "q1", "question": "x" * 8000}]  # too long for a note: a bare change
        elsewhere.open_question("s2", "c2", long, request_id="r3")
        await until(lambda: len(pending(panel)) == 3)
        assert reads == [("s2",)]  # s2's open questions, not every session's

        # Another event no note tells of (a turn's): its session is read, nothing changes.
        reads.clear()
        elsewhere.append_event("s1", {"type": "turn/start", "turn": 1})
        await until(lambda: reads)
        await asyncio.sleep(0.1)
        assert reads == [("s1",)]
        assert [card["key"] for card in pending(panel)] == ["r1", "r2", "r3"]

        # A question settled elsewhere, its note not taken (as if none told of it): the read
        # of its session finds it settled and its card is marked so.
        (subscription,) = follower_of(inbox_store)._subscriptions
        subscription.on_notes = None
        reads.clear()
        elsewhere.resolve_question("r1", Terminal.model_validate({"outcome": "cancelled"}))
        await until(lambda: panel.get_card("r1").status == "cancelled")
        assert reads == [("s1",)]
        assert [card["key"] for card in pending(panel)] == ["r2", "r3"]
    finally:
        panel.close()
        await panel.service.aclose()
