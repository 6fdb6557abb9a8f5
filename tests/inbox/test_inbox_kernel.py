"""The inbox and the restart in a real kernel: questions of other processes on a panel, answered
through HeadlessFrontend; a kernel restarted while its agent waits loses nothing."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from helpers.agent_processes import AGENT, finish, start_agent
from ipyask import testing
from ipyask.store import Store, open_store
from ipyask.testing import new_database

if TYPE_CHECKING:  # the kernel client loads when a test runs: a core install collects this
    from ipyask.testing import HeadlessFrontend, KernelFrontend

pytestmark = pytest.mark.kernel

YES = {"answers": [{"id": "q1", "selected": ["Yes"]}]}
NO = {"answers": [{"id": "q1", "selected": ["No"]}]}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shared(request: pytest.FixtureRequest, location: str) -> str:
    """The inbox's store: a SQLite file, or a database of the run's PostgreSQL cluster."""
    if request.param == "sqlite":
        return location
    return new_database(request.getfixturevalue("postgres_cluster"))


@pytest.fixture
def store(shared: str) -> Iterator[Store]:
    opened = open_store(shared)
    yield opened
    opened.close()


@pytest.fixture
def fe(kernel: KernelFrontend, shared: str) -> Iterator[HeadlessFrontend]:
    kernel.execute(f"import ipyask\ninbox = ipyask.inbox({shared!r})\ndisplay(inbox)")
    yield testing.HeadlessFrontend(kernel, timeout=20)
    kernel.execute("inbox.close()\ninbox.service.store.close()")


def test_a_question_of_another_process_is_answered_on_the_inbox(
    fe: HeadlessFrontend, shared: str, store: Store
) -> None:
    agent = start_agent(shared)
    try:
        card = fe.wait_for_card("Deploy?")
        assert card["callId"] == "call-1"
        assert card["source"]["agent"] == "worker"
        assert card["source"]["process"] == f"{socket.gethostname()}:{agent.pid}"
        assert card["source"]["earlier"] is False
        fe.choose(card["key"], "Yes")
        fe.submit(card["key"])
        result = finish(agent)
    finally:
        agent.kill()
    assert result["answer"] == YES
    assert fe.wait_for_status(card["key"], "answered")["answer"] == YES
    record = store.question(card["key"])
    assert record is not None and record.terminal is not None
    assert record.terminal.answer == YES
    assert fe.errors() == []
    assert fe.kernel.handler_errors == []


def test_first_answer_wins_between_the_inbox_and_another_process(
    fe: HeadlessFrontend, shared: str, store: Store
) -> None:
    agent = start_agent(shared)
    try:
        key = fe.wait_for_card("Deploy?")["key"]
        fe.choose(key, "Yes")
        fe.submit(key)  # sent; the kernel claims it while this process claims too
        other = subprocess.run(
            [sys.executable, AGENT, shared, "--answer", key, "No"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        result = finish(agent)
    finally:
        agent.kill()
    card = fe.wait_for_status(key, "answered")
    record = store.question(key)
    assert record is not None and record.terminal is not None
    # exactly one claim won, and everyone sees the winner's answer
    assert result["answer"] == card["answer"] == record.terminal.answer
    if other == "accepted":
        assert record.terminal.answer == NO
        assert fe.wait_for_error()["code"] == "ALREADY_ANSWERED"
    else:
        assert other == "already-resolved"
        assert record.terminal.answer == YES
        assert fe.errors() == []


AGENT_CELL = """
import asyncio, ipyask
from ipyask.store import open_store
svc = ipyask.UserQuestions(store=open_store())  # ./.ipyask/questions.sqlite3, next to the notebook
panel = ipyask.QuestionPanel(svc)
display(panel)
agent = svc.agents.enter(ipyask.Agent("planner", session=svc.open_session("planner")))
agent.session.append(ipyask.host.TurnStartEvent(turn=len(agent.session.events) + 1))
DEPLOY = {"questions": [{"id": "q1", "question": "Deploy?",
                         "options": [{"label": "Yes"}, {"label": "No"}]}]}
"""


def test_a_question_pending_at_a_kernel_restart_is_answered_after_it(tmp_path: Path) -> None:
    with testing.KernelFrontend(cwd=tmp_path, timeout=20) as kernel:
        fe = testing.HeadlessFrontend(kernel, timeout=20)
        kernel.execute(AGENT_CELL)
        kernel.execute(
            "task = asyncio.ensure_future(svc.ask({**DEPLOY, 'agent': agent, 'callId': 'call-1'}))"
        )
        before = fe.wait_for_card("Deploy?")
        assert before["source"]["earlier"] is False
        old_pid = kernel.kernel_pid
        kernel.restart()
        assert kernel.kernel_pid != old_pid
        assert fe.panels() == []
        kernel.execute(AGENT_CELL)  # the new kernel opens the same store; nobody asks yet
        card = fe.wait_for_card("Deploy?")
        assert card["key"] == before["key"]  # the same question, still pending
        assert card["source"]["earlier"] is True
        assert card["notice"].startswith("Asked before a restart")
        fe.choose(card["key"], "No")
        fe.submit(card["key"])
        assert fe.wait_for_status(card["key"], "answered")["answer"] == NO
        store = open_store(tmp_path / ".ipyask" / "questions.sqlite3")
        try:
            record = store.question(card["key"])
            assert record is not None and record.terminal is not None
            assert record.terminal.answer == NO
        finally:
            store.close()
        # the agent, re-run, asks again with the same call id: the answer comes at once
        cell = kernel.execute(
            "r = await asyncio.wait_for(svc.ask({**DEPLOY, 'agent': agent, 'callId': 'call-1'}),"
            " 2)\nprint(r.to_wire())"
        )
        assert cell.stdout.strip() == str(NO)
        assert fe.errors() == []
        assert kernel.handler_errors == []
