"""``python -m ipyask audit``: one JSON line per settled question, checked field by field."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import pytest

import ipyask
from ipyask.__main__ import main
from ipyask._answered_by import card_digest
from ipyask.store import Store
from ipyask.testing import drain_loop

from .test_store import QUESTIONS, YES

NAME = [{"id": "name", "question": "Project name?"}]
NAMED = {"answers": [{"id": "name", "selected": [], "custom": "ipyask"}]}
APPROVAL = [
    {
        "id": "ok",
        "question": "Delete /tmp/build?",
        "detail": "Removes the build folder.",
        "options": [{"label": "Approve"}, {"label": "Reject"}],
        "intent": {"kind": "approval", "approve": "Approve", "reject": "Reject"},
    }
]


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=timezone.utc).isoformat()


async def _settle_three(open_at: Callable[[], Store]) -> tuple[Store, list[str]]:
    agent = ipyask.connect(open_at(), agent="worker")
    inbox = ipyask.connect(open_at(), agent="notebook")
    asks = [
        asyncio.ensure_future(agent.ask({"questions": NAME}, "c1")),
        asyncio.ensure_future(agent.ask({"questions": APPROVAL}, "c2", assignee="ada")),
        asyncio.ensure_future(agent.ask({"questions": QUESTIONS}, "c3")),
    ]
    await drain_loop()
    ids = [record.id for record in sorted(inbox.pending(), key=lambda r: r.call_id)]
    inbox.service.respond(inbox.store, ids[0], NAMED, who="grace", door="api")
    inbox.answer(ids[1], {"answers": [{"id": "ok", "selected": ["Reject"]}]}, who="ada")
    inbox.cancel(ids[2], who="grace")
    await asyncio.gather(*asks, return_exceptions=True)
    await agent.aclose()
    await inbox.aclose()
    return open_at(), ids


async def test_the_export_has_one_line_per_settled_question_field_by_field(
    open_at: Callable[[], Store], location: str, tmp_path: Path
) -> None:
    store, ids = await _settle_three(open_at)
    still_open = ipyask.connect(open_at(), agent="other")
    waiting = asyncio.ensure_future(still_open.ask({"questions": QUESTIONS}, "open"))
    await drain_loop()
    out = tmp_path / "audit.jsonl"
    assert main(["audit", "--store", location, "--output", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    records = {record.id: record for record in store.settled_questions()}
    assert [line["id"] for line in lines] == ids  # in the order they were settled; no open one
    at = {i: records[i].terminal.answered_by.at for i in ids}  # type: ignore[union-attr]
    assert lines[0] == {
        "id": ids[0],
        "sessionId": "worker",
        "callId": "c1",
        "question": "Project name?",
        "outcome": "answered",
        "decision": '"ipyask"',
        "answer": NAMED,
        "who": "grace",
        "host": None,
        "when": _iso(at[ids[0]]),
        "door": "api",
        "digest": card_digest(NAME),
        "assignee": None,
    }
    assert lines[1] == {
        "id": ids[1],
        "sessionId": "worker",
        "callId": "c2",
        "question": "Delete /tmp/build?",
        "outcome": "answered",
        "decision": "Reject",
        "answer": {"answers": [{"id": "ok", "selected": ["Reject"]}]},
        "who": "ada",
        "host": None,
        "when": _iso(at[ids[1]]),
        "door": "store-claim",
        "digest": card_digest(APPROVAL),
        "assignee": "ada",
    }
    assert lines[2] == {
        "id": ids[2],
        "sessionId": "worker",
        "callId": "c3",
        "question": "Deploy?",
        "outcome": "cancelled",
        "decision": "cancelled",
        "answer": None,
        "who": "grace",
        "host": None,
        "when": _iso(at[ids[2]]),
        "door": "store-claim",
        "digest": card_digest(QUESTIONS),
        "assignee": None,
    }
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    await still_open.aclose()


@pytest.mark.slow
def test_the_command_writes_json_lines_to_standard_output(tmp_path: Path) -> None:
    location = tmp_path / "questions.sqlite3"
    store = ipyask.store.open_store(location)
    store.open_question("s1", "c1", QUESTIONS, request_id="r1")
    ipyask.UserQuestions(store=store).respond(None, "r1", YES, who="ada", door="inbox-page")
    store.close()
    done = subprocess.run(
        [sys.executable, "-m", "ipyask", "audit", "--store", str(location)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.splitlines()
    exported = json.loads(line)
    assert (exported["id"], exported["who"], exported["door"]) == ("r1", "ada", "inbox-page")


def test_a_store_that_cannot_be_opened_is_named_with_exit_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", "--store", str(tmp_path)]) == 2  # a directory, not a store file
    assert "is a directory, not a store file" in capsys.readouterr().err
