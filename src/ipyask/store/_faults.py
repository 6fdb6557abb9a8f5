"""``StoreUnavailableError``: the store cannot be read or written now, and what to do about it.

Raised by a store in place of a driver's error when the fault is the store's state, not the
request: a database that cannot be reached (restarting, a dropped network), a SQLite file locked
by another process beyond the busy timeout, a read-only file, a full disk. The message names the
store and what to do; the waiting parts of ipyask retry by themselves (see :mod:`ipyask._backoff`).
"""

from __future__ import annotations

from typing import Literal

__all__ = ["Fault", "StoreUnavailableError"]

Fault = Literal["unreachable", "locked", "read-only", "full"]
"""What keeps the store from being read or written."""

_WHAT_TO_DO: dict[Fault, str] = {
    "unreachable": (
        "the store {location} is unreachable ({detail}). Check that the database server is "
        "running and reachable; waiting questions and inboxes reconnect by themselves"
    ),
    "locked": (
        "the store {location} stayed locked by another process beyond its busy timeout "
        "({detail}). Finish or close the process holding a write on it (another kernel, a "
        "script, a database browser), then try again"
    ),
    "read-only": (
        "the store {location} is read-only ({detail}). Make the file and its folder writable "
        "for this process, or use a store where it can write (IPYASK_STORE, open_store(path))"
    ),
    "full": (
        "the disk holding the store {location} is full ({detail}). Free some space there, or "
        "move the store to a disk with room, then try again"
    ),
}


class StoreUnavailableError(Exception):
    """The store at ``location`` cannot be read or written now, because of ``fault``."""

    def __init__(self, location: str, fault: Fault, detail: str) -> None:
        super().__init__(_WHAT_TO_DO[fault].format(location=location, detail=detail.strip()))
        self.location = location
        self.fault: Fault = fault
