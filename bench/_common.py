"""Shared pieces of the benchmarks: run settings, statistics, kernel CPU readings, kernel code.

Every benchmark drives a real kernel through ``ipyask.testing`` from this process; the code that
runs inside the kernel is kept here and in each module as plain source strings.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ipyask.testing import KernelFrontend

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
ARTIFACTS = ROOT / "artifacts" / "bench"
IK6_VENV = ROOT / ".cache" / "venvs" / "bench-ik6"

Result = dict[str, Any]
"""A JSON-native result record (every benchmark returns one)."""


@dataclass(frozen=True)
class Settings:
    """How much each benchmark does: ``quick`` is a ~1 minute smoke run."""

    quick: bool = False

    def pick(self, full: int, quick: int) -> int:
        return quick if self.quick else full

    def seconds(self, full: float, quick: float) -> float:
        return quick if self.quick else full


def log(message: str) -> None:
    """Progress on stderr (stdout stays free for the final summary)."""
    stamp = time.strftime("%H:%M:%S")
    print(f"[bench {stamp}] {message}", file=sys.stderr, flush=True)


# -- statistics -------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0–100) with linear interpolation between closest ranks."""
    if not values:
        return math.nan
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summary(values: list[float]) -> dict[str, float]:
    """n, p50, p90, p99, mean, min and max of ``values``."""
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50": percentile(values, 50),
        "p90": percentile(values, 90),
        "p99": percentile(values, 99),
        "mean": sum(values) / len(values),
        "min": min(values),
        "max": max(values),
    }


# -- a kernel's CPU time and wake-ups, from /proc ----------------------------------------------

_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class ProcSample:
    """CPU seconds (user + system, every thread) and context switches of a process."""

    at: float
    cpu: float
    switches: int


def proc_sample(pid: int) -> ProcSample:
    """Read ``/proc/<pid>/stat`` and the context switches of all its threads."""
    at = time.monotonic()
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    cpu = (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime (fields 14, 15)
    switches = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            lines = (task / "status").read_text().splitlines()
        except OSError:  # the thread ended meanwhile
            continue
        for line in lines:
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                switches += int(line.split()[1])
    return ProcSample(at, cpu, switches)


def proc_rss(pid: int) -> int:
    """Resident set size of ``pid`` in bytes."""
    pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def kernel_pid(frontend: KernelFrontend) -> int:
    pid = frontend.kernel_pid
    if pid is None:
        raise RuntimeError("the kernel has no process id")
    return pid


# -- code run inside the kernel ----------------------------------------------------------------

PRELUDE = r'''
import asyncio, gc, json, os, sys, threading, time, tracemalloc
import anywidget

class BenchChannel(anywidget.AnyWidget):
    """A bare anywidget: custom messages both ways, nothing else."""

    _esm = "export default { render() {} };"

    def __init__(self):
        super().__init__()
        self.handlers = []
        self.on_msg(self._got)

    def _got(self, _widget, content, _buffers):
        for handler in list(self.handlers):
            handler(content)

def bench_on_loop(loop, callback, *args):
    """Run on the loop's thread: now when already there, else thread-safely (as ipyask does)."""
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        callback(*args)
    else:
        loop.call_soon_threadsafe(callback, *args)

BENCH, BENCH_TASKS = {}, {}
bench_channel = BenchChannel()
display(bench_channel)

def bench_start(name, coro):
    """Run ``coro`` as a task; its result goes to BENCH[name], then a 'done' message is sent."""
    async def run():
        try:
            BENCH[name] = {"ok": True, "value": await coro}
        except BaseException as exc:
            BENCH[name] = {"ok": False, "error": repr(exc)}
        bench_channel.send({"kind": "done", "name": name})
    BENCH_TASKS[name] = asyncio.ensure_future(run())
'''


class KernelBench:
    """A kernel with :data:`PRELUDE` loaded: start coroutines there and fetch their results."""

    def __init__(self, frontend: KernelFrontend) -> None:
        self.frontend = frontend
        cell = frontend.execute(PRELUDE)
        (self.channel,) = cell.displayed_models
        self._started: dict[str, int] = {}

    @property
    def pid(self) -> int:
        return kernel_pid(self.frontend)

    def channel_messages(self) -> int:
        return len(self.frontend.widget(self.channel).custom)

    def start(self, name: str, coroutine_source: str) -> None:
        """Start ``coroutine_source`` (an expression giving a coroutine) as task ``name``."""
        self._started[name] = self.channel_messages()
        self.frontend.execute(
            f"BENCH.pop({name!r}, None)\nbench_start({name!r}, {coroutine_source})"
        )

    def wait_message(
        self, kind: str, since: int, timeout: float = 300.0, name: str | None = None
    ) -> dict[str, Any]:
        """The first channel message of ``kind`` (and ``name``) at index ≥ ``since``; waits.

        Looks at each message once (``wait_for_custom`` rescans from ``since`` on every pump,
        which costs O(n²) when thousands of messages arrive on the channel).
        """
        seen = [since]
        found: list[dict[str, Any]] = []

        def check() -> bool:
            messages = self.frontend.widget(self.channel).custom
            for message in messages[seen[0] :]:
                content = message.content
                if (
                    isinstance(content, dict)
                    and content.get("kind") == kind
                    and (name is None or content.get("name") == name)
                ):
                    found.append(content)
                    return True
            seen[0] = len(messages)
            return False

        self.frontend.wait_for(check, timeout=timeout, what=f"a {kind!r} message")
        return found[0]

    def wait(self, name: str, timeout: float = 300.0, *, since: int | None = None) -> Any:
        """Wait for task ``name`` to finish; its value, or ``RuntimeError`` if it raised."""
        start = self._started[name] if since is None else since
        self.wait_message("done", start, timeout, name=name)
        return self.value(f"BENCH[{name!r}]", check=True)

    def value(self, expression: str, *, check: bool = False) -> Any:
        """``json.loads`` of ``json.dumps(expression)`` evaluated in the kernel."""
        out = self.frontend.execute(f"print(json.dumps({expression}))").stdout
        data = json.loads(out)
        if check:
            if not data.get("ok"):
                raise RuntimeError(f"kernel task failed: {data.get('error')}")
            return data["value"]
        return data


def answer_batch(question_id: str, label: str) -> dict[str, Any]:
    """The ``answer`` batch a Submit click sends for one single-select question."""
    return {"answers": [{"id": question_id, "selected": [label]}]}


def kernel_versions(frontend: KernelFrontend) -> dict[str, str]:
    """Versions of Python and the Jupyter packages as the kernel sees them."""
    code = (
        "import json, sys, importlib.metadata as _m\n"
        "_v = {'python': sys.version.split()[0]}\n"
        "for _n in ('ipykernel', 'ipywidgets', 'anywidget', 'jupyter-ui-poll'):\n"
        "    try: _v[_n] = _m.version(_n)\n"
        "    except _m.PackageNotFoundError: pass\n"
        "print(json.dumps(_v))"
    )
    return dict(json.loads(frontend.execute(code).stdout))
