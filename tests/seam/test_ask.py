from __future__ import annotations

import asyncio

import pytest

import ipyask
from ipyask import UserQuestionError
from ipyask.errors import HarnessError
from ipyask.protocol import AskUserQuestionRequest

from ._helpers import answer, drain, question

MESSAGES = {
    "ASK_ABORTED": "ask_user_question was aborted before the user answered",
    "EMPTY_QUESTIONS": "ask_user_question requires at least one question",
    "CALLER_NOT_LIVE": (
        "human interaction requires the exact live calling agent when an agent is supplied"
    ),
    "DELEGATED_CALLER": (
        "human interaction is unavailable while the calling agent is owned by another live "
        "agent; include the unresolved question or decision in the child agent's final result"
    ),
    "NO_PROVIDER": "no user-questions answerer accepted the request",
}


def claim_with(result: ipyask.protocol.AskUserQuestionAnswer, seen: list[object] | None = None):
    async def answerer(request, next):
        if seen is not None:
            seen.append(request)
        return result

    return answerer


def delegate(log: list[str], name: str):
    async def answerer(request, next):
        log.append(name)
        return await next()

    return answerer


def aborted_signal() -> ipyask.host.AbortSignal:
    controller = ipyask.host.AbortController()
    controller.abort()
    return controller.signal


async def test_an_agentless_ask_reaches_the_listener_with_the_request_as_is(svc) -> None:
    seen: list[object] = []
    svc.on_request(claim_with(answer(("q1", ["A"])), seen))
    request = AskUserQuestionRequest.model_validate({"questions": [question("q1", "A", "B")]})
    result = await svc.ask(request)
    assert result == answer(("q1", ["A"]))
    assert seen == [request]
    assert seen[0] is request


async def test_a_dict_request_in_wire_form_is_accepted(svc) -> None:
    seen: list[AskUserQuestionRequest] = []
    svc.on_request(claim_with(answer(("q1", [])), seen))
    await svc.ask({"questions": [question("q1", "A", multiSelect=True)]})
    assert seen[0].questions[0].multi_select is True


async def test_a_request_of_the_wrong_type_is_a_type_error(svc) -> None:
    with pytest.raises(TypeError, match="AskUserQuestionRequest or a dict"):
        await svc.ask(["not", "a", "request"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("setup", "code"),
    [
        ({"signal": "aborted", "questions": []}, "ASK_ABORTED"),
        ({"questions": [], "agent": "stale"}, "EMPTY_QUESTIONS"),
        ({"questions": ["ok"], "agent": "stale", "intent": "bad"}, "CALLER_NOT_LIVE"),
        ({"questions": ["ok"], "agent": "child", "intent": "bad"}, "DELEGATED_CALLER"),
        ({"questions": ["ok"], "intent": "bad"}, "BAD_INTENT"),
        ({"questions": ["ok"]}, "NO_PROVIDER"),
    ],
)
async def test_validation_runs_in_the_reference_order(svc, agent, setup, code) -> None:
    items = [question("q1", "A", detail="d")] if setup["questions"] else []
    if setup.get("intent"):
        items[0]["intent"] = {"kind": "plan-review", "approve": "Missing"}
    request: dict[str, object] = {"questions": items}
    if setup.get("signal"):
        request["signal"] = aborted_signal()
    if setup.get("agent") == "stale":
        request["agent"] = ipyask.Agent("main")  # same id, not the live instance
    elif setup.get("agent") == "child":
        request["agent"] = svc.agents.enter(ipyask.Agent("child", owner=agent))
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask(request)
    assert caught.value.code == code
    if code in MESSAGES:
        assert str(caught.value) == MESSAGES[code]
    assert caught.value.name == "UserQuestionError"


async def test_liveness_is_identity_not_id(svc, agent) -> None:
    svc.on_request(claim_with(answer(("q1", []))))
    await svc.ask({"questions": [question()], "agent": agent})
    replacement = svc.agents.enter(ipyask.Agent("main"))
    with pytest.raises(UserQuestionError, match="exact live calling agent"):
        await svc.ask({"questions": [question()], "agent": agent})
    await svc.ask({"questions": [question()], "agent": replacement})
    svc.agents.leave(replacement)
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask({"questions": [question()], "agent": replacement})
    assert caught.value.code == "CALLER_NOT_LIVE"


async def test_bad_intent_messages_match_the_reference(svc) -> None:
    svc.on_request(claim_with(answer(("p", []))))
    label = {"id": "p", "question": "Ship?", "detail": "plan", "options": [{"label": "Yes"}]}
    label["intent"] = {"kind": "plan-review", "approve": 'Ship "it"'}
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask({"questions": [label]})
    assert str(caught.value) == (
        'question p declares intent plan-review whose approve label "Ship \\"it\\"" '
        "names none of its options"
    )
    no_options = {"id": "n", "question": "Q", "detail": "d"}
    no_options["intent"] = {"kind": "plan-review", "approve": "Yes"}
    with pytest.raises(UserQuestionError, match="names none of its options"):
        await svc.ask({"questions": [no_options]})
    no_detail = {"id": "p", "question": "Ship?", "options": [{"label": "Yes"}]}
    no_detail["intent"] = {"kind": "plan-review", "approve": "Yes"}
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask({"questions": [no_detail]})
    assert (
        str(caught.value) == "question p declares intent plan-review without the detail it reviews"
    )
    assert caught.value.code == "BAD_INTENT"
    empty_detail = dict(no_detail, detail="")
    assert await svc.ask({"questions": [empty_detail]}) == answer(("p", []))


async def test_intent_checks_run_per_question_in_order(svc) -> None:
    ok = question("a", "Yes", detail="d", intent={"kind": "plan-review", "approve": "Yes"})
    bad_label = question("b", "Yes", intent={"kind": "plan-review", "approve": "No"})
    bad_detail = question("c", "Yes", intent={"kind": "plan-review", "approve": "Yes"})
    with pytest.raises(UserQuestionError, match="question b declares"):
        await svc.ask({"questions": [ok, bad_label, bad_detail]})
    with pytest.raises(UserQuestionError, match="question c declares"):
        await svc.ask({"questions": [ok, bad_detail, bad_label]})


async def test_unknown_intent_kinds_are_never_rejected(svc) -> None:
    seen: list[AskUserQuestionRequest] = []
    svc.on_request(claim_with(answer(("m", [])), seen))
    item = question("m", "A", intent={"kind": "member-question", "approve": "Nope"})
    await svc.ask({"questions": [item]})
    assert isinstance(seen[0].questions[0].intent, ipyask.host.UnknownIntent)


def approval(**changes: object) -> dict[str, object]:
    intent = {"kind": "approval", "approve": "Allow once", "reject": "Reject"}
    intent.update(changes.pop("intent", {}))  # type: ignore[arg-type]
    item = question("ok", "Reject", "Allow once", detail="rm -rf build/", intent=intent)
    item.update(changes)
    return item


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (
            {"questions": [approval(), question("x")]},
            "question ok declares intent approval in a request of 2 questions; "
            "an approval must be asked alone",
        ),
        (
            {"questions": [approval(multiSelect=True)]},
            "question ok declares intent approval with multiSelect; "
            "an approval takes exactly one decision",
        ),
        (
            {"questions": [approval(intent={"reject": "Allow once"})]},
            "question ok declares intent approval whose approve, reject and always labels "
            "are not distinct",
        ),
        (
            {"questions": [approval(intent={"always": "Reject"})]},
            "question ok declares intent approval whose approve, reject and always labels "
            "are not distinct",
        ),
        (
            {"questions": [approval(intent={"reject": "Deny"})]},
            'question ok declares intent approval whose reject label "Deny" names none of its '
            "options",
        ),
        (
            {"questions": [approval(intent={"always": "Always"})]},
            'question ok declares intent approval whose always label "Always" names none of its '
            "options",
        ),
        (
            {
                "questions": [
                    approval(
                        options=[{"label": "Reject"}, {"label": "Allow once"}, {"label": "Maybe"}]
                    )
                ]
            },
            'question ok declares intent approval offers option "Maybe", which is none of its '
            "action labels",
        ),
        (
            {
                "questions": [
                    approval(
                        options=[{"label": "Reject"}, {"label": "Allow once"}, {"label": "Reject"}]
                    )
                ]
            },
            'question ok declares intent approval offers option "Reject" more than once',
        ),
        (
            {"questions": [approval(detail=None)]},
            "question ok declares intent approval without the detail it reviews",
        ),
    ],
)
async def test_approval_intent_rules(svc, request_, message) -> None:
    svc.on_request(claim_with(answer(("ok", ["Reject"]))))
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask(request_)
    assert caught.value.code == "BAD_INTENT"
    assert str(caught.value) == message


async def test_a_valid_approval_is_asked(svc) -> None:
    svc.on_request(claim_with(answer(("ok", ["Always"]))))
    item = approval(intent={"always": "Always"})
    item["options"] = [{"label": "Reject"}, {"label": "Allow once"}, {"label": "Always"}]
    assert await svc.ask({"questions": [item], "wait": {"callId": "c"}}) == answer(
        ("ok", ["Always"])
    )


async def test_an_approval_cannot_be_timed(svc, agent) -> None:
    with pytest.raises(UserQuestionError, match="with a timed wait") as caught:
        await svc.ask_timed({"questions": [approval()], "agent": agent}, "call", 1000)
    assert caught.value.code == "BAD_INTENT"
    assert svc.live_wait(agent, "call") is None


async def test_the_waterfall_runs_first_registered_first_and_prepend_first(svc) -> None:
    log: list[str] = []
    svc.on_request(delegate(log, "first"))
    svc.on_request(delegate(log, "second"))
    svc.on_request(delegate(log, "front"), prepend=True)
    svc.on_request(delegate(log, "very front"), prepend=True)
    svc.on_request(claim_with(answer(("q1", ["A"]))))
    svc.on_request(delegate(log, "never"))
    assert await svc.ask({"questions": [question("q1", "A")]}) == answer(("q1", ["A"]))
    assert log == ["very front", "front", "first", "second"]


async def test_when_every_answerer_delegates_the_ask_fails_with_no_provider(svc) -> None:
    log: list[str] = []
    svc.on_request(delegate(log, "only"))
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask({"questions": [question()]})
    assert caught.value.code == "NO_PROVIDER"
    assert log == ["only"]


async def test_disposal_is_idempotent_and_removes_only_that_registration(svc) -> None:
    log: list[str] = []
    listener = delegate(log, "twice")
    off_one = svc.on_request(listener)
    svc.on_request(listener)
    off_one()
    off_one()
    with pytest.raises(UserQuestionError):
        await svc.ask({"questions": [question()]})
    assert log == ["twice"]


async def test_scope_filter_admits_the_agent_its_owners_and_unscoped_listeners(svc, agent) -> None:
    other = svc.agents.enter(ipyask.Agent("other"))
    log: list[str] = []
    svc.on_request(delegate(log, "unscoped"))
    svc.on_request(delegate(log, "main"), agent=agent)
    svc.on_request(delegate(log, "other"), agent=other)
    svc.on_request(claim_with(answer(("q1", []))))
    await svc.ask({"questions": [question()], "agent": agent})
    assert log == ["unscoped", "main"]
    log.clear()
    await svc.ask({"questions": [question()]})
    assert log == ["unscoped", "main", "other"]


async def test_a_listener_scoped_to_an_owner_sees_its_subagents_requests(svc, agent) -> None:
    # Events flow up the ownership chain, never down: a scope test through the waterfall alone,
    # since a subagent itself may not ask.
    child = ipyask.Agent("child", owner=agent)
    grandchild = ipyask.Agent("grandchild", owner=child)
    waterfall = svc._waterfall
    log: list[str] = []
    waterfall.on(delegate(log, "main"), agent=agent)
    waterfall.on(delegate(log, "child"), agent=child)
    waterfall.on(delegate(log, "grandchild"), agent=grandchild)

    async def done():
        return answer()

    request = AskUserQuestionRequest.model_validate({"questions": [question()]})
    await waterfall.dispatch(request, grandchild, done)
    assert log == ["main", "child", "grandchild"]
    log.clear()
    await waterfall.dispatch(request, agent, done)
    assert log == ["main"]


async def test_with_an_agent_listeners_receive_it_on_the_request(svc, agent) -> None:
    seen: list[AskUserQuestionRequest] = []
    svc.on_request(claim_with(answer(("q1", [])), seen))
    await svc.ask({"questions": [question()], "agent": agent})
    assert seen[0].agent is agent


async def test_a_non_harness_failure_becomes_provider_error_keeping_message_and_cause(svc) -> None:
    failure = RuntimeError("the widget exploded")

    async def broken(request, next):
        raise failure

    svc.on_request(broken)
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask({"questions": [question()]})
    assert caught.value.code == "PROVIDER_ERROR"
    assert str(caught.value) == "the widget exploded"
    assert caught.value.__cause__ is failure


async def test_a_coded_harness_error_keeps_its_name_and_code(svc) -> None:
    class GatewayError(HarnessError):
        pass

    failure = GatewayError("gateway down", "GATEWAY_DOWN")

    async def broken(request, next):
        raise failure

    svc.on_request(broken)
    with pytest.raises(GatewayError) as caught:
        await svc.ask({"questions": [question()]})
    assert caught.value is failure
    assert caught.value.name == "GatewayError"
    assert caught.value.code == "GATEWAY_DOWN"


async def test_a_transported_user_question_error_is_restored(svc) -> None:
    class RemoteError(Exception):
        def __init__(self) -> None:
            super().__init__("remote")
            self.name = "UserQuestionError"
            self.code = "ASK_CANCELLED"
            self.message = "the user cancelled ask_user_question"

    transported = RemoteError()

    async def remote(request, next):
        raise transported

    svc.on_request(remote)
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask({"questions": [question()]})
    assert type(caught.value) is UserQuestionError
    assert caught.value.code == "ASK_CANCELLED"
    assert str(caught.value) == "the user cancelled ask_user_question"
    assert caught.value.__cause__ is transported


def test_restore_error_rebuilds_wire_payloads_and_leaves_others() -> None:
    restored = ipyask.host.restore_error(
        {"name": "UserQuestionError", "code": "ASK_TIMED_OUT", "message": "late"}
    )
    assert isinstance(restored, UserQuestionError)
    assert (restored.code, str(restored)) == ("ASK_TIMED_OUT", "late")
    for untouched in (
        {"name": "UserQuestionError", "code": 3, "message": "m"},
        {"name": "Other", "code": "X", "message": "m"},
        ValueError("plain"),
        "text",
    ):
        assert ipyask.host.restore_error(untouched) is untouched
    real = UserQuestionError.of("ASK_CANCELLED")
    assert ipyask.host.restore_error(real) is real
    assert real.to_wire() == {
        "name": "UserQuestionError",
        "code": "ASK_CANCELLED",
        "message": "the user cancelled ask_user_question",
    }


async def test_an_answerer_that_returns_no_answer_is_a_provider_error(svc) -> None:
    async def sloppy(request, next):
        return {"answer": "yes"}

    svc.on_request(sloppy)
    with pytest.raises(UserQuestionError, match="returned dict, not an answer batch") as caught:
        await svc.ask({"questions": [question()]})
    assert caught.value.code == "PROVIDER_ERROR"


async def test_a_plain_function_answerer_and_a_wire_dict_answer_work(svc) -> None:
    svc.on_request(lambda request, next: {"answers": [{"id": "q1", "selected": ["A"]}]})
    assert await svc.ask({"questions": [question("q1", "A")]}) == answer(("q1", ["A"]))


async def test_the_first_answerer_is_called_before_the_asker_first_yields(svc) -> None:
    # What an answerer does before it awaits (a panel shows its card) is not a loop turn late.
    calls: list[AskUserQuestionRequest] = []
    decided: asyncio.Future[ipyask.protocol.AskUserQuestionAnswer] = asyncio.Future()

    def answerer(request, next):
        calls.append(request)
        return decided

    svc.on_request(answerer)
    task = asyncio.ensure_future(svc.ask({"questions": [question()]}))
    await asyncio.sleep(0)  # one turn: the asking task's first step only
    assert len(calls) == 1
    decided.set_result(answer(("q1", ["A"])))
    assert await task == answer(("q1", ["A"]))


@pytest.mark.parametrize(
    ("failure", "code"),
    [(RuntimeError("boom"), "PROVIDER_ERROR"), (UserQuestionError.of("ASK_CANCELLED"), None)],
)
async def test_a_plain_answerer_raising_at_once_fails_the_ask_like_an_async_one(
    svc, failure, code
) -> None:
    def broken(request, next):
        raise failure

    svc.on_request(broken)
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask({"questions": [question()]})
    if code is None:
        assert caught.value is failure
    else:
        assert caught.value.code == code
        assert caught.value.__cause__ is failure


async def test_a_signal_aborted_while_waiting_ends_the_ask(svc) -> None:
    controller = ipyask.host.AbortController()
    seen: list[AskUserQuestionRequest] = []
    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def slow(request, next):
        seen.append(request)
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    svc.on_request(slow)
    task = asyncio.ensure_future(svc.ask({"questions": [question()], "signal": controller.signal}))
    await started.wait()
    reason = ValueError("turn over")
    controller.abort(reason)
    with pytest.raises(UserQuestionError) as caught:
        await task
    assert caught.value.code == "ASK_ABORTED"
    assert caught.value.__cause__ is reason
    await drain()
    assert cancelled.is_set()
    assert seen[0].signal is controller.signal


async def test_a_domain_error_wins_over_the_abort(svc) -> None:
    controller = ipyask.host.AbortController()

    async def cancels(request, next):
        controller.abort()
        raise UserQuestionError.of("ASK_CANCELLED")

    svc.on_request(cancels)
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask({"questions": [question()], "signal": controller.signal})
    assert caught.value.code == "ASK_CANCELLED"


async def test_a_non_domain_failure_after_abort_is_ask_aborted_with_cause(svc) -> None:
    controller = ipyask.host.AbortController()
    failure = KeyError("x")

    async def fails(request, next):
        controller.abort()
        raise failure

    svc.on_request(fails)
    with pytest.raises(UserQuestionError) as caught:
        await svc.ask({"questions": [question()], "signal": controller.signal})
    assert caught.value.code == "ASK_ABORTED"
    assert caught.value.__cause__ is failure


async def test_cancelling_the_awaiting_task_is_an_abort(svc) -> None:
    started = asyncio.Event()
    answerer_saw: list[BaseException] = []

    async def slow(request, next):
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError as error:
            answerer_saw.append(error)
            raise

    svc.on_request(slow)
    caught: list[BaseException] = []

    async def agent_code():
        try:
            await svc.ask({"questions": [question()]})
        except UserQuestionError as error:
            caught.append(error)
            raise

    task = asyncio.ensure_future(agent_code())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()
    assert caught[0].code == "ASK_ABORTED"  # type: ignore[attr-defined]
    assert isinstance(caught[0], ipyask.AskCancelledError)
    await drain()
    assert answerer_saw


async def test_aclose_aborts_asks_in_flight_and_later_asks(svc) -> None:
    started = asyncio.Event()

    async def slow(request, next):
        started.set()
        await asyncio.Event().wait()

    svc.on_request(slow)
    task = asyncio.ensure_future(svc.ask({"questions": [question()]}))
    await started.wait()
    await svc.aclose()
    with pytest.raises(UserQuestionError) as caught:
        await task
    assert caught.value.code == "ASK_ABORTED"
    assert svc.closed
    with pytest.raises(UserQuestionError, match="aborted"):
        await svc.ask({"questions": [question()]})


async def test_calling_next_twice_advances_the_shared_chain(svc) -> None:
    log: list[str] = []

    async def greedy(request, next):
        try:
            return await next()
        except UserQuestionError:
            return await next()

    async def refuses(request, next):
        log.append("refuses")
        raise UserQuestionError.of("ASK_CANCELLED")

    svc.on_request(greedy)
    svc.on_request(refuses)
    svc.on_request(claim_with(answer(("q1", ["late"]))))
    assert await svc.ask({"questions": [question()]}) == answer(("q1", ["late"]))
    assert log == ["refuses"]


def test_registering_a_non_callable_is_a_type_error(svc) -> None:
    with pytest.raises(TypeError, match="must be callable"):
        svc.on_request("nope")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"ipyask\.Agent"):
        svc.on_request(delegate([], "x"), agent="main")  # type: ignore[arg-type]
