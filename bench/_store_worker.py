"""The processes of the store benchmark (``python -m bench._store_worker MODE LOCATION ...``).

- ``ask LOCATION AGENT COUNT``: connect, print ``ready``, and at the next line on stdin ask
  COUNT questions at once (call ids ``AGENT-i``), wait for all,
  check that each got its own answer (the label is its call id); prints ``{"ok", "answers",
  "ids"}`` (``ids``: the record ids of its questions, in order).
- ``roundtrip LOCATION``: for each line ``COUNT PREFIX`` read from stdin, ask COUNT questions one
  after another (call ids and labels ``PREFIX-i``, question text ``Go on with PREFIX-i?``) and
  print their round trips in ms as one JSON line; ends at end of input.
- ``wait LOCATION``: ask one question and wait (the idle-CPU probe).
- ``longwait LOCATION COUNT``: ask COUNT questions one after another (call ids ``long-i``), each
  waiting as long as the benchmark lets it; print ``{"i", "at"}`` as each answer arrives (``at``:
  ``time.monotonic()``, CLOCK_MONOTONIC, which the benchmark process shares).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import ipyask


def _request(call_id: str) -> dict[str, object]:
    # The call id is an option's label: the answer that picks it is this question's own.
    options = [{"label": call_id}, {"label": "Stop"}]
    question = {"id": "q", "question": f"Go on with {call_id}?", "options": options}
    return {"questions": [question], "callId": call_id}


def _counted(store: Any) -> Callable[[], dict[str, Any]]:
    """What this process costs the store from now on, read by the returned function: write
    transactions (SQLite: commits through the store object) and writes of asks (alone, in
    groups), reads of a session's log, each with the seconds spent in them (waits for the
    write lock included), and CPU seconds of every thread."""
    counts: dict[str, float] = {}
    for key in ("reads", "writes", "inserts", "insert_batches"):
        counts[key] = counts[f"{key}_s"] = 0
    del counts["writes_s"]  # a context manager: the time is in the body, not the call
    started_cpu = time.process_time()
    commits = getattr(store, "_local_changes", None)

    def counting(name: str, key: str) -> None:
        method = getattr(store, name)

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            counts[key] += 1
            started = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                if f"{key}_s" in counts:
                    counts[f"{key}_s"] += time.perf_counter() - started

        setattr(store, name, wrapped)

    counting("read_events", "reads")
    counting("_write", "writes")
    counting("_insert_question", "inserts")
    if hasattr(store, "_insert_questions"):
        counting("_insert_questions", "insert_batches")

    def read() -> dict[str, Any]:
        found: dict[str, Any] = {**counts, "cpu_s": time.process_time() - started_cpu}
        if commits is not None:
            found["commits"] = store._local_changes - commits
        return found

    return read


async def ask(location: str, agent: str, count: int) -> None:
    async with ipyask.connect(location, agent=agent) as connection:
        counts = _counted(connection.store)
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)  # asking starts in every process at once
        ids = [f"{agent}-{i}" for i in range(count)]
        answers = await asyncio.gather(*(connection.ask(_request(i)) for i in ids))
        own = all(a.answers[0].selected == [i] for a, i in zip(answers, ids, strict=True))
        records = [connection.store.question_for_call(agent, i) for i in ids]
        found = [r.id for r in records if r is not None]
        report = {"ok": own, "answers": len(answers), "ids": found, **counts()}
        print(json.dumps(report), flush=True)


async def roundtrip(location: str) -> None:
    async with ipyask.connect(location, agent="roundtrip") as connection:
        while line := await asyncio.to_thread(sys.stdin.readline):
            count, prefix = line.split()
            times = []
            for i in range(int(count)):
                call_id = f"{prefix}-{i}"
                started = time.perf_counter()
                answer = await connection.ask(_request(call_id))
                times.append((time.perf_counter() - started) * 1000)
                if answer.answers[0].selected != [call_id]:
                    raise RuntimeError(f"{call_id} got another question's answer: {answer}")
            print(json.dumps(times), flush=True)


async def wait(location: str) -> None:
    async with ipyask.connect(location, agent="idle") as connection:
        print("asking", flush=True)
        await connection.ask(_request("idle-0"))


async def longwait(location: str, count: int) -> None:
    async with ipyask.connect(location, agent="longwait") as connection:
        for i in range(count):
            call_id = f"long-{i}"
            answer = await connection.ask(_request(call_id))
            at = time.monotonic()
            if answer.answers[0].selected != [call_id]:
                raise RuntimeError(f"{call_id} got another question's answer: {answer}")
            print(json.dumps({"i": i, "at": at}), flush=True)


if __name__ == "__main__":
    mode, location, *rest = sys.argv[1:]
    if mode == "ask":
        asyncio.run(ask(location, rest[0], int(rest[1])))
    elif mode == "roundtrip":
        asyncio.run(roundtrip(location))
    elif mode == "longwait":
        asyncio.run(longwait(location, int(rest[0])))
    else:
        asyncio.run(wait(location))
