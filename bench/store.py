"""Durable questions through a store shared by processes: SQLite (default) and PostgreSQL.

- **Round trip**: an agent process (``ipyask.connect``) asks questions one after another; this
  process, an inbox waiting on the store's change feed, answers each as soon as it appears. The
  agent measures ask → answer (two commits and two change detections across processes).
- **One inbox, many processes**: 50 agent processes ask 200 questions each at once (10,000
  pending); once all are in the store the inbox answers every one (question *i* gets its call id
  as its label). Checked: every process got exactly its own answers, and the store holds exactly
  one ``asked`` and one ``answered`` event per question. Reported: time to ask, time to answer
  all, store size.
- **Idle CPU**: an agent process waiting for an answer, and an open inbox waiting for questions,
  each sampled over a window (``/proc/<pid>/stat``).

PostgreSQL runs in a throw-away cluster (``ipyask.testing.throwaway_postgres``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ipyask.store import Store, Terminal, open_store
from ipyask.testing import find_postgres_bin, new_database, throwaway_postgres

from ._common import ROOT, Result, Settings, log, proc_sample, summary

WORKER = [sys.executable, "-m", "bench._store_worker"]


def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([*WORKER, *args], cwd=ROOT, stdout=subprocess.PIPE, text=True)


def _answer(store: Store, record_id: str, label: str) -> str:
    terminal = Terminal.model_validate(
        {"outcome": "answered", "answer": {"answers": [{"id": "q", "selected": [label]}]}}
    )
    return store.resolve_question(record_id, terminal).status


def _roundtrip(location: str, count: int) -> dict[str, Any]:
    store = open_store(location)
    feed = store.changes()
    agent = _spawn("roundtrip", location, str(count))
    answered = 0
    while answered < count:
        if agent.poll() is not None:
            raise RuntimeError(f"the agent process ended early (exit {agent.returncode})")
        feed.wait(1.0)
        for record in store.pending_questions():
            answered += _answer(store, record.id, record.call_id) == "accepted"
    out, _ = agent.communicate(timeout=60)
    feed.close()
    store.close()
    return summary(json.loads(out))


def _size(store: Store, location: str) -> int:
    if location.startswith("postgresql://"):
        db = store._db  # type: ignore[attr-defined]
        row = db.execute(
            "SELECT pg_total_relation_size('ipyask_questions')"
            " + pg_total_relation_size('ipyask_events')"
        ).fetchone()
        return int(row[0])
    return sum(p.stat().st_size for p in Path(location).parent.glob(Path(location).name + "*"))


def _inbox(location: str, processes: int, per_process: int) -> dict[str, Any]:
    total = processes * per_process
    store = open_store(location)
    started = time.monotonic()
    agents = [_spawn("ask", location, f"w{n}", str(per_process)) for n in range(processes)]
    while len(pending := store.pending_questions()) < total:
        time.sleep(0.2)
        if any(agent.poll() is not None for agent in agents):
            raise RuntimeError("an agent process ended before its questions were answered")
        if time.monotonic() - started > 600:
            raise RuntimeError(f"only {len(pending)} of {total} questions arrived")
    asked_s = time.monotonic() - started
    started = time.monotonic()
    accepted = sum(_answer(store, r.id, r.call_id) == "accepted" for r in pending)
    answer_s = time.monotonic() - started
    reports = [json.loads(agent.communicate(timeout=600)[0]) for agent in agents]
    settled_s = time.monotonic() - started
    kinds: dict[str, int] = {}
    for n in range(processes):
        for _, event in store.read_events(f"w{n}"):
            kinds[event["type"]] = kinds.get(event["type"], 0) + 1
    result = {
        "processes": processes,
        "questions": total,
        "ask_s": asked_s,
        "answer_s": answer_s,
        "settle_s": settled_s,
        "accepted": accepted,
        "all_own_answers": all(r["ok"] and r["answers"] == per_process for r in reports),
        "asked_events": kinds.get("user-questions/asked", 0),
        "answered_events": kinds.get("user-questions/answered", 0),
        "still_pending": len(store.pending_questions()),
        "store_bytes": _size(store, location),
    }
    result["none_lost_or_duplicated"] = (
        result["all_own_answers"]
        and accepted == total
        and result["asked_events"] == result["answered_events"] == total
        and result["still_pending"] == 0
    )
    store.close()
    return result


def _idle(location: str, mode: str, window_s: float) -> dict[str, Any]:
    process = _spawn(mode, location)
    assert process.stdout is not None
    process.stdout.readline()  # it asks (or watches)
    time.sleep(2.0)  # let start-up work and the change check's back-off settle
    first = proc_sample(process.pid)
    time.sleep(window_s)
    last = proc_sample(process.pid)
    if mode == "wait":
        store = open_store(location)
        for record in store.pending_questions():
            _answer(store, record.id, record.call_id)
        store.close()
        process.communicate(timeout=30)
    else:
        process.kill()
        process.communicate(timeout=30)
    elapsed = last.at - first.at
    return {
        "cpu_percent": 100 * (last.cpu - first.cpu) / elapsed,
        "wakeups_per_s": (last.switches - first.switches) / elapsed,
        "window_s": elapsed,
    }


def _backend(location: str, settings: Settings) -> dict[str, Any]:
    log(f"store: round trip ({location.split(':')[0]})")
    result: dict[str, Any] = {"roundtrip_ms": _roundtrip(location, settings.pick(100, 10))}
    window = settings.seconds(10.0, 3.0)
    result["idle_agent"] = _idle(location, "wait", window)
    result["idle_inbox"] = _idle(location, "inbox", window)
    return result


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
    result: Result = {"backends": {}}
    with _backends() as backends:
        for name, fresh in backends.items():
            section = _backend(fresh(), settings)
            log(f"store: {processes * per_process:,} pending from {processes} processes ({name})")
            section["inbox"] = _inbox(fresh(), processes, per_process)
            result["backends"][name] = section
    return result
