"""The card as people use it, in real JupyterLab 4: a kernel restart, the host's CSS, and every
card state in the light and dark themes (screenshots in artifacts/e2e/)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from ._pages import write_notebook

if TYPE_CHECKING:
    from pathlib import Path

    from ._pages import LabNotebook

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

PANEL_CELL = """\
import asyncio, json
import ipyask

svc = ipyask.UserQuestions()
panel = ipyask.QuestionPanel(svc)
panel"""

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
