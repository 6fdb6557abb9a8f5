"""The processes of the store benchmark (``python -m bench._store_worker MODE LOCATION ...``).

- ``ask LOCATION AGENT COUNT``: ask COUNT questions at once (call ids ``AGENT-i``), wait for all,
  check that each got its own answer (the label is its call id); prints ``{"ok", "answers"}``.
- ``roundtrip LOCATION COUNT``: ask COUNT questions one after another; prints their round trips.
- ``wait LOCATION``: ask one question and wait (the idle-CPU probe).
- ``inbox LOCATION``: wait on the store's change feed forever (an open inbox's idle-CPU probe).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

import ipyask
from ipyask.store import open_store


def _request(call_id: str) -> dict[str, object]:
    return {"questions": [{"id": "q", "question": f"Go on with {call_id}?"}], "callId": call_id}


async def ask(location: str, agent: str, count: int) -> None:
    async with ipyask.connect(location, agent=agent) as connection:
        ids = [f"{agent}-{i}" for i in range(count)]
        answers = await asyncio.gather(*(connection.ask(_request(i)) for i in ids))
        own = all(a.answers[0].selected == [i] for a, i in zip(answers, ids, strict=True))
        print(json.dumps({"ok": own, "answers": len(answers)}), flush=True)


async def roundtrip(location: str, count: int) -> None:
    async with ipyask.connect(location, agent="roundtrip") as connection:
        times = []
        for i in range(count):
            started = time.perf_counter()
            await connection.ask(_request(f"rt-{i}"))
            times.append((time.perf_counter() - started) * 1000)
        print(json.dumps(times), flush=True)


async def wait(location: str) -> None:
    async with ipyask.connect(location, agent="idle") as connection:
        print("asking", flush=True)
        await connection.ask(_request("idle-0"))


def inbox(location: str) -> None:
    feed = open_store(location).changes()
    print("watching", flush=True)
    while True:
        feed.wait(None)


if __name__ == "__main__":
    mode, location, *rest = sys.argv[1:]
    if mode == "ask":
        asyncio.run(ask(location, rest[0], int(rest[1])))
    elif mode == "roundtrip":
        asyncio.run(roundtrip(location, int(rest[0])))
    elif mode == "wait":
        asyncio.run(wait(location))
    else:
        inbox(location)
