"""End to end in marimo: ``marimo run notebooks/marimo_quickstart.py`` serves the example as an app.

The example's agent runs as a task and asks on the default panel, which ``ipyask.show_panel()``
shows as ``mo.ui.anywidget(panel)``; a person answers by clicking in Chromium. Its last cell
awaits an answer in the cell itself, which raises ``BlockingUnsupportedError`` at once.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from ._pages import PageLog, save_screenshot
from ._servers import Server, marimo_server, serving

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser

pytest.importorskip("marimo", reason="marimo is not installed (pip install -e '.[test]')")

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

EXAMPLE = Path(__file__).resolve().parents[2] / "notebooks" / "marimo_quickstart.py"


@pytest.fixture(scope="module")
def marimo_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``marimo run`` serving a copy of the example (started once more if the first start fails)."""
    root = tmp_path_factory.mktemp("marimo-root")
    base = tmp_path_factory.mktemp("marimo-home")
    notebook = root / EXAMPLE.name
    shutil.copyfile(EXAMPLE, notebook)
    with serving(lambda: marimo_server(notebook, base), 60.0) as server:
        yield server


@pytest.mark.host("marimo", "task", "approval", "await")
def test_a_click_in_marimo_answers_the_agent_task(browser: Browser, marimo_app: Server) -> None:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        log = PageLog(page)
        page.goto(marimo_app.url + "/")
        card = page.get_by_role("article", name="Which database should the project use?")
        expect(card).to_be_visible(timeout=40_000)
        refused = page.get_by_text("BLOCKING_UNSUPPORTED: await ipyask.ask(...) cannot get")
        expect(refused).to_be_visible()
        expect(refused).to_contain_text("start the agent as a task")
        save_screenshot(page, "marimo-1-card")
        card.get_by_role("radio", name="Postgres").click()
        card.get_by_role("button", name="Submit").click()
        expect(card.locator("[data-role=wait]")).to_have_text("Answered")
        # The agent task got the answer: it goes on to ask for approval.
        approval = page.get_by_role("article", name="Delete 3 files in build/?")
        approval.get_by_role("button", name="Always allow").click()
        expect(approval.locator("[data-role=wait]")).to_have_text("Answered")
        # The card says what the person did, and the value the agent got beside it.
        expect(approval.locator(".ipyask-summary__line")).to_have_text(
            "Always allowed"  # the card's own words: the label needs no repeating
        )
        save_screenshot(page, "marimo-2-answered")
        assert log.errors == []
    finally:
        context.close()
