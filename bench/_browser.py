"""A local page in Debian's Chromium that loads the shipped widget ESM with a stub model.

The page is served from a fake origin by ``page.route`` (no server, no network). The stub model
has ``get/set/on/off/send/save_changes``; every ``send`` is recorded with its
``performance.now()`` time, and ``window.bench.emit`` delivers a kernel ``custom`` message.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ipyask.testing import launch_chromium

from ._common import ROOT

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Route

STATIC = ROOT / "src" / "ipyask" / "widget" / "static"
ORIGIN = "http://bench.ipyask.local"

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ipyask bench</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/widget.css">
<style>body { margin: 0; padding: 16px; font-family: system-ui, sans-serif; }</style>
</head><body><div id="out"></div>
<script type="module">
import widget from "/widget.js";

function stubModel(state) {
  const listeners = new Map();
  const fire = (event, ...args) => {
    for (const callback of (listeners.get(event) || []).slice()) callback(...args);
  };
  return {
    get: (name) => state[name],
    set: (name, value) => { state[name] = value; fire("change:" + name, value); },
    on: (event, callback) => listeners.set(event, [...(listeners.get(event) || []), callback]),
    off: (event, callback) =>
      listeners.set(event, (listeners.get(event) || []).filter((c) => callback && c !== callback)),
    send: (content) => window.bench.sent.push({ t: performance.now(), content }),
    save_changes: () => {},
    widget_manager: {},
    fire,
  };
}

window.bench = {
  sent: [],
  model: null,
  async mount(state) {
    if (this.cleanup) this.cleanup();
    this.cleanup = null;
    const out = document.getElementById("out");
    out.replaceChildren();
    this.sent.length = 0;
    this.model = stubModel(state);
    await widget.initialize({ model: this.model });
    const el = document.createElement("div");
    out.append(el);
    const t0 = performance.now();
    this.cleanup = await widget.render({ model: this.model, el });
    void el.getBoundingClientRect().height;  // style and layout
    const t1 = performance.now();
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    const t2 = performance.now();
    // Cards rendered, and cards waiting in blocks of titles until they come near the viewport.
    const blocks = el.querySelectorAll(".ipyask-card-block");
    const waiting = Array.from(blocks, (b) => Number(b.dataset.cards));
    const cards = el.querySelectorAll("article").length + waiting.reduce((a, b) => a + b, 0);
    return { layoutMs: t1 - t0, frameMs: t2 - t0, cards };
  },
  emit(message) {
    const t = performance.now();
    this.model.fire("msg:custom", message, []);
    return t;
  },
};
window.benchReady = true;
</script></body></html>
"""


def _serve(route: Route) -> None:
    url = route.request.url
    path = url[len(ORIGIN) :].split("?")[0] if url.startswith(ORIGIN) else ""
    if path == "/index.html":
        route.fulfill(body=PAGE, content_type="text/html")
    elif path in ("/widget.js", "/widget.css"):
        kind = "text/javascript" if path.endswith(".js") else "text/css"
        route.fulfill(body=(STATIC / path[1:]).read_text("utf-8"), content_type=kind)
    else:
        route.fulfill(status=404, body="")


@contextmanager
def chromium() -> Iterator[Browser]:
    """Debian's Chromium, headless, for the length of the block."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            yield browser
        finally:
            browser.close()


def open_page(browser: Browser) -> Page:
    """A fresh context and page with the bench harness loaded."""
    context = browser.new_context(viewport={"width": 900, "height": 900})
    page = context.new_page()
    page.route(f"{ORIGIN}/**", _serve)
    page.goto(f"{ORIGIN}/index.html")
    page.wait_for_function("window.benchReady === true")
    return page


def widget_state(cards: list[dict[str, Any]]) -> dict[str, Any]:
    """The synced state a front end receives for a widget holding ``cards`` (as ipywidgets
    serializes it, whatever form the widget syncs its cards in)."""
    from ipyask.widget import QuestionWidget

    widget = QuestionWidget(cards=cards, language="en")
    try:
        names = [*widget.store.state_names(), "language", "protocol_version"]
        state: dict[str, Any] = widget.get_state(names)
    finally:
        widget.close()
    return state
