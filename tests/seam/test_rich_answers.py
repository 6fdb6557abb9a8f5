"""ipyask's extension intents: tool approvals and forms — round trips, rules and answer checks."""

from __future__ import annotations

import json
from typing import Any

import pytest

import ipyask
from ipyask import FormResult, ToolDecision, UserQuestionError
from ipyask.errors import BadAnswerError
from ipyask.host import (
    answer_errors,
    form_answer_item,
    form_result,
    parse_form_schema,
    tool_answer_item,
    tool_decision,
)
from ipyask.protocol import (
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    FormIntent,
    ToolApprovalIntent,
)
from ipyask.testing import (
    AlwaysAllow,
    AlwaysReject,
    Approve,
    Cancel,
    Decline,
    Edit,
    Reject,
    RejectAndStop,
    Respond,
    ScriptedAnswerer,
)

DECISIONS = {
    "approve": "Approve",
    "always": "Always allow",
    "edit": "Edit",
    "reject": "Reject",
    "respond": "Respond",
}

WRITE_SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "minLength": 1},
        "mode": {"type": "string", "enum": ["w", "a"]},
        "lines": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["path"],
    "additionalProperties": False,
}

FORM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "Contact",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2, "maxLength": 20},
        "email": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "born": {"type": "string", "format": "date"},
        "meet": {"type": "string", "format": "date-time"},
        "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "score": {"type": "number", "minimum": 0.5},
        "subscribe": {"type": "boolean", "default": True},
        "size": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]},
        "tier": {"type": "string", "oneOf": [{"const": "f", "title": "Free"}, {"const": "p"}]},
        "tags": {
            "type": "array",
            "items": {"type": "string", "enum": ["a", "b", "c"]},
            "minItems": 1,
            "maxItems": 2,
        },
        "langs": {
            "type": "array",
            "items": {"anyOf": [{"const": "py", "title": "Python"}, {"const": "js"}]},
        },
    },
    "required": ["name", "email"],
}


def tool_question(
    decisions: dict[str, str] | None = None,
    *,
    schema: dict[str, Any] | None = WRITE_SCHEMA,
    qid: str = "t",
    **extra: Any,
) -> dict[str, Any]:
    decisions = DECISIONS if decisions is None else decisions
    tool: dict[str, Any] = {"name": "write_file", "arguments": {"path": "a.txt", "mode": "w"}}
    if schema is not None:
        tool["inputSchema"] = schema
    return {
        "id": qid,
        "question": "Run write_file?",
        "detail": "Writes **a file**.",
        "options": [{"label": label} for label in decisions.values()],
        "intent": {"kind": "tool-approval", "tool": tool, **decisions},
        **extra,
    }


def form_question(
    schema: dict[str, Any] | None = None, *, qid: str = "f", **extra: Any
) -> dict[str, Any]:
    return {
        "id": qid,
        "question": "Who are you?",
        "options": [{"label": "Submit"}, {"label": "Decline"}, {"label": "Cancel"}],
        "intent": {
            "kind": "form",
            "requestedSchema": FORM_SCHEMA if schema is None else schema,
            "accept": "Submit",
            "decline": "Decline",
            "cancel": "Cancel",
        },
        **extra,
    }


def item(qid: str, selected: list[str], custom: str | None = None) -> AskUserQuestionAnswerItem:
    return AskUserQuestionAnswerItem(id=qid, selected=selected, custom=custom)


def as_item(wire: dict[str, Any]) -> AskUserQuestionItem:
    return AskUserQuestionItem.model_validate(wire)


# -- vocabulary ------------------------------------------------------------------------------


def test_the_new_intents_round_trip_exactly() -> None:
    for wire in (tool_question(), form_question(), tool_question({"approve": "Go"}, schema=None)):
        parsed = as_item(wire)
        assert parsed.to_wire() == wire
        assert AskUserQuestionItem.model_validate(parsed.to_wire()) == parsed
    tool = as_item(tool_question()).intent
    assert isinstance(tool, ToolApprovalIntent)
    assert tool.tool.name == "write_file"
    assert tool.tool.input_schema == WRITE_SCHEMA
    assert tool.decision_labels() == DECISIONS
    form = as_item(form_question()).intent
    assert isinstance(form, FormIntent)
    assert form.action_labels() == {"accept": "Submit", "decline": "Decline", "cancel": "Cancel"}


def test_a_misspelt_intent_field_is_reported() -> None:
    wire = tool_question()
    wire["intent"]["tool"]["input_schemas"] = {}
    with pytest.raises(ValueError, match="input_schemas"):
        as_item(wire)


async def test_both_intents_are_asked_and_answered_through_the_waterfall(svc) -> None:
    ScriptedAnswerer(
        {"write_file": Edit({"path": "b.txt"}), "f": {"name": "Ada", "email": "a@b.org"}}
    ).register(svc)
    request = ipyask.protocol.AskUserQuestionRequest.model_validate(
        {"questions": [tool_question(), form_question()]}
    )
    answer = await svc.ask(request)
    tool, form = request.questions
    assert tool_decision(tool, answer.answers[0]) == ToolDecision(
        kind="edit", arguments={"path": "b.txt"}
    )
    assert form_result(form, answer.answers[1]) == FormResult(
        action="accept", values={"name": "Ada", "email": "a@b.org"}
    )
    # The seam's answer shape: the chosen label, and the payload as JSON text in ``custom``.
    assert answer.answers[0].to_wire() == {
        "id": "t",
        "selected": ["Edit"],
        "custom": '{"path": "b.txt"}',
    }


# -- BAD_INTENT ------------------------------------------------------------------------------


async def bad_intent(svc: ipyask.UserQuestions, *questions: dict[str, Any]) -> str:
    ScriptedAnswerer({}).register(svc)
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask({"questions": list(questions)})
    assert caught.value.code == "BAD_INTENT"
    return str(caught.value)


@pytest.mark.parametrize(
    ("question", "message"),
    [
        (
            tool_question({}),
            "question t declares intent tool-approval without any decision "
            "(approve, always, edit, reject, respond, never or stop)",
        ),
        (
            tool_question({"approve": "Go", "reject": "Go"}),
            "question t declares intent tool-approval whose decision labels are not distinct",
        ),
        (
            {**tool_question({"approve": "Go"}), "options": [{"label": "Go"}, {"label": "Nope"}]},
            'question t declares intent tool-approval offers option "Nope", which is none of '
            "its decision labels",
        ),
        (
            {**tool_question({"approve": "Go", "edit": "Edit"}), "options": [{"label": "Go"}]},
            'question t declares intent tool-approval whose edit label "Edit" names none of '
            "its options",
        ),
        (
            tool_question(multiSelect=True),
            "question t declares intent tool-approval with multiSelect; a tool approval takes "
            "exactly one decision",
        ),
        (
            tool_question(schema={"type": "array"}),
            "question t declares intent tool-approval whose tool inputSchema is not an object "
            'schema ("type": "object")',
        ),
        (
            form_question(multiSelect=True),
            "question f declares intent form with multiSelect; a form is answered once",
        ),
        (
            {**form_question(), "options": [{"label": "Submit"}, {"label": "Decline"}]},
            'question f declares intent form whose cancel label "Cancel" names none of its options',
        ),
    ],
)
async def test_intent_rules_of_the_new_kinds(svc, question, message) -> None:
    assert await bad_intent(svc, question) == message


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"properties": {}}, 'the schema must have "type": "object"'),
        ({"type": "array"}, 'the schema must have "type": "object"'),
        (
            {"type": "object", "properties": {"a": {"type": "object"}}},
            "field 'a' has type 'object'; a form field is a string, number, integer, boolean "
            "or an array of enum strings (no nested objects)",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "string", "format": "color"}}},
            "field 'a' has format 'color'; only email, uri, date and date-time are supported",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}},
            "field 'a' has a pattern that does not compile",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}},
            "field 'a' has a \"minLength\" that is not a non-negative integer",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string", "minLength": 3, "maxLength": 2}},
            },
            "field 'a' has a length minimum above its maximum",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "number", "minimum": "1"}}},
            "field 'a' has a \"minimum\" that is not a number",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "string", "items": {}}}},
            "field 'a' uses 'items', outside the MCP elicitation subset",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "x"]}}},
            "field 'a' has an enum value twice",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string", "enum": ["x"], "default": "y"}},
            },
            "field 'a' has a default that is none of its options",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "number"}}}},
            'field \'a\' is an array whose items are not {"type": "string", "enum"}',
        ),
        (
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]},
            "the schema requires 'b', which is not one of its properties",
        ),
        (
            {"type": "object", "properties": {}, "additionalProperties": True},
            "the schema may not allow additionalProperties (a form has fixed fields)",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "boolean", "title": 3}}},
            "field 'a' has a \"title\" that is not a string",
        ),
    ],
)
async def test_a_form_schema_outside_the_subset_is_refused(svc, schema, problem) -> None:
    message = await bad_intent(svc, form_question(schema))
    assert message.startswith(
        "question f declares intent form whose requestedSchema is refused: " + problem
    )


def test_every_field_kind_of_the_subset_parses() -> None:
    parsed = parse_form_schema(FORM_SCHEMA)
    kinds = {field.name: field.kind for field in parsed.fields}
    assert kinds == {
        "name": "string",
        "email": "string",
        "site": "string",
        "born": "string",
        "meet": "string",
        "code": "string",
        "age": "integer",
        "score": "number",
        "subscribe": "boolean",
        "size": "select",
        "tier": "select",
        "tags": "multi-select",
        "langs": "multi-select",
    }
    assert parsed.title == "Contact"
    size = parsed.field("size")
    assert size is not None
    assert size.to_wire()["options"] == [
        {"value": "s", "title": "Small"},
        {"value": "m", "title": "Medium"},
    ]
    assert [field.name for field in parsed.fields if field.required] == ["name", "email"]


# -- tool decisions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            item("t", ["Approve"]),
            ToolDecision(kind="approve", arguments={"path": "a.txt", "mode": "w"}),
        ),
        (
            item("t", ["Always allow"]),
            ToolDecision(kind="always", arguments={"path": "a.txt", "mode": "w"}),
        ),
        (
            item("t", ["Edit"], '{"path": "b.txt", "lines": ["x"]}'),
            ToolDecision(kind="edit", arguments={"path": "b.txt", "lines": ["x"]}),
        ),
        (
            item("t", ["Reject"]),
            ToolDecision(kind="reject", arguments={"path": "a.txt", "mode": "w"}),
        ),
        (
            item("t", ["Reject"], "wrong file"),
            ToolDecision(
                kind="reject", arguments={"path": "a.txt", "mode": "w"}, message="wrong file"
            ),
        ),
        (
            item("t", ["Respond"], "it is done already"),
            ToolDecision(
                kind="respond",
                arguments={"path": "a.txt", "mode": "w"},
                message="it is done already",
            ),
        ),
        # Free text alone (a client showing the generic flow) is a reply to the model.
        (
            item("t", [], "use b.txt"),
            ToolDecision(
                kind="respond", arguments={"path": "a.txt", "mode": "w"}, message="use b.txt"
            ),
        ),
    ],
)
def test_each_decision_reads_as_a_typed_result(answer, expected) -> None:
    question = as_item(tool_question())
    assert tool_decision(question, answer) == expected
    assert answer_errors(question, answer) == {}
    assert expected.approved == (expected.kind in ("approve", "always", "edit"))


def test_free_text_alone_is_a_rejection_reason_when_respond_is_not_offered() -> None:
    question = as_item(tool_question({"approve": "Approve", "reject": "Reject"}))
    decision = tool_decision(question, item("t", [], "no"))
    assert (decision.kind, decision.message) == ("reject", "no")


@pytest.mark.parametrize(
    ("decisions", "answer", "errors"),
    [
        (DECISIONS, item("t", []), {"": "a tool approval needs a decision; skipping is not one"}),
        (
            {"approve": "Approve", "reject": "Reject"},
            item("t", ["Edit"], "{}"),
            {"": '"Edit" is not one of the offered choices ("Approve", "Reject")'},
        ),
        (DECISIONS, item("t", ["Approve", "Reject"]), {"": "takes exactly one decision"}),
        (DECISIONS, item("t", ["Approve"], "hm"), {"": "the approve decision takes no text"}),
        (
            DECISIONS,
            item("t", ["Edit"]),
            {"": "the edit decision needs the edited arguments as JSON text"},
        ),
        (
            DECISIONS,
            item("t", ["Edit"], "{path: 1}"),
            {
                "": "the edited arguments are not valid JSON "
                "(Expecting property name enclosed in double quotes at line 1)"
            },
        ),
        (DECISIONS, item("t", ["Edit"], "[1]"), {"": "the edited arguments must be a JSON object"}),
        (
            DECISIONS,
            item("t", ["Edit"], '{"path": "", "mode": "x", "lines": [1], "force": true}'),
            {
                "path": "needs at least 1 character",
                "mode": 'must be one of "w", "a"',
                "lines/0": "must be string",
                "force": "is not an argument of this tool",
            },
        ),
        (DECISIONS, item("t", ["Edit"], '{"mode": "w"}'), {"path": "is required"}),
        (
            DECISIONS,
            item("t", ["Respond"], "  "),
            {"": "the respond decision needs the text to return to the model"},
        ),
        (
            {"approve": "Approve"},
            item("t", [], "text"),
            {"": "free text needs a Respond or Reject decision, which is not offered"},
        ),
        (DECISIONS, item("other", ["Approve"]), {"": "the item answers 'other', not question 't'"}),
    ],
)
def test_answers_outside_the_decisions_or_the_schema_are_refused(decisions, answer, errors) -> None:
    question = as_item(tool_question(decisions))
    assert answer_errors(question, answer) == errors
    with pytest.raises(BadAnswerError) as caught:
        tool_decision(question, answer)
    assert caught.value.code == "BAD_ANSWER"
    assert caught.value.field_errors == errors
    assert caught.value.question_id == "t"


def test_without_a_schema_any_json_object_is_an_edit() -> None:
    question = as_item(tool_question(schema=None))
    decision = tool_decision(question, item("t", ["Edit"], '{"anything": [1, null]}'))
    assert decision.arguments == {"anything": [1, None]}


def test_the_argument_schema_subset_follows_local_refs_and_combinators() -> None:
    schema = {
        "type": "object",
        "$defs": {"Mode": {"type": "string", "enum": ["w", "a"]}},
        "properties": {
            "mode": {"$ref": "#/$defs/Mode"},
            "count": {"anyOf": [{"type": "integer", "exclusiveMinimum": 0}, {"type": "null"}]},
        },
    }
    question = as_item(tool_question(schema=schema))
    ok = item("t", ["Edit"], '{"mode": "a", "count": null}')
    assert tool_decision(question, ok).arguments == {"mode": "a", "count": None}
    bad = item("t", ["Edit"], '{"mode": "x", "count": 0}')
    assert answer_errors(question, bad) == {
        "mode": 'must be one of "w", "a"',
        "count": "matches none of the allowed shapes",
    }


# -- forms -----------------------------------------------------------------------------------

VALID = {
    "name": "Ada",
    "email": "ada@example.org",
    "site": "https://example.org",
    "born": "1815-12-10",
    "meet": "2026-01-02T10:30:00+01:00",
    "code": "ABC",
    "age": 36,
    "score": 0.5,
    "subscribe": False,
    "size": "m",
    "tier": "p",
    "tags": ["a", "c"],
    "langs": [],
}


def test_valid_values_of_every_field_kind_are_accepted() -> None:
    question = as_item(form_question())
    result = form_result(question, item("f", ["Submit"], json.dumps(VALID)))
    assert result == FormResult(action="accept", values=VALID)
    assert result.accepted


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("name", "A", "needs at least 2 characters"),
        ("name", "A" * 21, "takes at most 20 characters"),
        ("name", 3, "must be text"),
        ("email", "ada.example.org", "must be an email address"),
        ("site", "example.org", "must be a URL with a scheme (https://…)"),
        ("born", "1815-13-10", "must be a date (YYYY-MM-DD)"),
        ("born", "10/12/1815", "must be a date (YYYY-MM-DD)"),
        ("meet", "2026-01-02T10:30", "must be a date and time with a time zone (RFC 3339)"),
        ("code", "abc", "must match the pattern ^[A-Z]{3}$"),
        ("age", 36.5, "must be a whole number"),
        ("age", -1, "must be at least 0"),
        ("age", 151, "must be at most 150"),
        ("age", True, "must be a number"),
        ("score", 0.4, "must be at least 0.5"),
        ("score", "1", "must be a number"),
        ("subscribe", "yes", "must be true or false"),
        ("size", "l", "must be one of its options"),
        ("tier", "Free", "must be one of its options"),
        ("tags", [], "needs at least 1 choices"),
        ("tags", ["a", "b", "c"], "takes at most 2 choices"),
        ("tags", ["a", "a"], "has an option chosen twice"),
        ("langs", ["rust"], "must be a list of its options"),
        ("extra", 1, "is not a field of this form"),
    ],
)
def test_each_field_kind_refuses_invalid_values_per_field(field, value, error) -> None:
    question = as_item(form_question())
    answer = item("f", ["Submit"], json.dumps({**VALID, field: value}))
    assert answer_errors(question, answer) == {field: error}
    with pytest.raises(BadAnswerError) as caught:
        form_result(question, answer)
    assert caught.value.field_errors == {field: error}
    assert f"{field}: {error}" in str(caught.value)


def test_missing_required_fields_are_each_reported() -> None:
    question = as_item(form_question())
    assert answer_errors(question, item("f", ["Submit"], "{}")) == {
        "name": "is required",
        "email": "is required",
    }
    assert answer_errors(question, item("f", ["Submit"])) == {
        "name": "is required",
        "email": "is required",
    }


def test_decline_and_cancel_are_distinct_outcomes() -> None:
    question = as_item(form_question())
    assert form_result(question, item("f", ["Decline"])) == FormResult(action="decline")
    assert form_result(question, item("f", ["Cancel"])) == FormResult(action="cancel")
    # A skipped form was dismissed without a decision.
    assert form_result(question, item("f", [])) == FormResult(action="cancel")
    assert answer_errors(question, item("f", ["Decline"], "{}")) == {
        "": "the decline action takes no values"
    }


def test_values_typed_as_free_text_are_an_accept() -> None:
    question = as_item(form_question())
    assert form_result(question, item("f", [], json.dumps(VALID))).values == VALID
    assert answer_errors(question, item("f", [], "Ada")) == {
        "": "the form's values are not valid JSON (Expecting value at line 1)"
    }


def test_a_form_without_cancel_needs_an_answer() -> None:
    wire = form_question()
    del wire["intent"]["cancel"]
    wire["options"] = wire["options"][:2]
    assert answer_errors(as_item(wire), item("f", [])) == {
        "": "a form needs an answer: submit it or decline it"
    }


# -- item writers and the scripted answerer --------------------------------------------------


def test_the_writers_produce_what_the_readers_accept() -> None:
    tool = as_item(tool_question())
    edited = tool_answer_item(tool, "edit", arguments={"path": "é.txt"})
    assert edited.custom == '{"path": "é.txt"}'
    assert tool_decision(tool, edited).arguments == {"path": "é.txt"}
    form = as_item(form_question())
    assert form_answer_item(form, "decline").to_wire() == {"id": "f", "selected": ["Decline"]}
    with pytest.raises(ValueError, match="does not offer respond"):
        tool_answer_item(as_item(tool_question({"approve": "Go"})), "respond", message="x")


@pytest.mark.parametrize(
    ("reply", "kind", "message"),
    [
        (Approve(), "approve", None),
        (AlwaysAllow(), "always", None),
        (Reject(), "reject", None),
        (Reject("too risky"), "reject", "too risky"),
        (Respond("done"), "respond", "done"),
    ],
)
async def test_the_scripted_answerer_gives_each_decision(svc, reply, kind, message) -> None:
    ScriptedAnswerer({"write_file": reply}).register(svc)
    request = ipyask.protocol.AskUserQuestionRequest.model_validate(
        {"questions": [tool_question()]}
    )
    answer = await svc.ask(request)
    decision = tool_decision(request.questions[0], answer.answers[0])
    assert (decision.kind, decision.message) == (kind, message)


@pytest.mark.parametrize(
    ("reply", "kind", "message"),
    [
        (AlwaysReject(), "never", None),
        (AlwaysReject("not this tool"), "never", "not this tool"),
        (RejectAndStop(), "stop", None),
        (RejectAndStop("wrong plan"), "stop", "wrong plan"),
    ],
)
async def test_always_reject_and_reject_and_stop_carry_an_optional_reason(
    svc, reply, kind, message
) -> None:
    decisions = {"approve": "Approve", "never": "Always reject", "stop": "Reject and stop"}
    ScriptedAnswerer({"write_file": reply}).register(svc)
    request = ipyask.protocol.AskUserQuestionRequest.model_validate(
        {"questions": [tool_question(decisions)]}
    )
    answer = await svc.ask(request)
    decision = tool_decision(request.questions[0], answer.answers[0])
    assert (decision.kind, decision.message, decision.approved) == (kind, message, False)
    assert decision.arguments == {"path": "a.txt", "mode": "w"}
    with pytest.raises(ValueError, match="does not offer never"):
        tool_answer_item(as_item(tool_question()), "never")


async def test_the_scripted_answerer_matches_by_id_and_text_before_tool_name(svc) -> None:
    answerer = ScriptedAnswerer({"Run write_file?": Reject("by text"), "write_file": Approve()})
    answerer.register(svc)
    request = ipyask.protocol.AskUserQuestionRequest.model_validate(
        {"questions": [tool_question()]}
    )
    answer = await svc.ask(request)
    assert tool_decision(request.questions[0], answer.answers[0]).message == "by text"


@pytest.mark.parametrize(("reply", "action"), [(Decline(), "decline"), (Cancel(), "cancel")])
async def test_the_scripted_answerer_declines_and_cancels_forms(svc, reply, action) -> None:
    ScriptedAnswerer({"Who are you?": reply}).register(svc)
    request = ipyask.protocol.AskUserQuestionRequest.model_validate(
        {"questions": [form_question()]}
    )
    answer = await svc.ask(request)
    assert form_result(request.questions[0], answer.answers[0]).action == action


@pytest.mark.parametrize(
    ("script", "message"),
    [
        (
            {"write_file": Edit({"mode": "w"})},
            "the script's answer to question t is refused: path: is required",
        ),
        (
            {"write_file": Respond("x")},
            "question t does not offer respond",
        ),
        ({"t": Decline()}, "the script gives form values to question t"),
        ({"f": Approve()}, "the script gives a tool decision to question f"),
        (
            {"f": {"name": "A"}},
            "the script's answer to question f is refused: name: needs at least 2 characters; "
            "email: is required",
        ),
    ],
)
async def test_the_scripted_answerer_refuses_answers_outside_the_card(svc, script, message) -> None:
    ScriptedAnswerer(script).register(svc)
    decisions = {"approve": "Approve", "edit": "Edit"}
    questions = [tool_question(decisions)] if "t" in script or "write_file" in script else []
    questions += [form_question()] if "f" in script else []
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask({"questions": questions})
    assert caught.value.code == "PROVIDER_ERROR"
    assert message in str(caught.value)
