"""Opening a store: a newer or foreign store is never touched, and a store that cannot be opened
is refused with an error that names where it is and what to do."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

import ipyask
from ipyask.store import (
    SCHEMA_VERSION,
    StoreOpenError,
    StoreUnavailableError,
    StoreVersionError,
    open_store,
)
from ipyask.testing import new_database

WAY_OUT = "point $IPYASK_STORE (or the location you open) at another"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def a_store(path: Path) -> Path:
    """A store file holding one event."""
    store = open_store(path)
    store.append_event("s1", {"type": "turn/start", "turn": 1})
    store.close()
    return path


def connect_through_the_environment(
    monkeypatch: pytest.MonkeyPatch, location: Path | str
) -> StoreOpenError:
    monkeypatch.setenv("IPYASK_STORE", str(location))
    with pytest.raises(StoreOpenError) as refused:
        ipyask.connect(agent="worker")
    return refused.value


def test_a_newer_rollback_journal_store_is_refused_byte_for_byte_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = a_store(tmp_path / "questions.sqlite3")
    with sqlite3.connect(path) as db:  # a newer ipyask's store, in rollback-journal mode
        assert db.execute("PRAGMA journal_mode = DELETE").fetchone()[0] == "delete"
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    before = digest(path)
    refused = connect_through_the_environment(monkeypatch, path)
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["questions.sqlite3"]
    assert isinstance(refused, StoreVersionError)
    assert f"the ipyask store at {path} has schema version {SCHEMA_VERSION + 1}" in str(refused)
    assert "Upgrade ipyask" in str(refused) and WAY_OUT in str(refused)


def not_sqlite(path: Path) -> None:
    path.write_bytes(b"these are my notes, not a database\n" * 200)


def damaged(path: Path) -> None:
    a_store(path)
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xab" * (4096 - 100)  # the first page's tree: the schema is unreadable
    path.write_bytes(bytes(data))


def another_application(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        db.execute("INSERT INTO users (name) VALUES ('ada')")
    db.close()


@pytest.mark.parametrize(
    ("make", "problem", "way_out"),
    [
        (not_sqlite, "is not an SQLite database or is damaged (file is not a database)", "Move it"),
        (damaged, "is not an SQLite database or is damaged (database disk image is", "Move it"),
        (another_application, "is an SQLite database that is not an ipyask store", "move this one"),
    ],
)
def test_a_file_that_is_no_store_is_refused_unchanged_naming_it_and_the_way_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make, problem: str, way_out: str
) -> None:
    path = tmp_path / "questions.sqlite3"
    make(path)
    before = digest(path)
    refused = connect_through_the_environment(monkeypatch, path)
    message = str(refused)
    assert f" at {path} " in message and problem in message
    assert f"{way_out} aside" in message and WAY_OUT in message.replace("Point", "point")
    assert digest(path) == before


def test_a_directory_or_a_folder_that_cannot_be_made_is_refused_naming_the_way_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refused = connect_through_the_environment(monkeypatch, tmp_path)
    assert str(refused) == (
        f"the ipyask store at {tmp_path} is a directory, not a store file: point $IPYASK_STORE "
        f"(or the location you open) at a file in it, e.g. {tmp_path / 'questions.sqlite3'}."
    )
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file where a folder should be")
    under_a_file = blocker / "questions.sqlite3"
    refused = connect_through_the_environment(monkeypatch, under_a_file)
    assert str(refused) == (
        f"the ipyask store at {under_a_file} cannot be created: its folder {blocker} cannot be "
        f"made (a file is in its way); {WAY_OUT} store."
    )


def test_a_path_sqlite_cannot_open_is_refused_naming_the_way_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dangling = tmp_path / "questions.sqlite3"
    dangling.symlink_to(tmp_path / "gone" / "questions.sqlite3")  # into a folder that is not there
    refused = connect_through_the_environment(monkeypatch, dangling)
    assert str(refused) == (
        f"the ipyask store at {dangling} cannot be opened (unable to open database file): check "
        "that it is a file this user may read and write, in a folder it may write, or "
        f"{WAY_OUT} store."
    )
    assert not (tmp_path / "gone").exists()


def test_an_unreachable_postgres_store_is_named_without_its_password(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("psycopg")  # the driver's own refusal (no server needed)
    monkeypatch.setenv("IPYASK_STORE", "postgresql://ipyask:s3cret@127.0.0.1:1/questions")
    with pytest.raises(StoreUnavailableError) as refused:
        ipyask.connect(agent="worker")
    assert refused.value.fault == "unreachable"
    message = str(refused.value)
    assert message.startswith(
        "the store postgresql: dbname=questions host=127.0.0.1 port=1 user=ipyask is unreachable ("
    )
    assert "check that the database server is running" in message.lower()
    assert "s3cret" not in message


@pytest.mark.postgres
def test_a_postgres_store_whose_version_cannot_be_read_is_refused_before_any_ddl(
    postgres_cluster: str,
) -> None:
    import psycopg

    url = new_database(postgres_cluster)
    with psycopg.connect(url, autocommit=True) as db:  # another tool's table of that name
        db.execute("CREATE TABLE ipyask_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO ipyask_meta VALUES ('schema_version', 'two')")
    with pytest.raises(StoreOpenError) as refused:
        open_store(url)
    message = str(refused.value)
    assert message.startswith("the ipyask store at postgresql: dbname=")
    assert "has an ipyask_meta table this ipyask cannot read (invalid literal" in message
    assert "the database was not changed" in message and WAY_OUT in message
    with psycopg.connect(url, autocommit=True) as db:
        assert db.execute("SELECT to_regclass('ipyask_events')").fetchone() == (None,)
        assert db.execute("SELECT value FROM ipyask_meta").fetchall() == [("two",)]


@pytest.mark.parametrize("location", ["postgresql:/db.example/questions", "Postgres:questions"])
def test_a_postgres_location_that_is_no_url_is_refused_not_made_a_file(
    location: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreOpenError) as refused:
        open_store(location)
    assert str(refused.value) == (
        f"{location!r} is not a PostgreSQL URL: write it as postgresql://user@host:port/dbname "
        "(or give a file path for an SQLite store)"
    )
    assert list(tmp_path.iterdir()) == []  # no SQLite file of that name


@pytest.mark.postgres
def test_a_postgres_store_opens_again_at_the_location_it_shows(postgres_cluster: str) -> None:
    store = open_store(new_database(postgres_cluster))
    store.append_event("s1", {"type": "turn/start", "turn": 1})
    store.close()
    assert store.location.startswith("postgresql: dbname=ipyask_")
    again = open_store(store.location)
    try:
        assert again.location == store.location
        assert again.read_events("s1") == [(0, {"type": "turn/start", "turn": 1})]
    finally:
        again.close()
