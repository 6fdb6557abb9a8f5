"""Render time of the question panel in Chromium for 10, 200, 1,000 and 10,000 pending cards.

The cards are the realistic mix of ``bench/render_cards.py`` (generic single and multi-select,
batches, plan reviews, approvals, timed cards), built by the real kernel-side code; when that
module cannot be imported, a plain mix of generic cards is used instead (the result says which).
The shipped ESM renders them through a stub model (``bench/_browser.py``). Two times per run:
``render()`` plus the first style and layout, and until the next frame (``requestAnimationFrame``
then a task), i.e. including paint. One warm-up run, then the median of the rest.

*Inbox*: 10,000 open questions of a store from 50 processes (each its own agent and session),
as the inbox panel makes their cards (``bench``'s records through the inbox's own card code),
rendered the same way: the view groups every card by agent and process while it renders, so
*render + layout* is until all are grouped (and the first cards laid out), *to next frame* until
the first cards are painted.
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

INBOX_TARGETS_MS = {"first_card": 100.0, "all_grouped": 300.0}
"""Issue #33's targets for an inbox of 10,000 open questions from 50 processes."""


def build_inbox_state(count: int, processes: int) -> dict[str, Any]:
    """The synced state of an inbox panel showing ``count`` open questions of ``processes``."""
    from ipyask._notebook.panel._inbox_cards import _card
    from ipyask.store import QuestionRecord

    options = [{"label": "Go on"}, {"label": "Stop"}]
    cards = [
        _card(
            QuestionRecord(
                id=f"r{i}",
                call_id=f"step-{i}",
                questions=[{"id": "q", "question": f"Go on with step {i}?", "options": options}],
                session_id=f"agent-{i % processes}",
                agent_id=f"agent-{i % processes}",
                asked_at=1_700_000_000.0 + i,
                origin=f"worker-host:{10_000 + i % processes}",
            )
        ).to_wire()
        for i in range(count)
    ]
    return widget_state(cards)


def _inbox(browser: Any, runs: int, count: int, processes: int) -> dict[str, Any]:
    state = build_inbox_state(count, processes)
    page = open_page(browser)
    measured = [page.evaluate("s => window.bench.mount(s)", state) for _ in range(runs + 1)][1:]
    page.context.close()
    if any(m["cards"] != count for m in measured):
        raise RuntimeError(f"rendered {measured[0]['cards']} inbox cards, expected {count}")
    grouped = summary([float(m["layoutMs"]) for m in measured])
    first = summary([float(m["frameMs"]) for m in measured])
    log(f"render: inbox of {count} from {processes} processes: {grouped['p50']:.1f} ms grouped")
    return {
        "cards": count,
        "processes": processes,
        "all_grouped_ms": grouped,
        "first_card_ms": first,
        "targets_ms": INBOX_TARGETS_MS,
        "within_targets": first["p50"] <= INBOX_TARGETS_MS["first_card"]
        and grouped["p50"] <= INBOX_TARGETS_MS["all_grouped"],
    }


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
        out["inbox"] = _inbox(browser, runs, settings.pick(10_000, 1_000), 50)
    two_hundred = next(s for s in out["sizes"] if s["cards"] == 200)
    out["within_budget_200"] = two_hundred["layout_ms"]["p50"] < BUDGET_200_MS
    out["targets_ms"] = {str(n): ms for n, ms in TARGETS_MS.items()}
    for size in out["sizes"]:
        target = TARGETS_MS.get(size["cards"])
        size["target_ms"] = target
        size["within_target"] = None if target is None else size["layout_ms"]["p50"] <= target
    return out
