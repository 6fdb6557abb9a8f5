"""Who answered: kept with each settled record and its event, on SQLite and PostgreSQL; a store
of the first schema migrated with its records; questions assigned to one person."""

from __future__ import annotations

import asyncio
import getpass
import hashlib
import json
import os
import socket
import sqlite3
from collections.abc import Callable
from typing import Any

import pytest

import ipyask
from ipyask.errors import NotAssigneeError
from ipyask.store import SCHEMA_VERSION, SQLiteStore, Store, open_store
from ipyask.store._migrations import POSTGRES_STEPS, SQLITE_STEPS
from ipyask.testing import drain_loop

from .test_store import QUESTIONS, YES, asker, request


def digest_of(questions: list[dict[str, Any]]) -> str:
    canonical = json.dumps(questions, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def test_a_claim_records_who_the_door_when_and_the_digest_of_the_card(
    open_at: Callable[[], Store],
) -> None:
    store = open_at()
    store.open_question("s1", "c1", QUESTIONS, request_id="r1")
    inbox = ipyask.UserQuestions(store=open_at())
    result = inbox.respond(None, "r1", YES, who="ada", door="inbox-page")
    by = result.answered_by
    assert by is not None and result.status == "accepted"
    assert (by.who, by.host, by.door) == ("ada", None, "inbox-page")
    assert by.digest == digest_of(QUESTIONS)
    record = open_at().question("r1")
    assert record is not None and record.terminal is not None
    assert record.terminal.answered_by == by
    assert record.resolved_at is not None and abs(record.resolved_at - by.at) < 5
    [(_, event)] = store.read_events("s1", after=0)
    assert event["answeredBy"] == {
        "who": "ada",
        "at": by.at,
        "door": "inbox-page",
        "digest": digest_of(QUESTIONS),
    }
    # a later claim is told who settled it
    late = inbox.respond(None, "r1", YES, who="bob")
    assert late.status == "already-resolved" and late.answered_by == by


def test_without_a_known_identity_the_os_user_and_host_answer(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    monkeypatch.delenv("IPYASK_USER", raising=False)
    store.open_question("s1", "c1", QUESTIONS, request_id="r1")
    conn_side = ipyask.UserQuestions(store=store)
    by = conn_side.respond(None, "r1", YES).answered_by
    assert by is not None
    assert (by.who, by.host, by.door) == (getpass.getuser(), socket.gethostname(), "api")
    store.open_question("s1", "c2", QUESTIONS, request_id="r2")
    monkeypatch.setenv("JUPYTERHUB_USER", "grace")  # a kernel JupyterHub started
    hub = conn_side.cancel(None, "r2").answered_by
    assert hub is not None and (hub.who, hub.host, hub.door) == ("grace", None, "api")
    store.open_question("s1", "c3", QUESTIONS, request_id="r3")
    monkeypatch.setenv("IPYASK_USER", "ops-bot")  # named for this process: it wins
    named = conn_side.respond(None, "r3", YES).answered_by
    assert named is not None and (named.who, named.host) == ("ops-bot", None)


def _first_schema(location: str) -> None:
    """Write a store of schema version 1 at ``location``: one settled record, one open."""
    rows = [
        ("r-old", "s1", None, "c-old", json.dumps(QUESTIONS), 1.0, "h:1", "answered",
         json.dumps(YES), None, 2.0),
        ("r-open", "s1", None, "c-open", json.dumps(QUESTIONS), 3.0, "h:1", None, None, None,
         None),
    ]  # fmt: skip
    insert = (
        "INSERT INTO ipyask_questions (id, session_id, agent_id, call_id, questions, asked_at,"
        " origin, outcome, answer, error, resolved_at) VALUES ({})"
    )
    if not location.startswith("postgresql"):
        with sqlite3.connect(location) as db:
            for statement in SQLITE_STEPS[0]:
                db.execute(statement)
            db.executemany(insert.format(", ".join("?" * 11)), rows)
            db.execute("PRAGMA user_version = 1")
        return
    import psycopg

    with psycopg.connect(location, autocommit=True) as db, db.transaction():
        for statement in POSTGRES_STEPS[0]:
            db.execute(statement)
        db.execute("CREATE TABLE ipyask_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO ipyask_meta VALUES ('schema_version', '1')")
        with db.cursor() as cursor:
            cursor.executemany(insert.format(", ".join(["%s"] * 11)), rows)


def test_a_store_of_the_first_schema_is_migrated_with_its_records(location: str) -> None:
    if not location.startswith("postgresql"):
        from pathlib import Path

        Path(location).parent.mkdir(parents=True, exist_ok=True)
    _first_schema(location)
    store = open_store(location)
    try:
        old = store.question("r-old")
        assert old is not None and old.terminal is not None
        assert (old.terminal.answer, old.terminal.answered_by, old.assignee) == (YES, None, None)
        assert [r.id for r in store.pending_questions()] == ["r-open"]
        result = ipyask.UserQuestions(store=store).respond(None, "r-open", YES, who="ada")
        assert result.status == "accepted"
        now = store.question("r-open")
        assert now is not None and now.terminal is not None
        assert now.terminal.answered_by is not None and now.terminal.answered_by.who == "ada"
        assert [r.id for r in store.settled_questions()] == ["r-old", "r-open"]
    finally:
        store.close()
    if isinstance(store, SQLiteStore):
        with sqlite3.connect(location) as db:
            assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2


async def test_an_assigned_question_is_answered_by_its_assignee_only(
    open_at: Callable[[], Store],
) -> None:
    agent = ipyask.connect(open_at(), agent="worker")
    inbox = ipyask.connect(open_at(), agent="notebook")
    asking = asyncio.ensure_future(agent.ask({"questions": QUESTIONS}, "c1", assignee="ada"))
    await drain_loop()
    [record] = inbox.pending()
    assert record.assignee == "ada"
    # the session log says who it is assigned to
    [event] = [e for _, e in open_at().read_events("worker") if e["type"].endswith("asked")]
    assert event["assignee"] == "ada"
    with pytest.raises(NotAssigneeError) as refused:
        inbox.answer(record.id, YES, who="bob")
    assert refused.value.code == "NOT_ASSIGNEE"
    assert "assigned to ada" in str(refused.value) and "not bob" in str(refused.value)
    assert [r.id for r in inbox.pending()] == [record.id]  # still open
    assert not asking.done()
    result = inbox.answer(record.id, YES, who="ada")
    assert result.status == "accepted"
    assert result.answered_by is not None and result.answered_by.door == "store-claim"
    assert (await asyncio.wait_for(asking, 10)).to_wire() == YES
    await agent.aclose()
    await inbox.aclose()


async def test_an_assignee_in_the_request_is_kept_and_an_empty_one_refused(
    open_at: Callable[[], Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IPYASK_USER", "bob")
    svc, agent = asker(open_at())
    asking = asyncio.ensure_future(svc.ask({**request(agent), "assignee": "ada"}))
    await drain_loop()
    [record] = svc.pending()
    assert record.assignee == "ada"
    with pytest.raises(NotAssigneeError):
        svc.respond(None, record.id, YES)  # this process's user is bob
    assert svc.respond(None, record.id, YES, who="ada").status == "accepted"
    await asyncio.wait_for(asking, 10)
    conn = ipyask.connect(open_at(), agent="w")
    with pytest.raises(ValueError, match="assignee must name a person"):
        await conn.ask({"questions": QUESTIONS}, "c2", assignee=" ")
    await conn.aclose()
    await svc.aclose()


async def test_an_assignee_on_a_question_that_is_not_durable_is_refused(
    open_at: Callable[[], Store],
) -> None:
    svc, agent = asker(open_at())
    with pytest.raises(ValueError, match="assignee 'ada' needs a durable ask"):
        await svc.ask({"questions": QUESTIONS, "agent": agent, "assignee": "ada"})
    with pytest.raises(ValueError, match="needs a durable ask"):
        await svc.ask_timed({**request(agent), "assignee": "ada"}, "c9", 1000)
    assert svc.pending() == []  # nothing recorded
    await svc.aclose()


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="the account database is POSIX's")
def test_the_os_user_is_looked_up_once_not_at_every_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import pwd

    from ipyask._answered_by import _account_of, answered_by

    for variable in ("IPYASK_USER", "JUPYTERHUB_USER", "LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.delenv(variable, raising=False)
    looked_up: list[int] = []
    real = pwd.getpwuid

    def counted(uid: int) -> Any:
        looked_up.append(uid)
        return real(uid)

    monkeypatch.setattr(pwd, "getpwuid", counted)
    _account_of.cache_clear()
    names = [answered_by("api").who for _ in range(3)]
    assert names == [real(os.getuid()).pw_name] * 3
    assert looked_up == [os.getuid()]  # each answer used to read the account database again
    monkeypatch.setenv("USER", "someone")  # a login variable still wins, as for getpass
    assert answered_by("api").who == "someone"
