"""End to end in Voila: the notebook's agent asks, a click on the card answers it.

Voila executes the notebook when the page is requested; the agent task started there awaits the
answer and writes what it received into a second widget, which the test reads in the page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from ._pages import PageLog, save_screenshot, write_notebook
from ._servers import Server, start_once_more_on_failure, voila_server

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser

pytest.importorskip("voila", reason="Voila is not installed (pip install voila)")

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

AGENT_CELL = """\
import asyncio, json
import ipywidgets as widgets
import ipyask

svc = ipyask.UserQuestions()
panel = ipyask.QuestionPanel(svc)
received = widgets.HTML("The agent is waiting for an answer.")
received.add_class("agent-received")

async def agent():
    answer = await svc.ask({"questions": [{
        "id": "deploy", "question": "Deploy to which environment?",
        "options": [{"label": "Staging (Recommended)"}, {"label": "Production"}]}]})
    received.value = "The agent received: " + json.dumps(answer.to_wire())

task = asyncio.ensure_future(agent())"""

# Offline, Voila's page asks a CDN for its icon font; those requests fail harmlessly.
VOILA_NOISE = (r"^console: Failed to load resource: net::ERR_NAME_NOT_RESOLVED$",)


@pytest.fixture(scope="module")
def voila(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Voila serving the agent notebook (started once more if the first start fails)."""
    root = tmp_path_factory.mktemp("voila-root")
    base = tmp_path_factory.mktemp("voila-home")
    notebook = write_notebook(root / "agent.ipynb", [AGENT_CELL, "panel", "received"])
    servers: list[Server] = []

    def make() -> Server:
        server = voila_server(notebook, base)
        servers.append(server)
        return server

    try:
        yield start_once_more_on_failure(make, 60.0)
    finally:
        for server in servers:
            server.stop()


def test_a_click_in_voila_answers_the_agent(browser: Browser, voila: Server) -> None:
    context = browser.new_context(viewport={"width": 1100, "height": 700})
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        log = PageLog(page)
        page.goto(voila.url + "/")
        card = page.get_by_role("article", name="Deploy to which environment?")
        expect(card).to_be_visible(timeout=30_000)
        received = page.locator(".agent-received")
        expect(received).to_have_text("The agent is waiting for an answer.")
        save_screenshot(page, "voila-1-card")

        card.get_by_role("radio", name="Production").click()
        card.get_by_role("button", name="Submit").click()
        expect(received).to_have_text(
            'The agent received: {"answers": [{"id": "deploy", "selected": ["Production"]}]}'
        )
        expect(card.locator("[data-role=wait]")).to_have_text("Answered")
        save_screenshot(page, "voila-2-answered")
        assert log.unexpected(*VOILA_NOISE) == []
    finally:
        context.close()
