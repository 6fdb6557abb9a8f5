"""Round-trip latency through a real kernel, three ways side by side in one kernel.

- **ipyask**: ``await svc.ask(...)`` in the kernel → a card in the panel's synced state →
  ``HeadlessFrontend`` answers it over the widget comm → the ask returns. A fresh panel per
  question.
- **ipyask with history** (the sweep): one long-lived panel per size, holding 0, 100, 1,000 or
  10,000 answered cards; each question is answered on it and its card removed before the next,
  so the history stays at its size while every change and state sync of a real panel happens.
- **anywidget**: the kernel sends a bare custom message, the front end answers with one, the
  kernel's ``on_msg`` handler resolves a future.
- **input()**: ``input()`` in a cell, answered over the stdin channel (``allow_stdin=True``).

Every latency is measured in the kernel with ``time.perf_counter`` around the awaited call; the
front end answers as soon as it sees the question. Blocks are interleaved over ten passes so that
drift hits every method alike; the first rounds of each method are a warm-up and are dropped.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient

from ipyask.testing import HeadlessFrontend

from ._common import (
    KernelBench,
    Result,
    Settings,
    answer_batch,
    kernel_versions,
    log,
    summary,
)

KERNEL_CODE = r"""
import ipyask
from ipyask.widget import Card

rt_svc = ipyask.UserQuestions()
rt_panel = None
rt_handled = [0.0]

def rt_stamp(_message):
    rt_handled[0] = time.monotonic()  # runs after the panel's own handler (registered first)

def rt_request(i):
    return {"questions": [{"id": "q", "question": f"RT {i}?",
                           "options": [{"label": "A"}, {"label": "B"}]}]}

def rt_history(k):
    answer = {"answers": [{"id": "q", "selected": ["A"]}]}
    return [Card.model_validate({
        "key": f"h{j}", "status": "answered", "answer": answer,
        "questions": [{"id": "q", "question": f"Earlier question {j}?",
                       "options": [{"label": "A"}, {"label": "B"}]}]}) for j in range(k)]

def rt_fresh_panel(history):
    global rt_panel
    if rt_panel is not None:
        rt_panel.close()
    rt_panel = ipyask.QuestionPanel(rt_svc, cards=history)
    rt_panel.on_view_message(rt_stamp)
    display(rt_panel)

async def rt_ipyask(n, k):
    history, lat = rt_history(k), []
    for i in range(n):
        rt_fresh_panel(history)
        await asyncio.sleep(0.005)  # let the front end take the new panel in
        m0, t0 = time.monotonic(), time.perf_counter()
        answer = await rt_svc.ask(rt_request(i))
        lat.append([time.perf_counter() - t0, m0, time.monotonic(), rt_handled[0]])
        assert answer.answers[0].selected == ["A"], answer
    rt_panel.close()
    return lat

rt_sweep = {}

def rt_sweep_panel(k):
    # A panel of its own service holding k answered cards (made once per size).
    if k not in rt_sweep:
        svc = ipyask.UserQuestions()
        panel = ipyask.QuestionPanel(svc, cards=rt_history(k))
        panel.on_view_message(rt_stamp)
        display(panel)
        rt_sweep[k] = (svc, panel)
    return rt_sweep[k]

async def rt_history_rounds(n, k):
    svc, panel, lat = *rt_sweep_panel(k), []
    for i in range(n):
        live = set(panel.store.live_keys())
        for key in panel.store.keys()[k:]:  # the last round's card: the history stays at k
            if key not in live:
                panel.remove_card(key)
        # The transcript shows the last answer 50 ms after it; show it now, between rounds, as
        # closing the fresh panel does for the row above, so that both rows time the same work.
        panel._transcript.flush()
        await asyncio.sleep(0.005)
        m0, t0 = time.monotonic(), time.perf_counter()
        answer = await svc.ask(rt_request(i))
        lat.append([time.perf_counter() - t0, m0, time.monotonic(), rt_handled[0]])
        assert answer.answers[0].selected == ["A"], answer
    return lat

async def rt_echo(n):
    loop, box, lat = asyncio.get_running_loop(), {}, []
    def settle(content):
        if not box["f"].done():
            box["f"].set_result(content)
    def got(content):
        if isinstance(content, dict) and content.get("kind") == "pong" \
                and content.get("seq") == box.get("seq"):
            box["handled"] = time.monotonic()
            bench_on_loop(loop, settle, content)
    bench_channel.handlers = [got]
    for i in range(n):
        box["f"], box["seq"] = loop.create_future(), i
        await asyncio.sleep(0.005)  # the same pause between rounds as the ipyask block
        m0, t0 = time.monotonic(), time.perf_counter()
        bench_channel.send({"kind": "ping", "seq": i})
        await box["f"]
        lat.append([time.perf_counter() - t0, m0, time.monotonic(), box["handled"]])
    bench_channel.handlers = []
    return lat
"""

INPUT_CELL = r"""
_lat = []
for _i in range({n}):
    time.sleep(0.005)
    _m0, _t0 = time.monotonic(), time.perf_counter()
    _r = input("RT %d? " % _i)
    _lat.append([time.perf_counter() - _t0, _m0, time.monotonic(), None])
    assert _r == "A", _r
BENCH["input"] = {{"ok": True, "value": _lat}}
"""


HISTORIES = (0, 100, 1000, 10_000)
"""Answered cards a panel holds in the history sweep."""

PASSES = 10
"""The blocks of the three methods alternate this many times: this machine's speed drifts by tens
of percent over seconds (it shares its host), and short alternating blocks let the drift hit
every method alike."""

Round = tuple[float, float, float, float, float | None]
"""One round trip in seconds: total (kernel ``perf_counter``), then its parts from the shared
``CLOCK_MONOTONIC`` stamps of both processes: kernel → front end sees the question, the front end's
turn (question seen → answer sent), answer sent → the kernel's call returns, and of that last part
the share after the kernel's message handler ran (``None`` where no handler can be stamped)."""


def _rounds(kernel: Any, seen: list[float], sent: list[float]) -> list[Round]:
    rounds: list[Round] = []
    for (latency, m0, m1, handled), s, a in zip(kernel, seen, sent, strict=True):
        after = float(m1) - float(handled) if handled is not None else None
        rounds.append((float(latency), s - float(m0), a - s, float(m1) - a, after))
    return rounds


def _echo(bench: KernelBench, n: int) -> list[Round]:
    fe = bench.frontend
    start = bench.channel_messages()
    bench.start("echo", f"rt_echo({n})")

    def ping(i: int) -> Callable[[Any], bool]:
        return lambda c: isinstance(c, dict) and c.get("kind") == "ping" and c.get("seq") == i

    seen, sent = [], []
    for i in range(n):
        fe.wait_for_custom(bench.channel, ping(i), since=start + i)
        seen.append(time.monotonic())
        fe.send_custom(bench.channel, {"kind": "pong", "seq": i})
        sent.append(time.monotonic())
    return _rounds(bench.wait("echo"), seen, sent)


def _pending_card(
    person: HeadlessFrontend, question: str, panel: str | None = None
) -> tuple[str, dict[str, Any]] | None:
    """The open panel (``panel`` when given) and its pending card asking ``question`` (one
    pump, then a look).

    ``HeadlessFrontend.wait_for_card`` pumps between finding a panel and reading it, so a panel
    closed and replaced in between (as here, one panel per question) makes it raise. Only open
    panels are parsed, and only the one being asked on when it is known (the history sweep):
    this front end shares the machine's two cores with the kernel, and reading every other panel
    on each message would slow the kernel down (a browser reads only the model a message is for).
    """
    if panel is not None:
        panels = [panel]  # read once per look, as the echo block reads its channel
    else:
        models = reversed(person.kernel.models())
        panels = [model.model_id for model in models if "protocol_version" in model.state]
    for model_id in panels:
        for card in person.live_cards(model_id):
            if card.get("status") == "pending" and card["questions"][0]["question"] == question:
                return model_id, dict(card)
    return None


def wait_pending_card(
    person: HeadlessFrontend, question: str, panel: str | None = None
) -> tuple[str, dict[str, Any]]:
    found: list[tuple[str, dict[str, Any]]] = []

    def seen() -> bool:
        card = _pending_card(person, question, panel)
        if card is not None:
            found.append(card)
        return card is not None

    person.kernel.wait_for(seen, timeout=60, what=f"a pending card {question!r}")
    return found[0]


def ipyask_rounds(
    bench: KernelBench,
    person: HeadlessFrontend,
    n: int,
    history: int,
    *,
    sweep_panel: str | None = None,
) -> list[Round]:
    """``n`` rounds on a fresh panel each, or on the sweep's panel ``sweep_panel`` (its id)."""
    sweep = sweep_panel is not None
    code = f"rt_history_rounds({n}, {history})" if sweep else f"rt_ipyask({n}, {history})"
    bench.start("ipyask", code)
    seen, sent = [], []
    for i in range(n):
        panel, card = wait_pending_card(person, f"RT {i}?", sweep_panel)
        seen.append(time.monotonic())
        person.send("answer", panel, key=card["key"], answer=answer_batch("q", "A"))
        sent.append(time.monotonic())
    return _rounds(bench.wait("ipyask"), seen, sent)


def _input(bench: KernelBench, n: int) -> list[Round]:
    path = bench.value("__import__('ipykernel.connect').connect.get_connection_file()")
    client = BlockingKernelClient(connection_file=path)
    client.load_connection_file()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=30)
        msg_id = client.execute(INPUT_CELL.format(n=n), allow_stdin=True, store_history=False)
        seen, sent = [], []
        for _ in range(n):
            request = client.get_stdin_msg(timeout=30)
            seen.append(time.monotonic())
            if request["msg_type"] != "input_request":
                raise RuntimeError(f"expected input_request, got {request['msg_type']}")
            client.input("A")
            sent.append(time.monotonic())
        while True:
            reply = client.get_shell_msg(timeout=60)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        if reply["content"].get("status") != "ok":
            raise RuntimeError(f"input cell failed: {reply['content']}")
    finally:
        client.stop_channels()
    return _rounds(bench.value('BENCH["input"]', check=True), seen, sent)


def run(settings: Settings) -> Result:
    """Round trips of all methods; latencies in milliseconds."""
    rounds = settings.pick(400, 60)
    warm = settings.pick(20, 5)
    histories = list(HISTORIES) if not settings.quick else [0, 100]
    history_rounds = settings.pick(400, 20)
    samples: dict[str, list[float]] = {}
    parts: dict[str, dict[str, list[float]]] = {}

    def add(name: str, rounds: list[Round], drop: int) -> None:
        kept = rounds[drop:]
        samples.setdefault(name, []).extend(r[0] * 1000 for r in kept)
        split = parts.setdefault(name, {"out": [], "frontend": [], "back": [], "after": []})
        for r in kept:
            split["out"].append(r[1] * 1000)
            split["frontend"].append(r[2] * 1000)
            split["back"].append(r[3] * 1000)
            if r[4] is not None:
                split["after"].append(r[4] * 1000)

    with HeadlessFrontend(timeout=60, log_size=200) as person:
        fe = person.kernel
        bench = KernelBench(fe)
        versions = kernel_versions(fe)
        fe.execute(KERNEL_CODE)
        passes = settings.pick(PASSES, 2)
        for index in range(passes):
            n = rounds // passes
            drop = warm if index == 0 else 0
            log(f"round trip pass {index + 1}/{passes}: anywidget, ipyask, input() x{n} each")
            add("anywidget", _echo(bench, n + drop), drop)
            add("ipyask", ipyask_rounds(bench, person, n + drop, 0), drop)
            add("input", _input(bench, n + drop), drop)
        log(f"round trip: history sweep {histories}, panels being filled")
        sweep_panels = bench.value(
            "[rt_sweep_panel(k)[1].model_id for k in " + repr(histories) + "]"
        )
        for index in range(passes):
            n = history_rounds // passes
            drop = warm if index == 0 else 0
            log(f"history sweep pass {index + 1}/{passes}: anywidget, then each size x{n}")
            add("anywidget_sweep", _echo(bench, n + drop), drop)
            for history, sweep_panel in zip(histories, sweep_panels, strict=True):
                rounds_ = ipyask_rounds(bench, person, n + drop, history, sweep_panel=sweep_panel)
                add(f"history_{history}", rounds_, drop)
        errors = [str(e) for e in fe.handler_errors]
    stats = {name: summary(values) for name, values in samples.items()}
    overhead = stats["ipyask"]["p50"] - stats["anywidget"]["p50"]
    result: dict[str, Any] = {
        "unit": "ms",
        "stats": stats,
        "samples": samples,
        "parts": {
            name: {part: summary(values) for part, values in split.items()}
            for name, split in parts.items()
        },
        "p50_overhead_ms": overhead,
        "p50_ratio": stats["ipyask"]["p50"] / stats["anywidget"]["p50"],
        "p99_ratio": stats["ipyask"]["p99"] / stats["anywidget"]["p99"],
        "input_p50_ratio": stats["ipyask"]["p50"] / stats["input"]["p50"],
        "histories": histories,
        "history_ratios": {
            str(k): {
                "p50": stats[f"history_{k}"]["p50"] / stats["anywidget_sweep"]["p50"],
                "p99": stats[f"history_{k}"]["p99"] / stats["anywidget_sweep"]["p99"],
            }
            for k in histories
            if f"history_{k}" in stats
        },
        "within_2ms": overhead <= 2.0,
        "handler_errors": errors,
        "kernel": versions,
    }
    log("round trip p50 ms: " + json.dumps({k: round(v["p50"], 3) for k, v in stats.items()}))
    return result
