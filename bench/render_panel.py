"""Render time of the question panel in Chromium for 10, 200, 1,000 and 10,000 pending cards.

The cards are the realistic mix of ``bench/render_cards.py`` (generic single and multi-select,
batches, plan reviews, approvals, timed cards), built by the real kernel-side code; when that
module cannot be imported, a plain mix of generic cards is used instead (the result says which).
The shipped ESM renders them through a stub model (``bench/_browser.py``). Two times per run:
``render()`` plus the first style and layout, and until the next frame (``requestAnimationFrame``
then a task), i.e. including paint. One warm-up run, then the median of the rest.
"""

from __future__ import annotations

from typing import Any

from ._browser import chromium, open_page, widget_state
from ._common import Result, Settings, log, summary

BUDGET_200_MS = 100.0
"""The widget issue's budget: 200 pending cards render in under 100 ms."""

TARGETS_MS = {200: 30.0, 1000: 100.0, 10_000: 300.0}
"""The scale issue's targets for render + layout (median)."""

SIZES = (10, 200, 1000, 10_000)


def build_state(count: int) -> tuple[dict[str, Any], str]:
    """The synced state of a panel with ``count`` pending cards, and where the mix came from."""
    try:
        from .render_cards import build_cards as mix

        widget = mix(count)
        names = [*widget.store.state_names(), "language", "protocol_version"]
        state: dict[str, Any] = widget.get_state(names)
        widget.close()
        return state, "bench/render_cards.py mix"
    except Exception as exc:  # the other module is optional here
        log(f"render: bench/render_cards.py not usable ({exc!r}); using generic cards")
    from ipyask.widget import Card

    options = [{"label": "PostgreSQL (Recommended)"}, {"label": "SQLite"}, {"label": "Redis"}]
    cards = [
        Card.model_validate(
            {
                "key": f"c{i}",
                "questions": [
                    {
                        "id": "q",
                        "question": f"Which database? ({i})",
                        "detail": "We need **one** store.",
                        "options": options,
                    }
                ],
            }
        ).to_wire()
        for i in range(count)
    ]
    return widget_state(cards), "generic cards"


def run(settings: Settings) -> Result:
    runs = settings.pick(7, 2)
    out: dict[str, Any] = {"runs": runs, "budget_200_ms": BUDGET_200_MS, "sizes": []}
    with chromium() as browser:
        out["chromium"] = browser.version
        for count in SIZES if not settings.quick else SIZES[:3]:
            state, source = build_state(count)
            out["cards_source"] = source
            page = open_page(browser)
            measured = [
                page.evaluate("s => window.bench.mount(s)", state) for _ in range(runs + 1)
            ][1:]
            page.context.close()
            if any(m["cards"] != count for m in measured):
                raise RuntimeError(f"rendered {measured[0]['cards']} cards, expected {count}")
            layout = summary([float(m["layoutMs"]) for m in measured])
            frame = summary([float(m["frameMs"]) for m in measured])
            out["sizes"].append({"cards": count, "layout_ms": layout, "frame_ms": frame})
            log(f"render: {count} cards: {layout['p50']:.1f} ms render+layout (median)")
    two_hundred = next(s for s in out["sizes"] if s["cards"] == 200)
    out["within_budget_200"] = two_hundred["layout_ms"]["p50"] < BUDGET_200_MS
    out["targets_ms"] = {str(n): ms for n, ms in TARGETS_MS.items()}
    for size in out["sizes"]:
        target = TARGETS_MS.get(size["cards"])
        size["target_ms"] = target
        size["within_target"] = None if target is None else size["layout_ms"]["p50"] <= target
    return out
