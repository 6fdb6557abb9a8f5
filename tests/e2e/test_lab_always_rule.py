"""End to end in real JupyterLab 4: a tool call's scoped Always allow. The person narrows the
suggested rule and saves it; the rules file has it, the agent gets Always allow with the rule,
and the next matching call is answered by the rule with no card."""

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

FIRST_CELL = """\
import os
os.environ["IPYASK_RULES"] = {path!r}
import ipyask
DECISIONS = ("approve", "always", "reject")
first = ipyask.approve_tool_blocking("write_file", {{"path": "notes/a.md"}}, decisions=DECISIONS)
print("first", first.model_dump_json())"""

SECOND_CELL = """\
second = ipyask.approve_tool_blocking("write_file", {"path": "notes/b.md"}, decisions=DECISIONS)
print("second", second.kind)"""


def test_always_allow_saves_a_narrowed_rule_that_answers_the_next_call(
    lab_notebook: LabNotebook, lab_root: Path
) -> None:
    rules = lab_root / "always-rules.toml"
    rules.write_text("# rules the cards add\n")
    write_notebook(lab_root / "always.ipynb", [FIRST_CELL.format(path=str(rules)), SECOND_CELL])
    nb = lab_notebook
    nb.open("always.ipynb", workspace="always")

    nb.cells().nth(0).locator(".jp-InputArea-editor").click()
    nb.page.keyboard.press("Shift+Enter")
    card = nb.output(0).get_by_role("article", name="Run write_file?")
    card.get_by_role("button", name="Always allow").click()
    rule = card.get_by_role("textbox", name="Rule: the calls it allows without asking")
    expect(rule).to_have_value('write_file(path="notes/**")')
    rule.fill('write_file(path="notes/*.md")')
    card.get_by_role("radio", name=f"Save as a rule in {rules}").check()
    nb.screenshot("always-rule")
    card.get_by_role("button", name="Submit").click()
    printed = nb.output(0).locator("[data-mime-type='application/vnd.jupyter.stdout']")
    expect(printed).to_contain_text("first")
    first = json.loads(printed.inner_text().strip().removeprefix("first "))
    assert first == {
        "kind": "always",
        "arguments": {"path": "notes/a.md"},
        "message": 'write_file(path="notes/*.md")',
    }
    assert (
        rules.read_text() == "# rules the cards add\nallow = ['write_file(path=\"notes/*.md\")']\n"
    )

    nb.run(1)
    expect(nb.output(1)).to_contain_text("second approve")
    expect(nb.output(1).get_by_role("article")).to_have_count(0)  # the rule answered: no card
