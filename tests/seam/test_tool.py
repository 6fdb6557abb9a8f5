from __future__ import annotations

import asyncio
import json

import pytest

import ipyask
from ipyask import AskUserQuestionTool
from ipyask.host import PENDING_NOTICE, ask_user_question_definition
from ipyask.testing import SKIP, TIME_OUT, Other, ScriptedAnswerer

from ._helpers import drain

ARGS = {
    "questions": [
        {
            "id": "db",
            "question": "Database?",
            "options": [{"label": "SQLite (Recommended)"}, {"label": "Postgres"}],
        }
    ]
}


def test_legacy_and_timed_definitions() -> None:
    legacy = ask_user_question_definition()
    assert legacy.name == "ask_user_question"
    assert legacy.description == (
        "Ask the user a concise question when you need confirmation, a choice, or missing "
        "information before proceeding."
    )
    assert "timeout" not in legacy.parameters["properties"]
    items = legacy.parameters["properties"]["questions"]["items"]
    assert items["required"] == ["id", "question"]
    assert items["additionalProperties"] is True
    assert set(items["properties"]) == {"id", "question", "header", "options", "multi_select"}
    timed = ask_user_question_definition("timed", default_timeout=30)
    timeout = timed.parameters["properties"]["timeout"]
    assert timeout["type"] == "integer"
    assert timeout["description"].startswith("Wait seconds for the entire batch (default 30)")
    assert timed.description.startswith("Ask brief, direct, self-contained questions")
    assert timed.openai() == {"type": "function", "function": timed.to_wire()}
    assert timed.anthropic()["input_schema"] == timed.parameters
    with pytest.raises(ValueError, match="mode must be"):
        ask_user_question_definition("fast")  # type: ignore[arg-type]


async def test_a_legacy_call_returns_compact_answers_and_records_nothing_untimed(
    svc, agent
) -> None:
    ScriptedAnswerer({"db": "SQLite (Recommended)"}).register(svc)
    tool = AskUserQuestionTool(svc)
    result = await tool.execute(json.dumps(ARGS), call_id="c1", agent=agent)
    assert result.content == '{"answers":[{"id":"db","selected":["SQLite (Recommended)"]}]}'
    assert not result.is_error
    types = [event.type for event in agent.session.events]
    assert types == ["request/header", "tool/call", "tool/result"]
    assert svc.projection(agent).to_wire() == {"active": [], "settled": []}


async def test_a_timed_call_in_the_window_settles_in_the_projection(svc, agent) -> None:
    ScriptedAnswerer({"Database?": Other("MariaDB")}).register(svc)
    tool = AskUserQuestionTool(svc, mode="timed")
    result = await tool.execute(ARGS, call_id="c1", agent=agent)
    assert result.value == {"answers": [{"id": "db", "selected": [], "custom": "MariaDB"}]}
    assert svc.projection(agent).to_wire()["settled"] == [
        {"callId": "c1", "answers": [{"id": "db", "selected": [], "custom": "MariaDB"}]}
    ]


async def test_a_timed_call_that_times_out_returns_the_pending_notice(svc, agent) -> None:
    ScriptedAnswerer({"db": TIME_OUT}).register(svc)
    result = await AskUserQuestionTool(svc, mode="timed").execute(ARGS, call_id="c1", agent=agent)
    assert result.content == json.dumps(
        {"pending": True, "callId": "c1", "message": PENDING_NOTICE}, separators=(",", ":")
    )
    assert list(json.loads(result.content)) == ["pending", "callId", "message"]
    assert [row.state for row in svc.projection(agent).active] == ["continued"]


async def test_the_timeout_argument_is_seconds_and_minus_one_waits_indefinitely(
    svc, agent, clock
) -> None:
    seen: list[ipyask.protocol.AskUserQuestionRequest] = []

    async def card(request, next):
        seen.append(request)
        return await asyncio.Event().wait()

    svc.on_request(card)
    tool = AskUserQuestionTool(svc, mode="timed")
    task = asyncio.ensure_future(tool.execute({**ARGS, "timeout": 3}, call_id="t", agent=agent))
    await drain()
    assert seen[0].wait == ipyask.host.QuestionWait(call_id="t", timed=True)
    assert clock.pending == [3000]
    clock.advance(3000)
    assert json.loads((await task).content)["pending"] is True
    forever = asyncio.ensure_future(tool.execute({**ARGS, "timeout": -1}, call_id="f", agent=agent))
    await drain()
    assert seen[1].wait == ipyask.host.QuestionWait(call_id="f")
    assert clock.pending == []
    forever.cancel()
    with pytest.raises(asyncio.CancelledError):
        await forever
    assert agent.session.events[-1].type == "tool/result"
    assert agent.session.events[-1].error.code == "ASK_ABORTED"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            "{not json",
            "arguments must be JSON: Expecting property name enclosed in double quotes: "
            "line 1 column 2 (char 1)",
        ),
        ("[]", "arguments must be a JSON object"),
        ({"questions": "x"}, "questions must be an array of question objects"),
        ({"questions": [1]}, "questions[0] must be an object"),
        ({"questions": [{"id": 1, "question": "Q"}]}, "questions[0].id must be a string"),
        ({"questions": [{"id": "a"}]}, "questions[0].question must be a string"),
        (
            {"questions": [{"id": "a", "question": "Q", "options": [{}]}]},
            "questions[0].options[0].label must be a string",
        ),
        (
            {"questions": [{"id": "a", "question": "Q", "multi_select": "yes"}]},
            "questions[0].multi_select must be a boolean",
        ),
        (
            {"questions": [{"id": "a", "question": "Q"}, {"id": "a", "question": "R"}]},
            'question id "a" must be unique within this call',
        ),
        ({**ARGS, "timeout": 0}, "timeout must be -1 or a positive integer up to 2147483 seconds"),
        (
            {**ARGS, "timeout": 1.5},
            "timeout must be -1 or a positive integer up to 2147483 seconds",
        ),
        (
            {**ARGS, "timeout": True},
            "timeout must be -1 or a positive integer up to 2147483 seconds",
        ),
        (
            {**ARGS, "timeout": 2_147_484},
            "timeout must be -1 or a positive integer up to 2147483 seconds",
        ),
    ],
)
async def test_bad_arguments_come_back_as_error_results(svc, agent, arguments, message) -> None:
    tool = AskUserQuestionTool(svc, mode="timed")
    result = await tool.execute(arguments, call_id="c1", agent=agent)
    assert result.is_error
    assert result.content == f"Error: {message}"
    assert result.error is not None and result.error.name == "Error"
    assert agent.session.events[-1].type == "tool/result"


async def test_seam_failures_keep_name_and_code(svc, agent) -> None:
    tool = AskUserQuestionTool(svc)
    result = await tool.execute({"questions": []}, call_id="c1", agent=agent)
    assert result.content == "Error: ask_user_question requires at least one question"
    assert result.error is not None
    assert (result.error.name, result.error.code) == ("UserQuestionError", "EMPTY_QUESTIONS")
    result = await tool.execute(ARGS, call_id="c2", agent=agent)
    assert result.content == "Error: no user-questions answerer accepted the request"


async def test_timed_questions_need_an_agent(svc) -> None:
    result = await AskUserQuestionTool(svc, mode="timed").execute(ARGS, call_id="c1")
    assert result.content == "Error: timed questions require a live agent"


async def test_the_header_is_declared_once_per_mode(svc, agent) -> None:
    ScriptedAnswerer({"db": SKIP}).register(svc)
    timed = AskUserQuestionTool(svc, mode="timed")
    await timed.execute(ARGS, call_id="a", agent=agent)
    await timed.execute(ARGS, call_id="b", agent=agent)
    headers = [e for e in agent.session.events if e.type == "request/header"]
    assert len(headers) == 1
    await AskUserQuestionTool(svc).execute(ARGS, call_id="c", agent=agent)
    headers = [e for e in agent.session.events if e.type == "request/header"]
    assert len(headers) == 2
    settled = svc.projection(agent).to_wire()["settled"]
    assert [row["callId"] for row in settled] == ["a", "b"]
    assert settled[0]["answers"] == [{"id": "db", "selected": []}]


def test_a_bad_default_timeout_is_refused(svc) -> None:
    with pytest.raises(ValueError, match="timeout must be -1"):
        AskUserQuestionTool(svc, mode="timed", timeout=0)


async def test_scripted_answerer_checks_labels_and_delegates_unknown(svc) -> None:
    scripted = ScriptedAnswerer({"db": "MySQL"})
    scripted.register(svc)
    with pytest.raises(ipyask.UserQuestionError) as caught:
        await svc.ask({"questions": ARGS["questions"]})
    assert caught.value.code == "PROVIDER_ERROR"
    assert "none of its options" in str(caught.value)
    with pytest.raises(ipyask.UserQuestionError) as caught:
        await svc.ask({"questions": [{"id": "other", "question": "?"}]})
    assert caught.value.code == "NO_PROVIDER"
    strict = ScriptedAnswerer({}, delegate_unknown=False)
    strict.register(svc, prepend=True)
    with pytest.raises(ipyask.UserQuestionError, match="no answer for question"):
        await svc.ask({"questions": [{"id": "other", "question": "?"}]})


async def test_scripted_answerer_multi_select_and_callables(svc) -> None:
    scripted = ScriptedAnswerer(
        {
            "langs": ["Python", "Rust"],
            "why": Other("speed", selected=["Python"]),
            "free": lambda q: Other(q.id),
        }
    )
    scripted.register(svc)
    result = await svc.ask(
        {
            "questions": [
                {
                    "id": "langs",
                    "question": "L",
                    "multiSelect": True,
                    "options": [{"label": "Python"}, {"label": "Rust"}],
                },
                {
                    "id": "why",
                    "question": "W",
                    "multiSelect": True,
                    "options": [{"label": "Python"}],
                },
                {"id": "free", "question": "F"},
            ]
        }
    )
    assert result.to_wire()["answers"] == [
        {"id": "langs", "selected": ["Python", "Rust"]},
        {"id": "why", "selected": ["Python"], "custom": "speed"},
        {"id": "free", "selected": [], "custom": "free"},
    ]
    assert len(scripted.requests) == 1
