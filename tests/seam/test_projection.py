from __future__ import annotations

import json

import ipyask
from ipyask._projection import answer_batch_of, fold, questions_of
from ipyask.host import Session

TIMED_TOOL = ipyask.host.ask_user_question_definition("timed").to_wire()
LEGACY_TOOL = ipyask.host.ask_user_question_definition("legacy").to_wire()
ARGS = json.dumps({"questions": [{"id": "q1", "question": "Q?", "options": [{"label": "A"}]}]})
PENDING = [{"type": "text", "text": '{"pending":true,"callId":"c1","message":"m"}'}]
BATCH = [{"type": "text", "text": '{"answers":[{"id":"q1","selected":["A"]}]}'}]


def log(*events: dict) -> list:
    session = Session()
    for event in events:
        session.append(event)
    return list(session.events)


def header(*tools: object) -> dict:
    return {"type": "request/header", "tools": list(tools)}


def call(call_id: str = "c1", arguments: str = ARGS, name: str = "ask_user_question") -> dict:
    return {"type": "tool/call", "callId": call_id, "name": name, "arguments": arguments}


def result(call_id: str = "c1", content: object = BATCH, **extra: object) -> dict:
    return {"type": "tool/result", "callId": call_id, "content": content, **extra}


def test_calls_are_tracked_only_under_a_timed_header() -> None:
    assert fold(log(call())).to_wire() == {"active": [], "settled": []}
    assert fold(log(header(LEGACY_TOOL), call())).active == []
    assert fold(log({"type": "request/header", "tools": "{{tools}}"}, call())).active == []
    assert fold(log(header("{{tools}}", 3), call())).active == []
    assert fold(log({"type": "request/header"}, call())).active == []
    view = fold(log(header(TIMED_TOOL), call()))
    assert view.to_wire()["active"] == [
        {
            "callId": "c1",
            "questions": [{"id": "q1", "question": "Q?", "options": [{"label": "A"}]}],
            "state": "open",
        }
    ]
    assert fold(log(header(TIMED_TOOL), header(LEGACY_TOOL), call())).active == []


def test_a_result_in_the_window_settles_with_its_batch() -> None:
    view = fold(log(header(TIMED_TOOL), call(), result()))
    assert view.active == []
    assert view.to_wire()["settled"] == [
        {"callId": "c1", "answers": [{"id": "q1", "selected": ["A"]}]}
    ]


def test_pending_or_unknown_outcome_continues_and_other_results_drop() -> None:
    pending = fold(log(header(TIMED_TOOL), call(), result(content=PENDING)))
    assert [row.state for row in pending.active] == ["continued"]
    repaired = fold(
        log(
            header(TIMED_TOOL),
            call(),
            result(content="", isError=True, error={"code": "TOOL_OUTCOME_UNKNOWN"}),
        )
    )
    assert [row.state for row in repaired.active] == ["continued"]
    for dropped in (
        result(content="Error: x", isError=True),
        result(error={"code": "ASK_ABORTED"}),
        result(content=[{"type": "image"}]),
        result(content='{"answers":[{"id":"q1","selected":["A"],"extra":1}]}'),
    ):
        view = fold(log(header(TIMED_TOOL), call(), dropped))
        assert view.active == [] and view.settled == []


def test_a_reused_call_id_moves_the_row_to_the_end_as_open() -> None:
    view = fold(log(header(TIMED_TOOL), call("c1"), call("c2"), result("c1", PENDING), call("c1")))
    assert [(row.call_id, row.state) for row in view.active] == [("c2", "open"), ("c1", "open")]


def reply(call_id: str, body: object, message_id: str = "m1") -> dict:
    text = body if isinstance(body, str) else json.dumps(body)
    return {
        "type": "user/message",
        "messageId": message_id,
        "source": {"kind": "user-question-reply", "callId": call_id, "outcome": "answered"},
        "content": [{"type": "text", "text": text}],
    }


def test_an_admitted_late_reply_settles_with_its_batch_or_none() -> None:
    body = {"kind": "answer_to_pending_question", "answers": [{"id": "q1", "selected": ["A"]}]}
    view = fold(log(header(TIMED_TOOL), call(), result(content=PENDING), reply("c1", body)))
    assert view.to_wire()["settled"] == [
        {"callId": "c1", "answers": [{"id": "q1", "selected": ["A"]}]}
    ]
    unreadable = fold(log(header(TIMED_TOOL), call(), result(content=PENDING), reply("c1", "hi")))
    assert unreadable.to_wire()["settled"] == [{"callId": "c1", "answers": []}]
    unknown = fold(log(header(TIMED_TOOL), call(), result(content=PENDING), reply("zz", body)))
    assert [row.call_id for row in unknown.active] == ["c1"] and unknown.settled == []
    plain = {"type": "user/message", "messageId": "m", "content": "hello"}
    assert len(fold(log(header(TIMED_TOOL), call(), plain)).active) == 1


def test_a_pending_ptc_sub_call_enters_without_a_timed_header() -> None:
    dispatch = {
        "type": "tool/ptc-dispatch",
        "callId": "run_1",
        "subCallId": "run_1:ptc:1",
        "name": "ask_user_question",
        "arguments": {"questions": [{"id": "q1", "question": "Q?"}]},
        "content": PENDING,
    }
    view = fold(log(header({"name": "run_code", "parameters": {}}), dispatch))
    assert [(row.call_id, row.state) for row in view.active] == [("run_1:ptc:1", "continued")]
    for ignored in ({"isError": True}, {"name": "other"}, {"content": BATCH}):
        assert fold(log({**dispatch, **ignored})).active == []


def test_questions_of_maps_tool_arguments_to_vocabulary() -> None:
    parsed = questions_of(
        '{"questions":[{"id":"a","question":"Q","multi_select":true,"x":1,'
        '"options":[{"label":"L","description":"D","y":2}]}]}'
    )
    assert parsed is not None
    assert [q.to_wire() for q in parsed] == [
        {
            "id": "a",
            "question": "Q",
            "multiSelect": True,
            "options": [{"label": "L", "description": "D"}],
        }
    ]
    for bad in ("nope", "[]", '{"questions":[]}', '{"questions":[{"id":1,"question":"Q"}]}'):
        assert questions_of(bad) is None


def test_answer_batch_of_is_strict_about_items() -> None:
    assert answer_batch_of('{"answers":[],"more":1}') == []
    assert answer_batch_of('{"answers":[{"id":"a","selected":[1]}]}') is None
    assert answer_batch_of('{"answers":[{"id":"a","selected":[],"custom":3}]}') is None
    assert answer_batch_of("not json") is None


def test_the_service_projection_is_incremental_and_matches_a_full_fold() -> None:
    svc = ipyask.UserQuestions()
    session = Session()
    session.append(header(TIMED_TOOL))
    session.append(call("c1"))
    assert svc.projection(session) == fold(session.events)
    session.append(result("c1", PENDING))
    session.append(call("c2"))
    assert svc.projection(session) == fold(session.events)
    assert [row.state for row in svc.projection(session).active] == ["continued", "open"]
