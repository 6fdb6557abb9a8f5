"""The bridge in a real ipykernel, driven over the real widget comm by HeadlessFrontend."""

from __future__ import annotations

import json
import time

import pytest

from ipyask.testing import FrontendError, HeadlessFrontend

pytestmark = pytest.mark.kernel

DB = (
    '{"questions": [{"id": "db", "question": "Which database?", '
    '"options": [{"label": "Postgres"}, {"label": "SQLite"}]}]}'
)


def result(fe: HeadlessFrontend, expression: str = "task") -> str:
    cell = fe.execute(
        f"r = await asyncio.wait_for({expression}, 10)\nprint(json.dumps(r.to_wire()))"
    )
    return cell.stdout.strip()


def test_an_agent_task_is_answered_by_clicking_the_card(fe: HeadlessFrontend) -> None:
    fe.execute(f"task = asyncio.ensure_future(svc.ask({DB}))")
    card = fe.wait_for_card("Which database?")
    fe.choose(card["key"], "SQLite")
    fe.submit(card["key"])
    assert result(fe) == '{"answers": [{"id": "db", "selected": ["SQLite"]}]}'
    assert fe.wait_for_status(card["key"], "answered")["answer"] == {
        "answers": [{"id": "db", "selected": ["SQLite"]}]
    }
    assert fe.kernel.handler_errors == []


def test_a_batch_with_multi_select_other_and_skip(fe: HeadlessFrontend) -> None:
    fe.execute(
        "task = asyncio.ensure_future(svc.ask({'questions': ["
        "{'id': 'langs', 'question': 'Languages?', 'multiSelect': True,"
        " 'options': [{'label': 'Python'}, {'label': 'Rust'}]},"
        "{'id': 'name', 'question': 'Name?'},"
        "{'id': 'db', 'question': 'Database?', 'options': [{'label': 'SQLite'}]}]}))"
    )
    key = fe.wait_for_card("Languages?")["key"]
    fe.choose(key, "Rust", "Python", question="langs")
    fe.type_other(key, "Zig", question="langs")
    fe.type_other(key, "ipyask", question="name")
    with pytest.raises(FrontendError, match="complete this question first: db"):
        fe.submit(key)
    fe.skip(key, question="db")
    fe.submit(key)
    assert result(fe) == (
        '{"answers": [{"id": "langs", "selected": ["Rust", "Python"], "custom": "Zig"}, '
        '{"id": "name", "selected": [], "custom": "ipyask"}, {"id": "db", "selected": []}]}'
    )


def test_plan_review_and_approval_one_liners(fe: HeadlessFrontend) -> None:
    fe.execute(
        "panel.close()\n"
        "task = asyncio.ensure_future(ipyask.approve('Delete 3 files in build/?', subject='shell',"
        " always='Always allow'))"
    )
    card = fe.wait_for_card("Delete 3 files")
    assert card["view"]["presentation"]["kind"] == "approval"
    fe.answer(card["key"], {"approval": "Always allow"})
    cell = fe.execute("print(await asyncio.wait_for(task, 10))")
    assert cell.stdout.strip() == "Always allow"
    fe.execute(
        "task = asyncio.ensure_future(svc.ask({'questions': [{'id': 'plan', 'question': 'Run it?',"
        " 'detail': '1. Build', 'options': [{'label': 'Approve'}, {'label': 'Revise'}],"
        " 'intent': {'kind': 'plan-review', 'approve': 'Approve'}}]}))\n"
        "panel = ipyask.QuestionPanel(svc)\ndisplay(panel)"
    )
    card = fe.wait_for_card("Run it?")
    assert card["view"]["presentation"]["kind"] == "plan-review"
    fe.answer(card["key"], {"plan": "Revise"})
    assert result(fe) == '{"answers": [{"id": "plan", "selected": ["Revise"]}]}'


def test_a_timed_question_answered_in_its_window(fe: HeadlessFrontend) -> None:
    fe.execute(
        f"task = asyncio.ensure_future(svc.ask_timed({{**{DB}, 'agent': agent}}, 'c1', 5000))"
    )
    key = fe.wait_for_card("Which database?")["key"]
    fe.claim(key)
    fe.kernel.wait_for(lambda: fe.frames(key), timeout=5, what="a frame")
    assert 0 < fe.frames(key)[0] <= 5000
    fe.answer(key, {"db": "Postgres"})
    assert result(fe) == '{"answers": [{"id": "db", "selected": ["Postgres"]}]}'


def test_a_timed_question_goes_pending_then_takes_a_late_reply(fe: HeadlessFrontend) -> None:
    fe.execute(
        "tool = ipyask.AskUserQuestionTool(svc, mode='timed', timeout=30)\n"
        f"task = asyncio.ensure_future(tool.execute({DB}, call_id='call_1', agent=agent))"
    )
    key = fe.wait_for_card("Which database?")["key"]
    fe.claim(key)
    fe.kernel.wait_for(lambda: fe.frames(key), timeout=5, what="a frame")
    fe.time_out(key)
    cell = fe.execute(
        "r = await asyncio.wait_for(task, 10)\nprint(json.loads(r.content)['pending'])"
    )
    assert cell.stdout.strip() == "True"
    fe.wait_for_status(key, "continued")
    fe.answer(key, {"db": "SQLite"})
    fe.kernel.wait_for(
        lambda: fe.card(key).get("notice", "").startswith("Answer sent"), timeout=5, what="notice"
    )
    cell = fe.execute("print(len(agent.session.next_step)); agent.session.admit()")
    assert cell.stdout.strip() == "1"
    card = fe.wait_for_status(key, "answered")
    assert card["answer"] == {"answers": [{"id": "db", "selected": ["SQLite"]}]}


def test_a_late_answer_after_the_agent_loop_ended_is_kept_and_says_so(
    fe: HeadlessFrontend,
) -> None:
    """The agent-loop notebook's shape: the timed question continues, the loop ends, and only
    then the person answers. Nobody will read the answer: the card says so, and the projection
    and the transcript keep it."""
    fe.execute(
        "tool = ipyask.AskUserQuestionTool(svc, mode='timed', timeout=30)\n"
        "async def run_agent():\n"
        "    with svc.reading(agent):  # the loop reads late replies at each step\n"
        f"        result = await tool.execute({DB}, call_id='call_fmt', agent=agent)\n"
        "        return json.loads(result.content)\n"
        "run = asyncio.ensure_future(run_agent())"
    )
    key = fe.wait_for_card("Which database?")["key"]
    fe.claim(key)
    fe.kernel.wait_for(lambda: fe.frames(key), timeout=5, what="a frame")
    fe.time_out(key)
    cell = fe.execute("print((await asyncio.wait_for(run, 10))['pending'], run.done())")
    assert cell.stdout.strip() == "True True"  # the loop has ended
    fe.wait_for_status(key, "continued")
    fe.answer(key, {"db": "SQLite"})
    card = fe.wait_for_status(key, "answered")
    assert card["noticeCode"] == "reply-kept"
    assert card["notice"].startswith(
        "Answer saved. The agent that asked has finished, so it will not read this answer"
    )
    assert card["answer"] == {"answers": [{"id": "db", "selected": ["SQLite"]}]}
    cell = fe.execute(
        "print(json.dumps(svc.projection(agent).to_wire()))\n"
        "print(svc.reply_kept(agent, 'call_fmt'), len(agent.session.next_step))\n"
        "print(panel.records[-1])"
    )
    projection, kept, record = cell.stdout.strip().splitlines()
    assert json.loads(projection) == {
        "active": [],
        "settled": [{"callId": "call_fmt", "answers": [{"id": "db", "selected": ["SQLite"]}]}],
    }
    assert kept == "True 0"
    assert record.startswith("**Answered late, after the agent that asked had finished")
    assert record.endswith("Which database? → **SQLite**")
    assert fe.kernel.handler_errors == []


def test_a_loop_that_declares_no_reader_and_ended_gets_no_next_step_claim(
    fe: HeadlessFrontend,
) -> None:
    """The same shape with a loop that does not declare itself: ipyask knows only that the task
    that asked has ended. The card says nobody reads the answer unless code reads the inbox, and
    the answer waits there for that code."""
    fe.execute(
        "tool = ipyask.AskUserQuestionTool(svc, mode='timed', timeout=30)\n"
        "async def run_agent():\n"
        f"    result = await tool.execute({DB}, call_id='call_fmt', agent=agent)\n"
        "    return json.loads(result.content)\n"
        "run = asyncio.ensure_future(run_agent())"
    )
    key = fe.wait_for_card("Which database?")["key"]
    fe.claim(key)
    fe.kernel.wait_for(lambda: fe.frames(key), timeout=5, what="a frame")
    fe.time_out(key)
    cell = fe.execute("print((await asyncio.wait_for(run, 10))['pending'], run.done())")
    assert cell.stdout.strip() == "True True"
    fe.wait_for_status(key, "continued")
    fe.answer(key, {"db": "SQLite"})
    fe.kernel.wait_for(
        lambda: fe.card(key).get("noticeCode") == "reply-unread", timeout=5, what="notice"
    )
    assert "reads it at its next step" not in fe.card(key)["notice"]
    cell = fe.execute("print(len(agent.session.next_step)); agent.session.admit()")
    assert cell.stdout.strip() == "1"  # code can still read it
    assert fe.wait_for_status(key, "answered")["answer"] == {
        "answers": [{"id": "db", "selected": ["SQLite"]}]
    }


def test_a_silent_view_loses_its_claim_and_the_original_deadline_holds(
    fe: HeadlessFrontend,
) -> None:
    fe.execute(
        "started = time.monotonic()\n"
        f"task = asyncio.ensure_future(svc.ask_timed({{**{DB}, 'agent': agent}}, 'c2', 1500))"
    )
    key = fe.wait_for_card("Which database?")["key"]
    fe.claim(key)
    fe.kernel.wait_for(lambda: fe.frames(key), timeout=5, what="a frame")
    # No heartbeat: after 400 ms the claim is gone although the view never said so.
    fe.kernel.wait_for(
        lambda: fe.execute(f"print(panel.claims.held({key!r}))").stdout.strip() == "[]",
        timeout=5,
        what="the claim to be dropped",
    )
    cell = fe.execute(
        "r = await asyncio.wait_for(task, 10)\n"
        "print(json.dumps(r.to_wire()), round(time.monotonic() - started, 1) >= 1.4)"
    )
    assert cell.stdout.strip() == '{"pending": true, "callId": "c2"} True'
    assert fe.wait_for_status(key, "expired")["notice"].startswith("The agent went on")


def test_two_views_racing_settle_once(fe: HeadlessFrontend) -> None:
    other = HeadlessFrontend(fe.kernel, view_id="second-view")
    fe.execute(f"task = asyncio.ensure_future(svc.ask({DB}))")
    key = fe.wait_for_card("Which database?")["key"]
    fe.choose(key, "SQLite")
    other.choose(key, "Postgres")
    fe.submit(key)
    other.submit(key)
    assert result(fe) == '{"answers": [{"id": "db", "selected": ["SQLite"]}]}'
    error = other.wait_for_error()
    assert error["code"] in ("ALREADY_ANSWERED", "NOT_PENDING")
    assert fe.errors() == []


def test_malformed_and_forged_messages_change_nothing(fe: HeadlessFrontend) -> None:
    fe.execute(f"task = asyncio.ensure_future(svc.ask({DB}))")
    key = fe.wait_for_card("Which database?")["key"]
    model = fe.panel()
    fe.kernel.send_custom(model, "garbage")
    fe.kernel.send_custom(model, {"kind": "answer", "viewId": fe.view_id, "protocolVersion": 2})
    fe.send("answer", key="forged-key", answer={"answers": [{"id": "db", "selected": ["SQLite"]}]})
    fe.send("answer", key=key, answer={"answers": [{"id": "db", "selected": ["MySQL"]}]})
    fe.send("answer", key=key, answer={"answers": [{"id": "zz", "selected": []}]})
    fe.kernel.wait_for(lambda: len(fe.errors()) >= 5, timeout=5, what="five errors")
    assert [e["code"] for e in fe.errors()] == [
        "BAD_MESSAGE",
        "BAD_MESSAGE",
        "UNKNOWN_CARD",
        "BAD_ANSWER",
        "BAD_ANSWER",
    ]
    assert fe.card(key)["status"] == "pending"
    assert fe.execute("print(task.done())").stdout.strip() == "False"
    assert fe.kernel.handler_errors == []
    fe.answer(key, {"db": "Postgres"})
    assert result(fe) == '{"answers": [{"id": "db", "selected": ["Postgres"]}]}'


def test_top_level_await_in_a_cell_gets_the_answer(fe: HeadlessFrontend) -> None:
    cell = fe.kernel.execute_nowait(
        f"answer = await svc.ask({DB})\nprint(answer.answers[0].selected)"
    )
    key = fe.wait_for_card("Which database?")["key"]
    fe.answer(key, {"db": "SQLite"})
    cell.wait(10)
    assert cell.stdout.strip() == "['SQLite']"


def test_messages_over_a_subshell(fe: HeadlessFrontend) -> None:
    over_subshell = HeadlessFrontend(fe.kernel, view_id="lab-view")
    over_subshell.subshell_id = fe.kernel.create_subshell()
    fe.execute(f"task = asyncio.ensure_future(svc.ask({DB}))")
    key = over_subshell.wait_for_card("Which database?")["key"]
    over_subshell.answer(key, {"db": "Postgres"})
    assert result(fe) == '{"answers": [{"id": "db", "selected": ["Postgres"]}]}'


def test_an_agent_on_a_worker_thread(fe: HeadlessFrontend) -> None:
    fe.execute(
        "box = {}\n"
        f"worker = threading.Thread(target=lambda: box.update(r=asyncio.run(svc.ask({DB}))))\n"
        "worker.start()"
    )
    key = fe.wait_for_card("Which database?")["key"]
    fe.answer(key, {"db": "SQLite"})
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        out = fe.execute("print(worker.is_alive() or json.dumps(box['r'].to_wire()))").stdout
        if out.strip() != "True":
            break
    assert out.strip() == '{"answers": [{"id": "db", "selected": ["SQLite"]}]}'


def test_the_transcript_under_the_panel_records_each_settled_question(
    fe: HeadlessFrontend,
) -> None:
    cell = fe.kernel.execute("panel.close()\npanel = ipyask.QuestionPanel(svc)\ndisplay(panel)")

    def transcript() -> list[str]:
        return [o["data"]["text/markdown"] for o in cell.outputs if "text/markdown" in o["data"]]

    assert transcript() == [""]
    for question, label in (("Which database?", "SQLite"), ("Which cache?", "Redis")):
        fe.kernel.execute(
            f"task = asyncio.ensure_future(svc.ask({{'questions': [{{'id': 'q', "
            f"'question': {question!r}, 'options': [{{'label': {label!r}}}]}}]}}))"
        )
        key = fe.wait_for_card(question)["key"]
        fe.choose(key, label)
        fe.submit(key)
        assert label in result(fe)
    # The display is updated in place (the update answers the view's message, not this cell).
    expected = (
        "**Answered** by ada in the panel: Which database? → **SQLite**\n\n"
        "**Answered** by ada in the panel: Which cache? → **Redis**"
    )
    fe.kernel.wait_for(lambda: transcript() == [expected], timeout=5, what="the transcript")


def test_a_cell_ending_in_show_panel_shows_the_panel_once(fe: HeadlessFrontend) -> None:
    cell = fe.kernel.execute("ipyask.show_panel()")
    assert len(cell.displayed_models) == 1  # shown by show_panel, not again as the cell's value
    assert cell.result is None
    again = fe.kernel.execute("ipyask.show_panel()\nipyask.show_panel()")
    assert len(again.displayed_models) == 1  # once per cell
