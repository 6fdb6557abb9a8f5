"""Stores under test: a SQLite file in a temp folder, and a database in one throw-away
PostgreSQL cluster shared by every PostgreSQL test of the run (marked ``postgres``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ipyask.store import Store, open_store
from ipyask.testing import new_database, throwaway_postgres


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[str]:
    with throwaway_postgres() as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a fresh, empty store lives (a path or a ``postgresql://`` URL)."""
    if request.param == "sqlite":
        return str(tmp_path / "store" / "questions.sqlite3")
    return new_database(request.getfixturevalue("postgres_cluster"))


@pytest.fixture
def open_at(location: str) -> Iterator[Callable[[], Store]]:
    """Opens another store object on ``location`` (another process would do the same)."""
    opened: list[Store] = []

    def open_one() -> Store:
        store = open_store(location)
        opened.append(store)
        return store

    yield open_one
    for store in opened:
        store.close()


@pytest.fixture
def store(open_at: Callable[[], Store]) -> Store:
    return open_at()
