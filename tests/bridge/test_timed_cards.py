from __future__ import annotations

import asyncio
import json

import pytest

import ipyask
from ipyask import PendingAnswer
from ipyask._answered_by import card_digest
from ipyask._notebook.panel._continued_cards import NOT_TRACKED
from ipyask._notebook.panel._transcript import escape_markdown

from ._helpers import drain, only_key

DB = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}


async def timed(svc, agent, timeout_ms=5000, call_id="c1") -> asyncio.Future:
    task = asyncio.ensure_future(
        svc.ask_timed({"questions": [DB], "agent": agent}, call_id, timeout_ms)
    )
    await drain()
    return task


async def keep_alive(view, clock, key: str, beats: int) -> None:
    """The view sends a heartbeat every 500 ms, ``beats`` times."""
    for _ in range(beats):
        clock.advance(500)
        view.send("heartbeat", keys=[key])
        await drain()


async def test_a_claim_sends_the_remaining_time_and_pauses_the_host(
    svc, agent, panel, view, clock
) -> None:
    task = await timed(svc, agent)
    key = only_key(panel)
    assert key == "main:c1"
    assert panel.get_card(key).wait == "timed"
    clock.advance(1500)
    view.send("claim", key=key)
    await drain()
    (frame,) = view.frames
    assert frame["key"] == key and frame["remainingMs"] == 3500
    assert panel.get_card(key).frame.remaining_ms == 3500  # type: ignore[union-attr]
    assert clock.pending == [2500]  # only the heartbeat watchdog: the host timer is off
    view.answer(key, ("db", ["SQLite"]))
    assert (await task).answers[0].selected == ["SQLite"]
    assert panel.claims.held(key) == []


async def test_a_timed_card_carries_its_whole_window(svc, agent, panel, view, clock) -> None:
    """The countdown bar's full length travels with the card: a view that opens late (here
    after 1.5 s of 5 s) gets 3.5 s left out of 5 s, and its bar starts partly drained."""
    task = await timed(svc, agent, timeout_ms=5000)
    key = only_key(panel)
    assert panel.get_card(key).timeout_ms == 5000
    clock.advance(1500)
    view.send("claim", key=key)
    await drain()
    card = panel.cards[0]
    assert (card["timeoutMs"], card["frame"]["remainingMs"]) == (5000, 3500)
    view.answer(key, ("db", ["SQLite"]))
    await task


async def test_an_untimed_card_has_no_window(svc, agent, panel) -> None:
    task = asyncio.ensure_future(
        svc.ask({"questions": [DB], "agent": agent, "wait": {"callId": "c2"}})
    )
    await drain()
    assert "timeoutMs" not in panel.cards[0]
    assert panel.get_card(only_key(panel)).timeout_ms is None
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_the_views_countdown_reaching_zero_gives_pending(svc, agent, panel, view) -> None:
    task = await timed(svc, agent)
    key = only_key(panel)
    view.send("claim", key=key)
    await drain()
    view.send("timed_out", key=key)
    assert await task == PendingAnswer(call_id="c1")
    await drain()
    card = panel.get_card(key)
    assert card.status == "expired"  # asked outside the tool: no session tracks the call
    assert card.notice == NOT_TRACKED
    # Nobody answered: the card says what happened, not that an answer went undelivered.
    assert card.notice == "The agent went on without an answer and cannot take a late one."
    assert "session" not in card.notice
    assert panel.records == [f"**Expired**: Which database? — {escape_markdown(NOT_TRACKED)}"]


async def test_with_no_view_the_host_deadline_decides(svc, agent, panel, clock) -> None:
    task = await timed(svc, agent, timeout_ms=2000)
    clock.advance(2000)
    assert await task == PendingAnswer(call_id="c1")
    await drain()
    assert panel.get_cards()[0].status == "expired"


async def test_a_silent_view_loses_its_claim_after_the_heartbeat_timeout(
    svc, agent, panel, view, clock
) -> None:
    task = await timed(svc, agent, timeout_ms=5000)
    key = only_key(panel)
    view.send("claim", key=key)
    await drain()
    await keep_alive(view, clock, key, 8)  # alive for 4 s, past nothing yet
    assert panel.claims.held(key) == ["view-1"]
    clock.advance(999)  # t = 4999: silent since t = 4000, within the 1000 ms timeout
    await drain()
    assert panel.claims.held(key) == ["view-1"]
    assert not task.done()
    clock.advance(1)  # t = 5000: the claim is dropped, and the original deadline has come
    assert await task == PendingAnswer(call_id="c1")
    assert panel.claims.held(key) == []


async def test_a_claim_held_past_the_deadline_restores_it_when_heartbeats_stop(
    svc, agent, panel, view, clock
) -> None:
    task = await timed(svc, agent, timeout_ms=2000)
    key = only_key(panel)
    view.send("claim", key=key)
    await drain()
    await keep_alive(view, clock, key, 10)  # the claim holds to t = 5000, past the deadline
    assert not task.done()
    clock.advance(1000)  # silent for the heartbeat timeout: the claim goes, the deadline fires
    await drain()
    clock.advance(0)
    assert await task == PendingAnswer(call_id="c1")


async def test_an_explicit_release_restores_the_deadline_at_once(
    svc, agent, panel, view, clock
) -> None:
    task = await timed(svc, agent, timeout_ms=2000)
    key = only_key(panel)
    view.send("claim", key=key)
    await drain()
    await keep_alive(view, clock, key, 6)  # alive to t = 3000, past the deadline
    assert not task.done()
    view.send("release", key=key)
    await drain()
    clock.advance(0)
    assert await task == PendingAnswer(call_id="c1")


async def test_claims_and_timeouts_on_untimed_cards_are_refused(svc, panel, view) -> None:
    task = asyncio.ensure_future(svc.ask({"questions": [DB]}))
    await drain()
    key = only_key(panel)
    view.send("claim", key=key)
    view.send("timed_out", key=key)
    assert [e["code"] for e in view.errors] == ["NOT_TIMED", "NOT_TIMED"]
    assert not task.done()
    task.cancel()


async def test_a_continued_card_is_answered_as_a_late_reply(svc, agent, panel, view, clock) -> None:
    tool = ipyask.AskUserQuestionTool(svc, mode="timed", timeout=2)
    call = asyncio.ensure_future(tool.execute({"questions": [DB]}, call_id="call_9", agent=agent))
    await drain()
    key = only_key(panel)
    clock.advance(2000)
    result = await call
    assert json.loads(result.content)["pending"] is True
    await drain()
    card = panel.get_card(key)
    assert card.status == "continued"
    assert card.frame is None
    view.answer(key, ("db", ["Postgres"], "x"))  # forged: single-select with free text
    assert view.errors[-1]["code"] == "BAD_ANSWER"
    view.answer(key, ("db", ["Postgres"]))
    await drain()
    assert panel.get_card(key).status == "continued"
    # No reader declared, and the task that asked has ended: the card claims no next step.
    assert panel.get_card(key).notice_code == "reply-unread"
    assert panel.get_card(key).notice == (
        "Answer sent to the agent's inbox, but the task that asked has ended: nobody reads it "
        "unless the agent's code reads its inbox again (agent.session.next_step)."
    )
    (message,) = agent.session.next_step
    view.answer(key, ("db", ["SQLite"]))
    assert view.errors[-1]["code"] == "REPLY_QUEUED"
    agent.session.admit(message)
    await drain()
    card = panel.get_card(key)
    assert card.status == "answered"
    assert card.answer is not None and card.answer.answers[0].selected == ["Postgres"]
    # marked late, and no internal id (the call id) in what a person reads
    assert (
        panel.records[-1] == "**Answered late** by ada in the panel: Which database? → **Postgres**"
    )
    assert card.late is True  # the card says "Answered late" as the record does
    # the reply in the session log says who gave it, where, having seen which card
    by = message.source.answered_by if message.source is not None else None
    assert by is not None and (by.who, by.door) == ("ada", "panel")
    assert by.digest == card_digest([DB])
    assert next(c for c in panel.cards if c["key"] == key)["late"] is True
    view.answer(key, ("db", ["SQLite"]))
    assert view.errors[-1]["code"] == "NOT_PENDING"


async def test_an_undeclared_loop_that_still_runs_reads_the_answer_at_its_next_step(
    svc, agent, panel, view, clock
) -> None:
    tool = ipyask.AskUserQuestionTool(svc, mode="timed", timeout=1)
    next_step = asyncio.Event()

    async def loop() -> None:  # asks, then goes on working until its next step
        await tool.execute({"questions": [DB]}, call_id="call_l", agent=agent)
        await next_step.wait()
        agent.session.admit()

    running = asyncio.ensure_future(loop())
    await drain()
    clock.advance(1000)
    await drain()
    key = only_key(panel)
    assert panel.get_card(key).status == "continued"
    view.answer(key, ("db", ["SQLite"]))
    await drain()
    assert panel.get_card(key).notice == "Answer sent: the agent reads it at its next step."
    next_step.set()
    await running
    await drain()
    assert panel.get_card(key).status == "answered"


async def continued_card(svc, agent, panel, clock, call_id: str) -> str:
    """A timed tool call that timed out: its card is continued; returns the card's key."""
    tool = ipyask.AskUserQuestionTool(svc, mode="timed", timeout=1)
    call = asyncio.ensure_future(tool.execute({"questions": [DB]}, call_id=call_id, agent=agent))
    await drain()
    clock.advance(1000)
    await call
    await drain()
    key = only_key(panel)
    assert panel.get_card(key).status == "continued"
    return key


async def test_a_late_answer_after_the_loop_ended_says_it_is_kept(
    svc, agent, panel, view, clock
) -> None:
    with svc.reading(agent):  # the agent loop that asked
        key = await continued_card(svc, agent, panel, clock, "call_k")
    view.answer(key, ("db", ["Postgres"]))
    await drain()
    card = panel.get_card(key)
    assert card.status == "answered"  # settled: the answer is in the session log
    assert card.notice_code == "reply-kept"
    assert card.notice is not None and card.notice.startswith(
        "Answer saved. The agent that asked has finished, so it will not read this answer"
    )
    assert "reads it at its next step" not in card.notice
    assert agent.session.next_step == ()
    assert svc.projection(agent).to_wire()["settled"] == [
        {"callId": "call_k", "answers": [{"id": "db", "selected": ["Postgres"]}]}
    ]
    assert panel.records[-1] == (
        "**Answered late, after the agent that asked had finished \\(kept\\)** by ada in the "
        "panel: Which database? → **Postgres**"
    )


async def test_an_answer_the_loop_never_read_is_kept_when_the_loop_ends(
    svc, agent, panel, view, clock
) -> None:
    loop = svc.reading(agent)
    key = await continued_card(svc, agent, panel, clock, "call_u")
    view.answer(key, ("db", ["SQLite"]))
    await drain()
    assert panel.get_card(key).notice_code == "reply-queued"  # the loop still runs
    loop.close()  # ... and ends without reading it
    await drain()
    card = panel.get_card(key)
    assert (card.status, card.notice_code) == ("answered", "reply-kept")
    assert svc.projection(agent).settled[0].answers[0].selected == ["SQLite"]


async def test_a_late_answer_for_a_re_asking_caller_says_it_waits_for_the_call(
    svc, agent, panel, view, clock
) -> None:
    with svc.reading(agent, "re-ask"):
        key = await continued_card(svc, agent, panel, clock, "call_r")
        view.answer(key, ("db", ["SQLite"]))
        await drain()
        card = panel.get_card(key)
        assert (card.status, card.notice_code) == ("continued", "reply-awaits-reask")
        assert card.notice == (
            "Answer saved. The MCP client gets it when it calls ask_user_question again with "
            "callId call_r; until then it waits here."
        )
        assert (await svc.collect_reply(agent, "call_r", 1000)) is not None
        await drain()
        card = panel.get_card(key)
        assert (card.status, card.notice_code) == ("answered", None)  # the caller has it
        assert panel.records[-1] == (
            "**Answered late** by ada in the panel: Which database? → **SQLite**"
        )


async def test_a_discarded_late_reply_reopens_the_card(svc, agent, panel, view, clock) -> None:
    tool = ipyask.AskUserQuestionTool(svc, mode="timed", timeout=1)
    call = asyncio.ensure_future(tool.execute({"questions": [DB]}, call_id="c2", agent=agent))
    await drain()
    clock.advance(1000)
    await call
    await drain()
    key = only_key(panel)
    view.answer(key, ("db", ["SQLite"]))
    (message,) = agent.session.next_step
    agent.session.discard(message)
    await drain()
    assert panel.get_card(key).notice is None
    view.answer(key, ("db", ["Postgres"]))
    assert len(agent.session.next_step) == 1


@pytest.mark.parametrize("outcome", ["answered in window", "dropped"])
async def test_a_continued_card_follows_the_projection(
    svc, agent, panel, view, clock, outcome
) -> None:
    # A card continues when the call is tracked; if the log then drops the call, it expires.
    tool = ipyask.AskUserQuestionTool(svc, mode="timed", timeout=1)
    call = asyncio.ensure_future(tool.execute({"questions": [DB]}, call_id="c3", agent=agent))
    await drain()
    clock.advance(1000)
    await call
    await drain()
    key = only_key(panel)
    assert panel.get_card(key).status == "continued"
    agent.session.append(
        {
            "type": "tool/call",
            "callId": "c3",
            "name": "ask_user_question",
            "arguments": json.dumps({"questions": [DB]}),
        }
    )
    content = (
        '{"answers":[{"id":"db","selected":["SQLite"]}]}' if outcome != "dropped" else "Error: x"
    )
    agent.session.append(
        {"type": "tool/result", "callId": "c3", "content": content, "isError": outcome == "dropped"}
    )
    await drain()
    assert panel.get_card(key).status == ("expired" if outcome == "dropped" else "answered")


async def test_a_hold_from_one_view_holds_the_question_for_every_view(
    svc, agent, panel, sent, clock
) -> None:
    from ._helpers import FakeView

    one, two = FakeView(panel, sent, "view-1"), FakeView(panel, sent, "view-2")
    task = await timed(svc, agent)
    key = only_key(panel)
    one.send("claim", key=key)
    two.send("claim", key=key)
    await drain()
    assert panel.get_card(key).held is None
    one.send("hold", key=key)  # Take time in the first view
    await drain()
    assert panel.get_card(key).held is True  # synced: every view shows it held
    assert panel.get_card(key).to_wire()["held"] is True
    two.send("timed_out", key=key)  # the second view's countdown ran out before it knew
    await drain()
    assert two.errors[-1]["code"] == "HELD"
    assert not task.done()
    one.answer(key, ("db", ["SQLite"]))
    assert (await task).answers[0].selected == ["SQLite"]


async def test_a_hold_is_only_for_a_pending_timed_question(svc, panel, view) -> None:
    task = asyncio.ensure_future(svc.ask({"questions": [DB]}))
    await drain()
    key = only_key(panel)
    view.send("hold", key=key)
    await drain()
    assert view.errors[-1]["code"] == "NOT_TIMED"
    view.send("hold", key="nope")
    await drain()
    assert view.errors[-1]["code"] == "UNKNOWN_CARD"
    view.answer(key, ("db", ["SQLite"]))
    await task
