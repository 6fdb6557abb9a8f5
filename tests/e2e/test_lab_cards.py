"""The card as people use it, in real JupyterLab 4: a kernel restart, the host's CSS, and every
card state in the light and dark themes (screenshots in artifacts/e2e/)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from ._pages import ARTIFACTS, PANEL_CELL, write_notebook

if TYPE_CHECKING:
    from pathlib import Path

    from ._pages import LabNotebook

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

ASK = (
    "task = asyncio.ensure_future(svc.ask({'questions': [{'id': 'db', 'question': "
    "'Which database should the agent use?', 'options': [{'label': 'Postgres'}, "
    "{'label': 'SQLite'}]}]}))"
)

_RESTART = """async () => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  await kernel.restart();
}"""


def test_a_kernel_restart_leaves_no_live_looking_card(
    lab_notebook: LabNotebook, lab_root: Path
) -> None:
    write_notebook(lab_root / "restart.ipynb", [PANEL_CELL, ASK])
    nb = lab_notebook
    nb.open("restart.ipynb", workspace="restart")
    nb.run(0)
    nb.run(1)
    card = nb.output(0).get_by_role("article", name="Which database should the agent use?")
    expect(card.get_by_role("radio", name="SQLite")).to_be_visible()
    nb.page.evaluate(_RESTART)
    expect(card.locator(".ipyask-notice")).to_have_text(
        "The kernel restarted — this question is no longer live.", timeout=20_000
    )
    expect(card.get_by_role("radio")).to_have_count(0)
    expect(card.get_by_role("button", name="Submit")).to_have_count(0)
    nb.screenshot("after-restart")


TALL_OUTPUT = "print('\\n'.join(f'line {i}' for i in range(120)))"

ASK_LATER = (
    "later = asyncio.ensure_future(svc.ask({'questions': [{'id': 'ci', 'question': "
    "'Which CI service?', 'options': [{'label': 'GitHub Actions'}, {'label': 'GitLab CI'}]}]}))"
)


GOT = "print(later.result().answers[0].selected)"


def test_a_new_card_is_scrolled_into_view_and_focused(
    lab_notebook: LabNotebook, lab_root: Path
) -> None:
    """The person works further down the notebook; a question arrives on the panel in the first
    cell, out of view: the notebook scrolls to it and the card takes the focus."""
    write_notebook(lab_root / "arrival.ipynb", [PANEL_CELL, TALL_OUTPUT, ASK_LATER, GOT])
    nb = lab_notebook
    nb.open("arrival.ipynb", workspace="arrival")
    nb.run(0)
    nb.run(1)
    nb.cells().nth(2).scroll_into_view_if_needed()
    expect(nb.output(0).locator(".ipyask")).not_to_be_in_viewport()
    nb.run(2)
    card = nb.output(0).get_by_role("article", name="Which CI service?")
    expect(card).to_be_focused()
    expect(card).to_be_in_viewport()
    nb.screenshot("arrived")
    card.get_by_role("radio", name="GitLab CI").click()
    card.get_by_role("button", name="Submit").click()
    expect(card.locator("[data-role=wait]")).to_have_text("Answered")
    nb.run(3)
    expect(nb.output(3)).to_have_text("['GitLab CI']")
    assert nb.log.errors == []


STATES_CELL = """\
from ipyask.widget import Card, QuestionWidget
q = lambda i, text, **kw: {"id": i, "question": text, **kw}
opts = lambda *labels: [{"label": label} for label in labels]
batch = [q("langs", "Which languages?", header="Languages", multiSelect=True,
           options=opts("Python", "Rust")),
         q("name", "Project name?", header="Name"),
         q("ci", "Set up CI?", header="CI", options=opts("Yes", "No"))]
approval = q("approval", "Run terraform apply?", detail="Applies **3** changes.",
             options=opts("Cancel", "Apply", "Always allow terraform"),
             intent={"kind": "approval", "approve": "Apply", "reject": "Cancel",
                     "always": "Always allow terraform",
                     "display": {"question": {"en": "Run terraform apply?"},
                                 "approve": {"en": "Apply"}}})
plan = q("plan", "Approve this plan?", detail="1. Add the table\\n2. Backfill",
         options=opts("Approve", "Keep planning"),
         intent={"kind": "plan-review", "approve": "Approve"})
timed = dict(call_id="c-t", wait="timed", frame={"remainingMs": 60000, "seq": 1},
             timeout_ms=120000)
states = QuestionWidget(cards=[
    Card(key="pending", questions=batch),
    Card(key="approval", questions=[approval]),
    Card(key="plan", questions=[plan]),
    Card(key="timed", questions=[q("db", "Which database?", options=opts("Postgres", "SQLite"))],
         **timed),
    Card(key="continued", call_id="c-c", wait="timed", status="continued",
         questions=[q("db", "Which database?", options=opts("Postgres", "SQLite"))]),
    Card(key="answered", questions=batch, status="answered", answer={"answers": [
        {"id": "langs", "selected": ["Python", "Rust"]},
        {"id": "name", "selected": [], "custom": "ipyask-demo"},
        {"id": "ci", "selected": []}]}),
    Card(key="rejected", questions=[approval], status="answered",
         answer={"answers": [{"id": "approval", "selected": ["Cancel"]}]}),
    Card(key="cancelled", questions=batch, status="cancelled",
         notice="You cancelled this question; the agent was told."),
    Card(key="expired", call_id="c-e", wait="timed", status="expired", questions=batch,
         notice="The agent continued without an answer."),
])
states"""

_THEME = """async (theme) => {
  await window.jupyterapp.commands.execute("apputils:change-theme", { theme });
}"""


@pytest.mark.parametrize("theme", ["JupyterLab Light", "JupyterLab Dark"])
def test_every_card_state_in_lab_with_its_css(
    lab_notebook: LabNotebook, lab_root: Path, theme: str
) -> None:
    write_notebook(lab_root / "states.ipynb", [STATES_CELL])
    nb = lab_notebook
    nb.open("states.ipynb", workspace=f"states-{theme.split()[-1].lower()}")
    nb.page.evaluate(_THEME, theme)
    nb.run(0)
    answered = nb.output(0).locator('article[data-key="answered"]')
    answered.get_by_role("button", name="Expand the question card").click()
    terms, details = answered.locator("dt"), answered.locator("dd")
    expect(terms).to_have_count(3)
    # JupyterLab's output area floats dt and dd side by side; the card stacks them.
    for i in range(3):
        term, detail = terms.nth(i), details.nth(i)
        assert term.evaluate("el => getComputedStyle(el).float") == "none"
        assert detail.evaluate("el => getComputedStyle(el).float") == "none"
        term_box, detail_box = term.bounding_box(), detail.bounding_box()
        assert term_box is not None and detail_box is not None
        assert detail_box["x"] == term_box["x"]  # under its question, not beside it
        assert detail_box["y"] >= term_box["y"] + term_box["height"] - 1
    # A minute left of two: the countdown bar is half drained.
    fill = nb.output(0).locator('article[data-key="timed"] [data-role=timebar-fill]')
    width = (
        "el => el.getBoundingClientRect().width / el.parentElement.getBoundingClientRect().width"
    )
    assert fill.evaluate(width) == pytest.approx(0.5, abs=0.05)
    shade = theme.split()[-1].lower()
    for key in ("pending", "approval", "plan", "timed", "continued", "answered", "rejected",
                "cancelled", "expired"):  # fmt: skip
        card = nb.output(0).locator(f'article[data-key="{key}"]')
        card.scroll_into_view_if_needed()
        card.screenshot(path=str(ARTIFACTS / f"lab-card-{shade}-{key}.png"))  # looked at by eye
    assert nb.log.errors == []


FIRST_CELL = """\
import asyncio, ipyask
first = await ipyask.ask("Which database?", options=["Postgres", "SQLite"])
print("got", first)"""

SECOND_CELL = """\
second = await ipyask.approve("Deploy now?")
print("got", second)"""

TASK_CELL = """\
async def agent():
    await asyncio.sleep(1)  # asks after its cell has finished
    return await ipyask.ask("Go ahead?", options=["Go"])
task = asyncio.ensure_future(agent())"""


def test_each_one_liner_cell_shows_only_its_own_card(
    lab_notebook: LabNotebook, lab_root: Path
) -> None:
    write_notebook(lab_root / "cells.ipynb", [FIRST_CELL, SECOND_CELL, TASK_CELL])
    nb = lab_notebook
    nb.open("cells.ipynb", workspace="cells")
    for index, (question, button) in enumerate(
        [("Which database?", "SQLite"), ("Deploy now?", "Approve")]
    ):
        nb.cells().nth(index).locator(".jp-InputArea-editor").click()
        nb.page.keyboard.press("Shift+Enter")
        card = nb.output(index).get_by_role("article", name=question)
        expect(card).to_be_visible()
        control = card.get_by_role("radio" if index == 0 else "button", name=button)
        control.click()
        if index == 0:
            card.get_by_role("button", name="Submit").click()
        expect(nb.output(index)).to_contain_text(f"got {button}")
        expect(card.locator("[data-role=wait]")).to_have_text("Answered")
    # An agent task's question shows in the cell that started it, after that cell finished.
    nb.run(2)
    card = nb.output(2).get_by_role("article", name="Go ahead?")
    card.get_by_role("radio", name="Go").click()
    card.get_by_role("button", name="Submit").click()
    expect(card.locator("[data-role=wait]")).to_have_text("Answered")
    # Each cell's output holds its own card only: none shows an earlier cell's answer.
    for index in range(3):
        expect(nb.output(index).get_by_role("article")).to_have_count(1)
    expect(nb.output(1)).not_to_contain_text("Which database?")
    nb.screenshot("own-cards")
    assert nb.log.errors == []
