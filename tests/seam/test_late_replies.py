from __future__ import annotations

import json
import threading

import pytest

import ipyask
from ipyask import UserQuestionError

from ._helpers import answer

TIMED_TOOL = ipyask.host.ask_user_question_definition("timed").to_wire()
QUESTIONS = [
    {"id": "q1", "question": "Database?", "options": [{"label": "Postgres"}, {"label": "SQLite"}]},
    {"id": "q2", "question": "Name?"},
]


def continued(agent: ipyask.Agent, call_id: str = "c1") -> None:
    session = agent.session
    session.append({"type": "request/header", "tools": [TIMED_TOOL]})
    session.append(
        {
            "type": "tool/call",
            "callId": call_id,
            "name": "ask_user_question",
            "arguments": json.dumps({"questions": QUESTIONS}),
        }
    )
    session.append(
        {
            "type": "tool/result",
            "callId": call_id,
            "content": json.dumps({"pending": True, "callId": call_id, "message": "m"}),
        }
    )


BATCH = {
    "answers": [{"id": "q1", "selected": ["SQLite"]}, {"id": "q2", "selected": [], "custom": "db"}]
}


def test_a_late_reply_is_steered_as_a_user_message(svc, agent) -> None:
    continued(agent)
    assert svc.answer(agent, "c1", BATCH) is True
    assert agent.session.next_turn == ()
    (message,) = agent.session.next_step
    assert message.source is not None
    # who gave it: code answering through the API, this process's user, having seen the card
    by = message.source.answered_by
    assert by is not None and (by.who, by.door) == ("ada", "api")
    assert message.source.model_copy(update={"answered_by": None}).to_wire() == {
        "kind": "user-question-reply",
        "callId": "c1",
        "outcome": "answered",
    }
    text = message.content[0]["text"]  # type: ignore[index]
    assert text == json.dumps(
        {
            "kind": "answer_to_pending_question",
            "tool": "ask_user_question",
            "callId": "c1",
            "questions": QUESTIONS,
            "answers": BATCH["answers"],
        },
        separators=(",", ":"),
        ensure_ascii=False,
    )
    # Still active until the agent admits it.
    assert [row.state for row in svc.projection(agent.session).active] == ["continued"]
    event = agent.session.admit()
    assert event is not None and event.message_id == message.id
    view = svc.projection(agent.session)
    assert view.active == []
    assert view.to_wire()["settled"] == [{"callId": "c1", "answers": BATCH["answers"]}]
    assert svc.answer(agent, "c1", BATCH) is False


def test_open_unknown_and_untracked_calls_return_false(svc, agent) -> None:
    assert svc.answer(agent, "nope", BATCH) is False
    agent.session.append({"type": "request/header", "tools": [TIMED_TOOL]})
    agent.session.append(
        {
            "type": "tool/call",
            "callId": "open",
            "name": "ask_user_question",
            "arguments": json.dumps({"questions": QUESTIONS}),
        }
    )
    assert svc.answer(agent, "open", BATCH) is False
    assert agent.session.next_step == ()


def test_reply_queued_is_checked_before_bad_answer(svc, agent) -> None:
    continued(agent)
    assert svc.answer(agent, "c1", BATCH)
    with pytest.raises(UserQuestionError) as caught:
        svc.answer(agent, "c1", {"answers": []})
    assert caught.value.code == "REPLY_QUEUED"
    assert str(caught.value) == "a reply is already queued for this question"


@pytest.mark.parametrize(
    "batch",
    [
        {"answers": []},
        {"answers": [{"id": "q1", "selected": []}]},
        {"answers": [{"id": "q1", "selected": []}, {"id": "q1", "selected": []}]},
        {"answers": [{"id": "q1", "selected": []}, {"id": "zz", "selected": []}]},
        {
            "answers": [
                {"id": "q1", "selected": []},
                {"id": "q2", "selected": []},
                {"id": "q3", "selected": []},
            ]
        },
    ],
)
def test_a_batch_must_name_each_question_exactly_once(svc, agent, batch) -> None:
    continued(agent)
    with pytest.raises(UserQuestionError) as caught:
        svc.answer(agent, "c1", batch)
    assert caught.value.code == "BAD_ANSWER"
    assert (
        str(caught.value)
        == "the answer batch for c1 must name each of its 2 questions exactly once"
    )
    assert agent.session.next_step == ()


def test_a_discarded_reply_makes_the_question_answerable_again(svc, agent) -> None:
    continued(agent)
    svc.answer(agent, "c1", BATCH)
    (message,) = agent.session.next_step
    assert agent.session.discard(message)
    assert [row.call_id for row in svc.projection(agent.session).active] == ["c1"]
    assert svc.answer(agent, "c1", BATCH) is True


def test_a_reply_claimed_by_a_turn_that_ends_unadmitted_is_released(svc, agent) -> None:
    continued(agent)
    svc.answer(agent, "c1", BATCH)
    claimed = agent.session.claim(turn=3)
    assert claimed is not None and agent.session.next_step == ()
    with pytest.raises(UserQuestionError, match="already queued"):
        svc.answer(agent, "c1", BATCH)
    agent.session.end_turn(4)
    with pytest.raises(UserQuestionError, match="already queued"):
        svc.answer(agent, "c1", BATCH)
    agent.session.end_turn(3)
    assert svc.answer(agent, "c1", BATCH) is True


def test_a_claimed_reply_admitted_in_its_turn_settles(svc, agent) -> None:
    continued(agent)
    svc.answer(agent, "c1", BATCH)
    claimed = agent.session.claim(turn=1)
    assert agent.session.admit(claimed) is not None
    assert svc.projection(agent).settled[0].call_id == "c1"


def test_a_reply_restored_from_elsewhere_is_reserved_when_claimed(svc, agent) -> None:
    continued(agent)
    restored = ipyask.host.UserMessage(
        source=ipyask.host.MessageSource(
            kind="user-question-reply", call_id="c1", outcome="answered"
        ),
        content="{}",
    )
    agent.session.follow_up(restored)
    with pytest.raises(UserQuestionError, match="already queued"):
        svc.answer(agent, "c1", BATCH)  # found in the inbox
    agent.session.claim(turn=1)
    with pytest.raises(UserQuestionError, match="already queued"):
        svc.answer(agent, "c1", BATCH)  # found as a reservation
    agent.session.admit(restored.id)
    assert svc.projection(agent).to_wire()["settled"] == [{"callId": "c1", "answers": []}]


def test_a_failing_steer_releases_the_reservation(svc, agent, monkeypatch) -> None:
    continued(agent)

    def broken(message):
        raise RuntimeError("inbox full")

    monkeypatch.setattr(agent.session, "steer", broken)
    with pytest.raises(RuntimeError, match="inbox full"):
        svc.answer(agent, "c1", BATCH)
    monkeypatch.undo()
    assert svc.answer(agent, "c1", BATCH) is True


def test_answer_checks_liveness(svc, agent) -> None:
    continued(agent)
    child = svc.agents.enter(ipyask.Agent("child", owner=agent))
    with pytest.raises(UserQuestionError) as caught:
        svc.answer(child, "c1", BATCH)
    assert caught.value.code == "DELEGATED_CALLER"
    with pytest.raises(UserQuestionError) as caught:
        svc.answer(ipyask.Agent("main"), "c1", BATCH)
    assert caught.value.code == "CALLER_NOT_LIVE"


def test_concurrent_answers_from_threads_queue_exactly_one_reply(svc, agent) -> None:
    continued(agent)
    outcomes: list[object] = []
    barrier = threading.Barrier(8)

    def submit() -> None:
        barrier.wait()
        try:
            outcomes.append(svc.answer(agent, "c1", BATCH))
        except UserQuestionError as error:
            outcomes.append(error.code)

    threads = [threading.Thread(target=submit) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(map(str, outcomes)) == ["REPLY_QUEUED"] * 7 + ["True"]
    assert len(agent.session.next_step) == 1


async def test_the_full_timed_flow_through_the_tool(svc, agent, clock) -> None:
    tool = ipyask.AskUserQuestionTool(svc, mode="timed", timeout=5)
    args = {"questions": [{"id": "q1", "question": "Database?", "options": [{"label": "SQLite"}]}]}
    import asyncio

    task = asyncio.ensure_future(tool.execute(args, call_id="c9", agent=agent))
    await asyncio.sleep(0)
    assert [row.state for row in svc.projection(agent).active] == ["open"]
    clock.advance(5000)
    result = await task
    assert json.loads(result.content)["pending"] is True
    assert [row.state for row in svc.projection(agent).active] == ["continued"]
    assert svc.answer(agent, "c9", answer(("q1", ["SQLite"]))) is True
    agent.session.admit()
    assert svc.projection(agent).to_wire()["settled"] == [
        {"callId": "c9", "answers": [{"id": "q1", "selected": ["SQLite"]}]}
    ]


# -- who reads a late reply --------------------------------------------------------------------


def test_a_reply_while_a_declared_loop_reads_waits_for_its_next_step(svc, agent) -> None:
    continued(agent)
    with svc.reading(agent):
        assert svc.reply_reader(agent) == "next-step"
        assert svc.answer(agent, "c1", BATCH) is True
        assert len(agent.session.next_step) == 1
        assert svc.reply_kept(agent, "c1") is False
        agent.session.admit()
    assert svc.projection(agent).settled[0].call_id == "c1"
    assert svc.reply_kept(agent, "c1") is False  # read, not kept


def test_a_reply_after_the_loop_ended_is_kept_in_the_log(svc, agent) -> None:
    assert svc.reply_reader(agent) is None  # nobody declared: the spec's default (the inbox)
    continued(agent)
    with svc.reading(agent):
        pass
    assert svc.reply_reader(agent) == "nobody"
    assert svc.answer(agent, "c1", BATCH) is True
    assert agent.session.next_step == ()  # nobody would ever take it from there
    assert svc.reply_kept(agent, "c1") is True
    view = svc.projection(agent)
    assert view.active == []
    assert view.to_wire()["settled"] == [{"callId": "c1", "answers": BATCH["answers"]}]
    (event,) = [e for e in agent.session.events if e.type == "user/message"]
    assert event.source is not None and event.source.call_id == "c1"
    assert svc.answer(agent, "c1", BATCH) is False


def test_a_reply_left_unread_when_the_last_reader_ends_is_kept(svc, agent) -> None:
    continued(agent)
    outer = svc.reading(agent)
    inner = svc.reading(agent, "re-ask")
    assert svc.reply_reader(agent) == "re-ask"  # the latest open reader
    svc.answer(agent, "c1", BATCH)
    inner.close()
    assert len(agent.session.next_step) == 1  # one reader is still there
    outer.close()
    outer.close()  # idempotent
    assert agent.session.next_step == ()
    assert svc.reply_kept(agent, "c1") is True
    assert svc.projection(agent).settled[0].answers[0].selected == ["SQLite"]


def test_a_new_reader_takes_later_replies_again(svc, agent) -> None:
    continued(agent)
    svc.reading(agent).close()
    with svc.reading(agent):
        svc.answer(agent, "c1", BATCH)
        assert len(agent.session.next_step) == 1
    with pytest.raises(ValueError, match="by must be"):
        svc.reading(agent, "later")  # type: ignore[arg-type]


async def test_collect_reply_returns_a_queued_late_answer_and_settles_it(svc, agent) -> None:
    continued(agent)
    with svc.reading(agent, "re-ask"):
        assert svc.answer(agent, "c1", BATCH) is True
        collected = await svc.collect_reply(agent, "c1", 1000)
    assert collected == ipyask.protocol.AskUserQuestionAnswer.model_validate(BATCH)
    assert agent.session.next_step == ()
    assert svc.projection(agent).settled[0].call_id == "c1"
    assert await svc.collect_reply(agent, "c1", 1000) == collected  # again: the same batch
    assert await svc.collect_reply(agent, "unknown", 1000) is None


async def test_collect_reply_waits_for_the_answer_then_times_out(svc, agent, clock) -> None:
    import asyncio

    from ipyask.testing import drain_loop

    continued(agent)
    continued(agent, "c2")
    waiting = asyncio.ensure_future(svc.collect_reply(agent, "c1", 5000))
    timing_out = asyncio.ensure_future(svc.collect_reply(agent, "c2", 5000))
    await drain_loop()
    assert not waiting.done()
    clock.advance(1000)
    svc.answer(agent, "c1", BATCH)
    await drain_loop()
    assert (await waiting).answers[0].selected == ["SQLite"]
    assert not timing_out.done()
    clock.advance(4000)
    await drain_loop()
    assert await timing_out == ipyask.PendingAnswer(call_id="c2")
    assert [row.state for row in svc.projection(agent).active] == ["continued"]
    with pytest.raises(UserQuestionError) as caught:
        await svc.collect_reply(agent, "c2", 0)
    assert caught.value.code == "BAD_TIMEOUT"


def test_a_call_asked_again_under_its_id_is_not_reported_kept_twice(svc, agent) -> None:
    continued(agent)
    svc.reading(agent).close()
    svc.answer(agent, "c1", BATCH)
    assert svc.reply_kept(agent, "c1") is True
    continued(agent)  # the same call id, asked again and continued again
    with svc.reading(agent):
        svc.answer(agent, "c1", BATCH)
        assert svc.reply_kept(agent, "c1") is False  # this reply waits for the loop


async def test_the_asking_task_is_known_to_have_ended(svc, agent, clock) -> None:
    import asyncio

    from ipyask.testing import drain_loop

    tool = ipyask.AskUserQuestionTool(svc, mode="timed", timeout=1)
    go_on = asyncio.Event()

    async def loop() -> None:
        await tool.execute({"questions": QUESTIONS}, call_id="c7", agent=agent)
        await go_on.wait()

    running = asyncio.ensure_future(loop())
    await drain_loop()
    assert svc.asker_ended(agent, "c7") is False  # still asking
    clock.advance(1000)
    await drain_loop()
    assert svc.asker_ended(agent, "c7") is False  # went on with pending, still running
    go_on.set()
    await running
    assert svc.asker_ended(agent, "c7") is True
    assert svc.reply_reader(agent) is None  # nothing declared: the answer still goes to the inbox
    assert svc.answer(agent, "c7", BATCH) is True
    assert len(agent.session.next_step) == 1
    assert svc.asker_ended(agent, "unknown") is False


async def test_closing_the_service_ends_a_waiting_collect_reply(svc, agent) -> None:
    import asyncio

    from ipyask.testing import drain_loop

    continued(agent)
    waiting = asyncio.ensure_future(svc.collect_reply(agent, "c1"))  # no timeout: until answered
    await drain_loop()
    assert not waiting.done()
    await svc.aclose()
    await drain_loop()
    with pytest.raises(UserQuestionError) as caught:
        await waiting
    assert caught.value.code == "ASK_ABORTED"
