"""Which store the inbox page shows."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..store import DEFAULT_SQLITE_PATH, ENVIRONMENT_VARIABLE

__all__ = ["store_location"]

_URL_SCHEMES = ("postgresql://", "postgres://")


def store_location(configured: str, root_dir: str, environ: Mapping[str, str]) -> str:
    """The store the page shows: ``configured``, else ``$IPYASK_STORE``, else the default store
    under ``root_dir``; a relative path is taken from ``root_dir`` (where the server's
    notebooks are), as a kernel started there would take it."""
    location = configured or environ.get(ENVIRONMENT_VARIABLE) or str(DEFAULT_SQLITE_PATH)
    if location.startswith(_URL_SCHEMES):
        return location
    path = Path(os.path.expanduser(location))
    return str(path if path.is_absolute() else Path(root_dir).expanduser() / path)
