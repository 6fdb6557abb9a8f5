"""``approve_tool`` and ``form`` and their blocking twins in plain Python, with a script."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

import ipyask
from ipyask.testing import TIME_OUT, Cancel, Decline, Edit, Reject, Respond, ScriptedAnswerer

SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "force": {"type": "boolean"}},
    "required": ["path"],
}
FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "seats": {"type": "integer", "minimum": 1, "default": 2},
    },
    "required": ["name"],
}


@pytest.fixture
def service() -> Iterator[ipyask.UserQuestions]:
    default = ipyask.default_service()
    yield default
    asyncio.run(default.aclose())


def test_approve_tool_returns_the_typed_decision(service) -> None:
    script = ScriptedAnswerer({"rm": Edit({"path": "build/", "force": False})})
    script.register(service)
    decision = ipyask.approve_tool_blocking(
        "rm", {"path": "/", "force": True}, schema=SCHEMA, description="Deletes **files**."
    )
    assert decision == ipyask.ToolDecision(
        kind="edit", arguments={"path": "build/", "force": False}
    )
    (question,) = script.requests[0].questions
    intent = question.intent
    assert isinstance(intent, ipyask.protocol.ToolApprovalIntent)
    assert intent.decision_labels() == {"approve": "Approve", "edit": "Edit", "reject": "Reject"}
    assert (question.question, question.detail) == ("Run rm?", "Deletes **files**.")
    assert intent.tool.input_schema == SCHEMA


async def test_the_async_one_liner_gives_every_decision(service) -> None:
    replies = [Reject("not today"), Respond("already done")]
    ScriptedAnswerer({"rm": lambda _: replies.pop(0)}).register(service)
    decisions = ("approve", "always", "edit", "reject", "respond")
    rejected = await ipyask.approve_tool("rm", {"path": "a"}, decisions=decisions)
    assert (rejected.kind, rejected.message, rejected.approved) == ("reject", "not today", False)
    responded = await ipyask.approve_tool("rm", {"path": "a"}, decisions=decisions)
    assert (responded.kind, responded.message) == ("respond", "already done")


def test_unknown_decisions_are_refused_before_asking(service) -> None:
    with pytest.raises(ValueError, match="decisions must be some of"):
        ipyask.approve_tool_blocking("rm", {}, decisions=("approve", "maybe"))  # type: ignore[arg-type]


def test_form_returns_values_decline_and_cancel(service) -> None:
    replies: list[object] = [{"name": "Ada", "seats": 3}, Decline(), Cancel()]
    ScriptedAnswerer({"form": lambda _: replies.pop(0)}).register(service)
    accepted = ipyask.form_blocking("Book a table", FORM)
    assert accepted == ipyask.FormResult(action="accept", values={"name": "Ada", "seats": 3})
    assert ipyask.form_blocking("Book a table", FORM).action == "decline"
    assert ipyask.form_blocking("Book a table", FORM).action == "cancel"


async def test_closing_a_form_card_is_its_cancel(service) -> None:
    async def closed(request, next):  # what the panel does when the person clicks ×
        raise ipyask.UserQuestionError("the person closed the card", "ASK_CANCELLED")

    service.on_request(closed)
    assert await ipyask.form("Book a table", FORM) == ipyask.FormResult(action="cancel")
    assert ipyask.form_blocking("Book a table", FORM) == ipyask.FormResult(action="cancel")


def test_other_errors_of_a_form_still_raise(service) -> None:
    async def failing(request, next):
        raise ipyask.UserQuestionError("no one is there", "NO_PROVIDER")

    service.on_request(failing)
    with pytest.raises(ipyask.UserQuestionError) as caught:
        ipyask.form_blocking("Book a table", FORM)
    assert caught.value.code == "NO_PROVIDER"


def test_a_form_schema_outside_the_subset_is_bad_intent(service) -> None:
    with pytest.raises(ipyask.UserQuestionError) as caught:
        ipyask.form_blocking("Nested?", {"type": "object", "properties": {"a": {"type": "object"}}})
    assert caught.value.code == "BAD_INTENT"


def test_an_answer_outside_the_schema_raises_bad_answer(service) -> None:
    async def forged(request, next):
        return {"answers": [{"id": "form", "selected": ["Submit"], "custom": '{"seats": 0}'}]}

    service.on_request(forged)
    with pytest.raises(ipyask.errors.BadAnswerError) as caught:
        ipyask.form_blocking("Book a table", FORM)
    assert caught.value.field_errors == {"name": "is required", "seats": "must be at least 1"}


def test_a_timed_tool_approval_is_pending_not_denied(service) -> None:
    ScriptedAnswerer({"rm": TIME_OUT}).register(service)
    outcome = ipyask.approve_tool_blocking("rm", {"path": "a"}, timeout=5)
    assert isinstance(outcome, ipyask.PendingAnswer)


def test_on_timeout_declares_what_an_unanswered_tool_approval_becomes(service) -> None:
    ScriptedAnswerer({"rm": TIME_OUT, "Book a table": TIME_OUT}).register(service)
    rejected = ipyask.approve_tool_blocking("rm", {"path": "a"}, timeout=5, on_timeout="reject")
    assert isinstance(rejected, ipyask.ToolDecision)
    assert rejected.kind == "reject"
    assert rejected.message is not None and "timeout" in rejected.message
    approved = ipyask.approve_tool_blocking("rm", {"path": "a"}, timeout=5, on_timeout="Approve")
    assert isinstance(approved, ipyask.ToolDecision) and approved.kind == "approve"
    declined = ipyask.form_blocking("Book a table", FORM, timeout=5, on_timeout="reject")
    assert declined == ipyask.FormResult(action="decline")


async def test_on_timeout_of_the_async_ask_is_an_option(service) -> None:
    ScriptedAnswerer({"Which?": TIME_OUT}).register(service)
    assert await ipyask.ask("Which?", ["a", "b"], timeout=5, on_timeout="b") == "b"


def test_a_bad_on_timeout_names_the_allowed_values(service) -> None:
    with pytest.raises(ValueError, match="'pending', 'reject', 'Approve', 'Reject' for") as refused:
        ipyask.approve_tool_blocking("rm", {"path": "a"}, timeout=5, on_timeout="later")
    assert "'later'" in str(refused.value)
    with pytest.raises(ValueError, match="needs a timeout"):
        ipyask.approve_tool_blocking("rm", {"path": "a"}, on_timeout="reject")
