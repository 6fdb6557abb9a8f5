"""End to end in real JupyterLab 4: ``ipyask.ask_blocking`` holds a cell until the card is answered.

A person presses Shift+Enter twice: the first cell blocks on the question, the second is queued
behind it. A real Playwright click on the card answers; the waiting cell then returns the answer
and the queued cell runs after it, in order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from ._pages import write_notebook

if TYPE_CHECKING:
    from pathlib import Path

    from ._pages import LabNotebook

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

ASK_CELL = """\
import ipyask

answer = ipyask.ask_blocking("Which database?", options=["Postgres", "SQLite"])
print("got", answer)"""

AFTER_CELL = 'print("after", answer)'


@pytest.mark.host("jupyterlab", "blocking")
def test_a_blocking_ask_holds_the_cell_and_the_queued_cell_runs_after(
    lab_notebook: LabNotebook, lab_root: Path
) -> None:
    write_notebook(lab_root / "blocking.ipynb", [ASK_CELL, AFTER_CELL])
    nb = lab_notebook
    nb.open("blocking.ipynb", workspace="blocking")
    page = nb.page
    prompt = [nb.cells().nth(i).locator(".jp-InputArea-prompt") for i in range(2)]

    # Shift+Enter twice, as a person would: run the first cell, then queue the second.
    nb.cells().nth(0).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    expect(nb.cells().nth(1)).to_contain_class("jp-mod-active")
    expect(prompt[0]).to_have_text("[*]:")
    page.keyboard.press("Shift+Enter")

    card = nb.output(0).get_by_role("article", name="Which database?")
    expect(card).to_be_visible()
    expect(card.get_by_role("radio", name="SQLite")).to_have_attribute("aria-checked", "false")
    # Both cells wait: the first on the answer, the second in the kernel's queue.
    expect(prompt[0]).to_have_text("[*]:")
    expect(prompt[1]).to_have_text("[*]:")
    expect(nb.output(1)).to_have_text("")
    expect(nb.output(0)).not_to_contain_text("got")
    nb.screenshot("card-waiting")

    card.get_by_role("radio", name="SQLite").click()
    expect(card.get_by_role("radio", name="SQLite")).to_have_attribute("aria-checked", "true")
    card.get_by_role("button", name="Submit").click()

    expect(nb.output(0)).to_contain_text("got SQLite")
    expect(nb.output(1)).to_have_text("after SQLite")
    # Execution counts show the order: the waiting cell finished first, the queued one after.
    expect(prompt[0]).to_have_text("[1]:")
    expect(prompt[1]).to_have_text("[2]:")
    expect(card.locator("[data-role=wait]")).to_have_text("Answered")
    expect(card.locator(".ipyask-summary__line")).to_have_text("SQLite")
    nb.screenshot("answered")
    assert nb.log.errors == []
