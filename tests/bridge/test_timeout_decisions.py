"""A card whose timed question the timeout decided (``on_timeout``): it says so, the transcript
records it, and a late answer is recorded as late (with the injected clock)."""

from __future__ import annotations

import asyncio
import logging

from ipyask._answered_by import card_digest
from ipyask._decisions import tool_decision
from ipyask._rich_questions import tool_approval_question
from ipyask.protocol import AskUserQuestionAnswer

from ._helpers import drain, only_key

WRITE = tool_approval_question("write_file", {"path": "notes/a.md"})


async def timed(svc, agent, on_timeout: str, timeout_ms: int = 2000) -> asyncio.Future:
    task = asyncio.ensure_future(
        svc.ask_timed(
            {"questions": [WRITE.to_wire()], "agent": agent},
            "c1",
            timeout_ms,
            on_timeout=on_timeout,
        )
    )
    await drain()
    return task


async def test_the_host_deadline_decides_and_the_card_says_so(svc, agent, panel, clock) -> None:
    task = await timed(svc, agent, "reject")
    key = only_key(panel)
    clock.advance(2000)
    result = await task
    assert isinstance(result, AskUserQuestionAnswer)
    assert tool_decision(WRITE, result.answers[0]).kind == "reject"
    await drain()
    card = panel.get_card(key)
    assert card.status == "continued"  # still answerable
    assert card.notice_code == "decided-by-timeout"
    assert card.notice_params == {"decision": "Reject"}
    assert "the timeout decided “Reject”" in (card.notice or "")
    (record,) = panel.records
    assert record.startswith("**Decided by the timeout \\(no answer in time\\)**")
    assert "→ **Reject**" in record


async def test_a_late_answer_is_recorded_as_late(svc, agent, panel, view, clock) -> None:
    task = await timed(svc, agent, "reject")
    key = only_key(panel)
    clock.advance(2000)
    await task
    await drain()
    view.answer(key, ("tool", ["Approve"]))
    await drain()
    assert view.errors == []
    card = panel.get_card(key)
    assert (card.status, card.late) == ("answered", True)
    assert card.notice_code == "answered-after-timeout"
    assert card.answer is not None and card.answer.answers[0].selected == ["Approve"]
    assert panel.records[-1].startswith("**Answered late, after the timeout had decided")
    assert "→ **Approve**" in panel.records[-1]
    # The agent had its answer already; the late one changes nothing it got.
    assert tool_decision(WRITE, (await task).answers[0]).kind == "reject"


async def test_a_late_answer_records_who_gave_it_and_is_reported_late(
    svc, agent, panel, view, clock, monkeypatch, caplog
) -> None:
    monkeypatch.setenv("IPYASK_USER", "ada")
    task = await timed(svc, agent, "reject")
    key = only_key(panel)
    clock.advance(2000)
    await task
    await drain()
    assert svc.late_answer(agent, "c1") is None
    with caplog.at_level(logging.INFO, logger="ipyask"):
        view.answer(key, ("tool", ["Approve"]))
        await drain()
    late = svc.late_answer(agent, "c1")
    assert late is not None
    assert late.answer.answers[0].selected == ["Approve"]
    assert tool_decision(WRITE, late.decided.answers[0]).kind == "reject"
    assert late.answered_by is not None
    assert (late.answered_by.who, late.answered_by.door) == ("ada", "panel")
    assert late.answered_by.digest == card_digest([WRITE.to_wire()])  # the card ada saw
    record = panel.records[-1]
    assert record.startswith("**Answered late, after the timeout had decided")
    assert " by ada in the panel" in record
    assert any(
        "late answer to c1 by ada through the panel door" in message
        and "not sent to the agent" in message
        for message in caplog.messages
    )


async def test_a_late_answer_is_recorded_under_the_name_the_panel_shows(
    svc, agent, panel, view, clock, monkeypatch
) -> None:
    assert panel.answerer == "ada"  # read when the panel was made
    monkeypatch.setenv("IPYASK_USER", "bob")
    task = await timed(svc, agent, "reject")
    key = only_key(panel)
    clock.advance(2000)
    await task
    await drain()
    view.answer(key, ("tool", ["Approve"]))
    await drain()
    late = svc.late_answer(agent, "c1")
    assert late is not None and late.answered_by is not None
    assert late.answered_by.who == "ada"
    assert " by ada in the panel" in panel.records[-1]


async def test_no_late_answer_is_recorded_for_a_call_the_timeout_did_not_decide(svc, agent) -> None:
    assert svc.record_late_answer(agent, "c9", AskUserQuestionAnswer(answers=[])) is None
    assert svc.late_answer(agent, "c9") is None


async def test_the_views_countdown_ending_is_the_same_timeout(svc, agent, panel, view) -> None:
    task = await timed(svc, agent, "Approve")
    key = only_key(panel)
    view.send("claim", key=key)
    await drain()
    view.send("timed_out", key=key)
    result = await task
    assert tool_decision(WRITE, result.answers[0]).kind == "approve"
    await drain()
    card = panel.get_card(key)
    assert (card.status, card.notice_params) == ("continued", {"decision": "Approve"})


async def test_pending_still_expires_an_untracked_card(svc, agent, panel, clock) -> None:
    task = await timed(svc, agent, "pending")
    clock.advance(2000)
    await task
    await drain()
    assert panel.get_cards()[0].status == "expired"
