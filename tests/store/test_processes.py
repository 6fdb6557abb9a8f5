"""Agents and answerers in separate, real processes sharing one store."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from helpers.agent_processes import AGENT, finish, start_agent
from ipyask.store import QuestionRecord, Store, Terminal

YES = {"answers": [{"id": "q1", "selected": ["Yes"]}]}

pytestmark = pytest.mark.slow


def wait_pending(store: Store, count: int = 1, timeout: float = 30.0) -> list[QuestionRecord]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pending = store.pending_questions()
        if len(pending) >= count:
            return pending
        time.sleep(0.05)
    raise AssertionError(f"no pending question after {timeout} s")


def test_an_agent_process_gets_the_answer_given_in_another_process(
    location: str, store: Store
) -> None:
    agent = start_agent(location)
    try:
        [record] = wait_pending(store)
        assert (record.agent_id, record.call_id) == ("worker", "call-1")
        assert record.origin is not None and record.origin.endswith(f":{agent.pid}")
        answered_at = time.monotonic()
        result = store.resolve_question(record.id, Terminal(outcome="answered", answer=YES))
        assert result.status == "accepted"
        assert finish(agent)["answer"] == YES
        assert time.monotonic() - answered_at < 5.0
    finally:
        agent.kill()


def test_killing_the_waiting_agent_loses_nothing(location: str, store: Store) -> None:
    agent = start_agent(location)
    [record] = wait_pending(store)
    agent.kill()  # SIGKILL while it waits
    agent.communicate(timeout=10)
    answer = subprocess.run(
        [sys.executable, AGENT, location, "--answer", record.id, "Yes"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert answer.stdout.strip() == "accepted"
    rerun = finish(start_agent(location))  # the agent re-runs and asks the same call again
    assert rerun["answer"] == YES
    kinds = [event["type"] for _, event in store.read_events("worker")]
    assert kinds == ["turn/start", "user-questions/asked", "user-questions/answered"]


def test_of_racing_answerer_processes_exactly_one_wins(location: str, store: Store) -> None:
    agent = start_agent(location)
    try:
        [record] = wait_pending(store)
        racers = [
            subprocess.Popen(
                [sys.executable, AGENT, location, "--answer", record.id, label],
                stdout=subprocess.PIPE,
                text=True,
            )
            for label in ["Yes", "No", "Yes", "No"]
        ]
        statuses = sorted(racer.communicate(timeout=60)[0].strip() for racer in racers)
        assert statuses == ["accepted"] + ["already-resolved"] * 3
        got = finish(agent)["answer"]
        assert got == store.question(record.id).terminal.answer  # type: ignore[union-attr]
    finally:
        agent.kill()
