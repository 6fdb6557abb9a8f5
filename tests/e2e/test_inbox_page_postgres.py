"""The inbox page on a PostgreSQL store named in the server's configuration
(``--IpyaskInboxPage.store``), under a base URL as JupyterHub gives a user's server: an agent
process asking there is answered from a phone-sized page.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from helpers.agent_processes import finish
from ipyask.testing import throwaway_postgres

from ._inbox_page import YES, agent_asking, card_of, pending_ids, phone_page, wait_for_question
from ._pages import PageLog
from ._servers import Server, jupyter_server, serving

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.browser]


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    with throwaway_postgres() as url:
        yield url


@pytest.fixture(scope="module")
def server(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root: Path = tmp_path_factory.mktemp("inbox-page-pg-root")
    base = tmp_path_factory.mktemp("inbox-page-pg-home")
    option = f"--IpyaskInboxPage.store={postgres_url}"
    make = lambda: jupyter_server(root, base, option, base_url="/user/ada/")  # noqa: E731
    with serving(make, 90.0) as started:
        yield started


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    with phone_page(browser) as opened:
        yield opened


def test_on_a_phone_the_page_answers_an_agent_waiting_on_postgresql(
    page: Page, server: Server, postgres_url: str
) -> None:
    log = PageLog(page)
    page.goto(f"{server.url}/ipyask/inbox?token={server.token}")
    expect(page.locator(".ipyask-page--ready")).to_be_visible()
    known = set(pending_ids(postgres_url))
    with agent_asking(postgres_url, "pg-phone-1") as agent:
        wait_for_question(postgres_url, known)
        card = card_of(page, agent.pid)
        card.get_by_role("radio", name="Yes").tap()
        card.get_by_role("button", name="Submit").tap()
        assert finish(agent)["answer"] == YES
        expect(card).to_contain_text("Answered")
        assert log.unexpected() == []
