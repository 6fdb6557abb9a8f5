"""End to end in real JupyterLab 4: a person answers the agent's questions by clicking the card.

Cells run through Lab's own ``notebook:run-cell`` command; every click on a card is a real
Playwright click in the Lab page. The kernel's side is read back from later cells' output.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from ._pages import PANEL_CELL, watch_text, watched_texts, write_notebook

if TYPE_CHECKING:
    from pathlib import Path

    from ._pages import LabNotebook

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

DB = {
    "id": "db",
    "header": "Storage",
    "question": "Which database should the agent use?",
    "options": [
        {"label": "Postgres (Recommended)", "description": "Shared server, production-like."},
        {"label": "SQLite", "description": "A single local file, nothing to run."},
    ],
}
DB_ANSWER = {"answers": [{"id": "db", "selected": ["SQLite"]}]}

CONTINUED = "Work continued — you can still answer"
# The task that asked has ended and no loop declared itself: the answer waits unread.
REPLY_UNREAD = (
    "Answer sent to the agent's inbox, but the task that asked has ended: nobody reads it "
    "unless the agent's code reads its inbox again (agent.session.next_step)."
)


@pytest.mark.host("jupyterlab", "task")
def test_an_agent_ask_is_answered_by_clicking_the_card(
    lab_notebook: LabNotebook, lab_root: Path
) -> None:
    write_notebook(
        lab_root / "ask.ipynb",
        [
            PANEL_CELL,
            f"task = asyncio.ensure_future(svc.ask({{'questions': [{DB!r}]}}))",
            "await asyncio.wait({task}, timeout=10)\nprint(json.dumps(task.result().to_wire()))",
        ],
    )
    nb = lab_notebook
    nb.open("ask.ipynb", workspace="ask")
    nb.run(0)
    panel = nb.output(0).locator(".ipyask")
    expect(panel).to_be_attached()
    stderr = nb.output(0).locator("[data-mime-type='application/vnd.jupyter.stderr']")
    expect(stderr).to_have_count(0)  # displaying the panel raised nothing
    nb.screenshot("panel")

    nb.run(1)
    card = panel.get_by_role("article", name="Which database should the agent use?")
    expect(card).to_be_visible()
    expect(card.get_by_role("radio", name="Postgres")).to_have_attribute("aria-checked", "false")
    nb.screenshot("card")

    card.get_by_role("radio", name="SQLite").click()
    expect(card.get_by_role("radio", name="SQLite")).to_have_attribute("aria-checked", "true")
    expect(card.get_by_role("radio", name="Postgres")).to_have_attribute("aria-checked", "false")
    nb.screenshot("chosen")
    card.get_by_role("button", name="Submit").click()

    expect(card.locator("[data-role=wait]")).to_have_text("Answered")
    expect(card.locator(".ipyask-summary__line")).to_have_text("SQLite")
    # The Markdown transcript under the panel, which a saved notebook keeps.
    transcript = nb.output(0).locator("[data-mime-type='text/markdown']")
    expect(transcript).to_contain_text("Answered")
    expect(transcript).to_contain_text("Storage — Which database should the agent use? → SQLite")
    nb.run(2)
    expect(nb.output(2)).to_contain_text("answers")
    assert json.loads(nb.output(2).inner_text().strip()) == DB_ANSWER
    nb.screenshot("answered")
    assert nb.log.errors == []


def test_a_timed_question_runs_out_then_takes_a_late_answer(
    lab_notebook: LabNotebook, lab_root: Path
) -> None:
    write_notebook(
        lab_root / "timed.ipynb",
        [
            PANEL_CELL,
            "tool = ipyask.AskUserQuestionTool(svc, mode='timed', timeout=3)\n"
            "agent = svc.agents.enter(ipyask.Agent('main'))\n"
            f"task = asyncio.ensure_future(tool.execute({{'questions': [{DB!r}]}},"
            " call_id='call_1', agent=agent))",
            "result = await asyncio.wait_for(task, 10)\nprint(result.content)",
            "print('queued', len(agent.session.next_step))",
            "agent.session.admit()\nprint('admitted', len(agent.session.next_step))",
        ],
    )
    nb = lab_notebook
    nb.open("timed.ipynb", workspace="timed")
    nb.run(0)
    panel = nb.output(0).locator(".ipyask")
    expect(panel).to_be_attached()

    nb.run(1)
    card = panel.get_by_role("article", name="Which database should the agent use?")
    status = card.locator("[data-role=wait]")
    expect(status).to_have_text(re.compile(r"^Continuing in [1-3]s$"))
    watch_text(card, "[data-role=wait]")
    expect(card.get_by_role("button", name="Take time")).to_be_visible()
    nb.screenshot("countdown")
    # Hands off: the countdown runs out in the browser, which tells the kernel.
    expect(status).to_have_text(CONTINUED, timeout=10_000)
    expect(card.get_by_role("button", name="Take time")).to_have_count(0)
    *countdown, last = watched_texts(card)
    assert last == CONTINUED
    assert all(re.fullmatch(r"Continuing in [0-3]s", text) for text in countdown), countdown
    seconds = [int(re.sub(r"\D", "", text)) for text in countdown]
    assert seconds == sorted(seconds, reverse=True)
    assert seconds[-1] <= 1
    nb.screenshot("continued")

    nb.run(2)
    expect(nb.output(2)).to_contain_text("pending")
    pending = json.loads(nb.output(2).inner_text().strip())
    assert (pending["pending"], pending["callId"]) == (True, "call_1")

    card.get_by_role("radio", name="SQLite").click()
    card.get_by_role("button", name="Submit").click()
    expect(card.locator(".ipyask-notice")).to_have_text(REPLY_UNREAD)
    nb.screenshot("late-answer-sent")

    nb.run(3)
    expect(nb.output(3)).to_have_text("queued 1")
    nb.run(4)
    expect(nb.output(4)).to_contain_text("admitted 0")
    expect(status).to_have_text("Answered late")  # as the transcript says
    expect(card.locator(".ipyask-summary__line")).to_have_text("SQLite")
    nb.screenshot("answered")
    assert nb.log.errors == []


def test_a_discarded_late_answer_can_be_given_again(
    lab_notebook: LabNotebook, lab_root: Path
) -> None:
    write_notebook(
        lab_root / "discard.ipynb",
        [
            PANEL_CELL,
            "tool = ipyask.AskUserQuestionTool(svc, mode='timed', timeout=1)\n"
            "agent = svc.agents.enter(ipyask.Agent('main'))\n"
            f"task = asyncio.ensure_future(tool.execute({{'questions': [{DB!r}]}},"
            " call_id='call_1', agent=agent))",
            "agent.session.discard(agent.session.next_step[0])\n"
            "print(panel.get_cards()[0].status, panel.get_cards()[0].notice)",
        ],
    )
    nb = lab_notebook
    nb.open("discard.ipynb", workspace="discard")
    nb.run(0)
    nb.run(1)
    card = nb.output(0).get_by_role("article", name="Which database should the agent use?")
    expect(card.locator("[data-role=wait]")).to_have_text(CONTINUED, timeout=8_000)
    card.get_by_role("radio", name="SQLite").click()
    card.get_by_role("button", name="Submit").click()
    expect(card.locator(".ipyask-notice")).to_have_text(REPLY_UNREAD)
    nb.run(2)
    expect(nb.output(2)).to_have_text("continued None")  # the kernel reopened the card
    expect(card.locator(".ipyask-notice")).to_have_count(0)
    nb.screenshot("reopened")
    expect(card.get_by_role("button", name="Submit")).to_be_enabled(timeout=2_000)
