"""End to end in real JupyterLab 4: a person answers the agent's questions by clicking the card,
is told of a question that arrives out of view or while the tab is hidden, and opens the inbox
page from JupyterLab's command palette.

Cells run through Lab's own ``notebook:run-cell`` command; every click on a card is a real
Playwright click in the Lab page. The kernel's side is read back from later cells' output.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from helpers.page_scripts import HIDE, NOTES, RECORD_NOTIFICATIONS, SHOW

from ._inbox_page import agent_asking, card_of, pending_ids, wait_for_question
from ._pages import PANEL_CELL, save_screenshot, watch_text, watched_texts, write_notebook

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


def test_the_command_palette_opens_the_inbox_page_in_a_new_tab(
    lab_notebook: LabNotebook, lab_root: Path
) -> None:
    # The server's inbox page shows the default store under its root (ipyask's server extension)
    store = str(lab_root / ".ipyask" / "questions.sqlite3")
    known = set(pending_ids(store))
    page, server = lab_notebook.page, lab_notebook.server
    with agent_asking(store, "lab-command-1") as agent:
        wait_for_question(store, known)
        page.goto(f"{server.url}/lab/workspaces/inbox-command?token={server.token}")
        launcher = page.locator(".jp-LauncherCard-label", has_text=re.compile("^ipyask Inbox$"))
        expect(launcher).to_be_visible(timeout=30_000)  # a fresh workspace shows the launcher
        page.get_by_role("menuitem", name="View").click()
        expect(page.get_by_role("menuitem", name="Open the ipyask Inbox")).to_be_visible()
        page.keyboard.press("Escape")
        lab_notebook.screenshot("launcher")

        page.keyboard.press("Control+Shift+C")  # the command palette
        page.locator(".lm-CommandPalette-input").fill("ipyask inbox")
        item = page.locator(".lm-CommandPalette-item", has_text="Open the ipyask Inbox")
        expect(item).to_be_visible()
        with page.context.expect_page() as opened:
            item.click()
        inbox = opened.value
        inbox.wait_for_load_state()
        assert inbox.url == f"{server.url}/ipyask/inbox"  # under the server's base URL
        card = card_of(inbox, agent.pid)
        expect(card.get_by_role("radio", name="Yes")).to_be_visible()
        save_screenshot(inbox, "lab-inbox-command-page")
    assert lab_notebook.log.errors == []


IN_EDITOR = "() => Boolean(document.activeElement?.closest('.jp-Cell .cm-editor'))"

ASK_ON_SIGNAL = """\
import os


async def ask_on(signal, question):
    # The test's signal: a file it writes once the person is busy elsewhere.
    while not os.path.exists(signal):
        await asyncio.sleep(0.05)
    return await svc.ask({'questions': [question]})


first = asyncio.ensure_future(ask_on('go-first', %r))
second = asyncio.ensure_future(ask_on('go-second', %r))"""
FIRST = {"id": "a", "question": "Deploy to staging?", "options": [{"label": "Yes"}]}
SECOND = {"id": "b", "question": "Rotate the keys?", "options": [{"label": "Yes"}]}


def test_a_question_out_of_view_or_in_a_hidden_tab_finds_the_person(
    lab_notebook: LabNotebook, lab_root: Path
) -> None:
    nb = lab_notebook
    nb.page.context.grant_permissions(["notifications"], origin=nb.server.url)
    nb.page.context.add_init_script(RECORD_NOTIFICATIONS)
    write_notebook(
        lab_root / "attention.ipynb",
        [
            PANEL_CELL,
            "from IPython.display import HTML\n"
            "HTML('<div style=\"height: 2400px\">the rest of the notebook</div>')",
            ASK_ON_SIGNAL % (FIRST, SECOND),
            "",
        ],
    )
    nb.open("attention.ipynb", workspace="attention")
    for index in range(3):
        nb.run(index)
    panel = nb.output(0).locator(".ipyask")
    expect(panel).to_be_attached()
    # The person types in the last cell, far below the panel
    nb.cells().nth(3).locator(".cm-content").click()
    nb.page.keyboard.type("x = 1")
    (lab_root / "go-first").touch()

    jump = nb.page.get_by_role("button", name="A question is waiting")
    expect(jump).to_be_visible()
    expect(jump).to_be_in_viewport()
    waiting = nb.page.locator("[data-role=waiting]")
    expect(waiting).to_have_attribute("aria-live", "polite")  # said once, politely
    assert nb.page.evaluate(IN_EDITOR)  # the focus stayed where the person types
    nb.screenshot("waiting-control")
    assert jump.evaluate("el => el.tabIndex") == 0  # in the page's tab order
    jump.focus()
    nb.page.keyboard.press("Enter")
    first = panel.get_by_role("article", name="Deploy to staging?")
    expect(first).to_be_in_viewport()
    expect(first).to_be_focused()
    expect(jump).to_have_count(0)

    # Desktop notifications, turned on from the panel (the browser's permission is granted)
    toggle = panel.get_by_role("button", name="Notify me")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    nb.page.evaluate(HIDE)  # the person went to another tab
    expect(nb.page).to_have_title(re.compile(r"^\(1\) "))
    (lab_root / "go-second").touch()
    expect(nb.page).to_have_title(re.compile(r"^\(2\) "))
    nb.page.wait_for_function("() => window.__notes.length > 0")
    assert nb.page.evaluate(NOTES) == [
        {
            "title": "2 questions are waiting",
            "body": "Rotate the keys?",
            "tag": "ipyask-waiting",
            "silent": True,
            "closed": False,
        }
    ]
    nb.page.evaluate("() => window.__notes[0].onclick()")  # the person clicks it
    nb.page.evaluate(SHOW)
    expect(nb.page).not_to_have_title(re.compile(r"^\("))
    second = panel.get_by_role("article", name="Rotate the keys?")
    expect(second).to_be_focused()
    expect(second).to_be_in_viewport()
    nb.screenshot("notified-card")
    assert nb.log.errors == []
