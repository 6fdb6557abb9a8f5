"""A panel on a store is its shared inbox: every open question of every asker, first answer wins.

In one process: the askers use their own store objects (their own connections), as another
process would; tests/inbox/test_inbox_kernel.py does it across real processes and a kernel.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest

import ipyask
from ipyask._notebook.panel._inbox_cards import ASKED_EARLIER, SETTLED_ELSEWHERE, process_ended
from ipyask.store import Store, open_store

from ._helpers import DEPLOY, NO, YES, View, until


@pytest.fixture
async def inbox(location: str) -> AsyncIterator[ipyask.QuestionPanel]:
    panel = ipyask.inbox(location)
    yield panel
    panel.close()
    await panel.service.aclose()
    assert panel.inbox is not None
    panel.inbox.store.close()


def pending(panel: ipyask.QuestionPanel) -> list[dict[str, Any]]:
    return [card for card in panel.cards if card["status"] == "pending"]


async def test_a_question_asked_through_connect_is_answered_on_the_inbox(
    inbox: ipyask.QuestionPanel, location: str
) -> None:
    view = View(inbox)
    async with ipyask.connect(location, agent="worker-3") as conn:
        asking = asyncio.ensure_future(conn.ask(DEPLOY, call_id="step-12"))
        [card] = await until(lambda: pending(inbox))
        assert card["callId"] == "step-12"
        assert card["source"]["agent"] == "worker-3"
        assert card["source"]["session"] == "worker-3"
        assert card["source"]["earlier"] is False
        assert "notice" not in card
        view.answer(card["key"], YES)
        assert (await asyncio.wait_for(asking, 10)).to_wire() == YES
        assert inbox.get_card(card["key"]).status == "answered"
        record = conn.store.question(card["key"])
        assert record is not None and record.terminal is not None
        assert record.terminal.answer == YES
        # a re-run asking the same call id gets the recorded answer at once
        assert (await conn.ask(DEPLOY, call_id="step-12")).to_wire() == YES
    assert view.errors == []
    # no call id; who answered, in which door
    assert inbox.records == ["**Answered** by ada in the inbox widget: Deploy? → **Yes**"]


async def test_questions_open_before_the_panel_are_shown_when_it_opens(location: str) -> None:
    async with ipyask.connect(location, agent="planner") as conn:
        asking = asyncio.ensure_future(conn.ask(DEPLOY, call_id="c1"))
        await until(conn.pending)
        asking.cancel()  # the agent stops waiting; its question stays open in the store
        await asyncio.gather(asking, return_exceptions=True)
    panel = ipyask.inbox(location)
    try:
        [card] = pending(panel)  # shown as the panel opens, before any change
        View(panel).answer(card["key"], NO)
        assert panel.get_card(card["key"]).status == "answered"
        async with ipyask.connect(location, agent="planner") as again:
            assert (await again.ask(DEPLOY, call_id="c1")).to_wire() == NO
    finally:
        panel.close()
        await panel.service.aclose()


async def test_a_local_durable_ask_has_one_card_answered_through_the_store(
    location: str,
) -> None:
    store = open_store(location)
    svc = ipyask.UserQuestions(store=store)
    panel = ipyask.QuestionPanel(svc)
    try:
        agent = svc.agents.enter(ipyask.Agent("planner", session=svc.open_session("planner")))
        agent.session.append(ipyask.host.TurnStartEvent(turn=1))
        asking = asyncio.ensure_future(svc.ask({**DEPLOY, "agent": agent, "callId": "c1"}))
        [card] = await until(lambda: pending(panel))
        await asyncio.sleep(0.3)  # the feed has seen the ask: still one card
        assert [c["key"] for c in panel.cards] == [card["key"]]
        View(panel).answer(card["key"], YES)
        assert (await asyncio.wait_for(asking, 5)).to_wire() == YES
        assert store.pending_questions() == []
    finally:
        panel.close()
        await svc.aclose()
        store.close()


async def test_a_closed_panel_hands_a_local_ask_down_the_waterfall(location: str) -> None:
    store = open_store(location)
    svc = ipyask.UserQuestions(store=store)
    below: list[str] = []

    async def answerer(request: ipyask.protocol.AskUserQuestionRequest, next: Any) -> Any:
        below.append(request.request_id or "")
        return ipyask.protocol.AskUserQuestionAnswer.model_validate(NO)

    panel = ipyask.QuestionPanel(svc)  # registered first: asked first
    svc.on_request(answerer)
    try:
        agent = svc.agents.enter(ipyask.Agent("a", session=svc.open_session("a")))
        agent.session.append(ipyask.host.TurnStartEvent(turn=1))
        asking = asyncio.ensure_future(svc.ask({**DEPLOY, "agent": agent, "callId": "c1"}))
        await until(lambda: pending(panel))
        assert below == []
        panel.close()
        assert (await asyncio.wait_for(asking, 5)).to_wire() == NO
        assert len(below) == 1
    finally:
        panel.close()
        await svc.aclose()
        store.close()


async def test_first_answer_wins_between_the_panel_and_connect_answer(
    inbox: ipyask.QuestionPanel, location: str
) -> None:
    view = View(inbox)
    async with ipyask.connect(location, agent="w") as conn:
        first = asyncio.ensure_future(conn.ask(DEPLOY, call_id="c1"))
        second = asyncio.ensure_future(conn.ask(DEPLOY, call_id="c2"))
        cards = await until(lambda: len(pending(inbox)) == 2 and pending(inbox))
        key = {c["callId"]: c["key"] for c in cards}
        # c1: another process answers first; the panel's answer comes after, before its feed ran
        assert conn.answer(key["c1"], NO).status == "accepted"
        view.answer(key["c1"], YES)
        assert [e["code"] for e in view.errors] == ["ALREADY_ANSWERED"]
        card = inbox.get_card(key["c1"])
        assert (card.status, card.notice) == ("answered", SETTLED_ELSEWHERE)
        assert card.answer is not None and card.answer.to_wire() == NO
        assert (await asyncio.wait_for(first, 5)).to_wire() == NO
        # c2: the panel answers first; the other process's answer is refused
        view.answer(key["c2"], YES)
        result = conn.answer(key["c2"], NO)
        assert (result.status, result.answer) == ("already-resolved", YES)
        assert (await asyncio.wait_for(second, 5)).to_wire() == YES
        # a second view's late answer on a settled inbox card: already answered
        View(inbox, "view-2").answer(key["c2"], NO)
        assert [e["code"] for e in view.errors][-1] == "ALREADY_ANSWERED"


async def test_a_question_settled_elsewhere_settles_the_card(
    inbox: ipyask.QuestionPanel, location: str
) -> None:
    async with ipyask.connect(location, agent="w") as conn:
        asking = asyncio.ensure_future(conn.ask(DEPLOY, call_id="c1"))
        [card] = await until(lambda: pending(inbox))
        assert conn.cancel(card["key"]).status == "accepted"
        settled = await until(
            lambda: inbox.get_card(card["key"]).status != "pending" and inbox.get_card(card["key"])
        )
        assert settled.status == "cancelled"
        with pytest.raises(ipyask.UserQuestionError) as raised:
            await asyncio.wait_for(asking, 5)
        assert raised.value.code == "ASK_CANCELLED"


async def test_the_inbox_shows_every_asker_and_a_scoped_panel_its_agent_only(
    location: str,
) -> None:
    store = open_store(location)
    svc = ipyask.UserQuestions(store=store)
    mine = svc.agents.enter(ipyask.Agent("mine", session=svc.open_session("mine")))
    everything = ipyask.QuestionPanel(svc)
    scoped = ipyask.QuestionPanel(svc, agent=mine)
    try:
        async with (
            ipyask.connect(location, agent="mine") as a,
            ipyask.connect(location, agent="other") as b,
        ):
            asks = [
                asyncio.ensure_future(a.ask(DEPLOY, call_id="a1")),
                asyncio.ensure_future(b.ask(DEPLOY, call_id="b1")),
            ]
            cards = await until(lambda: len(pending(everything)) == 2 and pending(everything))
            assert sorted(c["source"]["agent"] for c in cards) == ["mine", "other"]
            [card] = await until(lambda: pending(scoped))
            assert card["source"]["agent"] == "mine"
            for ask in asks:
                ask.cancel()
            await asyncio.gather(*asks, return_exceptions=True)
    finally:
        everything.close()
        scoped.close()
        await svc.aclose()
        store.close()


async def test_an_idle_inbox_reads_the_store_only_when_it_changes(
    inbox: ipyask.QuestionPanel, location: str
) -> None:
    assert inbox.inbox is not None
    store = inbox.inbox.store
    reads: list[int] = []
    read = store.pending_questions
    store.pending_questions = lambda *a: reads.append(1) or read(*a)  # type: ignore[method-assign]
    await asyncio.sleep(1.0)
    assert reads == []
    other = open_store(location)
    try:
        other.open_question("s", "c", DEPLOY["questions"], request_id="r1", agent_id="x")
        await until(lambda: pending(inbox))
        assert 1 <= len(reads) <= 2
    finally:
        other.close()


def test_process_ended_tells_a_finished_process_of_this_machine() -> None:
    import os
    import socket

    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    host = socket.gethostname()
    assert process_ended(f"{host}:{done.stdout.strip()}")
    assert not process_ended(f"{host}:{os.getpid()}")
    assert not process_ended(f"{host}:1")  # running (init), maybe not ours
    assert not process_ended(f"another-host:{done.stdout.strip()}")
    assert not process_ended(None)
    assert "{process}" in ASKED_EARLIER


def test_an_earlier_question_is_marked_on_its_card(location: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    store: Store = open_store(location)
    try:
        store.open_question("s", "c", DEPLOY["questions"], request_id="r1", agent_id="x")
        import socket
        import sqlite3

        origin = f"{socket.gethostname()}:{done.stdout.strip()}"
        with sqlite3.connect(location) as db:
            db.execute("UPDATE ipyask_questions SET origin = ?", (origin,))
        panel = ipyask.inbox(store)
        try:
            [card] = panel.cards
            assert card["source"]["earlier"] is True
            assert card["notice"] == ASKED_EARLIER.format(process=origin)
        finally:
            panel.close()
    finally:
        store.close()


async def test_an_answer_given_elsewhere_is_recorded_with_who_and_the_door(
    inbox: ipyask.QuestionPanel, location: str
) -> None:
    async with ipyask.connect(location, agent="w") as conn:
        asking = asyncio.ensure_future(conn.ask(DEPLOY, call_id="c1"))
        [card] = await until(lambda: pending(inbox))
        page = ipyask.UserQuestions(store=conn.store)  # the inbox page's claim
        assert page.respond(None, card["key"], YES, who="grace", door="inbox-page").status == (
            "accepted"
        )
        await asyncio.wait_for(asking, 5)
        await until(lambda: inbox.get_card(card["key"]).status == "answered")
    assert inbox.records == ["**Answered** by grace in the inbox page: Deploy? → **Yes**"]


async def test_an_assigned_question_is_refused_to_anyone_else_on_the_inbox_card(
    inbox: ipyask.QuestionPanel, location: str
) -> None:
    view = View(inbox)
    async with ipyask.connect(location, agent="w") as conn:
        asking = asyncio.ensure_future(conn.ask(DEPLOY, call_id="c1", assignee="bob"))
        [card] = await until(lambda: pending(inbox))
        assert inbox.answerer == "ada"  # the inbox offers "Only mine" for ada
        view.answer(card["key"], YES)  # this kernel's user is ada
        [error] = await until(lambda: view.errors)
        assert error["code"] == "NOT_ASSIGNEE"
        assert "assigned to bob" in error["message"] and "not ada" in error["message"]
        assert inbox.get_card(card["key"]).status == "pending"
        assert [r.id for r in conn.pending()] == [card["key"]]  # still open
        assert conn.answer(card["key"], YES, who="bob").status == "accepted"
        assert (await asyncio.wait_for(asking, 5)).to_wire() == YES


async def test_answering_a_card_claims_its_record_with_one_write_and_no_read(
    inbox: ipyask.QuestionPanel, location: str
) -> None:
    assert inbox.inbox is not None
    store = inbox.inbox.store
    calls: list[str] = []
    read, claim = store.question, store.resolve_question
    store.question = lambda *a: calls.append("read") or read(*a)  # type: ignore[method-assign]
    store.resolve_question = lambda *a: calls.append("claim") or claim(*a)  # type: ignore[method-assign]
    view = View(inbox)
    async with ipyask.connect(location, agent="worker-3") as conn:
        asking = asyncio.ensure_future(conn.ask(DEPLOY, call_id="step-1"))
        [card] = await until(lambda: pending(inbox))
        calls.clear()
        view.answer(card["key"], YES)
        assert calls == ["claim"]  # the card's record, as the store gave it: not read again
        assert (await asyncio.wait_for(asking, 10)).to_wire() == YES
    assert inbox.get_card(card["key"]).status == "answered"
    assert view.errors == []


async def test_an_inbox_whose_store_closes_says_so_on_its_cards_and_takes_no_answer(
    location: str,
) -> None:
    inbox_store, elsewhere = open_store(location), open_store(location)
    panel = ipyask.inbox(inbox_store)
    view = View(panel)
    try:
        elsewhere.open_question("s1", "c1", DEPLOY["questions"], request_id="r1")
        await until(lambda: "r1" in panel.store)
        inbox_store.close()
        card = await until(lambda: (c := panel.get_card("r1")).notice_code == "store-closed" and c)
        assert card.status == "pending"
        assert card.notice_params == {"location": inbox_store.location}
        assert card.notice is not None and "was closed" in card.notice

        view.answer("r1", YES)
        [error] = view.errors
        assert error["code"] == "NOT_ANSWERABLE"
        assert f"the store {inbox_store.location} was closed" in error["message"]
        # The question stays open in the store, for an inbox on it opened again.
        assert [record.id for record in elsewhere.pending_questions()] == ["r1"]
    finally:
        panel.close()
        await panel.service.aclose()
        elsewhere.close()
