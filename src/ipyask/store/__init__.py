"""Stores: where durable questions and session logs outlive a kernel.

:func:`open_store` picks one from a location: a ``postgresql://`` (or ``postgres://``) URL opens a
:class:`PostgresStore` (the ``postgres`` extra), anything else is the path of a
:class:`SQLiteStore` file. With no location it reads the ``IPYASK_STORE`` environment variable,
else uses ``.ipyask/questions.sqlite3`` in the working directory (a notebook kernel's working
directory is the notebook's folder, so the store sits next to the notebook).
"""

from __future__ import annotations

import os
from pathlib import Path

from .._answered_by import AnsweredBy, Door
from ._faults import Fault, StoreClosedError, StoreUnavailableError
from ._migrations import SCHEMA_VERSION, StoreOpenError, StoreVersionError
from ._postgres import SHOWN_POSTGRES as _SHOWN_POSTGRES
from ._postgres import PostgresStore
from ._protocol import ChangeFeed, Store, StoredEvent
from ._records import (
    ANSWERED,
    ASKED,
    ClaimResult,
    ClaimStatus,
    ErrorInfo,
    Outcome,
    QuestionRecord,
    Terminal,
)
from ._sqlite import DEFAULT_SQLITE_PATH, SQLiteStore

__all__ = [
    "ANSWERED",
    "ASKED",
    "DEFAULT_SQLITE_PATH",
    "ENVIRONMENT_VARIABLE",
    "SCHEMA_VERSION",
    "AnsweredBy",
    "ChangeFeed",
    "ClaimResult",
    "ClaimStatus",
    "Door",
    "ErrorInfo",
    "Fault",
    "Outcome",
    "PostgresStore",
    "QuestionRecord",
    "SQLiteStore",
    "Store",
    "StoreClosedError",
    "StoreOpenError",
    "StoreUnavailableError",
    "StoreVersionError",
    "StoredEvent",
    "Terminal",
    "open_store",
]

ENVIRONMENT_VARIABLE = "IPYASK_STORE"
"""The environment variable :func:`open_store` reads when no location is given."""


def open_store(location: str | os.PathLike[str] | None = None) -> Store:
    """Open (creating or migrating if needed) the store at ``location``.

    Raises :class:`StoreVersionError` for a store written by a newer ipyask and
    :class:`StoreOpenError` for one that cannot be opened (not a store, damaged, another
    application's, unreachable), each naming the location and what to do, with the store left as
    it was; and an ``ImportError`` naming the ``postgres`` extra when a PostgreSQL URL is given
    without psycopg. A PostgreSQL store's own :attr:`~Store.location` (``postgresql: dbname=…
    host=…``, without a password) opens it again.
    """
    if location is None:
        location = os.environ.get(ENVIRONMENT_VARIABLE) or DEFAULT_SQLITE_PATH
    text = os.fspath(location)
    if text.startswith(("postgresql://", "postgres://")):
        return PostgresStore(text)
    if text.startswith(_SHOWN_POSTGRES):  # a PostgresStore's own ``location``: opened again
        return PostgresStore(text.removeprefix(_SHOWN_POSTGRES))
    if text.lower().startswith(("postgresql:", "postgres:")):
        # Not a path anyone means: it would become an SQLite file of that name.
        raise StoreOpenError(
            f"{text!r} is not a PostgreSQL URL: write it as postgresql://user@host:port/dbname "
            "(or give a file path for an SQLite store)"
        )
    return SQLiteStore(Path(text))
