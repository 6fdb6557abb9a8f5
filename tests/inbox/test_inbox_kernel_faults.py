"""An inbox in a real kernel heals after a PostgreSQL fault: the next click is recorded, no error
reaches the view or the kernel, and questions asked after the fault show."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from helpers.agent_processes import finish, start_agent
from ipyask import testing
from ipyask.store import open_store
from ipyask.testing import new_database, restart_postgres

if TYPE_CHECKING:  # the kernel client loads when a test runs: a core install collects this
    from ipyask.testing import KernelFrontend

pytestmark = [pytest.mark.kernel, pytest.mark.postgres]

YES = {"answers": [{"id": "q1", "selected": ["Yes"]}]}
NO = {"answers": [{"id": "q1", "selected": ["No"]}]}


def terminate_every_backend(location: str) -> None:
    import psycopg

    with psycopg.connect(location, autocommit=True) as observer:
        observer.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


FAULTS: dict[str, Callable[[str], None]] = {
    "pg_ctl restart -m fast": restart_postgres,
    "pg_terminate_backend": terminate_every_backend,
}


@pytest.mark.parametrize("fault", FAULTS)
def test_the_inbox_kernel_records_the_click_after_a_fault_and_shows_new_questions(
    fault: str, kernel: KernelFrontend, postgres_cluster: str
) -> None:
    shared = new_database(postgres_cluster)
    kernel.execute(f"import ipyask\nfaulty = ipyask.inbox({shared!r})\ndisplay(faulty)")
    fe = testing.HeadlessFrontend(kernel, timeout=30)
    store = open_store(shared)
    try:
        first = start_agent(shared, "before")
        try:
            card = fe.wait_for_card("Deploy?")
            FAULTS[fault](shared)
            fe.choose(card["key"], "Yes")
            fe.submit(card["key"])
            assert finish(first)["answer"] == YES
        finally:
            first.kill()
        assert fe.wait_for_status(card["key"], "answered")["answer"] == YES
        second = start_agent(shared, "after")
        try:
            later = fe.wait_for_card(lambda c: c["callId"] == "after")
            fe.choose(later["key"], "No")
            fe.submit(later["key"])
            assert finish(second)["answer"] == NO
        finally:
            second.kill()
        record = store.question(card["key"])
        assert record is not None and record.terminal is not None
        assert record.terminal.answer == YES
        assert fe.errors() == []
        assert kernel.handler_errors == []
    finally:
        kernel.execute("faulty.close()\nfaulty.service.store.close()")
        store.close()
