"""``StoreUnavailableError``: the store cannot be read or written now, and what to do about it;
``StoreClosedError``: it was closed.

Defined in :mod:`ipyask.errors` with the other exceptions; the stores take it from here.

Raised by a store in place of a driver's error when the fault is the store's state, not the
request: a database that cannot be reached (restarting, a dropped network), a SQLite file locked
by another process beyond the busy timeout, a read-only file, a full disk. The message names the
store and what to do; the waiting parts of ipyask retry by themselves (see :mod:`ipyask._backoff`).
"""

from __future__ import annotations

from ..errors import StoreClosedError, StoreUnavailableError
from ..errors import StoreFault as Fault

__all__ = ["Fault", "StoreClosedError", "StoreUnavailableError"]
