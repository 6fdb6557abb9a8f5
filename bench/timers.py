"""Timer accuracy: the host deadline in the kernel and the view's countdown in Chromium.

- **Host deadline**: in a kernel with a displayed panel and a connected ``HeadlessFrontend`` that
  never claims, ``svc.ask_timed(request, call_id, timeout_ms)`` runs until the host deadline
  returns ``PendingAnswer``; the error is the kernel's wall-clock time (``time.perf_counter``)
  around the call minus ``timeout_ms``. Sequential, short and long windows.
- **View countdown**: the shipped ESM with a stub model shows timed cards (the view claims each);
  then a remaining-time ``frame`` goes to each card with its own ``remainingMs``; the error is the
  time from delivering the frame to the view's ``timed_out`` message, minus ``remainingMs``. The
  view checks its countdowns on a 250 ms tick, so the error lies between 0 and one tick by design;
  the windows are staggered so that they fall at all phases of the tick.
"""

from __future__ import annotations

from typing import Any

from ipyask.testing import HeadlessFrontend

from ._browser import chromium, open_page, widget_state
from ._common import KernelBench, Result, Settings, log, summary

KERNEL_CODE = r"""
import ipyask
from ipyask import Agent, PendingAnswer
from ipyask.protocol import AskUserQuestionRequest

tm_svc = ipyask.UserQuestions()
tm_panel = ipyask.QuestionPanel(tm_svc)
display(tm_panel)
tm_agent = Agent("timer")
tm_svc.agents.enter(tm_agent)

async def tm_deadlines(windows):
    errors = []
    for i, window in enumerate(windows):
        request = AskUserQuestionRequest.model_validate({"questions": [{
            "id": "q", "question": f"Timed {i}?", "options": [{"label": "A"}, {"label": "B"}]}]})
        request = request.model_copy(update={"agent": tm_agent})
        t0 = time.perf_counter()
        result = await tm_svc.ask_timed(request, f"timed-{i}", window)
        elapsed_ms = (time.perf_counter() - t0) * 1000
        assert isinstance(result, PendingAnswer), result
        errors.append([window, elapsed_ms - window])
        await asyncio.sleep(0.02)
    return errors
"""


def _host(settings: Settings) -> dict[str, Any]:
    windows = [250] * settings.pick(30, 6) + [settings.pick(2000, 1000)] * settings.pick(3, 1)
    with HeadlessFrontend(timeout=60, log_size=200) as person:
        bench = KernelBench(person.kernel)
        person.execute(KERNEL_CODE)
        bench.start("deadlines", f"tm_deadlines({windows})")
        pairs = bench.wait("deadlines", timeout=sum(windows) / 1000 + 60)
        claims = [
            m
            for m in person.kernel.custom_messages(person.panel())
            if m.content.get("kind") == "frame"
        ]
    errors = [float(error) for _, error in pairs]
    return {
        "windows_ms": sorted(set(windows)),
        "error_ms": summary(errors),
        "by_window": {
            str(w): summary([float(e) for window, e in pairs if window == w]) for w in set(windows)
        },
        "frames_sent": len(claims),
    }


def _timed_card(i: int) -> dict[str, Any]:
    from ipyask.widget import Card

    return Card.model_validate(
        {
            "key": f"t{i}",
            "callId": f"call-{i}",
            "wait": "timed",
            "questions": [
                {"id": "q", "question": f"Timed {i}?", "options": [{"label": "A"}, {"label": "B"}]}
            ],
        }
    ).to_wire()


# A view renders (and claims) its first 8 live cards at once, the rest as they scroll near; a
# round mounts no more than that, so every card counts down in the view.
_ROUND_CARDS = 8


def _remaining(count: int) -> list[int]:
    """The time left each card's frame gives: 37 ms apart, so every phase of the tick."""
    return [1000 + 37 * i for i in range(count)]


def _view_round(browser: Any, count: int) -> list[float]:
    from ipyask.widget import PROTOCOL_VERSION

    remaining = _remaining(count)
    page = open_page(browser)
    page.evaluate(
        "s => window.bench.mount(s)", widget_state([_timed_card(i) for i in range(count)])
    )
    page.wait_for_function(
        f"window.bench.sent.filter(m => m.content.kind === 'claim').length >= {count}"
    )
    frames = [
        {
            "kind": "frame",
            "protocolVersion": PROTOCOL_VERSION,
            "key": f"t{i}",
            "remainingMs": ms,
            "seq": i + 1,
        }
        for i, ms in enumerate(remaining)
    ]
    emitted: list[float] = page.evaluate("fs => fs.map(f => window.bench.emit(f))", frames)
    page.wait_for_function(
        f"window.bench.sent.filter(m => m.content.kind === 'timed_out').length >= {count}",
        timeout=max(remaining) + 5000,
    )
    sent: list[dict[str, Any]] = page.evaluate("window.bench.sent")
    page.context.close()
    timed_out = {
        m["content"]["key"]: float(m["t"]) for m in sent if m["content"]["kind"] == "timed_out"
    }
    return [timed_out[f"t{i}"] - emitted[i] - ms for i, ms in enumerate(remaining)]


def _view(settings: Settings) -> dict[str, Any]:
    rounds = settings.pick(3, 1)
    with chromium() as browser:
        errors = [e for _ in range(rounds) for e in _view_round(browser, _ROUND_CARDS)]
    return {
        "cards": len(errors),
        "remaining_ms": [min(_remaining(_ROUND_CARDS)), max(_remaining(_ROUND_CARDS))],
        "error_ms": summary(errors),
    }


def run(settings: Settings) -> Result:
    log("timers: host deadline (ask_timed, no claim)")
    host = _host(settings)
    log("timers: view countdown in Chromium")
    view = _view(settings)
    return {"host": host, "view": view}
