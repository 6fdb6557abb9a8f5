"""``PostgresStore``: one inbox shared across machines, through PostgreSQL (psycopg 3).

Needs the ``postgres`` extra (``pip install 'ipyask[postgres]'``); psycopg is imported only when
a PostgreSQL store is opened. Every write is one transaction that ends with ``NOTIFY
ipyask_changes``, so a waiting process (``LISTEN ipyask_changes``) wakes as the answer commits.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ._migrations import POSTGRES_STEPS, SCHEMA_VERSION, check_version
from ._protocol import StoredEvent
from ._records import (
    ClaimResult,
    QuestionRecord,
    Terminal,
    accepted,
    answered_event,
    asked_event,
    claim_of,
)
from ._rows import QUESTION_COLUMNS, origin, record_from_row

if TYPE_CHECKING:
    import psycopg

__all__ = ["CHANNEL", "PostgresChangeFeed", "PostgresStore", "import_psycopg"]

CHANNEL = "ipyask_changes"
"""The ``LISTEN``/``NOTIFY`` channel every write notifies."""

_MIGRATION_LOCK = 0x1BA5_0001  # an advisory lock key: one migrating process at a time


def import_psycopg() -> Any:
    """psycopg 3, or an ImportError that names the extra to install."""
    try:
        import psycopg
    except ImportError as error:
        raise ImportError(
            "a PostgreSQL store needs psycopg 3, which ipyask installs with its 'postgres' "
            "extra: pip install 'ipyask[postgres]'"
        ) from error
    return psycopg


def _safe_location(conninfo: str) -> str:
    psycopg = import_psycopg()
    try:
        parts = psycopg.conninfo.conninfo_to_dict(conninfo)
    except psycopg.ProgrammingError:
        return "<postgresql>"
    parts.pop("password", None)
    return "postgresql: " + " ".join(f"{key}={value}" for key, value in sorted(parts.items()))


class PostgresStore:
    """A :class:`~ipyask.store.Store` in a PostgreSQL database (tables ``ipyask_*``).

    ``conninfo`` is a libpq connection string or URL (``postgresql://user@host/db``).
    """

    def __init__(self, conninfo: str) -> None:
        pg = import_psycopg()
        self._jsonb = pg.types.json.Jsonb
        self.conninfo = conninfo
        self._location = _safe_location(conninfo)
        self._lock = threading.RLock()
        self._db: psycopg.Connection[Any] = pg.connect(conninfo, autocommit=True)
        try:
            self._migrate()
        except BaseException:
            self._db.close()
            raise

    @property
    def location(self) -> str:
        return self._location

    def _version(self) -> int:
        row = self._db.execute("SELECT to_regclass('ipyask_meta')").fetchone()
        if row is None or row[0] is None:
            return 0
        found = self._db.execute(
            "SELECT value FROM ipyask_meta WHERE key = 'schema_version'"
        ).fetchone()
        return int(found[0]) if found else 0

    def _migrate(self) -> None:
        with self._lock:
            check_version(self._version(), self.location)
            with self._db.transaction():
                self._db.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
                found = self._version()
                check_version(found, self.location)
                if found == SCHEMA_VERSION:
                    return
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS ipyask_meta (key TEXT PRIMARY KEY,"
                    " value TEXT NOT NULL)"
                )
                for step in POSTGRES_STEPS[found:]:
                    for statement in step:
                        self._db.execute(statement)
                self._db.execute(
                    "INSERT INTO ipyask_meta (key, value) VALUES ('schema_version', %s)"
                    " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                    (str(SCHEMA_VERSION),),
                )

    @contextmanager
    def _write(self) -> Iterator[psycopg.Connection[Any]]:
        with self._lock, self._db.transaction():
            yield self._db
            self._db.execute(f"NOTIFY {CHANNEL}")

    # -- session logs -------------------------------------------------------------------------
    def _append(
        self, db: psycopg.Connection[Any], session_id: str, event: Mapping[str, Any]
    ) -> int:
        # Serialises appends to one session across processes for the rest of the transaction.
        db.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (session_id,))
        row = db.execute(
            "SELECT COALESCE(MAX(seq) + 1, 0) FROM ipyask_events WHERE session_id = %s",
            (session_id,),
        ).fetchone()
        seq = int(row[0]) if row else 0
        db.execute(
            "INSERT INTO ipyask_events (session_id, seq, body) VALUES (%s, %s, %s)",
            (session_id, seq, self._jsonb(dict(event))),
        )
        return seq

    def append_event(self, session_id: str, event: Mapping[str, Any]) -> int:
        with self._write() as db:
            return self._append(db, session_id, event)

    def read_events(self, session_id: str, after: int = -1) -> list[StoredEvent]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, body FROM ipyask_events WHERE session_id = %s AND seq > %s"
                " ORDER BY seq",
                (session_id, after),
            ).fetchall()
        return [(int(seq), dict(body)) for seq, body in rows]

    # -- durable questions --------------------------------------------------------------------
    def _select(self, where: str, params: Sequence[Any]) -> list[QuestionRecord]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {QUESTION_COLUMNS} FROM ipyask_questions WHERE {where}",
                params,
            ).fetchall()
        return [record_from_row(row) for row in rows]

    def open_question(
        self,
        session_id: str,
        call_id: str,
        questions: Sequence[Mapping[str, Any]],
        *,
        request_id: str,
        agent_id: str | None = None,
    ) -> tuple[QuestionRecord, bool]:
        with self._write() as db:
            db.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (session_id,))
            found = self._select("session_id = %s AND call_id = %s", (session_id, call_id))
            if found:
                return found[0], False
            record = QuestionRecord(
                id=request_id,
                call_id=call_id,
                questions=[dict(q) for q in questions],
                session_id=session_id,
                agent_id=agent_id,
                asked_at=time.time(),
                origin=origin(),
            )
            db.execute(
                "INSERT INTO ipyask_questions (id, session_id, agent_id, call_id, questions,"
                " asked_at, origin) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (
                    record.id,
                    session_id,
                    agent_id,
                    call_id,
                    self._jsonb(record.questions),
                    record.asked_at,
                    record.origin,
                ),
            )
            self._append(db, session_id, asked_event(record))
            return record, True

    def resolve_question(self, request_id: str, terminal: Terminal) -> ClaimResult:
        with self._write() as db:
            row = db.execute(
                "UPDATE ipyask_questions SET outcome = %s, answer = %s, error = %s,"
                " resolved_at = %s WHERE id = %s AND outcome IS NULL RETURNING session_id",
                (
                    terminal.outcome,
                    None if terminal.answer is None else self._jsonb(terminal.answer),
                    None if terminal.error is None else self._jsonb(terminal.error.to_wire()),
                    time.time(),
                    request_id,
                ),
            ).fetchone()
            if row is None:
                return claim_of(self.question(request_id))
            self._append(db, row[0], answered_event(request_id, terminal))
            return accepted(terminal)

    def question(self, request_id: str) -> QuestionRecord | None:
        found = self._select("id = %s", (request_id,))
        return found[0] if found else None

    def question_for_call(self, session_id: str, call_id: str) -> QuestionRecord | None:
        found = self._select("session_id = %s AND call_id = %s", (session_id, call_id))
        return found[0] if found else None

    def pending_questions(self, session_id: str | None = None) -> list[QuestionRecord]:
        if session_id is None:
            return self._select("outcome IS NULL ORDER BY asked_at, id", ())
        return self._select(
            "outcome IS NULL AND session_id = %s ORDER BY asked_at, id", (session_id,)
        )

    def changes(self) -> PostgresChangeFeed:
        return PostgresChangeFeed(self.conninfo)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __repr__(self) -> str:
        return f"<PostgresStore {self.location}>"


class PostgresChangeFeed:
    """``LISTEN ipyask_changes`` on its own connection: wakes on the commit, idle costs nothing."""

    def __init__(self, conninfo: str) -> None:
        pg = import_psycopg()
        self._error = pg.Error
        self._db: psycopg.Connection[Any] = pg.connect(conninfo, autocommit=True)
        self._db.execute(f"LISTEN {CHANNEL}")
        self._closed = False

    def wait(self, timeout: float | None) -> bool:
        if self._closed:
            return False
        try:
            for _ in self._db.notifies(timeout=timeout, stop_after=1):
                return True
        except self._error:
            if self._closed:
                return False
            raise
        return False

    def close(self) -> None:
        self._closed = True
        self._db.close()
