"""Fixtures for the widget's browser tests: a page harness in Chromium.

Browser tests load the shipped ESM and CSS into a plain page on a fake origin (``page.route``),
with a stub anywidget model that records ``send`` calls. One Chromium runs per session.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ipyask.testing import launch_chromium

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser, Locator, Page

    from ipyask.widget import QuestionWidget

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "src" / "ipyask" / "widget" / "static"
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
DEFAULT_AXE = ROOT / ".cache" / "node" / "node_modules" / "axe-core" / "axe.min.js"
ORIGIN = "http://ipyask.test"

PAGE = (Path(__file__).parent / "harness.html").read_text(encoding="utf-8")


def axe_source() -> str:
    path = Path(os.environ.get("IPYASK_AXE_PATH") or DEFAULT_AXE)
    if not path.is_file():
        pytest.fail(
            f"axe-core not found at {path}; run `npm install axe-core` or set IPYASK_AXE_PATH"
        )
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    """One Chromium for all widget tests, stopped when they end.

    Package scope, not session: a live sync Playwright keeps an event loop running in the main
    thread, which would break asyncio tests (and other Playwright sessions) that run later.
    """
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        yield browser
        browser.close()


class WidgetPage:
    """One test page: mount cards, read what the view sent, emit kernel messages."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.clock = False
        page.on("pageerror", lambda error: self.errors.append(f"pageerror: {error}"))
        page.on("console", self._console)
        page.route("**/*", self._serve)

    def _console(self, message: Any) -> None:
        if message.type == "error" and "Failed to load resource" not in message.text:
            self.errors.append(f"console: {message.text}")

    def _serve(self, route: Any) -> None:
        url: str = route.request.url
        files = {"/widget.js": "text/javascript", "/widget.css": "text/css"}
        if url.startswith(ORIGIN):
            path = url[len(ORIGIN) :].split("?")[0]
            if path == "/index.html":
                route.fulfill(body=PAGE, content_type="text/html")
                return
            if path in files:
                body = (STATIC / path.lstrip("/")).read_text(encoding="utf-8")
                route.fulfill(body=body, content_type=files[path])
                return
        self.requests.append(url)
        route.fulfill(status=404, body="")

    def mount(
        self,
        widget: QuestionWidget,
        *,
        views: int = 1,
        clock: bool = False,
        theme: str = "light",
        doc_lang: str = "en",
    ) -> WidgetPage:
        self.clock = clock
        if clock:
            self.page.clock.install(time=1_700_000_000)
        self.page.goto(f"{ORIGIN}/index.html")
        self.page.wait_for_function("window.__ready === true")
        if clock:
            self.page.clock.pause_at(1_700_000_100)
        self.page.evaluate(
            "([theme, lang]) => { document.documentElement.dataset.theme = theme;"
            " document.documentElement.lang = lang; }",
            [theme, doc_lang],
        )
        state = widget.get_state(
            [*widget.store.state_names(), "language", "image_hosts", "protocol_version"]
        )
        self.page.evaluate("([s, n]) => window.__mount(s, n)", [state, views])
        return self

    def set_state(self, widget: QuestionWidget) -> None:
        """Sync the widget's card entries (JSON texts) to the page, as one state update."""
        state = widget.get_state(widget.store.state_names())
        self.page.evaluate("s => window.__model.update(s)", state)

    def set_language(self, language: str) -> None:
        self.page.evaluate("l => window.__model.set('language', l)", language)

    def emit(self, message: dict[str, Any]) -> None:
        self.page.evaluate("m => window.__emit(m)", message)

    def sent(self, kind: str | None = None) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = self.page.evaluate("window.__sent")
        return [m for m in messages if kind is None or m["kind"] == kind]

    def answers(self) -> list[dict[str, Any]]:
        return [m["answer"] for m in self.sent("answer")]

    def clear_sent(self) -> None:
        self.page.evaluate("window.__sent.length = 0")

    def card(self, key: str) -> Locator:
        return self.page.locator(f'article[data-key="{key}"]')

    def axe(self) -> list[dict[str, Any]]:
        if self.clock:
            self.page.clock.resume()  # axe schedules its work with timers
        self.page.add_script_tag(content=axe_source())
        violations: list[dict[str, Any]] = self.page.evaluate(
            """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
                 .map(v => ({id: v.id, impact: v.impact, help: v.help,
                             nodes: v.nodes.map(n => n.target.join(' '))}))"""
        )
        return violations

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.locator("#out").screenshot(path=str(path), animations="disabled")
        return path


@pytest.fixture
def open_page(browser: Browser) -> Iterator[Any]:
    """Open pages in fresh contexts (``locale`` sets ``navigator.language``)."""
    contexts = []
    pages: list[WidgetPage] = []

    def open_(locale: str = "en-US") -> WidgetPage:
        context = browser.new_context(viewport={"width": 820, "height": 900}, locale=locale)
        context.set_default_timeout(5_000)
        contexts.append(context)
        wp = WidgetPage(context.new_page())
        pages.append(wp)
        return wp

    yield open_
    for context in contexts:
        context.close()
    for wp in pages:
        assert wp.errors == [], wp.errors


@pytest.fixture
def wpage(open_page: Any) -> WidgetPage:
    page: WidgetPage = open_page()
    return page
