"""Tool approvals and forms in a real kernel, decided over the real comm by HeadlessFrontend."""

from __future__ import annotations

import pytest

from ipyask.testing import HeadlessFrontend

pytestmark = pytest.mark.kernel

TOOL = (
    "task = asyncio.ensure_future(ipyask.approve_tool('write_file', {'path': 'a.txt'},"
    " schema={'type': 'object', 'properties': {'path': {'type': 'string', 'minLength': 1}},"
    " 'required': ['path'], 'additionalProperties': False},"
    " decisions=('approve', 'always', 'edit', 'reject', 'respond'),"
    " description='Writes a file.'))"
)
FORM = (
    "task = asyncio.ensure_future(ipyask.form('Book a table', {'type': 'object', 'properties': {"
    "'name': {'type': 'string', 'minLength': 1}, 'seats': {'type': 'integer', 'minimum': 1},"
    "'day': {'type': 'string', 'format': 'date'}}, 'required': ['name']}))"
)


FRESH = "panel.close()\nipyask.default_panel().close()  # the one-liner shows a new default panel\n"


def outcome(fe: HeadlessFrontend) -> str:
    cell = fe.execute("r = await asyncio.wait_for(task, 10)\nprint(r.model_dump_json())")
    return cell.stdout.strip()


@pytest.mark.parametrize(
    ("act", "expected"),
    [
        (lambda fe, key: fe.approve_tool(key), '"kind":"approve","arguments":{"path":"a.txt"}'),
        (
            lambda fe, key: fe.approve_tool(key, always=True),
            '"kind":"always","arguments":{"path":"a.txt"}',
        ),
        (
            lambda fe, key: fe.edit(key, {"path": "b.txt"}),
            '"kind":"edit","arguments":{"path":"b.txt"}',
        ),
        (
            lambda fe, key: fe.reject(key, "not now"),
            '"kind":"reject","arguments":{"path":"a.txt"},"message":"not now"',
        ),
        (lambda fe, key: fe.respond(key, "done"), '"message":"done"'),
    ],
)
def test_each_tool_decision_reaches_the_agent(fe: HeadlessFrontend, act, expected) -> None:
    fe.execute(FRESH + TOOL)
    card = fe.wait_for_card("Run write_file?")
    presentation = card["view"]["presentation"]
    assert (presentation["kind"], presentation["toolName"]) == ("tool-approval", "write_file")
    act(fe, card["key"])
    assert expected in outcome(fe)
    fe.wait_for_status(card["key"], "answered")
    assert fe.kernel.handler_errors == []


def test_edited_arguments_outside_the_schema_are_refused_per_field(fe: HeadlessFrontend) -> None:
    fe.execute(FRESH + TOOL)
    key = fe.wait_for_card("Run write_file?")["key"]
    before = len(fe.errors())
    fe.edit(key, {"path": "", "mode": "w"})
    error = fe.wait_for_error(since=before)
    assert error["code"] == "BAD_ANSWER"
    assert error["fields"] == {
        "path": "needs at least 1 character",
        "mode": "is not an argument of this tool",
    }
    assert fe.card(key)["status"] == "pending"
    fe.edit(key, '{"path": "c.txt"}')
    assert '"arguments":{"path":"c.txt"}' in outcome(fe)


def test_a_form_is_filled_declined_and_cancelled(fe: HeadlessFrontend) -> None:
    fe.execute(FRESH + FORM)
    key = fe.wait_for_card("Book a table")["key"]
    assert [f["kind"] for f in fe.card(key)["view"]["presentation"]["form"]["fields"]] == [
        "string",
        "integer",
        "string",
    ]
    before = len(fe.errors())
    fe.fill(key, {"seats": 0, "day": "tomorrow"})
    assert fe.wait_for_error(since=before)["fields"] == {
        "name": "is required",
        "seats": "must be at least 1",
        "day": "must be a date (YYYY-MM-DD)",
    }
    fe.fill(key, {"name": "Ada", "seats": 2, "day": "2026-03-01"})
    assert outcome(fe) == (
        '{"action":"accept","values":{"name":"Ada","seats":2,"day":"2026-03-01"}}'
    )
    # × on the card's header ends the form as its Cancel button does: one cancel.
    for click, action in (
        (fe.decline, "decline"),
        (fe.cancel, "cancel"),
        (fe.close_card, "cancel"),
    ):
        fe.execute(FORM)
        key = fe.wait_for_card("Book a table")["key"]
        click(key)
        assert outcome(fe) == f'{{"action":"{action}","values":null}}'
