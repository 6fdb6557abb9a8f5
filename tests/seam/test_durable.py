"""Durable asks (the seam's durable variant): records in the session log, reuse by call id,
idempotent claims, and transport failures that leave the record open."""

from __future__ import annotations

import asyncio

import pytest

import ipyask
from ipyask import UserQuestionError
from ipyask._answered_by import card_digest
from ipyask.host import (
    AbortController,
    QuestionAnsweredEvent,
    QuestionAskedEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from ipyask.protocol import AskUserQuestionRequest

from ._helpers import answer, drain, question

OUTSIDE_TURN = "ask_user_question durable request requires an open turn"


@pytest.fixture
def turn(agent: ipyask.Agent) -> ipyask.Agent:
    """The agent, with a turn open in its session."""
    agent.session.append(TurnStartEvent(turn=1))
    return agent


def durable(agent: ipyask.Agent, call_id: str = "call-1", *items: dict[str, object]) -> dict:
    return {
        "questions": list(items) or [question("q1", "A", "B")],
        "agent": agent,
        "callId": call_id,
    }


def question_events(agent: ipyask.Agent) -> list[dict[str, object]]:
    return [
        event.to_wire()
        for event in agent.session.events
        if isinstance(event, (QuestionAskedEvent, QuestionAnsweredEvent))
    ]


class Held:
    """An answerer that records each request and holds it until told how to settle."""

    def __init__(self) -> None:
        self.requests: list[AskUserQuestionRequest] = []
        self.futures: list[asyncio.Future[object]] = []

    async def __call__(self, request: AskUserQuestionRequest, next: object) -> object:
        self.requests.append(request)
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        self.futures.append(future)
        return await future


async def test_a_durable_ask_records_asked_then_answered_in_the_session(svc, turn) -> None:
    held = Held()
    svc.on_request(held)
    asking = asyncio.ensure_future(svc.ask(durable(turn)))
    await drain()
    request = held.requests[0]
    assert request.request_id is not None
    assert request.durable_call_id == "call-1" and request.agent is turn
    asked = {
        "type": "user-questions/asked",
        "id": request.request_id,
        "callId": "call-1",
        "questions": [question("q1", "A", "B")],
    }
    assert question_events(turn) == [asked]
    assert isinstance(turn.session.events[-1], QuestionAskedEvent)
    held.futures[0].set_result(answer(("q1", ["A"])))
    assert await asking == answer(("q1", ["A"]))
    answered = question_events(turn)[1]
    # an answerer that does not say who answered is code answering through the API
    by = answered.pop("answeredBy")
    assert isinstance(by, dict) and isinstance(by.pop("at"), float)
    assert by == {
        "who": "ada",
        "door": "api",
        "digest": card_digest([question("q1", "A", "B")]),
    }
    assert answered == {
        "type": "user-questions/answered",
        "id": request.request_id,
        "outcome": "answered",
        "answer": {"answers": [{"id": "q1", "selected": ["A"]}]},
    }
    assert isinstance(turn.session.events[-1], QuestionAnsweredEvent)


@pytest.mark.parametrize("closing", [None, "turn/end"])
async def test_a_durable_ask_outside_a_turn_is_refused(svc, agent, closing) -> None:
    asked: list[object] = []
    svc.on_request(lambda request, next: asked.append(request))
    if closing:
        agent.session.append(TurnStartEvent(turn=1))
        agent.session.append({"type": "tool/call", "callId": "x", "name": "t", "arguments": "{}"})
        agent.session.append(TurnEndEvent(turn=1))
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask(durable(agent))
    assert (caught.value.code, str(caught.value)) == ("OUTSIDE_TURN", OUTSIDE_TURN)
    assert asked == [] and question_events(agent) == []


async def test_the_open_turn_is_the_latest_turn_start_without_a_turn_end_after_it(
    svc, agent
) -> None:
    svc.on_request(lambda request, next: answer(("q1", [])))
    for event in (TurnStartEvent(turn=1), TurnEndEvent(turn=1), TurnStartEvent(turn=2)):
        agent.session.append(event)
    agent.session.append({"type": "tool/call", "callId": "x", "name": "t", "arguments": "{}"})
    assert await svc.ask(durable(agent)) == answer(("q1", []))


async def test_validation_runs_before_the_turn_check(svc, agent) -> None:
    bad = question("q1", "A", detail="d", intent={"kind": "plan-review", "approve": "Z"})
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask(durable(agent, "c", bad))
    assert caught.value.code == "BAD_INTENT"
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask({"questions": [], "agent": agent, "callId": "c"})
    assert caught.value.code == "EMPTY_QUESTIONS"
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask(durable(ipyask.Agent("main")))
    assert caught.value.code == "CALLER_NOT_LIVE"


@pytest.mark.parametrize(
    "shape",
    [
        {"callId": "c1", "wait": {"callId": "c1"}},
        {"callId": "c1", "wait": {"callId": "c1", "timed": True}},
        {"callId": "c1", "agent": None},
        {},
    ],
)
async def test_only_agent_plus_call_id_without_wait_is_durable(svc, agent, shape) -> None:
    request: dict[str, object] = {"questions": [question()], "agent": agent, **shape}
    with pytest.raises(UserQuestionError) as caught:  # no turn, no answerer
        await svc.ask(request)
    assert caught.value.code == "NO_PROVIDER"
    assert question_events(agent) == []


async def test_asking_again_with_an_answered_call_id_returns_the_answer_at_once(svc, turn):
    calls: list[object] = []

    def once(request: AskUserQuestionRequest, next: object) -> object:
        calls.append(request)
        return answer(("q1", ["B"]))

    svc.on_request(once)
    first = await svc.ask(durable(turn))
    again = await svc.ask(durable(turn, "call-1", question("q9", "Other")))
    assert first == again == answer(("q1", ["B"]))
    assert len(calls) == 1
    assert len(question_events(turn)) == 2


@pytest.mark.parametrize(
    ("raised", "outcome", "code", "message"),
    [
        ("ASK_CANCELLED", "cancelled", "ASK_CANCELLED", "the user cancelled ask_user_question"),
        (None, "unavailable", "NO_PROVIDER", "no user-questions answerer accepted the request"),
    ],
)
async def test_a_settled_failure_is_recorded_and_reused(
    svc, turn, raised, outcome, code, message
) -> None:
    calls: list[object] = []

    async def answerer(request: AskUserQuestionRequest, next: object) -> object:
        calls.append(request)
        if raised is None:
            return await next()  # type: ignore[operator]
        raise UserQuestionError.of(raised)

    svc.on_request(answerer)
    for _ in range(2):
        with pytest.raises(UserQuestionError) as caught:
            await svc.ask(durable(turn))
        assert (caught.value.code, str(caught.value)) == (code, message)
    assert len(calls) == 1
    record_id = calls[0].request_id  # type: ignore[attr-defined]
    settled = question_events(turn)[1]
    by = settled.pop("answeredBy")
    assert isinstance(by, dict) and by["door"] == "api"
    assert settled == {
        "type": "user-questions/answered",
        "id": record_id,
        "outcome": outcome,
        "error": {"name": "UserQuestionError", "code": code, "message": message},
    }


async def test_an_aborted_signal_cancels_the_record_with_ask_aborted(svc, turn) -> None:
    held = Held()
    svc.on_request(held)
    controller = AbortController()
    reason = RuntimeError("turn stopped")
    asking = asyncio.ensure_future(svc.ask({**durable(turn), "signal": controller.signal}))
    await drain()
    controller.abort(reason)
    with pytest.raises(UserQuestionError) as caught:
        await asking
    assert caught.value.code == "ASK_ABORTED"
    assert caught.value.__cause__ is reason
    answered = question_events(turn)[1]
    assert (answered["outcome"], answered["error"]["code"]) == ("cancelled", "ASK_ABORTED")  # type: ignore[index]
    assert held.futures[0].cancelled()  # the settled question's answerers are released
    with pytest.raises(UserQuestionError) as again:
        await svc.ask(durable(turn))
    assert again.value.code == "ASK_ABORTED"


@pytest.mark.parametrize(
    "failure", [ConnectionError("comm closed"), UserQuestionError("gone", "TRANSPORT_LOST")]
)
async def test_a_transport_failure_leaves_the_record_pending(svc, turn, failure) -> None:
    async def broken(request: AskUserQuestionRequest, next: object) -> object:
        raise failure

    svc.on_request(broken)
    asking = asyncio.ensure_future(svc.ask(durable(turn)))
    await drain()
    assert not asking.done()
    [record] = svc.pending(turn)
    assert (record.call_id, record.terminal) == ("call-1", None)
    assert svc.respond(turn, record.id, answer(("q1", ["A"]))).status == "accepted"
    assert await asking == answer(("q1", ["A"]))
    assert svc.pending(turn) == []


async def test_respond_is_an_idempotent_claim(svc, turn) -> None:
    held = Held()
    svc.on_request(held)
    asking = asyncio.ensure_future(svc.ask(durable(turn)))
    await drain()
    request_id = held.requests[0].request_id
    assert request_id is not None
    first = svc.respond(turn, request_id, {"answers": [{"id": "q1", "selected": ["A"]}]})
    assert first.answered_by is not None and first.answered_by.door == "api"
    assert first.model_copy(update={"answered_by": None}).to_wire() == {
        "status": "accepted",
        "outcome": "answered",
        "answer": {"answers": [{"id": "q1", "selected": ["A"]}]},
    }
    assert await asking == answer(("q1", ["A"]))
    second = svc.respond(turn, request_id, answer(("q1", ["B"])))
    assert second.answered_by == first.answered_by  # who settled it, told to the later claim
    assert second.model_copy(update={"answered_by": None}).to_wire() == {
        "status": "already-resolved",
        "outcome": "answered",
        "answer": {"answers": [{"id": "q1", "selected": ["A"]}]},
    }
    assert svc.cancel(turn, request_id).status == "already-resolved"
    assert svc.respond(turn, "no-such-id", answer(("q1", []))).to_wire() == {
        "status": "not-pending"
    }
    assert svc.cancel(turn, "no-such-id").status == "not-pending"
    await drain()
    assert held.futures[0].cancelled()  # the answerer's late answer records nothing
    assert len(question_events(turn)) == 2


async def test_a_claim_the_agent_could_not_use_is_refused_and_the_record_stays_open(
    svc, turn
) -> None:
    held = Held()
    svc.on_request(held)
    asking = asyncio.ensure_future(svc.ask(durable(turn)))
    await drain()
    request_id = held.requests[0].request_id
    assert request_id is not None
    with pytest.raises(ipyask.errors.BadAnswerError) as caught:
        svc.respond(turn, request_id, answer(("q1", ["Z"])))
    assert caught.value.code == "BAD_ANSWER"
    assert caught.value.field_errors == {"": "'Z' is not an option of question q1"}
    with pytest.raises(UserQuestionError) as unknown:
        svc.respond(turn, request_id, answer(("q9", ["A"])))
    assert unknown.value.code == "BAD_ANSWER"
    assert str(unknown.value) == (
        "the answer batch for call-1 must name each of its 1 questions exactly once"
    )
    assert [record.id for record in svc.pending(turn)] == [request_id]
    assert len(question_events(turn)) == 1 and not asking.done()
    assert svc.respond(turn, request_id, answer(("q1", ["B"]))).status == "accepted"
    assert await asking == answer(("q1", ["B"]))


async def test_cancel_settles_the_asker_with_ask_cancelled(svc, turn) -> None:
    held = Held()
    svc.on_request(held)
    asking = asyncio.ensure_future(svc.ask(durable(turn)))
    await drain()
    request_id = held.requests[0].request_id
    cancelled = svc.cancel(turn, request_id)  # type: ignore[arg-type]
    assert cancelled.answered_by is not None and cancelled.answered_by.who == "ada"
    assert cancelled.model_copy(update={"answered_by": None}).to_wire() == {
        "status": "accepted",
        "outcome": "cancelled",
    }
    with pytest.raises(UserQuestionError) as caught:
        await asking
    assert caught.value.code == "ASK_CANCELLED"
    again = svc.cancel(turn, request_id)  # type: ignore[arg-type]
    assert again.answered_by == cancelled.answered_by
    assert again.model_copy(update={"answered_by": None}).to_wire() == {
        "status": "already-resolved",
        "outcome": "cancelled",
    }


async def test_asking_again_while_open_joins_the_same_record(svc, turn) -> None:
    held = Held()
    svc.on_request(held)
    first = asyncio.ensure_future(svc.ask(durable(turn)))
    second = asyncio.ensure_future(svc.ask(durable(turn, "call-1", question("q9"))))
    await drain()
    assert len(held.requests) == 1
    assert len(question_events(turn)) == 1
    held.futures[0].set_result(answer(("q1", [])))
    assert await first == await second == answer(("q1", []))


async def test_pending_lists_open_records_in_ask_order(svc, turn) -> None:
    held = Held()
    svc.on_request(held)
    tasks = [asyncio.ensure_future(svc.ask(durable(turn, f"c{n}"))) for n in range(3)]
    await drain()
    assert [record.call_id for record in svc.pending(turn)] == ["c0", "c1", "c2"]
    assert svc.pending(turn.session) == svc.pending(turn)
    held.futures[1].set_result(answer(("q1", [])))
    await tasks[1]
    assert [record.call_id for record in svc.pending(turn)] == ["c0", "c2"]
    assert svc.pending(turn)[0].questions == [question("q1", "A", "B")]
    for task in tasks:
        task.cancel()


async def test_cancelling_the_asker_leaves_the_record_answerable(svc, turn) -> None:
    held = Held()
    svc.on_request(held)
    asking = asyncio.ensure_future(svc.ask(durable(turn)))
    await drain()
    asking.cancel()
    with pytest.raises(ipyask.AskCancelledError) as caught:
        await asking
    assert caught.value.code == "ASK_ABORTED"
    [record] = svc.pending(turn)
    assert svc.respond(turn, record.id, answer(("q1", ["A"]))).status == "accepted"
    # the agent re-runs and asks the same call again: the recorded answer, at once
    assert await svc.ask(durable(turn)) == answer(("q1", ["A"]))


async def test_closing_the_service_leaves_durable_records_open(svc, turn) -> None:
    svc.on_request(Held())
    asking = asyncio.ensure_future(svc.ask(durable(turn)))
    await drain()
    await svc.aclose()
    with pytest.raises(UserQuestionError) as caught:
        await asking
    assert caught.value.code == "ASK_ABORTED"
    assert [record.call_id for record in svc.pending(turn)] == ["call-1"]


async def test_a_cancelled_asker_asking_again_joins_the_open_dispatch(svc, turn) -> None:
    held = Held()
    svc.on_request(held)
    first = asyncio.ensure_future(svc.ask(durable(turn)))
    await drain()
    first.cancel()
    await drain()
    asking = asyncio.ensure_future(svc.ask(durable(turn)))
    await drain()
    assert len(held.requests) == 1  # the card of the open record is still up
    held.futures[0].set_result(answer(("q1", [])))
    assert await asking == answer(("q1", []))


async def test_a_new_service_dispatches_an_open_record_with_its_recorded_questions(
    svc, turn, clock
) -> None:
    svc.on_request(Held())
    first = asyncio.ensure_future(svc.ask(durable(turn)))
    await drain()
    await svc.aclose()  # the process that asked is gone; its session log remains
    with pytest.raises(UserQuestionError):
        await first
    restarted = ipyask.UserQuestions(clock=clock)
    agent = restarted.agents.enter(ipyask.Agent("main", session=turn.session))
    held = Held()
    restarted.on_request(held)
    asking = asyncio.ensure_future(restarted.ask(durable(agent, "call-1", question("changed"))))
    await drain()
    [request] = held.requests
    assert request.request_id == restarted.pending(agent)[0].id
    assert [q.id for q in request.questions] == ["q1"]
    held.futures[0].set_result(answer(("q1", [])))
    assert await asking == answer(("q1", []))
    assert len(question_events(agent)) == 2


def test_session_events_are_typed_models_in_the_union() -> None:
    session = ipyask.host.Session("s")
    asked = session.append(
        {"type": "user-questions/asked", "id": "r", "callId": "c", "questions": [question()]}
    )
    answered = session.append(
        {
            "type": "user-questions/answered",
            "id": "r",
            "outcome": "answered",
            "answer": {"answers": [{"id": "q1", "selected": []}]},
        }
    )
    assert isinstance(asked, QuestionAskedEvent) and isinstance(answered, QuestionAnsweredEvent)
    with pytest.raises(ValueError, match="outcome"):
        session.append({"type": "user-questions/answered", "id": "r", "outcome": "maybe"})
    # The event keeps the questions in wire form; the vocabulary that validates them sits above
    # the session log (it knows agents, whose sessions hold these events), so the durable ask
    # writes them from validated items and the event checks their shape.
    with pytest.raises(ValueError, match="questions"):
        session.append(
            {"type": "user-questions/asked", "id": "r", "callId": "c", "questions": ["q"]}
        )
