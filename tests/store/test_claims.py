"""Claims on a store's durable questions are checked as ``answer()`` checks a late reply.

A batch the asking agent could not use (an unknown question, a label never offered, values
outside a form's schema...) is refused with ``BAD_ANSWER`` — the same error, field errors
included, that ``UserQuestions.answer`` raises for it — and the record stays open: the question
is still answerable correctly afterwards, by any process.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

import ipyask
from ipyask import UserQuestionError
from ipyask.errors import BadAnswerError
from ipyask.store import Store
from ipyask.testing import drain_loop

TIMED_TOOL = ipyask.host.ask_user_question_definition("timed").to_wire()

GENERIC = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "SQLite"}, {"label": "Postgres"}],
}
APPROVAL = {
    "id": "ok",
    "question": "Delete 3 files?",
    "detail": "rm build/*",
    "options": [{"label": "Reject"}, {"label": "Allow once"}],
    "intent": {"kind": "approval", "approve": "Allow once", "reject": "Reject"},
}
PLAN = {
    "id": "plan",
    "question": "Run this plan?",
    "detail": "1. Build\n2. Ship",
    "options": [{"label": "Approve"}, {"label": "Revise"}],
    "intent": {"kind": "plan-review", "approve": "Approve"},
}
TOOL = {
    "id": "tool",
    "question": "Run write_file?",
    "options": [{"label": "Approve"}, {"label": "Edit"}, {"label": "Reject"}],
    "intent": {
        "kind": "tool-approval",
        "tool": {
            "name": "write_file",
            "arguments": {"path": "a.txt"},
            "inputSchema": {
                "type": "object",
                "properties": {"path": {"type": "string", "minLength": 1}},
                "required": ["path"],
            },
        },
        "approve": "Approve",
        "edit": "Edit",
        "reject": "Reject",
    },
}
FORM = {
    "id": "form",
    "question": "Your details?",
    "options": [{"label": "Submit"}, {"label": "Decline"}],
    "intent": {
        "kind": "form",
        "requestedSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
            "required": ["name"],
        },
        "accept": "Submit",
        "decline": "Decline",
    },
}


def item(qid: str, selected: list[str], custom: str | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {"id": qid, "selected": selected}
    if custom is not None:
        found["custom"] = custom
    return found


def batch(*items: dict[str, Any]) -> dict[str, Any]:
    return {"answers": list(items)}


# (questions, a batch the agent could not use, the field errors, a batch that fits)
CASES = {
    "unknown-question": (
        [GENERIC],
        batch(item("zz", ["SQLite"])),
        None,
        batch(item("db", ["SQLite"])),
    ),
    "a-question-twice": (
        [GENERIC, PLAN],
        batch(item("db", ["SQLite"]), item("db", ["SQLite"])),
        None,
        batch(item("plan", ["Approve"]), item("db", [])),
    ),
    "label-not-offered": (
        [GENERIC],
        batch(item("db", ["MySQL"])),
        {"": "'MySQL' is not an option of question db"},
        batch(item("db", [], "MySQL")),
    ),
    "two-labels-single-select": (
        [GENERIC],
        batch(item("db", ["SQLite", "Postgres"])),
        {"": "question db takes one option, not 2"},
        batch(item("db", ["Postgres"])),
    ),
    "option-and-text-single-select": (
        [GENERIC],
        batch(item("db", ["SQLite"], "with WAL")),
        {"": "question db is single-select: free text replaces the option"},
        batch(item("db", [], "SQLite with WAL")),
    ),
    "approval-with-text": (
        [APPROVAL],
        batch(item("ok", [], "just do it")),
        {"": "an approval is answered with exactly one of its actions and no free text"},
        batch(item("ok", ["Reject"])),
    ),
    "plan-review-label-not-offered": (
        [PLAN],
        batch(item("plan", ["Ship it"])),
        {"": "'Ship it' is not an option of question plan"},
        batch(item("plan", ["Revise"], "add tests first")),
    ),
    "tool-arguments-outside-the-schema": (
        [TOOL],
        batch(item("tool", ["Edit"], json.dumps({"path": ""}))),
        {"path": "needs at least 1 character"},
        batch(item("tool", ["Edit"], json.dumps({"path": "b.txt"}))),
    ),
    "form-values-outside-the-schema": (
        [FORM],
        batch(item("form", ["Submit"], json.dumps({"age": "old"}))),
        {"name": "is required", "age": "must be a number"},
        batch(item("form", ["Submit"], json.dumps({"name": "Ada", "age": 36}))),
    ),
}


def refusal_of(call: Callable[[], object]) -> UserQuestionError:
    with pytest.raises(UserQuestionError) as caught:
        call()
    return caught.value


def late_reply_refusal(questions: list[dict[str, Any]], bad: dict[str, Any]) -> UserQuestionError:
    """What ``UserQuestions.answer`` raises for ``bad`` as the late reply to call ``c1``."""
    svc = ipyask.UserQuestions()
    agent = svc.agents.enter(ipyask.Agent("late"))
    agent.session.append({"type": "request/header", "tools": [TIMED_TOOL]})
    arguments = json.dumps({"questions": questions})
    agent.session.append(
        {"type": "tool/call", "callId": "c1", "name": "ask_user_question", "arguments": arguments}
    )
    pending = json.dumps({"pending": True, "callId": "c1", "message": "m"})
    agent.session.append({"type": "tool/result", "callId": "c1", "content": pending})
    refused = refusal_of(lambda: svc.answer(agent, "c1", bad))
    assert agent.session.next_step == ()
    return refused


def fields_of(error: UserQuestionError) -> dict[str, str] | None:
    return error.field_errors if isinstance(error, BadAnswerError) else None


@pytest.mark.parametrize("case", list(CASES))
async def test_a_claim_is_refused_as_answer_refuses_it_and_the_question_stays_open(
    open_at: Callable[[], Store], case: str
) -> None:
    questions, bad, fields, good = CASES[case]
    worker = ipyask.connect(open_at(), agent="worker")
    inbox = ipyask.connect(open_at(), agent="notebook")
    asking = asyncio.ensure_future(worker.ask({"questions": questions}, "c1"))
    await drain_loop()
    [record] = inbox.pending()

    refused = refusal_of(lambda: inbox.answer(record.id, bad))
    assert refused.code == "BAD_ANSWER"
    assert fields_of(refused) == fields
    if fields is None or not any("intent" in question for question in questions):
        # A late reply's questions carry no intent (a timed call's arguments have none): the
        # refusals that need no intent are the same, error for error.
        late = late_reply_refusal(questions, bad)
        assert (type(refused), refused.message, fields_of(refused)) == (
            type(late),
            late.message,
            fields_of(late),
        )
    # The service's own claim refuses it too; nothing was recorded.
    refused_again = refusal_of(lambda: inbox.service.respond(None, record.id, bad))
    assert refused_again.message == refused.message
    assert [r.id for r in inbox.pending()] == [record.id]
    assert open_at().question(record.id) == record
    await drain_loop()
    assert not asking.done()

    assert inbox.answer(record.id, good).status == "accepted"
    assert (await asyncio.wait_for(asking, 10)).to_wire() == good
    # Once settled, a claim reports the settlement, whatever it carries.
    late_claim = inbox.answer(record.id, bad)
    assert (late_claim.status, late_claim.answer) == ("already-resolved", good)
    await worker.aclose()
    await inbox.aclose()
