"""Benchmark: how long the widget's view takes to render 200 pending cards in Chromium.

The cards are built by the real kernel-side code (``QuestionWidget``: validation, presentation,
Markdown), then the shipped ESM renders them in Debian's Chromium through a stub model. The time
measured is ``render()`` plus the first layout, in milliseconds; the issue's budget is 100 ms.

    .venv/bin/python bench/render_cards.py [--cards 200] [--runs 7]

This is a benchmark, not a test: it prints numbers and exits 1 only when the median exceeds the
budget.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ipyask.testing import launch_chromium
from ipyask.widget import Card, QuestionWidget

if TYPE_CHECKING:
    from playwright.sync_api import Route

STATIC = Path(__file__).resolve().parents[1] / "src" / "ipyask" / "widget" / "static"
BUDGET_MS = 100.0
ORIGIN = "http://bench.ipyask.test"
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bench</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/widget.css"></head>
<body><div id="out"></div><script type="module">
import widget from "/widget.js";
function model(state) {
  const listeners = new Map();
  return {
    get: (name) => state[name],
    set: (name, value) => { state[name] = value;
      for (const cb of listeners.get("change:" + name) ?? []) cb(value); },
    on: (event, cb) => listeners.set(event, [...(listeners.get(event) ?? []), cb]),
    off: (event, cb) => listeners.set(event, (listeners.get(event) ?? []).filter((c) => c !== cb)),
    send: () => {}, save_changes: () => {},
  };
}
window.__render = async (state) => {
  const out = document.getElementById("out");
  out.replaceChildren();
  const m = model(state);
  widget.initialize({ model: m });
  const el = document.createElement("div");
  out.append(el);
  const start = performance.now();
  const cleanup = widget.render({ model: m, el });
  void el.getBoundingClientRect().height;  // force style and layout
  const ms = performance.now() - start;
  const count = el.querySelectorAll("article").length;
  const updateStart = performance.now();
  const cards = state.cards.slice();
  cards[0] = { ...cards[0], notice: "changed" };
  m.set("cards", cards);
  void el.getBoundingClientRect().height;
  const updateMs = performance.now() - updateStart;
  cleanup();
  return { ms, updateMs, count };
};
window.__ready = true;
</script></body></html>"""


def build_cards(count: int) -> QuestionWidget:
    """A realistic mix: generic single/multi, batches, plan reviews, approvals, timed cards."""
    options = [
        {"label": "PostgreSQL (Recommended)", "description": "Already deployed"},
        {"label": "SQLite"},
        {"label": "Redis", "description": "In memory"},
    ]
    cards: list[Card] = []
    for i in range(count):
        detail = f"Card {i}: we need **one** store for the `jobs` queue.\n\n- fast\n- durable"
        single = {"id": "q", "question": f"Which database? ({i})", "header": "Storage",
                  "detail": detail, "options": options}  # fmt: skip
        shapes: list[dict[str, Any]] = [
            {"questions": [single]},
            {"questions": [
                {"id": "a", "question": "Language?", "options": [{"label": "Python"}]},
                {"id": "b", "question": "Features?", "multiSelect": True, "options": options},
                {"id": "c", "question": "Anything else?"},
            ]},
            {"questions": [{
                "id": "p", "question": "Approve this plan?", "detail": "# Plan\n" + detail,
                "options": [{"label": "Go"}, {"label": "Keep planning"}],
                "intent": {"kind": "plan-review", "approve": "Go"},
            }]},
            {"questions": [{
                "id": "x", "question": "Run the command?", "detail": detail,
                "options": [{"label": "deny"}, {"label": "allow"}],
                "intent": {"kind": "approval", "approve": "allow", "reject": "deny",
                           "subject": {"name": "Shell"}},
            }]},
            {"questions": [single], "callId": f"call-{i}", "wait": "timed",
             "frame": {"remainingMs": 60_000, "seq": 1}},
        ]  # fmt: skip
        cards.append(Card.model_validate({"key": f"c{i}", **shapes[i % len(shapes)]}))
    return QuestionWidget(cards=cards)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    options = parser.parse_args()

    from playwright.sync_api import sync_playwright

    started = time.perf_counter()
    widget = build_cards(options.cards)
    state = {"cards": widget.cards, "language": "", "protocol_version": widget.protocol_version}
    kernel_ms = (time.perf_counter() - started) * 1000

    def serve(route: Route) -> None:
        path = route.request.url.removeprefix(ORIGIN)
        if path == "/":
            route.fulfill(body=PAGE, content_type="text/html")
        elif path in ("/widget.js", "/widget.css"):
            kind = "text/javascript" if path.endswith(".js") else "text/css"
            route.fulfill(body=(STATIC / path[1:]).read_text("utf-8"), content_type=kind)
        else:
            route.fulfill(status=404, body="")

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": 900, "height": 900})
        page.route(f"{ORIGIN}/**", serve)
        page.goto(f"{ORIGIN}/")
        page.wait_for_function("window.__ready === true")
        results = [page.evaluate("s => window.__render(s)", state) for _ in range(options.runs + 1)]
        browser.close()

    runs = results[1:]  # the first run warms up the JIT
    render = [r["ms"] for r in runs]
    update = [r["updateMs"] for r in runs]
    median = statistics.median(render)
    print(f"cards rendered:           {runs[0]['count']}")
    print(f"kernel-side card build:   {kernel_ms:.1f} ms (validation, presentation, Markdown)")
    print(
        f"render + layout (median): {median:.1f} ms  (min {min(render):.1f}, max {max(render):.1f})"
    )
    print(f"one-card state update:    {statistics.median(update):.1f} ms (median)")
    print(
        f"budget:                   {BUDGET_MS:.0f} ms -> {'OK' if median < BUDGET_MS else 'OVER'}"
    )
    return 0 if median < BUDGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
