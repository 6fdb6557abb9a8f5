"""A SQLite store that cannot be written says so: the asker gets a clear error at once.

Each fault is real: a write lock held by another connection beyond a short busy timeout, a
connection that cannot write (``mode=ro``: a read-only file, which root's permission bits alone
would not make), and a file not allowed to grow (SQLite's full-disk error).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

import ipyask
from helpers.sqlite_faults import full, lock, read_only
from ipyask.store import SQLiteStore, StoreUnavailableError

DEPLOY = {
    "questions": [
        {"id": "q1", "question": "Deploy?", "options": [{"label": "Yes"}, {"label": "No"}]}
    ]
}


FAULTS: dict[str, tuple[Callable[[SQLiteStore], Callable[[], None]], str]] = {
    "locked": (lock, "locked by another process"),
    "read-only": (read_only, "is read-only"),
    "full": (full, "is full"),
}


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "store" / "questions.sqlite3"


@pytest.mark.parametrize("fault", FAULTS)
async def test_an_asker_gets_a_clear_error_naming_the_store(fault: str, path: Path) -> None:
    make, says = FAULTS[fault]
    async with ipyask.connect(path, agent="worker") as agent:
        store = agent.store
        assert isinstance(store, SQLiteStore)
        undo = make(store)
        question = {**DEPLOY, "questions": [{**DEPLOY["questions"][0], "detail": "x" * 20_000}]}
        with pytest.raises(StoreUnavailableError) as raised:
            await asyncio.wait_for(agent.ask(question, call_id="c1"), 10)
        error = raised.value
        assert error.fault == fault
        assert error.location == str(path)
        assert str(path) in str(error) and says in str(error)
        undo()
        # Once the fault is gone the same ask goes through: nothing was half written.
        asking = asyncio.ensure_future(agent.ask(DEPLOY, call_id="c1"))
        for _ in range(500):
            if agent.pending():
                break
            await asyncio.sleep(0.01)
        [record] = agent.pending()
        agent.answer(record.id, {"answers": [{"id": "q1", "selected": ["Yes"]}]})
        assert (await asyncio.wait_for(asking, 10)).to_wire()["answers"][0]["selected"] == ["Yes"]
