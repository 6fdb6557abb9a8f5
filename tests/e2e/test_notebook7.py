"""End to end in real Jupyter Notebook 7: the quickstart, the cell forms and the approval card.

Notebook 7 is served with ``--JupyterNotebookApp.expose_app_in_browser=True``, so cells run
through the same ``window.jupyterapp`` commands as in JupyterLab; every answer is a real
Playwright click on the card.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from ._pages import ONE_LINERS_ZH, write_notebook

if TYPE_CHECKING:
    from playwright.sync_api import Locator

    from ._pages import Notebook7Page

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

QUICKSTART = Path(__file__).resolve().parents[2] / "notebooks" / "quickstart.ipynb"

NOTEBOOK_NOISE = (
    # Notebook 7.6 raises this on load, reading its keyboard shortcut settings (an empty page
    # without ipyask shows it too).
    r"^pageerror: Cannot read properties of undefined \(reading 'schema'\)$",
)

CONTINUED = "Work continued — you can still answer"


def shift_enter(nb: Notebook7Page, count: int) -> None:
    """Press Shift+Enter ``count`` times from the first cell, as a person runs cells one by one."""
    nb.cells().nth(0).locator(".jp-InputArea-editor").click()
    for index in range(count):
        nb.page.keyboard.press("Shift+Enter")
        expect(nb.cells().nth(index + 1)).to_contain_class("jp-mod-active")


def prompts(nb: Notebook7Page, count: int) -> list[Locator]:
    return [nb.cells().nth(i).locator(".jp-InputArea-prompt") for i in range(count)]


@pytest.mark.host("notebook7", "task", "approval")
def test_the_whole_quickstart(notebook7_page: Notebook7Page, lab_root: Path) -> None:
    """Run all cells of notebooks/quickstart.ipynb and answer every card the agent task asks."""
    shutil.copyfile(QUICKSTART, lab_root / "quickstart.ipynb")
    nb = notebook7_page
    nb.open("quickstart.ipynb")
    nb.page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page = nb.page
    results = page.locator(".quickstart-results")
    expect(results).to_have_text("The agent has not heard from you yet.", timeout=30_000)

    card = page.get_by_role("article", name="Which database should the project use?")
    card.get_by_role("radio", name="Postgres").click()
    card.get_by_role("button", name="Submit").click()
    expect(results).to_contain_text("database: Postgres")
    nb.screenshot("database")

    approval = page.get_by_role("article", name="Delete 3 files in build/?")
    expect(approval.get_by_role("button", name="Always allow")).to_be_visible()
    approval.get_by_role("button", name="Approve").click()  # the approve= label (the default)
    expect(results).to_contain_text("delete build files: Approve")

    batch = page.get_by_role("article", name="Which languages will you use?")
    batch.get_by_role("checkbox", name="Python").click()
    batch.get_by_role("checkbox", name="Rust").click()
    batch.get_by_role("button", name="Next", exact=True).click()
    # The card is named after the question its pager shows.
    batch = page.get_by_role("article", name="What should the project be called?")
    batch.get_by_role("textbox").fill("ipyask-demo")
    batch.get_by_role("button", name="Next", exact=True).click()
    batch = page.get_by_role("article", name="Which CI service?")
    batch.get_by_role("radio", name="GitHub Actions").click()
    batch.get_by_role("button", name="Submit").click()
    expect(results).to_contain_text("langs: Python, Rust")
    expect(results).to_contain_text("name: ipyask-demo")
    expect(results).to_contain_text("ci: GitHub Actions")

    plan = page.get_by_role("article", name="Run this migration plan?")
    expect(plan.locator("ol > li")).to_have_count(3)
    plan.get_by_role("button", name="Approve").click()
    expect(results).to_contain_text("plan: Approve")

    # The timed question: let its 10 s run out, then answer late.
    deploy = page.get_by_role("article", name="Deploy to production tonight?")
    expect(deploy.locator("[data-role=wait]")).to_have_text(CONTINUED, timeout=20_000)
    expect(results).to_contain_text("deploy: pending — the agent works on")
    deploy.get_by_role("radio", name="Yes").click()
    deploy.get_by_role("button", name="Submit").click()
    expect(results).to_contain_text("deploy (late reply): ['Yes']")
    tool = nb.page.get_by_role("article", name="Run write_file?")
    expect(tool.get_by_text("write_file", exact=True).first).to_be_visible()
    tool.get_by_role("button", name="Approve", exact=True).click()
    expect(results).to_contain_text("tool: approve {'path': 'report.md', 'overwrite': True}")
    booking = nb.page.get_by_role("article", name="Book a table for the team dinner")
    booking.get_by_role("textbox", name="Your name").fill("Ada")
    booking.get_by_role("textbox", name="Email").fill("ada@example.org")
    booking.get_by_role("button", name="Submit", exact=True).click()
    expect(results).to_contain_text("form: accept")
    expect(results).to_contain_text("done")
    expect(deploy.locator("[data-role=wait]")).to_have_text("Answered late")  # a late reply
    nb.screenshot("done")
    assert nb.log.unexpected(*NOTEBOOK_NOISE) == []


ASK_BLOCKING = """\
import ipyask

answer = ipyask.ask_blocking("Which database?", options=["Postgres", "SQLite"])
print("got", answer)"""

APPROVE_BLOCKING = """\
decision = ipyask.approve_blocking("Delete 3 files in build/?", subject="shell",
                                   always="Always allow")
print("decision", decision)"""

AFTER = 'print("after", answer, decision)'


@pytest.mark.host("notebook7", "blocking", "approval")
def test_the_blocking_forms_hold_their_cells_and_queued_cells_run_after(
    notebook7_page: Notebook7Page, lab_root: Path
) -> None:
    write_notebook(lab_root / "blocking-notebook7.ipynb", [ASK_BLOCKING, APPROVE_BLOCKING, AFTER])
    nb = notebook7_page
    nb.open("blocking-notebook7.ipynb")
    prompt = prompts(nb, 3)
    shift_enter(nb, 3)

    card = nb.output(0).get_by_role("article", name="Which database?")
    expect(card).to_be_visible()
    for waiting in prompt:  # the first waits on the answer, the others in the kernel's queue
        expect(waiting).to_have_text("[*]:")
    expect(nb.output(2)).to_have_text("")
    nb.screenshot("card-waiting")
    card.get_by_role("radio", name="SQLite").click()
    card.get_by_role("button", name="Submit").click()
    expect(nb.output(0)).to_contain_text("got SQLite")

    approval = nb.output(1).get_by_role("article", name="Delete 3 files in build/?")
    expect(approval.get_by_role("button", name="Reject")).to_be_visible()
    expect(prompt[1]).to_have_text("[*]:")
    nb.screenshot("approval-waiting")
    approval.get_by_role("button", name="Always allow").click()
    expect(nb.output(1)).to_contain_text("decision Always allow")
    expect(nb.output(2)).to_have_text("after SQLite Always allow")
    assert [p.inner_text() for p in prompt] == ["[1]:", "[2]:", "[3]:"]
    expect(approval.locator("[data-role=wait]")).to_have_text("Answered")
    nb.screenshot("answered")
    assert nb.log.unexpected(*NOTEBOOK_NOISE) == []


AWAIT_CELL = """\
import json, ipyask

db = await ipyask.ask("Which database?", options=["Postgres", "SQLite"])
decision = await ipyask.approve("Deploy now?", detail="`make deploy`", subject="shell")
print(json.dumps([db, decision]))"""


@pytest.mark.host("notebook7", "await", "approval")
def test_await_in_a_cell_with_an_approval_card(
    notebook7_page: Notebook7Page, lab_root: Path
) -> None:
    write_notebook(lab_root / "await.ipynb", [AWAIT_CELL, 'print("after", db, decision)'])
    nb = notebook7_page
    nb.open("await.ipynb")
    prompt = prompts(nb, 2)
    shift_enter(nb, 2)

    card = nb.output(0).get_by_role("article", name="Which database?")
    card.get_by_role("radio", name="Postgres").click()
    card.get_by_role("button", name="Submit").click()
    approval = nb.output(0).get_by_role("article", name="Deploy now?")
    expect(approval.locator("code")).to_have_text("make deploy")
    expect(prompt[0]).to_have_text("[*]:")
    approval.get_by_role("button", name="Reject").click()
    expect(nb.output(0)).to_contain_text('["Postgres", "Reject"]')
    assert json.loads(nb.output(0).locator("pre").last.inner_text()) == ["Postgres", "Reject"]
    expect(nb.output(1)).to_have_text("after Postgres Reject")
    expect(approval.locator("[data-role=wait]")).to_have_text("Rejected")
    nb.screenshot("answered")
    assert nb.log.unexpected(*NOTEBOOK_NOISE) == []


_DARK = """async () => {
  await window.jupyterapp.commands.execute("apputils:change-theme", { theme: "JupyterLab Dark" });
}"""


def test_the_one_liners_clicked_in_the_dark_theme_and_in_chinese(
    notebook7_page: Notebook7Page, lab_root: Path
) -> None:
    """An ask and an approve in Chinese on the dark theme: the agent gets the option clicked and
    the label behind the clicked button, and the answered cards say what the person did."""
    write_notebook(lab_root / "one_liners_zh.ipynb", ONE_LINERS_ZH)
    nb = notebook7_page
    nb.open("one_liners_zh.ipynb")
    nb.page.evaluate(_DARK)
    expect(nb.page.locator("body")).to_have_attribute("data-jp-theme-light", "false")
    nb.run(0)
    results = nb.page.locator(".one-liner-results")
    card = nb.output(0).get_by_role("article", name="用哪个数据库？")
    card.get_by_role("radio", name="SQLite").click()
    nb.screenshot("ask")
    card.get_by_role("button", name="提交").click()
    expect(results).to_have_text("ask: SQLite")
    expect(card.locator("[data-role=wait]")).to_have_text("已回答")
    expect(card.locator(".ipyask-summary")).to_have_text("SQLite")

    approval = nb.output(0).get_by_role("article", name="删除 build/ 里的 3 个文件？")
    expect(approval.locator(".ipyask-buttons button")).to_have_text(["拒绝", "始终允许", "Apply"])
    nb.screenshot("approval")
    approval.get_by_role("button", name="拒绝").click()
    expect(results).to_contain_text("approve: Cancel")
    expect(approval.locator("[data-role=wait]")).to_have_text("已拒绝")
    expect(approval.locator(".ipyask-summary")).to_have_text("已拒绝 · 智能体收到“Cancel”")
    nb.screenshot("answered")
    assert nb.log.unexpected(*NOTEBOOK_NOISE) == []
