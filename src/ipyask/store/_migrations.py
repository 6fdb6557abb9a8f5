"""The store's schema, as numbered migrations.

A store records the schema version it was last migrated to. Opening one applies the missing
steps in order, in one transaction; a store whose version is above :data:`SCHEMA_VERSION` was
written by a newer ipyask and is refused with :class:`StoreVersionError`, never touched. To change
the schema, append a step to both lists (never edit a released one) and raise the version.
"""

from __future__ import annotations

from typing import Final

from ..errors import StoreOpenError, StoreVersionError

__all__ = [
    "ELSEWHERE",
    "POSTGRES_STEPS",
    "SCHEMA_VERSION",
    "SQLITE_STEPS",
    "StoreOpenError",
    "StoreVersionError",
    "check_version",
]

SQLITE_STEPS: Final[list[list[str]]] = [
    # 1: session logs and question records
    [
        "CREATE TABLE ipyask_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL,"
        " body TEXT NOT NULL, PRIMARY KEY (session_id, seq))",
        "CREATE TABLE ipyask_questions (id TEXT PRIMARY KEY, session_id TEXT NOT NULL,"
        " agent_id TEXT, call_id TEXT NOT NULL, questions TEXT NOT NULL, asked_at REAL NOT NULL,"
        " origin TEXT, outcome TEXT, answer TEXT, error TEXT, resolved_at REAL,"
        " UNIQUE (session_id, call_id))",
        "CREATE INDEX ipyask_questions_open ON ipyask_questions (asked_at) WHERE outcome IS NULL",
    ],
    # 2: who settled a question (through which door, with the card's digest) and its assignee
    [
        "ALTER TABLE ipyask_questions ADD COLUMN answered_by TEXT",
        "ALTER TABLE ipyask_questions ADD COLUMN assignee TEXT",
    ],
]

POSTGRES_STEPS: Final[list[list[str]]] = [
    # 1: session logs and question records
    [
        "CREATE TABLE ipyask_events (session_id TEXT NOT NULL, seq BIGINT NOT NULL,"
        " body JSONB NOT NULL, PRIMARY KEY (session_id, seq))",
        "CREATE TABLE ipyask_questions (id TEXT PRIMARY KEY, session_id TEXT NOT NULL,"
        " agent_id TEXT, call_id TEXT NOT NULL, questions JSONB NOT NULL,"
        " asked_at DOUBLE PRECISION NOT NULL, origin TEXT, outcome TEXT, answer JSONB,"
        " error JSONB, resolved_at DOUBLE PRECISION, UNIQUE (session_id, call_id))",
        "CREATE INDEX ipyask_questions_open ON ipyask_questions (asked_at) WHERE outcome IS NULL",
    ],
    # 2: who settled a question (through which door, with the card's digest) and its assignee
    [
        "ALTER TABLE ipyask_questions ADD COLUMN answered_by JSONB",
        "ALTER TABLE ipyask_questions ADD COLUMN assignee TEXT",
    ],
]

SCHEMA_VERSION: Final = len(SQLITE_STEPS)
"""The schema version this ipyask writes."""

assert len(POSTGRES_STEPS) == SCHEMA_VERSION


ELSEWHERE = "point $IPYASK_STORE (or the location you open) at another store"
"""The way out every store that cannot be opened offers."""


def check_version(found: int, location: str) -> None:
    """Refuse a store whose schema is newer than this ipyask's."""
    if found > SCHEMA_VERSION:
        raise StoreVersionError(
            f"the ipyask store at {location} has schema version {found}, written by a newer "
            f"ipyask; this ipyask reads schema versions up to {SCHEMA_VERSION}. Upgrade ipyask "
            f"(pip install -U ipyask) to open it, or {ELSEWHERE}; the store was not changed."
        )
