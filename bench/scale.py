"""Scale: many questions pending at once, from many agents; memory per question, time to settle.

Two answerers, each in a fresh kernel per size:

- **panel**: ``QuestionPanel`` with ``HeadlessFrontend`` playing the person (choose + Submit per
  card), the real product path.
- **bare comm**: the same ``UserQuestions`` service and waterfall, answered by a minimal
  answerer that sends each question as one anywidget custom message and settles it from the reply
  (no synced card state). It separates the cost of the seam from the cost of the panel's state.

Each size runs at least twice, each time in a fresh kernel. A *memory* run: ``tracemalloc``
runs from just before the asks until every question is pending and the messages sent so far have
left the kernel's I/O thread; the traced bytes still held, divided by the number of questions, is
the memory per pending question (then the kernel is shut down). A *timing* run, untraced: time to
show all questions, the kernel's RSS growth per question, and time to settle all. In the timing
run the front end then answers every question (question *i* gets its own label) as fast as it
can; *settle* is the time from its first answer to the kernel's report that every ask returned.
The kernel checks that every ask returned exactly its own answer and none failed. The timing runs
of the two answerers go back to back; at 10,000 pending each has :data:`SETTLE_PASSES` of them,
alternating which goes first, and the median run counts.
"""

from __future__ import annotations

import os
import re
import time
from typing import Any

from ipyask.testing import HeadlessFrontend, KernelFrontend

from ._common import KernelBench, Result, Settings, answer_batch, log

KERNEL_CODE = r'''
import ipyask
from ipyask import Agent
from ipyask.protocol import AskUserQuestionAnswer, AskUserQuestionRequest
from ipyask.host import Settlement

sc_svc = ipyask.UserQuestions()
sc_agents, sc_results, sc_errors = [], {}, []

def sc_label(i):
    return f"yes-{i}" if i % 2 == 0 else f"no-{i}"

def sc_request(i):
    request = AskUserQuestionRequest.model_validate({"questions": [{
        "id": "q", "question": f"Question {i}?",
        "options": [{"label": f"yes-{i}"}, {"label": f"no-{i}"}]}]})
    return request.model_copy(update={"agent": sc_agents[i % len(sc_agents)]})

async def sc_one(i):
    try:
        answer = await sc_svc.ask(sc_request(i))
        sc_results[i] = answer.answers[0].selected
    except Exception as exc:
        sc_errors.append(repr(exc))

def sc_rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

class BareAnswerer:
    """A waterfall answerer over a bare comm: one custom message out, one back."""

    def __init__(self, channel):
        self.pending, self.seq, self.channel = {}, 0, channel
        channel.handlers.append(self.got)
        sc_svc.on_request(self.answer)

    async def answer(self, request, next):
        self.seq += 1
        key, item, settlement = self.seq, request.questions[0], Settlement()
        self.pending[key] = settlement
        self.channel.send({"kind": "question", "key": key, "question": item.question})
        try:
            selected = await settlement
        finally:
            self.pending.pop(key, None)
        batch = {"answers": [{"id": item.id, "selected": selected}]}
        return AskUserQuestionAnswer.model_validate(batch)

    def got(self, content):
        if isinstance(content, dict) and content.get("kind") == "answer":
            settlement = self.pending.get(content.get("key"))
            if settlement is not None:
                settlement.resolve(content.get("selected"))

    def count(self):
        return len(self.pending)

class PanelCounter:
    def __init__(self):
        self.panel = ipyask.QuestionPanel(sc_svc)
        display(self.panel)

    def count(self):
        return self.panel.store.live_count

SC_MEMORY = {}

# Where the memory of a pending question goes: each allocation still held is put in the first
# category whose file is in its traceback, most recent frame first.
SC_PARTS = [
    ("wire text", ("/widget/_card_store.py",)),
    ("card (model, derived view)", ("/widget/_cards.py", "/widget/_markdown.py",
                                    "/widget/_widget.py", "/panel/_question_panel.py")),
    ("request (validated)", ("/ipyask/_vocabulary.py",)),
    ("futures, tasks, waterfall", ("/asyncio/", "/ipyask/_waterfall.py", "/ipyask/_service.py",
                                   "/ipyask/host/", "/ipyask/_agents.py", "/panel/")),
    ("messages in flight (comm)", ("/ipywidgets/", "/comm/", "/ipykernel/", "/jupyter_client/",
                                   "/zmq/")),
]

SC_REQUEST_CODE = sc_request.__code__
SC_REQUEST_LINES = {line for _, _, line in SC_REQUEST_CODE.co_lines() if line}

def sc_part(traceback):
    for frame in reversed(traceback):  # most recent first
        if frame.filename == SC_REQUEST_CODE.co_filename and frame.lineno in SC_REQUEST_LINES:
            return "request (validated)"
        for name, markers in SC_PARTS:
            if any(marker in frame.filename for marker in markers):
                return name
        if frame.filename.startswith("<") or "ipykernel_" in frame.filename:
            return "the asking task (benchmark code)"
    return "other"

def sc_breakdown(before, after, n):
    parts = {}
    for stat in after.compare_to(before, "traceback"):
        name = sc_part(stat.traceback)
        parts[name] = parts.get(name, 0) + stat.size_diff
    return {name: size / n for name, size in parts.items()}

async def sc_run(n, agents, answerer, trace):
    sc_agents[:] = [Agent(f"agent-{j}") for j in range(agents)]
    for agent in sc_agents:
        sc_svc.agents.enter(agent)
    gc.collect()
    rss0 = sc_rss()
    detail = trace and n <= 1000  # the per-part breakdown costs time per allocation
    if trace:
        tracemalloc.start(30 if detail else 1)
    before = tracemalloc.take_snapshot() if detail else None
    base = tracemalloc.get_traced_memory()[0]  # after the snapshot, which is not the asks'

    t0 = time.perf_counter()
    tasks = [asyncio.ensure_future(sc_one(i)) for i in range(n)]
    while answerer.count() < n:
        await asyncio.sleep(0.002)
    shown = time.perf_counter() - t0
    await asyncio.sleep(0.1)
    # What was sent leaves first: the kernel's I/O thread hands on the queued messages in
    # order, and a flush of stdout waits until it reached the flush (a slow machine otherwise
    # counts a varying part of the last messages as the questions' memory).
    sys.stdout.flush()
    gc.collect()
    traced = tracemalloc.get_traced_memory()[0] - base if trace else None
    parts = sc_breakdown(before, tracemalloc.take_snapshot(), n) if detail else None
    tracemalloc.stop()
    rss = sc_rss() - rss0
    SC_MEMORY.update(traced_bytes=traced, rss_bytes=rss, shown_s=shown, parts=parts)
    bench_channel.send({"kind": "all-pending"})
    t1 = time.perf_counter()
    await asyncio.gather(*tasks)
    settle_kernel = time.perf_counter() - t1
    wrong = sum(1 for i in range(n) if sc_results.get(i) != [sc_label(i)])
    return {"n": n, "agents": agents, "traced": trace, "shown_s": shown,
            "traced_bytes": traced, "rss_bytes": rss,
            "settle_kernel_s": settle_kernel, "answered": len(sc_results), "wrong": wrong,
            "errors": sc_errors[:5], "error_count": len(sc_errors)}
'''

SIZES = [int(n) for n in os.environ.get("IPYASK_BENCH_SCALE_SIZES", "").split(",") if n]
"""Only these sizes when set (a partial rerun); the report needs every size for the summary."""

_INDEX = re.compile(r"Question (\d+)\?")


def _label(i: int) -> str:
    return f"yes-{i}" if i % 2 == 0 else f"no-{i}"


def _index(question: str) -> int:
    match = _INDEX.search(question)
    if match is None:
        raise RuntimeError(f"unexpected question {question!r}")
    return int(match.group(1))


def _launch(bench: KernelBench, n: int, agents: int, trace: bool, timeout: float) -> int:
    """Ask ``n`` questions at once; wait until all are pending; the channel index then."""
    start = bench.channel_messages()
    bench.start("scale", f"sc_run({n}, {agents}, sc_answerer, {trace})")
    bench.wait_message("all-pending", start, timeout)
    return start


def _memory(bench: KernelBench, n: int, agents: int, timeout: float) -> dict[str, Any]:
    _launch(bench, n, agents, True, timeout)
    memory: dict[str, Any] = bench.value("SC_MEMORY")
    return {
        "traced_bytes": memory["traced_bytes"],
        "traced_shown_s": memory["shown_s"],
        "memory_parts": memory.get("parts"),
    }


PANEL_SETUP = "sc_answerer = PanelCounter()"
BARE_SETUP = "sc_answerer = BareAnswerer(bench_channel)"


def _person(timeout: float) -> HeadlessFrontend:
    return HeadlessFrontend(timeout=timeout, log_size=50)


def _panel_memory(n: int, agents: int, timeout: float) -> dict[str, Any]:
    with _person(timeout) as tracer:
        bench = KernelBench(tracer.kernel)
        tracer.execute(KERNEL_CODE + "\n" + PANEL_SETUP)
        return _memory(bench, n, agents, timeout)


def _panel(n: int, agents: int, timeout: float) -> dict[str, Any]:
    with _person(timeout) as player:
        bench = KernelBench(player.kernel)
        player.execute(KERNEL_CODE + "\n" + PANEL_SETUP)
        _launch(bench, n, agents, False, timeout)
        panel = player.panel()
        pending = [c for c in player.live_cards(panel) if c["status"] == "pending"]
        t1 = time.perf_counter()
        for card in pending:
            label = _label(_index(card["questions"][0]["question"]))
            # Sent to the panel by its id, as the bare comm's answers go to its channel (looking
            # the panel up reads every message that came in, on each send).
            player.send("answer", panel, key=card["key"], answer=answer_batch("q", label))
        result: dict[str, Any] = bench.wait("scale", timeout=timeout)
        t2 = time.perf_counter()
        answered = sum(1 for c in player.cards() if c["status"] == "answered")
        errors = len(player.errors())
    result.update(
        frontend_seen=len(pending),
        frontend_answered_cards=answered,
        frontend_errors=errors,
        settle_s=t2 - t1,
    )
    return result


def _bare_memory(n: int, agents: int, timeout: float) -> dict[str, Any]:
    with KernelFrontend(timeout=timeout, log_size=50) as tracer:
        bench = KernelBench(tracer)
        tracer.execute(KERNEL_CODE + "\n" + BARE_SETUP)
        return _memory(bench, n, agents, timeout)


def _bare(n: int, agents: int, timeout: float) -> dict[str, Any]:
    with KernelFrontend(timeout=timeout, log_size=50) as fe:
        bench = KernelBench(fe)
        fe.execute(KERNEL_CODE + "\n" + BARE_SETUP)
        start = _launch(bench, n, agents, False, timeout)
        questions = [
            m.content
            for m in fe.custom_messages(bench.channel)[start:]
            if isinstance(m.content, dict) and m.content.get("kind") == "question"
        ]
        if len(questions) != n:
            # IOPub is a ZeroMQ PUB socket: under load it drops what its subscriber cannot
            # take in time. The panel's cards are in synced state; the bare comm has only these.
            raise LostQuestions(f"bare comm: the front end got {len(questions)} of {n} questions")
        after = bench.channel_messages()
        t1 = time.perf_counter()
        for question in questions:
            selected = [_label(_index(question["question"]))]
            answer = {"kind": "answer", "key": question["key"], "selected": selected}
            fe.send_custom(bench.channel, answer)
        result: dict[str, Any] = bench.wait("scale", timeout=timeout, since=after)
        t2 = time.perf_counter()
    result.update(frontend_seen=len(questions), settle_s=t2 - t1)
    return result


class LostQuestions(RuntimeError):
    """The bare comm's front end did not get every question (IOPub dropped some)."""


BARE_TRIES = 3
"""Timing runs of the bare comm a pass may take when its front end lost questions."""


def _bare_complete(n: int, agents: int, timeout: float) -> dict[str, Any]:
    """A timing run of the bare comm in which its front end got every question (its lost runs,
    a fault of the peer's own transport, are counted in ``lost_runs``)."""
    lost_runs = 0
    while True:
        try:
            result = _bare(n, agents, timeout)
        except LostQuestions as lost:
            lost_runs += 1
            if lost_runs == BARE_TRIES:
                raise
            log(f"scale: {lost}; running it again")
            continue
        result["lost_runs"] = lost_runs
        return result


def _median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run with the median time to settle, with every run's time (``settle_runs_s``)."""
    ordered = sorted(runs, key=lambda run: float(run["settle_s"]))
    median = dict(ordered[len(ordered) // 2])
    median["settle_runs_s"] = [run["settle_s"] for run in runs]
    median["lost_runs"] = sum(int(run.get("lost_runs", 0)) for run in runs)
    median["all_runs_settled"] = all(_finish(dict(run))["all_settled"] for run in runs)
    return median


def _finish(result: dict[str, Any]) -> dict[str, Any]:
    n = int(result["n"])
    traced = result["traced_bytes"]
    result["bytes_per_question"] = traced / n if traced is not None else None
    result["rss_per_question"] = result["rss_bytes"] / n
    result["all_settled"] = (
        result["answered"] == n
        and result["wrong"] == 0
        and result["error_count"] == 0
        and result["frontend_seen"] == n
        and result.get("all_runs_settled", True)
    )
    return result


REPEATED_FROM = 10_000
SETTLE_PASSES = 5
"""Timing runs of each answerer at 10,000 pending (the median counts): one run of either takes
10–20 s, long enough for the shared machine's speed to change between two runs (the same code's
runs differ by up to a fifth)."""


def run(settings: Settings) -> Result:
    sizes = [1, 100, 1000, 10000] if not settings.quick else [1, 100]
    if SIZES:
        sizes = SIZES
    out: dict[str, Any] = {"bare": [], "panel": []}
    for n in sizes:
        agents = min(n, 100)
        log(f"scale: memory, {n} pending from {agents} agents (bare comm, then panel)")
        memory = {"bare": _bare_memory(n, agents, 300), "panel": _panel_memory(n, agents, 600)}
        # The two answerers' timing runs alternate, back to back: a drift in the machine's
        # speed hits both alike.
        passes = SETTLE_PASSES if n >= REPEATED_FROM else 1
        runs: dict[str, list[dict[str, Any]]] = {"bare": [], "panel": []}
        for index in range(passes):
            for kind in ("bare", "panel") if index % 2 == 0 else ("panel", "bare"):
                log(f"scale: {kind}, {n} pending from {agents} agents ({index + 1}/{passes})")
                timed = _bare_complete(n, agents, 300) if kind == "bare" else _panel(n, agents, 600)
                runs[kind].append(timed)
        for kind in ("bare", "panel"):
            out[kind].append(_finish({**_median_run(runs[kind]), **memory[kind]}))
    return out
