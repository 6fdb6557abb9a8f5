"""The panel checks tool-approval and form answers against their card, per field; no settling."""

from __future__ import annotations

import asyncio
import json

import pytest

import ipyask
from ipyask.host import form_answer_item, form_question, tool_answer_item, tool_approval_question

from ._helpers import drain, only_key

SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string", "minLength": 1}, "force": {"type": "boolean"}},
    "required": ["path"],
    "additionalProperties": False,
}
FORM = {
    "type": "object",
    "properties": {
        "email": {"type": "string", "format": "email"},
        "seats": {"type": "integer", "minimum": 1},
    },
    "required": ["email"],
}


async def asked(svc, item: ipyask.protocol.AskUserQuestionItem) -> asyncio.Future:
    task = asyncio.ensure_future(svc.ask(ipyask.protocol.AskUserQuestionRequest(questions=[item])))
    await drain()
    return task


def tool_item() -> ipyask.protocol.AskUserQuestionItem:
    decisions = ("approve", "always", "edit", "reject", "respond")
    return tool_approval_question("rm", {"path": "/"}, schema=SCHEMA, decisions=decisions)


def form_item() -> ipyask.protocol.AskUserQuestionItem:
    return form_question("Contact?", FORM)


@pytest.mark.parametrize(
    ("kind", "arguments", "message", "expected"),
    [
        ("approve", None, None, ("approve", {"path": "/"}, None)),
        ("always", None, None, ("always", {"path": "/"}, None)),
        ("edit", {"path": "build"}, None, ("edit", {"path": "build"}, None)),
        ("reject", None, "too wide", ("reject", {"path": "/"}, "too wide")),
        ("respond", None, "skip it", ("respond", {"path": "/"}, "skip it")),
    ],
)
async def test_each_decision_settles_the_tool_card(
    svc, panel, view, kind, arguments, message, expected
) -> None:
    item = tool_item()
    task = await asked(svc, item)
    answer = tool_answer_item(item, kind, arguments=arguments, message=message)
    view.send("answer", key=only_key(panel), answer={"answers": [answer.to_wire()]})
    decision = ipyask.host.tool_decision(item, (await task).answers[0])
    assert (decision.kind, decision.arguments, decision.message) == expected
    assert view.errors == []


@pytest.mark.parametrize(
    ("custom", "fields"),
    [
        (
            '{"path": "", "force": 1, "x": 2}',
            {
                "path": "needs at least 1 character",
                "force": "must be boolean",
                "x": "is not an argument of this tool",
            },
        ),
        (
            "{",
            {
                "": "the edited arguments are not valid JSON (Expecting property name enclosed "
                "in double quotes at line 1)"
            },
        ),
    ],
)
async def test_edited_arguments_outside_the_schema_get_field_errors_and_settle_nothing(
    svc, panel, view, custom, fields
) -> None:
    item = tool_item()
    task = await asked(svc, item)
    key = only_key(panel)
    view.answer(key, ("tool", ["Edit"], custom))
    await drain()
    assert not task.done()
    (error,) = view.errors
    assert (error["code"], error["key"], error["questionId"]) == ("BAD_ANSWER", key, "tool")
    assert error["fields"] == fields
    assert set(error["fieldTexts"]["zh"]) == set(fields)
    assert error["fieldTexts"]["zh"] != fields  # each written in Chinese
    assert panel.get_card(key).status == "pending"
    view.answer(key, ("tool", ["Edit"], '{"path": "build"}'))
    assert ipyask.host.tool_decision(item, (await task).answers[0]).arguments == {"path": "build"}


async def test_a_decision_the_card_does_not_offer_is_refused(svc, panel, view) -> None:
    item = tool_approval_question("rm", {"path": "/"}, decisions=("approve", "reject"))
    task = await asked(svc, item)
    key = only_key(panel)
    view.answer(key, ("tool", ["Edit"], "{}"))
    view.answer(key, ("tool", ["Approve"], "and more"))
    await drain()
    assert [e["message"] for e in view.errors] == [
        "'Edit' is not an option of question tool",
        "question tool: the approve decision takes no text",
    ]
    assert not task.done()
    view.answer(key, ("tool", ["Reject"], "no"))
    assert ipyask.host.tool_decision(item, (await task).answers[0]).message == "no"


async def test_form_values_are_checked_per_field(svc, panel, view) -> None:
    item = form_item()
    task = await asked(svc, item)
    key = only_key(panel)
    view.answer(key, ("form", ["Submit"], json.dumps({"email": "nope", "seats": 0})))
    await drain()
    (error,) = view.errors
    assert error["fields"] == {"email": "must be an email address", "seats": "must be at least 1"}
    assert error["fieldTexts"]["en"] == error["fields"]
    assert error["fieldTexts"]["zh"] == {"email": "必须是电子邮件地址", "seats": "不能小于 1"}
    assert error["message"] == (
        "question form: email: must be an email address; seats: must be at least 1"
    )
    assert not task.done()
    answer = form_answer_item(item, "accept", {"email": "a@b.org", "seats": 2})
    view.send("answer", key=key, answer={"answers": [answer.to_wire()]})
    result = ipyask.host.form_result(item, (await task).answers[0])
    assert result.values == {"email": "a@b.org", "seats": 2}


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_decline_and_cancel_settle_the_form(svc, panel, view, action) -> None:
    item = form_item()
    task = await asked(svc, item)
    answer = form_answer_item(item, action)
    view.send("answer", key=only_key(panel), answer={"answers": [answer.to_wire()]})
    assert ipyask.host.form_result(item, (await task).answers[0]).action == action
