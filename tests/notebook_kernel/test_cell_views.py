"""Each cell shows its own questions: a one-liner cell's output holds only the cards asked from
that cell, the default panel holds every card, and an answer from either view is checked once,
by the panel (in a real ipykernel, over the real widget comms)."""

from __future__ import annotations

from typing import Any

import pytest

from ipyask.testing import Execution, HeadlessFrontend

pytestmark = pytest.mark.kernel


def _default_panel(fe: HeadlessFrontend) -> str:
    """A new default panel's model id (the panel of the fixture is closed, not displayed)."""
    cell = fe.execute(
        "panel.close()\nipyask.default_panel().close()\nprint(ipyask.default_panel().model_id)"
    )
    return str(cell.stdout.strip())


def _view_of(fe: HeadlessFrontend, cell: Execution) -> str:
    """The one widget the running ``cell`` displays."""
    fe.kernel.wait_for(lambda: cell.displayed_models, timeout=10, what="the cell's view")
    (model,) = cell.displayed_models
    return model


def _cell_view(fe: HeadlessFrontend, cell: Execution, panel: str) -> str:
    """The view of the running ``cell``'s own questions: a widget, not the panel."""
    view = _view_of(fe, cell)
    assert view != panel
    return view


def _questions(fe: HeadlessFrontend, model: str) -> list[str]:
    return [card["questions"][0]["question"] for card in fe.cards(model)]


def _answer(fe: HeadlessFrontend, model: str, key: str, qid: str, label: str) -> None:
    fe.send("answer", panel=model, key=key, answer={"answers": [{"id": qid, "selected": [label]}]})


def _finished(fe: HeadlessFrontend, cell: Execution) -> str:
    return str(cell.wait(10).stdout.strip())


def test_a_second_one_liner_cell_shows_only_its_own_card(fe: HeadlessFrontend) -> None:
    panel = _default_panel(fe)
    first = fe.kernel.execute_nowait(
        "print(await ipyask.ask('Which database?', options=['Postgres', 'SQLite']))"
    )
    first_view = _cell_view(fe, first, panel)
    card = fe.wait_for_card("Which database?", panel=first_view)
    _answer(fe, first_view, card["key"], "answer", "SQLite")
    assert _finished(fe, first) == "SQLite"

    second = fe.kernel.execute_nowait("print(await ipyask.approve('Deploy now?'))")
    second_view = _cell_view(fe, second, panel)
    approval = fe.wait_for_card("Deploy now?", panel=second_view)
    assert _questions(fe, second_view) == ["Deploy now?"]  # not the first cell's card
    # The first cell keeps its own card, answered; the default panel holds both.
    assert _questions(fe, first_view) == ["Which database?"]
    assert fe.card(card["key"], first_view)["status"] == "answered"
    assert sorted(_questions(fe, panel)) == ["Deploy now?", "Which database?"]

    _answer(fe, second_view, approval["key"], "approval", "Approve")
    assert _finished(fe, second) == "Approve"
    assert fe.wait_for_status(approval["key"], "answered")  # in the second cell's view
    assert fe.card(approval["key"], panel)["status"] == "answered"  # and in the panel


def test_every_question_a_cell_asks_shows_in_its_one_view(fe: HeadlessFrontend) -> None:
    panel = _default_panel(fe)
    cell = fe.kernel.execute_nowait(
        "got = []\n"
        "for name in ('first', 'second'):\n"
        "    got.append(await ipyask.ask(f'The {name} question?', options=['Yes', 'No']))\n"
        "batch = await ipyask.ask_batch({'questions': [{'id': 'b', 'question': 'A batch?'}]})\n"
        "print(got, batch.answers[0].custom)"
    )
    view = _cell_view(fe, cell, panel)
    for name in ("first", "second"):
        card = fe.wait_for_card(f"The {name} question?", panel=view)
        _answer(fe, view, card["key"], "answer", "Yes")
    batch = fe.wait_for_card("A batch?", panel=view)
    fe.send(
        "answer",
        panel=view,
        key=batch["key"],
        answer={"answers": [{"id": "b", "selected": [], "custom": "typed"}]},
    )
    assert _finished(fe, cell) == "['Yes', 'Yes'] typed"
    assert cell.displayed_models == [view]  # one view for the whole cell
    for widget in (view, panel):  # the last card turns answered right after the agent has it
        fe.wait_for_card(lambda c: c["key"] == batch["key"], status="answered", panel=widget)
    expected = ["The first question?", "The second question?", "A batch?"]
    assert _questions(fe, view) == expected
    assert _questions(fe, panel) == expected


def test_the_first_answer_wins_across_the_panel_and_the_cell_view(fe: HeadlessFrontend) -> None:
    panel = _default_panel(fe)
    cell = fe.kernel.execute_nowait(
        "print(await ipyask.ask('Which cache?', options=['Redis', 'Memcached']))"
    )
    view = _cell_view(fe, cell, panel)
    key = fe.wait_for_card("Which cache?", panel=view)["key"]
    _answer(fe, panel, key, "answer", "Redis")  # from a view of the panel, shown elsewhere
    _answer(fe, view, key, "answer", "Memcached")  # then from the cell's own view
    assert _finished(fe, cell) == "Redis"
    # The refusal reaches the view that sent the losing answer, through the cell's widget.
    fe.kernel.wait_for(lambda: fe.errors(view), timeout=5, what="the refusal")
    (error,) = fe.errors(view)
    assert (error["key"], error["code"]) in {(key, "ALREADY_ANSWERED"), (key, "NOT_PENDING")}
    assert fe.wait_for_status(key, "answered", timeout=5)
    assert fe.card(key, panel)["answer"] == {"answers": [{"id": "answer", "selected": ["Redis"]}]}
    assert fe.kernel.handler_errors == []


def test_take_time_in_the_cell_view_holds_the_panel_too(fe: HeadlessFrontend) -> None:
    panel = _default_panel(fe)
    cell = fe.kernel.execute_nowait(
        "print(await ipyask.ask('Deploy tonight?', options=['Yes', 'No'], timeout=60))"
    )
    view = _cell_view(fe, cell, panel)
    key = fe.wait_for_card("Deploy tonight?", panel=view)["key"]
    fe.send("hold", panel=view, key=key)
    fe.kernel.wait_for(lambda: fe.card(key, panel).get("held"), timeout=5, what="the hold")
    fe.send("timed_out", panel=panel, key=key)  # the panel's countdown ran out elsewhere
    fe.kernel.wait_for(lambda: fe.errors(panel), timeout=5, what="the refusal")
    assert [e["code"] for e in fe.errors(panel)] == ["HELD"]
    assert fe.card(key, view)["held"] is True
    _answer(fe, view, key, "answer", "No")
    assert _finished(fe, cell) == "No"


def test_each_cell_keeps_a_transcript_of_its_own_questions(fe: HeadlessFrontend) -> None:
    panel = _default_panel(fe)
    for question in ("Ship it?", "Tag it?"):
        cell = fe.kernel.execute_nowait(f"print(await ipyask.ask({question!r}, options=['Yes']))")
        view = _cell_view(fe, cell, panel)
        _answer(fe, view, fe.wait_for_card(question, panel=view)["key"], "answer", "Yes")
        assert _finished(fe, cell) == "Yes"

        def transcript(cell: Execution = cell) -> list[Any]:
            data = [output.get("data", {}) for output in cell.outputs]
            return [item["text/markdown"] for item in data if "text/markdown" in item]

        expected = [f"**Answered** by ada in the cell view: {question} → **Yes**"]
        fe.kernel.wait_for(lambda e=expected: transcript() == e, timeout=5, what="its transcript")


def test_a_cell_that_shows_the_panel_asks_into_it(fe: HeadlessFrontend) -> None:
    panel = _default_panel(fe)
    cell = fe.kernel.execute_nowait(
        "ipyask.show_panel()\nprint(await ipyask.ask('In the panel?', options=['Yes']))"
    )
    assert _view_of(fe, cell) == panel  # no second view in this cell
    _answer(fe, panel, fe.wait_for_card("In the panel?", panel=panel)["key"], "answer", "Yes")
    assert _finished(fe, cell) == "Yes"
    assert cell.displayed_models == [panel]


def test_an_agent_task_asks_into_the_cell_that_started_it(fe: HeadlessFrontend) -> None:
    panel = _default_panel(fe)
    started = fe.execute("task = asyncio.ensure_future(ipyask.ask('From a task?', ['Yes']))")
    later = fe.execute("print('another cell')")
    view = _cell_view(fe, started, panel)  # in the cell whose context the task has
    assert later.displayed_models == []
    key = fe.wait_for_card("From a task?", panel=view)["key"]
    assert key in [card["key"] for card in fe.cards(panel)]
    _answer(fe, view, key, "answer", "Yes")
    assert fe.execute("print(await asyncio.wait_for(task, 10))").stdout.strip() == "Yes"


def test_a_blocking_one_liner_is_answered_from_its_cell_view(fe: HeadlessFrontend) -> None:
    # The main thread blocks: the cell view's messages must take the panel's route to a subshell.
    panel = _default_panel(fe)
    cell = fe.kernel.execute_nowait("print(ipyask.ask_blocking('Block?', options=['Yes']))")
    view = _cell_view(fe, cell, panel)
    _answer(fe, view, fe.wait_for_card("Block?", panel=view)["key"], "answer", "Yes")
    assert _finished(fe, cell) == "Yes"
