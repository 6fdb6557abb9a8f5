"""``on_timeout``: what an unanswered timed question becomes when its window runs out (with the
injected clock)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import ipyask
from ipyask import PendingAnswer
from ipyask._decisions import tool_answer_item
from ipyask._rich_questions import form_question, tool_approval_question
from ipyask._timeout_decisions import TIMEOUT_REASON
from ipyask.protocol import AskUserQuestionAnswer
from ipyask.testing import drain_loop

WRITE = tool_approval_question(
    "write_file", {"path": "notes/a.md"}, decisions=["approve", "edit", "reject"]
)
DB = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}


def request(agent: ipyask.Agent, *questions: Any) -> dict[str, Any]:
    return {"questions": list(questions) or [WRITE.to_wire()], "agent": agent}


async def timed_out(svc, clock, agent, on_timeout: str, *questions: Any, timeout_ms: int = 1000):
    """Ask with nobody to answer (a waiting answerer), let the window run out; the result."""

    async def nobody(req, next):  # holds the question as a card would
        await asyncio.Event().wait()

    svc.on_request(nobody)
    task = asyncio.ensure_future(
        svc.ask_timed(request(agent, *questions), "c1", timeout_ms, on_timeout=on_timeout)
    )
    await drain_loop()
    assert not task.done()
    clock.advance(timeout_ms - 1)
    await drain_loop()
    assert not task.done()  # nothing is decided before the window runs out
    clock.advance(1)
    await drain_loop()
    return await task


async def test_pending_is_the_default_and_the_seams_behaviour(svc, clock, agent) -> None:
    assert await timed_out(svc, clock, agent, "pending") == PendingAnswer(call_id="c1")
    assert svc.timeout_decision(agent, "c1") is None


async def test_reject_answers_a_tool_approval_with_its_reject_and_says_why(
    svc, clock, agent
) -> None:
    result = await timed_out(svc, clock, agent, "reject")
    assert isinstance(result, AskUserQuestionAnswer)
    decision = ipyask.host.tool_decision(WRITE, result.answers[0])
    assert decision.kind == "reject"
    assert decision.message == TIMEOUT_REASON
    assert "timeout" in TIMEOUT_REASON
    assert svc.timeout_decision(agent, "c1") == result


async def test_a_decisions_label_is_that_decision(svc, clock, agent) -> None:
    result = await timed_out(svc, clock, agent, "Approve")
    assert isinstance(result, AskUserQuestionAnswer)
    assert ipyask.host.tool_decision(WRITE, result.answers[0]).kind == "approve"


async def test_an_option_label_answers_a_plain_question(svc, clock, agent) -> None:
    result = await timed_out(svc, clock, agent, "SQLite", DB)
    assert isinstance(result, AskUserQuestionAnswer)
    assert result.answers[0].model_dump(exclude_none=True) == {"id": "db", "selected": ["SQLite"]}


async def test_reject_declines_a_form(svc, clock, agent) -> None:
    form = form_question("Your name?", {"type": "object", "properties": {"n": {"type": "string"}}})
    result = await timed_out(svc, clock, agent, "reject", form.to_wire())
    assert isinstance(result, AskUserQuestionAnswer)
    assert ipyask.host.form_result(form, result.answers[0]).action == "decline"


async def test_an_answer_in_time_is_the_persons(svc, clock, agent) -> None:
    async def person(req, next):
        return {"answers": [tool_answer_item(WRITE, "approve").to_wire()]}

    svc.on_request(person)
    result = await svc.ask_timed(request(agent), "c1", 1000, on_timeout="reject")
    assert isinstance(result, AskUserQuestionAnswer)
    assert ipyask.host.tool_decision(WRITE, result.answers[0]).kind == "approve"


async def test_with_no_answerer_the_timeout_still_decides(svc, clock, agent) -> None:
    """An unattended run: nothing answers at all, and the call still ends when declared."""
    task = asyncio.ensure_future(svc.ask_timed(request(agent), "c1", 500, on_timeout="reject"))
    await drain_loop()
    clock.advance(500)
    await drain_loop()
    result = await task
    assert isinstance(result, AskUserQuestionAnswer)
    assert ipyask.host.tool_decision(WRITE, result.answers[0]).kind == "reject"


@pytest.mark.parametrize(
    ("on_timeout", "named"),
    [
        ("maybe", "'pending', 'reject', 'Approve', 'Reject'"),
        ("Edit", "'pending', 'reject', 'Approve', 'Reject'"),  # edit needs arguments
        (None, "'pending', 'reject', 'Approve', 'Reject'"),
    ],
)
async def test_a_bad_value_is_refused_before_anything_is_asked(
    svc, agent, on_timeout: Any, named: str
) -> None:
    asked: list[object] = []
    svc.on_request(lambda req, next: asked.append(req))
    with pytest.raises(ValueError, match="on_timeout must be one of") as refused:
        await svc.ask_timed(request(agent), "c1", 1000, on_timeout=on_timeout)
    assert named in str(refused.value)
    assert asked == []


async def test_reject_is_refused_for_a_plain_question_naming_its_options(svc, agent) -> None:
    with pytest.raises(ValueError, match="on_timeout must be one of") as refused:
        await svc.ask_timed(request(agent, DB), "c1", 1000, on_timeout="reject")
    assert "'pending', 'Postgres', 'SQLite'" in str(refused.value)
