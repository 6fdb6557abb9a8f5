from __future__ import annotations

import asyncio
import gc
import threading
import weakref

import pytest

import ipyask
from ipyask import UserQuestionError
from ipyask.testing import ScriptedAnswerer

from ._helpers import FakeView, asked_then_stopped, drain, only_key

DB = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}


async def asked(svc, request) -> asyncio.Future:
    task = asyncio.ensure_future(svc.ask(request))
    await drain()
    return task


async def test_a_request_becomes_a_card_and_the_answer_settles_it(svc, panel, view) -> None:
    task = await asked(svc, {"questions": [DB]})
    key = only_key(panel)
    card = panel.get_card(key)
    assert (card.status, card.wait, card.call_id) == ("pending", "none", None)
    assert card.questions[0].question == "Which database?"
    view.answer(key, ("db", ["SQLite"]))
    assert (await task).to_wire() == {"answers": [{"id": "db", "selected": ["SQLite"]}]}
    card = panel.get_card(key)
    assert card.status == "answered"
    assert card.answer is not None and card.answer.answers[0].selected == ["SQLite"]
    assert panel.records == ["**Answered** by ada in the panel: Which database? → **SQLite**"]
    assert view.errors == []


async def test_answers_are_recorded_under_the_name_the_panel_shows(
    svc, panel, view, monkeypatch
) -> None:
    # The panel read who answers through it when it was made (its ``answerer``); its answers
    # are recorded under that name, not under a variable set later.
    assert panel.answerer == "ada"
    monkeypatch.setenv("IPYASK_USER", "bob")
    task = await asked(svc, {"questions": [DB]})
    key = only_key(panel)
    view.answer(key, ("db", ["SQLite"]))
    await task
    await drain()
    assert panel.records == ["**Answered** by ada in the panel: Which database? → **SQLite**"]


async def test_a_batch_with_multi_select_other_and_skip(svc, panel, view) -> None:
    questions = [
        {
            "id": "langs",
            "question": "Languages?",
            "multiSelect": True,
            "options": [{"label": "Python"}, {"label": "Rust"}],
        },
        {"id": "name", "question": "Project name?"},
        {"id": "db", "question": "Database?", "options": [{"label": "SQLite"}]},
    ]
    task = await asked(svc, {"questions": questions})
    key = only_key(panel)
    view.answer(key, ("langs", ["Rust", "Python"], "Zig"), ("name", [], "ipyask"), ("db", []))
    result = await task
    assert result.to_wire()["answers"] == [
        {"id": "langs", "selected": ["Rust", "Python"], "custom": "Zig"},
        {"id": "name", "selected": [], "custom": "ipyask"},
        {"id": "db", "selected": []},
    ]
    assert panel.records == [
        "**Answered** by ada in the panel\n- Languages? → **Rust**, **Python**, “Zig”\n"
        "- Project name? → “ipyask”\n- Database? → *skipped*"
    ]


@pytest.mark.parametrize(
    ("items", "code", "text"),
    [
        ((("db", ["MySQL"]),), "BAD_ANSWER", "'MySQL' is not an option of question db"),
        ((("db", ["SQLite", "Postgres"]),), "BAD_ANSWER", "question db takes one option, not 2"),
        ((("db", ["SQLite"], "mine"),), "BAD_ANSWER", "free text replaces the option"),
        ((("other", ["SQLite"]),), "BAD_ANSWER", "once each, in order: ['db']"),
        ((("db", ["SQLite"]), ("db", ["SQLite"])), "BAD_ANSWER", "once each"),
        ((), "BAD_ANSWER", "once each"),
    ],
)
async def test_forged_answers_are_refused_and_change_nothing(
    svc, panel, view, items, code, text
) -> None:
    task = await asked(svc, {"questions": [DB]})
    key = only_key(panel)
    view.answer(key, *items)
    await drain()
    assert not task.done()
    (error,) = view.errors
    assert error["code"] == code and text in error["message"]
    assert error["key"] == key and error["viewId"] == "view-1"
    assert panel.get_card(key).status == "pending"
    view.answer(key, ("db", ["Postgres"]))
    assert (await task).answers[0].selected == ["Postgres"]


PLAN_REVIEW = {
    "id": "plan",
    "question": "Approve this plan?",
    "detail": "1. Add the table",
    "options": [{"label": "Approve"}, {"label": "Keep planning"}],
    "intent": {"kind": "plan-review", "approve": "Approve"},
}


async def test_a_plan_reviews_decline_carries_what_to_change(svc, panel, view) -> None:
    task = await asked(svc, {"questions": [PLAN_REVIEW]})
    key = only_key(panel)
    view.answer(key, ("plan", ["Approve"], "but faster"))  # approving takes no text
    await drain()
    assert "free text replaces the option" in view.errors[-1]["message"]
    view.answer(key, ("plan", ["Keep planning"], "Backfill in batches of 1000"))
    result = await task
    assert result.to_wire()["answers"] == [
        {"id": "plan", "selected": ["Keep planning"], "custom": "Backfill in batches of 1000"}
    ]


async def test_unknown_keys_settled_cards_and_malformed_messages_get_errors(
    svc, panel, view
) -> None:
    view.answer("nope", ("db", ["SQLite"]))
    view.raw({"kind": "answer", "viewId": "v", "protocolVersion": 2})
    view.raw("not even an object")
    view.raw(
        {
            "kind": "answer",
            "viewId": "v",
            "protocolVersion": 99,
            "key": "k",
            "answer": {"answers": []},
        }
    )
    codes = [e["code"] for e in view.errors]
    assert codes == ["UNKNOWN_CARD", "BAD_MESSAGE", "BAD_MESSAGE", "BAD_MESSAGE"]
    task = await asked(svc, {"questions": [DB]})
    key = only_key(panel)
    view.answer(key, ("db", ["SQLite"]))
    await task
    view.answer(key, ("db", ["Postgres"]))
    assert view.errors[-1]["code"] == "NOT_PENDING"
    assert panel.get_card(key).answer.answers[0].selected == ["SQLite"]  # type: ignore[union-attr]


async def test_two_views_racing_settle_exactly_once(svc, panel, sent) -> None:
    first, second = FakeView(panel, sent, "a"), FakeView(panel, sent, "b")
    task = await asked(svc, {"questions": [DB]})
    key = only_key(panel)
    results: list[None] = []
    barrier = threading.Barrier(2)

    def race(view: FakeView, label: str) -> None:
        barrier.wait()
        view.answer(key, ("db", [label]))
        results.append(None)

    threads = [
        threading.Thread(target=race, args=(first, "SQLite")),
        threading.Thread(target=race, args=(second, "Postgres")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    answer = await asyncio.wait_for(task, 5)
    await drain()
    refused = [e for e in sent if e.get("kind") == "error"]
    assert len(refused) == 1
    assert refused[0]["code"] in ("ALREADY_ANSWERED", "NOT_PENDING")
    winner = "a" if refused[0]["viewId"] == "b" else "b"
    assert answer.answers[0].selected == [{"a": "SQLite", "b": "Postgres"}[winner]]
    assert len(panel.records) == 1


async def test_closing_an_unkeyed_card_cancels_and_a_keyed_one_refuses(svc, panel, view) -> None:
    task = await asked(svc, {"questions": [DB]})
    key = only_key(panel)
    view.send("cancel", key=key)
    with pytest.raises(UserQuestionError) as caught:
        await task
    assert caught.value.code == "ASK_CANCELLED"
    assert str(caught.value) == "The person cancelled this question instead of answering it."
    assert panel.get_card(key).status == "cancelled"
    assert panel.get_card(key).notice == "You cancelled this question; the agent was told."
    keyed = await asked(svc, {"questions": [DB], "wait": {"callId": "c7"}})
    card = panel.get_cards()[-1]
    assert (card.key, card.wait) == ("-:c7", "indefinite")
    view.send("cancel", key=card.key)
    assert view.errors[-1]["code"] == "KEYED_CARD"
    view.answer(card.key, ("db", ["SQLite"]))
    assert (await keyed).answers[0].selected == ["SQLite"]


async def test_an_aborted_signal_or_cancelled_task_marks_the_card_cancelled(svc, panel) -> None:
    controller = ipyask.host.AbortController()
    task = await asked(svc, {"questions": [DB], "signal": controller.signal})
    controller.abort()
    with pytest.raises(UserQuestionError):
        await task
    await drain()
    assert panel.get_cards()[0].status == "cancelled"
    assert panel.get_cards()[0].notice == "The agent stopped waiting for this question."
    await asked_then_stopped(svc, {"questions": [DB]})
    assert [c.status for c in panel.get_cards()] == ["cancelled", "cancelled"]
    assert panel.get_cards()[1].notice == "The agent stopped waiting for this question."


async def test_a_closed_panel_delegates_held_and_later_requests(svc, panel) -> None:
    ScriptedAnswerer({"db": "Postgres"}).register(svc)  # after the panel in the waterfall
    task = await asked(svc, {"questions": [DB]})
    assert len(panel.cards) == 1
    panel.close()
    assert (await task).answers[0].selected == ["Postgres"]
    assert (await svc.ask({"questions": [DB]})).answers[0].selected == ["Postgres"]
    assert panel.closed


async def test_scoped_panels_see_only_their_agent(svc, sent, monkeypatch) -> None:
    alice = svc.agents.enter(ipyask.Agent("alice"))
    bob = svc.agents.enter(ipyask.Agent("bob"))
    panels = {}
    for agent in (alice, bob):
        panels[agent.id] = ipyask.QuestionPanel(svc, agent=agent)
        monkeypatch.setattr(panels[agent.id], "send", lambda *a, **k: None)
    task = await asked(svc, {"questions": [DB], "agent": bob})
    assert panels["alice"].cards == []
    assert len(panels["bob"].cards) == 1
    FakeView(panels["bob"], sent, "v").answer(only_key(panels["bob"]), ("db", ["SQLite"]))
    assert (await task).answers[0].selected == ["SQLite"]
    for made in panels.values():
        made.close()


async def test_plan_review_and_approval_answers(svc, panel, view) -> None:
    plan = {
        "id": "plan",
        "question": "Run this plan?",
        "detail": "1. Build\n2. Ship",
        "options": [{"label": "Approve"}, {"label": "Revise"}],
        "intent": {"kind": "plan-review", "approve": "Approve"},
    }
    task = await asked(svc, {"questions": [plan]})
    view.answer(only_key(panel), ("plan", ["Approve"]))
    assert (await task).answers[0].selected == ["Approve"]
    approval = {
        "id": "ok",
        "question": "Delete 3 files?",
        "detail": "rm build/*",
        "options": [{"label": "Reject"}, {"label": "Allow once"}],
        "intent": {"kind": "approval", "approve": "Allow once", "reject": "Reject"},
    }
    task = await asked(svc, {"questions": [approval]})
    key = panel.get_cards()[-1].key
    view.answer(key, ("ok", [], "just do it"))
    view.answer(key, ("ok", []))
    assert [e["message"] for e in view.errors] == [
        "an approval is answered with exactly one of its actions and no free text"
    ] * 2
    view.answer(key, ("ok", ["Reject"]))
    assert (await task).answers[0].selected == ["Reject"]


async def test_view_messages_from_another_thread_are_handled_on_the_loop(svc, panel, view) -> None:
    task = await asked(svc, {"questions": [DB]})
    key = only_key(panel)
    handled_on: list[int] = []
    original = panel._dispatcher.handle

    def spy(message):
        handled_on.append(threading.get_ident())
        original(message)

    panel._dispatcher.handle = spy  # type: ignore[method-assign]
    thread = threading.Thread(target=view.answer, args=(key, ("db", ["SQLite"])))
    thread.start()
    thread.join()
    assert (await asyncio.wait_for(task, 5)).answers[0].selected == ["SQLite"]
    assert handled_on == [threading.get_ident()]


async def test_a_failing_handler_is_reported_not_raised(svc, panel, view, monkeypatch) -> None:
    task = await asked(svc, {"questions": [DB]})
    key = only_key(panel)

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(type(panel.live(key).settlement), "resolve", boom)
    view.answer(key, ("db", ["SQLite"]))
    assert view.errors[-1]["code"] == "INTERNAL_ERROR"
    assert view.errors[-1]["message"] == "disk full"
    assert not task.done()
    task.cancel()


def test_the_panel_needs_a_service() -> None:
    with pytest.raises(TypeError, match=r"needs an ipyask\.UserQuestions"):
        ipyask.QuestionPanel("svc")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="unexpected keyword"):
        ipyask.QuestionPanel(ipyask.UserQuestions(), colour="red")


async def test_the_agent_has_the_answer_before_the_card_turns_answered(svc, panel, sent) -> None:
    first, second = FakeView(panel, sent, "a"), FakeView(panel, sent, "b")
    seen: list[tuple[str, str]] = []

    async def agent() -> None:
        result = await svc.ask({"questions": [DB]})
        # Back in the agent before the panel's bookkeeping: the card still shows pending, and a
        # second answer arriving now is refused as already answered.
        seen.append((result.answers[0].selected[0], panel.get_card(key).status))
        second.answer(key, ("db", ["Postgres"]))

    task = asyncio.ensure_future(agent())
    await drain()
    key = only_key(panel)
    first.answer(key, ("db", ["SQLite"]))
    await task
    await drain()
    assert seen == [("SQLite", "pending")]
    assert panel.get_card(key).status == "answered"
    assert [(e["code"], e["viewId"]) for e in second.errors] == [("ALREADY_ANSWERED", "b")]
    assert panel.records == ["**Answered** by ada in the panel: Which database? → **SQLite**"]
    assert panel.live(key) is None


async def test_the_card_goes_out_in_the_asking_step(svc, panel, sent, view) -> None:
    # The waterfall calls the panel before the asker first yields: after one loop turn (the
    # asking task's first step) the card is in the state and its message was sent.
    task = asyncio.ensure_future(svc.ask({"questions": [DB]}))
    await asyncio.sleep(0)
    key = only_key(panel)
    assert [m["upsert"][0]["key"] for m in sent if m.get("kind") == "cards"] == [key]
    view.answer(key, ("db", ["SQLite"]))
    assert (await task).answers[0].selected == ["SQLite"]


async def test_a_closed_panel_that_answered_is_freed(svc) -> None:
    # Neither the service, its clock's timers nor the widget machinery keep a closed panel.
    sent: list[dict] = []
    made = ipyask.QuestionPanel(svc)
    made.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    view = FakeView(made, sent, "view-1")
    task = await asked(svc, {"questions": [DB]})
    view.answer(only_key(made), ("db", ["SQLite"]))
    await task
    await drain()
    ref = weakref.ref(made)
    made.close()
    del made, view
    await drain()
    gc.collect()
    assert ref() is None
