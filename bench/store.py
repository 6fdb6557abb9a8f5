"""Durable questions through a store shared by processes: SQLite (default) and PostgreSQL.

- **Round trip**: an agent process (``ipyask.connect``) asks questions one after another and
  measures ask → answer. Two inboxes answer: *store API*, this process answering each question
  as its change feed shows it (``resolve_question``: the store's own cost, two commits and two
  change detections across processes); and *inbox panel*, ``ipyask.inbox(store)`` displayed in a
  real kernel, whose card ``HeadlessFrontend`` answers as soon as it arrives (what a person's
  notebook does). The peer is the in-kernel panel round trip (the round-trip section's *ipyask*
  method: agent and panel in one kernel, no store), measured in the same kernel; the blocks of
  every method alternate over the passes, so drift in the machine's speed hits them alike. Each
  block opens its panel (the inbox panel with its store) anew, and its first rounds are a
  warm-up, dropped for every method.
- **Idle CPU**: an agent process waiting for an answer, and the kernel with an inbox panel open
  on the store showing that question, sampled together over one window (``/proc/<pid>/stat``);
  the same kernel with no inbox open is the baseline.
- **Answer after a long wait**: an agent process asks, the benchmark lets it wait (long enough
  for any back-off to reach its longest interval), samples the agent's CPU and wake-ups over that
  wait, then commits the answer; the latency is from the commit's return to the agent having
  the answer (``time.monotonic`` in both processes: CLOCK_MONOTONIC is shared).
- **One inbox, many processes**: 50 agent processes ask 200 questions each at once (10,000
  pending); once all are in the store this process answers every one (question *i* gets its call
  id as its label), 500 claims per transaction (``Store.resolve_questions``, as a person
  answering many cards at once). Checked by ids and answers: every process got exactly its own
  answers, each process's record ids are those the inbox answered (none missing, none twice),
  and each session holds exactly one ``asked`` and one ``answered`` event per question, for the
  same ids.
  Reported: time to ask (the processes start and connect first, then ask at one signal; this
  process counts the open questions five times a second until all are there), to answer all,
  until every process has its answers; each agent process's write transactions, reads of its
  session log and CPU time (means); store size (SQLite: the file and its WAL
  while the inbox is open, and the file once every connection closed).

PostgreSQL runs in a throw-away cluster (``ipyask.testing.throwaway_postgres``).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ipyask.store import QuestionRecord, Store, Terminal, open_store
from ipyask.testing import HeadlessFrontend, find_postgres_bin, new_database, throwaway_postgres

from . import roundtrip as kernel_roundtrip
from ._common import ROOT, KernelBench, Result, Settings, answer_batch, log, proc_sample, summary

WORKER = [sys.executable, "-m", "bench._store_worker"]
PASSES = 5
"""Alternating blocks of the round-trip methods (see :data:`bench.roundtrip.PASSES`)."""


def _spawn(*args: str, stdin: bool = False) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*WORKER, *args],
        cwd=ROOT,
        stdin=subprocess.PIPE if stdin else None,
        stdout=subprocess.PIPE,
        text=True,
    )


def _terminal(label: str) -> Terminal:
    return Terminal.model_validate(
        {"outcome": "answered", "answer": {"answers": [{"id": "q", "selected": [label]}]}}
    )


def _answer(store: Store, record_id: str, label: str) -> str:
    return store.resolve_question(record_id, _terminal(label)).status


ANSWER_BATCH = 500
"""Claims per transaction when the benchmark answers every pending question (a person
answering many cards at once: ``Store.resolve_questions``)."""


def _answer_all(store: Store, records: list[QuestionRecord]) -> list[str]:
    """Answer every record (its call id as its label), a batch per transaction; the ids
    accepted."""
    accepted: list[str] = []
    for start in range(0, len(records), ANSWER_BATCH):
        batch = records[start : start + ANSWER_BATCH]
        results = store.resolve_questions([(r.id, _terminal(r.call_id)) for r in batch])
        accepted += [r.id for r, result in zip(batch, results, strict=True)
                     if result.status == "accepted"]  # fmt: skip
    return accepted


# -- round trip -----------------------------------------------------------------------------------


class _Agent:
    """A long-lived agent process on one store that asks blocks of questions on request."""

    def __init__(self, location: str) -> None:
        self.process = _spawn("roundtrip", location, stdin=True)

    def start(self, count: int, prefix: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{count} {prefix}\n")
        self.process.stdin.flush()

    def times(self) -> list[float]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the agent process ended (exit {self.process.wait(30)})")
        return [float(t) for t in json.loads(line)]

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(60)


def _api_block(agent: _Agent, store: Store, count: int, prefix: str) -> list[float]:
    """The agent asks ``count`` questions; this process answers each through the store."""
    feed = store.changes()
    agent.start(count, prefix)
    answered = 0
    try:
        while answered < count:
            if agent.process.poll() is not None:
                raise RuntimeError(f"the agent process ended early (exit {agent.process.poll()})")
            feed.wait(1.0)
            for record in store.pending_questions():
                answered += _answer(store, record.id, record.call_id) == "accepted"
    finally:
        feed.close()
    return agent.times()


def _panel_block(
    bench: KernelBench, person: HeadlessFrontend, agent: _Agent, location: str, count: int,
    prefix: str,
) -> list[float]:  # fmt: skip
    """The agent asks ``count`` questions; an inbox panel in the kernel shows each, and the
    front end answers its card."""
    bench.frontend.execute(f"st_inbox = ipyask.inbox({location!r})\ndisplay(st_inbox)")
    try:
        agent.start(count, prefix)
        for i in range(count):
            call_id = f"{prefix}-{i}"
            panel, card = kernel_roundtrip.wait_pending_card(person, f"Go on with {call_id}?")
            person.send("answer", panel, key=card["key"], answer=answer_batch("q", call_id))
        return agent.times()
    finally:
        bench.frontend.execute("st_inbox.close()\nst_inbox.service.store.close()")


def _round_trips(
    bench: KernelBench, person: HeadlessFrontend, locations: dict[str, str], settings: Settings
) -> dict[str, Any]:
    # 500 rounds a method: the p99 of 200 is the second or third largest round, of the peer as
    # of each store, and its ratios moved between 1.0x and 2.5x from one run to the next.
    rounds, warm = settings.pick(500, 20), settings.pick(10, 2)
    passes = settings.pick(PASSES, 2)
    per_block = rounds // passes
    # Every block opens its panel anew (an inbox panel with the kernel's store connections):
    # its first rounds pay for that (for PostgreSQL about 1 ms more each, the statements
    # prepared and planned again), so each block's first ``warm`` rounds are dropped.
    n = per_block + warm
    samples: dict[str, list[float]] = {}

    def add(name: str, times: list[float]) -> None:
        samples.setdefault(name, []).extend(times[warm:])

    agents = {name: _Agent(location) for name, location in locations.items()}
    stores = {name: open_store(location) for name, location in locations.items()}
    try:
        for index in range(passes):
            log(f"store round trip pass {index + 1}/{passes}: in-kernel panel, then each store "
                f"through the store API and through an inbox panel x{per_block} each")  # fmt: skip
            kernel = kernel_roundtrip.ipyask_rounds(bench, person, n, 0)
            add("kernel_panel", [r[0] * 1000 for r in kernel])
            for name, agent in agents.items():
                add(f"{name}_api", _api_block(agent, stores[name], n, f"api{index}"))
                panel = _panel_block(bench, person, agent, locations[name], n, f"panel{index}")
                add(f"{name}_panel", panel)
    finally:
        for agent in agents.values():
            agent.close()
        for store in stores.values():
            store.close()
    stats = {name: summary(values) for name, values in samples.items()}
    peer = stats["kernel_panel"]
    ratios = {
        name: {"p50": s["p50"] / peer["p50"], "p99": s["p99"] / peer["p99"]}
        for name, s in stats.items()
        if name != "kernel_panel"
    }
    log("store round trip p50 ms: " + json.dumps({k: round(v["p50"], 2) for k, v in stats.items()}))
    return {"unit": "ms", "stats": stats, "ratios": ratios, "samples": samples}


# -- idle CPU -------------------------------------------------------------------------------------


def _cpu(pid: int, window_s: float) -> tuple[Any, Any]:
    first = proc_sample(pid)
    time.sleep(window_s)
    return first, proc_sample(pid)


def _usage(first: Any, last: Any) -> dict[str, float]:
    elapsed = last.at - first.at
    return {
        "cpu_percent": 100 * (last.cpu - first.cpu) / elapsed,
        "wakeups_per_s": (last.switches - first.switches) / elapsed,
        "window_s": elapsed,
    }


def _idle(bench: KernelBench, location: str, window_s: float) -> dict[str, Any]:
    """A waiting agent and an open inbox showing its question, sampled over the same window."""
    agent = _spawn("wait", location)
    assert agent.stdout is not None
    agent.stdout.readline()  # it asks
    bench.frontend.execute(f"st_idle = ipyask.inbox({location!r})\ndisplay(st_idle)")
    try:
        time.sleep(2.0)  # start-up work and the SQLite change check's back-off settle
        kernel_first, agent_first = proc_sample(bench.pid), proc_sample(agent.pid)
        time.sleep(window_s)
        kernel_last, agent_last = proc_sample(bench.pid), proc_sample(agent.pid)
        shown = bench.value("[c.key for c in st_idle.get_cards() if c.status == 'pending']")
    finally:
        bench.frontend.execute("st_idle.close()\nst_idle.service.store.close()")
    store = open_store(location)
    try:
        for record in store.pending_questions():
            _answer(store, record.id, record.call_id)
    finally:
        store.close()
    answered = agent.wait(60) == 0
    return {
        "agent": _usage(agent_first, agent_last),
        "inbox": _usage(kernel_first, kernel_last),
        "inbox_showed_the_question": len(shown) == 1,
        "agent_answered": answered,
    }


# -- answer after a long wait -------------------------------------------------------------------


def _pending_call(store: Store, call_id: str, agent: subprocess.Popen[str]) -> str:
    """The record id of ``call_id`` once it is pending (checked every 10 ms)."""
    deadline = time.monotonic() + 60
    while True:
        record = store.question_for_call("longwait", call_id)
        if record is not None and record.terminal is None:
            return record.id
        if agent.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the agent did not ask {call_id} (exit {agent.poll()})")
        time.sleep(0.01)


def _long_waits(location: str, rounds: int, wait_s: float) -> dict[str, Any]:
    """``rounds`` questions, each answered after ``wait_s`` of waiting: commit → agent has it."""
    agent = _spawn("longwait", location, str(rounds))
    assert agent.stdout is not None
    store = open_store(location)
    latencies: list[float] = []
    cpu = switches = wall = 0.0
    try:
        for i in range(rounds):
            record_id = _pending_call(store, f"long-{i}", agent)
            first = proc_sample(agent.pid)
            time.sleep(wait_s)
            last = proc_sample(agent.pid)
            cpu, wall = cpu + last.cpu - first.cpu, wall + last.at - first.at
            switches += last.switches - first.switches
            if _answer(store, record_id, f"long-{i}") != "accepted":
                raise RuntimeError(f"long-{i} was not pending")
            committed = time.monotonic()
            line = agent.stdout.readline()
            if not line:
                raise RuntimeError(f"the agent process ended (exit {agent.wait(30)})")
            latencies.append((json.loads(line)["at"] - committed) * 1000)
        answered = agent.wait(60) == 0
    finally:
        if agent.poll() is None:
            agent.kill()
        store.close()
    return {
        "wait_s": wait_s,
        "stats": summary(latencies),
        "samples": latencies,
        "agent": {"cpu_percent": 100 * cpu / wall, "wakeups_per_s": switches / wall},
        "all_answered": answered and len(latencies) == rounds,
    }


# -- one inbox, many processes --------------------------------------------------------------------


def _size(location: str) -> dict[str, int]:
    if location.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(location) as db:
            row = db.execute(
                "SELECT pg_total_relation_size('ipyask_questions')"
                " + pg_total_relation_size('ipyask_events')"
            ).fetchone()
        assert row is not None
        return {"store_bytes": int(row[0])}
    path = Path(location)
    wal = path.with_name(path.name + "-wal")
    return {
        "store_bytes": path.stat().st_size,
        "wal_bytes": wal.stat().st_size if wal.exists() else 0,
    }


_OPEN_COUNT = "SELECT count(*) FROM ipyask_questions WHERE outcome IS NULL"


@contextmanager
def _open_count(location: str) -> Iterator[Callable[[], int]]:
    """A function that counts the store's open questions (one query on its own connection)."""
    if location.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(location, autocommit=True) as pg:
            yield lambda: int(pg.execute(_OPEN_COUNT).fetchone()[0])  # type: ignore[index]
        return
    db = sqlite3.connect(location, timeout=30)
    try:
        yield lambda: int(db.execute(_OPEN_COUNT).fetchone()[0])
    finally:
        db.close()


def _events_match(store: Store, session: str, ids: list[str]) -> bool:
    """Whether the session's log holds one ``asked`` and one ``answered`` event per id, the
    answer picking the question's own label, and nothing else of the kind."""
    asked: Counter[str] = Counter()
    answered: Counter[str] = Counter()
    labels: dict[str, str] = {}
    for _, event in store.read_events(session):
        if event["type"] == "user-questions/asked":
            asked[event["id"]] += 1
            labels[event["id"]] = event["callId"]
        elif event["type"] == "user-questions/answered":
            answered[event["id"]] += 1
            if event["answer"]["answers"][0]["selected"] != [labels.get(event["id"])]:
                return False
    expected = Counter(ids)
    return asked == expected == answered and len(expected) == len(ids)


def _inbox(location: str, processes: int, per_process: int) -> dict[str, Any]:
    agents: list[subprocess.Popen[str]] = []
    try:
        return _inbox_run(location, processes, per_process, agents)
    finally:
        for agent in agents:  # a failed run leaves no agent process behind
            if agent.poll() is None:
                agent.kill()
                agent.wait(30)


def _inbox_run(
    location: str, processes: int, per_process: int, agents: list[subprocess.Popen[str]]
) -> dict[str, Any]:
    total = processes * per_process
    store = open_store(location)
    started = time.monotonic()
    agents += [
        _spawn("ask", location, f"w{n}", str(per_process), stdin=True) for n in range(processes)
    ]
    for agent in agents:
        assert agent.stdout is not None and agent.stdin is not None
        if agent.stdout.readline().strip() != "ready":
            raise RuntimeError(f"an agent process did not start (exit {agent.wait(60)})")
    started_s = time.monotonic() - started
    started = time.monotonic()
    for agent in agents:
        assert agent.stdin is not None
        agent.stdin.write("go\n")
        agent.stdin.flush()
    # Counted, not read: reading every open record costs about 0.2 s of CPU a look at 10,000
    # (on the machine the agents share); the records are read, and checked by ids, once all
    # are there.
    with _open_count(location) as count:
        while (arrived := count()) < total:
            time.sleep(0.2)
            if any(agent.poll() is not None for agent in agents):
                raise RuntimeError("an agent process ended before its questions were answered")
            if time.monotonic() - started > 600:
                raise RuntimeError(f"only {arrived} of {total} questions arrived")
    asked_s = time.monotonic() - started
    pending = store.pending_questions()
    started = time.monotonic()
    accepted = _answer_all(store, pending)
    answer_s = time.monotonic() - started
    reports = [json.loads(agent.communicate(timeout=600)[0]) for agent in agents]
    settled_s = time.monotonic() - started
    reported = [record_id for report in reports for record_id in report["ids"]]
    result: dict[str, Any] = {
        "processes": processes,
        "questions": total,
        "start_s": started_s,
        "ask_s": asked_s,
        "answer_s": answer_s,
        "settle_s": settled_s,
        "accepted": len(accepted),
        "all_own_answers": all(r["ok"] and r["answers"] == per_process for r in reports),
        "ids_match": len(set(reported)) == len(reported) == total
        and set(reported) == set(accepted),
        "events_match": all(
            _events_match(store, f"w{n}", report["ids"]) for n, report in enumerate(reports)
        ),
        "still_pending": len(store.pending_questions()),
        "per_process": _per_process(reports),
        **_size(location),
    }
    result["none_lost_or_duplicated"] = (
        result["all_own_answers"]
        and result["ids_match"]
        and result["events_match"]
        and len(accepted) == total
        and result["still_pending"] == 0
    )
    store.close()
    if not location.startswith("postgresql://"):
        # The last connection to close checkpoints the WAL into the file and removes it.
        result["closed_store_bytes"] = _size_closed(Path(location))
    return result


def _per_process(reports: list[dict[str, Any]]) -> dict[str, float]:
    """The mean of each count an agent process reported of itself (``bench._store_worker``)."""
    keys = sorted({key for report in reports for key, value in report.items()
                   if isinstance(value, (int, float)) and not isinstance(value, bool)})  # fmt: skip
    return {key: sum(r.get(key, 0) for r in reports) / len(reports) for key in keys}


def _size_closed(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


# -- the section ----------------------------------------------------------------------------------

KERNEL_CODE = "import ipyask\n"


@contextmanager
def _backends() -> Iterator[dict[str, Callable[[], str]]]:
    """Each backend's factory of fresh, empty store locations."""
    with tempfile.TemporaryDirectory(prefix="ipyask-bench-") as folder:
        made = iter(range(1_000_000))

        def sqlite() -> str:
            return str(Path(folder) / f"questions-{next(made)}.sqlite3")

        if find_postgres_bin() is None:
            yield {"sqlite": sqlite}
            return
        with throwaway_postgres() as url:
            yield {"sqlite": sqlite, "postgres": lambda: new_database(url)}


def run(settings: Settings) -> Result:
    processes, per_process = settings.pick(50, 10), settings.pick(200, 20)
    window = settings.seconds(10.0, 3.0)
    result: Result = {"backends": {}}
    with _backends() as backends:
        result["backends"] = {name: {} for name in backends}
        with HeadlessFrontend(timeout=60, log_size=200) as person:
            bench = KernelBench(person.kernel)
            person.kernel.execute(kernel_roundtrip.KERNEL_CODE + KERNEL_CODE)
            locations = {name: fresh() for name, fresh in backends.items()}
            result["roundtrip"] = _round_trips(bench, person, locations, settings)
            log(f"store: idle CPU over {window:.0f} s (kernel, no inbox)")
            time.sleep(2.0)
            result["idle_kernel"] = _usage(*_cpu(bench.pid, window))
            for name, fresh in backends.items():
                log(f"store: idle CPU over {window:.0f} s ({name})")
                result["backends"][name]["idle"] = _idle(bench, fresh(), window)
        for name, fresh in backends.items():
            log(f"store: {processes * per_process:,} pending from {processes} processes ({name})")
            result["backends"][name]["inbox"] = _inbox(fresh(), processes, per_process)
    return result


def run_round_trips(settings: Settings) -> Result:
    """Only the round-trip rows (``python -m bench.store``): the in-kernel panel, and each
    store through its API and through an inbox panel, alternating as in :func:`run`."""
    with _backends() as backends, HeadlessFrontend(timeout=60, log_size=200) as person:
        bench = KernelBench(person.kernel)
        person.kernel.execute(kernel_roundtrip.KERNEL_CODE + KERNEL_CODE)
        locations = {name: fresh() for name, fresh in backends.items()}
        return {"roundtrip": _round_trips(bench, person, locations, settings)}


def run_long_waits(settings: Settings) -> Result:
    """The *answer after a long wait* rows, for each store."""
    rounds, wait_s = settings.pick(10, 3), settings.seconds(3.0, 1.0)
    result: Result = {"backends": {}}
    with _backends() as backends:
        for name, fresh in backends.items():
            log(f"long wait: {rounds} answers after {wait_s:.0f} s of waiting each ({name})")
            result["backends"][name] = _long_waits(fresh(), rounds, wait_s)
    return result


def run_inbox(processes: int, per_process: int, only: Collection[str] = ()) -> Result:
    """Only the *one inbox, many processes* rows (``python -m bench.store --inbox [PROCESSES
    PER_PROCESS] [sqlite] [postgres]``; 50 x 200 on each store as in :func:`run` by default)."""
    result: Result = {"backends": {}}
    with _backends() as backends:
        for name, fresh in backends.items():
            if only and name not in only:
                continue
            log(f"store: {processes * per_process:,} pending from {processes} processes ({name})")
            result["backends"][name] = _inbox(fresh(), processes, per_process)
    return result


def _main(argv: list[str]) -> None:
    if "--inbox" in argv:
        sizes = [int(a) for a in argv[argv.index("--inbox") + 1 :][:2] if a.isdigit()]
        processes, per_process = (sizes + [50, 200][len(sizes) :])[:2]
        only = {a for a in argv if a in ("sqlite", "postgres")}
        print(json.dumps(run_inbox(processes, per_process, only), indent=1))
        return
    # The round-trip rows alone, printed as JSON: the cheapest measure of the inbox's path.
    found = run_round_trips(Settings(quick="--quick" in argv))["roundtrip"]
    print(json.dumps({k: found[k] for k in ("stats", "ratios")}, indent=1))


if __name__ == "__main__":
    _main(sys.argv[1:])
