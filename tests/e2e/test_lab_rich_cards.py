"""End to end in real JupyterLab 4: a tool call approved with edited arguments, and a form filled.

Each cell blocks on its card (the ``_blocking`` one-liners); real Playwright clicks and typing in
the Lab page answer it, and the cell prints what the kernel got back.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from ._pages import write_notebook

if TYPE_CHECKING:
    from pathlib import Path

    from ._pages import LabNotebook

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

TOOL_CELL = """\
import ipyask

schema = {"type": "object", "required": ["path"], "properties": {
    "path": {"type": "string", "title": "Path"},
    "retries": {"type": "integer", "title": "Retries", "minimum": 0, "maximum": 5}}}
decision = ipyask.approve_tool_blocking(
    "write_file", {"path": "notes.md", "retries": 1}, schema=schema,
    decisions=("approve", "edit", "reject"), description="Writes a **file**.")
print("decision", decision.model_dump_json())"""

FORM_CELL = """\
booking = {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string", "title": "Name", "minLength": 2},
    "guests": {"type": "integer", "title": "Guests", "minimum": 1, "default": 2},
    "terrace": {"type": "boolean", "title": "Terrace"}}}
result = ipyask.form_blocking("Book a table", booking)
print("form", result.model_dump_json())"""


def _run_with_shift_enter(nb: LabNotebook, index: int) -> None:
    nb.cells().nth(index).locator(".jp-InputArea-editor").click()
    nb.page.keyboard.press("Shift+Enter")


def test_a_tool_call_is_approved_with_edited_arguments_and_a_form_is_filled(
    lab_notebook: LabNotebook, lab_root: Path
) -> None:
    write_notebook(lab_root / "rich.ipynb", [TOOL_CELL, FORM_CELL])
    nb = lab_notebook
    nb.open("rich.ipynb", workspace="rich")

    _run_with_shift_enter(nb, 0)
    card = nb.output(0).get_by_role("article", name="Run write_file?")
    expect(card).to_be_visible()
    expect(card.locator(".ipyask-tool-name")).to_have_text("write_file")
    expect(card.get_by_role("group", name="Arguments")).to_contain_text('"retries": 1')
    nb.screenshot("tool-card")
    card.get_by_role("button", name="Edit").click()
    retries = card.get_by_role("spinbutton", name="Retries")
    retries.fill("9")
    expect(card.get_by_text("Must be at most 5.", exact=True)).to_be_visible()
    retries.fill("3")
    nb.screenshot("tool-edit")
    card.get_by_role("button", name="Submit").click()
    expect(nb.output(0)).to_contain_text("decision")
    printed = nb.output(0).locator("[data-mime-type='application/vnd.jupyter.stdout']")
    decision = json.loads(printed.inner_text().strip().removeprefix("decision "))
    assert decision == {
        "kind": "edit",
        "arguments": {"path": "notes.md", "retries": 3},
        "message": None,
    }

    _run_with_shift_enter(nb, 1)
    form = nb.output(1).get_by_role("article", name="Book a table")
    expect(form).to_be_visible()
    form.get_by_role("textbox", name="Name").fill("Ada")
    form.get_by_role("checkbox", name="Terrace").check()
    nb.screenshot("form")
    form.get_by_role("textbox", name="Name").press("Enter")
    expect(nb.output(1)).to_contain_text("form")
    printed = nb.output(1).locator("[data-mime-type='application/vnd.jupyter.stdout']")
    result = json.loads(printed.inner_text().strip().removeprefix("form "))
    assert result == {
        "action": "accept",
        "values": {"name": "Ada", "guests": 2, "terrace": True},
    }
    expect(form.locator("[data-role=wait]")).to_have_text("Answered")
    assert nb.log.errors == []
