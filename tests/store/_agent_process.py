"""An agent in its own process: asks one question through the store and prints the answer.

python _agent_process.py LOCATION CALL_ID [ASSIGNEE]   -> prints {"answer": ..., "seconds": ...}
python _agent_process.py LOCATION --answer REQUEST_ID LABEL  -> prints the claim status
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

import ipyask
from ipyask.store import open_store

QUESTIONS = [{"id": "q1", "question": "Deploy?", "options": [{"label": "Yes"}, {"label": "No"}]}]


async def ask(location: str, call_id: str, assignee: str | None = None) -> None:
    async with ipyask.connect(location, agent="worker") as connection:
        started = time.monotonic()
        answer = await connection.ask({"questions": QUESTIONS}, call_id, assignee=assignee)
        seconds = time.monotonic() - started
        print(json.dumps({"answer": answer.to_wire(), "seconds": seconds}), flush=True)


def answer(location: str, request_id: str, label: str) -> None:
    service = ipyask.UserQuestions(store=open_store(location))
    result = service.respond(None, request_id, {"answers": [{"id": "q1", "selected": [label]}]})
    print(result.status, flush=True)


if __name__ == "__main__":
    if sys.argv[2] == "--answer":
        answer(sys.argv[1], sys.argv[3], sys.argv[4])
    else:
        asyncio.run(ask(sys.argv[1], sys.argv[2], *sys.argv[3:4]))
