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

from ._pages import ONE_LINERS_ZH, PageLog, save_screenshot, write_notebook
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
    """Voila serving a folder with the quickstart and the Chinese one-liners (started once more if
    the first start fails)."""
    root = tmp_path_factory.mktemp("voila-root")
    base = tmp_path_factory.mktemp("voila-home")
    shutil.copyfile(QUICKSTART, root / QUICKSTART.name)
    write_notebook(root / "one_liners_zh.ipynb", ONE_LINERS_ZH)
    with serving(lambda: voila_server(root, base), 60.0) as server:
        yield server


@pytest.mark.host("voila", "task")
def test_a_click_in_voila_answers_the_agent(browser: Browser, voila: Server) -> None:
    context = browser.new_context(viewport={"width": 1100, "height": 700})
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        log = PageLog(page)
        page.goto(voila.url + "/voila/render/quickstart.ipynb")
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
        # The next question comes to the person: in view and focused, ready for the keyboard.
        expect(approval).to_be_focused()
        expect(approval).to_be_in_viewport()
        save_screenshot(page, "voila-2-answered")
        assert log.unexpected(*VOILA_NOISE) == []
    finally:
        context.close()


def test_the_one_liners_clicked_in_voila_dark_and_in_chinese(
    browser: Browser, voila: Server
) -> None:
    """Voila's dark theme (``?theme=dark``) and the panel in Chinese: what the person clicks is
    what the agent gets, and the answered cards say it in the words of the buttons."""
    context = browser.new_context(viewport={"width": 1100, "height": 700})
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        log = PageLog(page)
        page.goto(voila.url + "/voila/render/one_liners_zh.ipynb?theme=dark")
        card = page.get_by_role("article", name="用哪个数据库？")
        expect(card).to_be_visible(timeout=30_000)
        expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "false")
        card.get_by_role("radio", name="SQLite").click()
        save_screenshot(page, "voila-dark-zh-1-card")
        card.get_by_role("button", name="提交").click()
        results = page.locator(".one-liner-results")
        expect(results).to_have_text("ask: SQLite")
        expect(card.locator("[data-role=wait]")).to_have_text("已回答")
        expect(card.locator(".ipyask-summary")).to_have_text("SQLite")

        approval = page.get_by_role("article", name="删除 build/ 里的 3 个文件？")
        expect(approval).to_be_focused()
        expect(approval).to_be_in_viewport()
        # The card words Reject and Always allow; the approve button says the one-liner's label.
        expect(approval.locator(".ipyask-buttons button")).to_have_text(
            ["拒绝", "始终允许", "Apply"]
        )
        save_screenshot(page, "voila-dark-zh-2-approval")
        approval.get_by_role("button", name="始终允许").click()
        expect(results).to_contain_text("approve: Always allow rm")
        expect(approval.locator("[data-role=wait]")).to_have_text("已回答")
        expect(approval.locator(".ipyask-summary")).to_have_text(
            "已始终允许 · 智能体收到“Always allow rm”"
        )
        save_screenshot(page, "voila-dark-zh-3-answered")
        assert log.unexpected(*VOILA_NOISE) == []
    finally:
        context.close()
