"""End to end in Voila: ``voila notebooks/quickstart.ipynb`` serves the quickstart as an app.

Voila executes the notebook when the page is requested; the agent task the quickstart starts asks
its questions on the panel, and writes what it received into a results widget, which the test
reads in the page.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from ._pages import PageLog, save_screenshot
from ._servers import Server, serving, voila_server

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser

pytest.importorskip("voila", reason="Voila is not installed (pip install voila)")

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

QUICKSTART = Path(__file__).resolve().parents[2] / "notebooks" / "quickstart.ipynb"

# Offline, Voila's page asks a CDN for its icon font; those requests fail harmlessly.
VOILA_NOISE = (r"^console: Failed to load resource: net::ERR_NAME_NOT_RESOLVED$",)


@pytest.fixture(scope="module")
def voila(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Voila serving the agent notebook (started once more if the first start fails)."""
    root = tmp_path_factory.mktemp("voila-root")
    base = tmp_path_factory.mktemp("voila-home")
    notebook = root / QUICKSTART.name
    shutil.copyfile(QUICKSTART, notebook)
    with serving(lambda: voila_server(notebook, base), 60.0) as server:
        yield server


@pytest.mark.host("voila", "task")
def test_a_click_in_voila_answers_the_agent(browser: Browser, voila: Server) -> None:
    context = browser.new_context(viewport={"width": 1100, "height": 700})
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        log = PageLog(page)
        page.goto(voila.url + "/")
        card = page.get_by_role("article", name="Which database should the project use?")
        expect(card).to_be_visible(timeout=30_000)
        results = page.locator(".quickstart-results")
        expect(results).to_have_text("The agent has not heard from you yet.")
        save_screenshot(page, "voila-1-card")
        card.get_by_role("radio", name="Postgres").click()
        card.get_by_role("button", name="Submit").click()
        expect(results).to_have_text("database: Postgres")
        expect(card.locator("[data-role=wait]")).to_have_text("Answered")
        approval = page.get_by_role("article", name="Delete 3 files in build/?")
        expect(approval).to_be_visible()
        save_screenshot(page, "voila-2-answered")
        assert log.unexpected(*VOILA_NOISE) == []
    finally:
        context.close()
