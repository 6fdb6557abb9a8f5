"""Stores and panels of the inbox tests: a SQLite file per test, and one throw-away PostgreSQL
cluster per run for the tests marked ``postgres``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ipyask.testing import throwaway_postgres


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[str]:
    with throwaway_postgres() as url:
        yield url


@pytest.fixture
def location(tmp_path: Path) -> str:
    """A fresh SQLite store's path."""
    return str(tmp_path / "inbox" / "questions.sqlite3")
