"""What the inbox page's end-to-end tests share: a phone's viewport, the store's open questions,
the card of one agent process."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from helpers.agent_processes import start_agent
from ipyask.store import open_store

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page

AXE = Path(__file__).resolve().parents[2] / ".cache/node/node_modules/axe-core/axe.min.js"
"""axe-core, as scripts/test installs it (``$IPYASK_AXE_PATH`` wins)."""
PHONE = {"width": 390, "height": 844}
"""A phone's viewport (CSS pixels)."""
YES = {"answers": [{"id": "q1", "selected": ["Yes"]}]}
"""The answer the tests give the agent script's question."""


def pending_ids(location: str) -> list[str]:
    store = open_store(location)
    try:
        return [record.id for record in store.pending_questions()]
    finally:
        store.close()


def wait_for_question(location: str, known: set[str]) -> str:
    """The id of the question an agent process just asked (not in ``known``)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        new = [key for key in pending_ids(location) if key not in known]
        if new:
            return new[0]
        time.sleep(0.05)  # another process writes the store: polled, as its readers do
    raise AssertionError("the agent's question did not reach the store")


def card_of(page: Page, pid: int) -> Locator:
    """The card of the question asked by process ``pid`` (its group is named after it)."""
    return page.locator(f'.ipyask-card[data-ipyask-group$=":{pid}"]')


@contextlib.contextmanager
def agent_asking(
    location: str, call_id: str, assignee: str | None = None
) -> Iterator[subprocess.Popen[str]]:
    """An agent process asking on ``location`` (see helpers.agent_processes), for ``assignee``
    alone to answer when given; killed on leaving if it has not ended."""
    agent = start_agent(location, call_id, assignee)
    try:
        yield agent
    finally:
        if agent.poll() is None:
            agent.kill()
        agent.wait()
        if agent.stdout is not None:
            agent.stdout.close()


@contextlib.contextmanager
def phone_page(browser: Browser) -> Iterator[Page]:
    """A new page in a fresh context with a phone's viewport, touch and pixel density."""
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        yield page
    finally:
        context.close()


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """What axe-core finds wrong with ``page``'s accessibility (nothing, for a good page)."""
    path = Path(os.environ.get("IPYASK_AXE_PATH") or AXE)
    page.add_script_tag(content=path.read_text(encoding="utf-8"))
    violations: list[dict[str, Any]] = page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
             .map(v => ({id: v.id, impact: v.impact,
                         nodes: v.nodes.map(n => n.target.join(' '))}))"""
    )
    return violations
