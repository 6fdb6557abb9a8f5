"""``Store``: where session logs and durable question records outlive a process.

The seam (``UserQuestions`` and a store-backed ``Session``) talks only to this protocol. Every
method is one transaction; a question's record and its session event are written together, so a
crash never leaves one without the other. Implementations are safe to share between threads of a
process and between processes on the same database.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Protocol, TypeGuard, runtime_checkable

from ._records import ClaimResult, QuestionRecord, Terminal

__all__ = ["ChangeFeed", "Store", "StoredEvent", "is_store"]

StoredEvent = tuple[int, dict[str, Any]]
"""``(seq, event)``: an event of a session log in wire form and its 0-based position."""


class ChangeFeed(Protocol):
    """Wakes a waiter when any process commits a change to the store.

    A feed whose notifications can say what was written (PostgreSQL's) also has ``notes``:
    after a :meth:`wait` that returned ``True``, the :class:`~ipyask.store._records.ChangeNote`
    of each change it woke for, or ``None`` when some change was not told (read the store); and
    ``sessions``: the ids of the sessions those changes were in, or ``None`` when some change
    did not say.
    A feed of a store that can be closed (both built-in stores) also has ``ended``: ``True`` once
    its store was closed, when every wait returns ``False`` at once and no change will wake one."""

    def wait(self, timeout: float | None) -> bool:
        """Block until a change is committed after the previous call (or after the feed opened);
        ``False`` when ``timeout`` seconds passed without one. Costs nothing while idle where the
        store is told of commits (PostgreSQL; SQLite on Linux), else a cheap check at a
        backed-off interval."""
        ...

    def close(self) -> None:
        """Stop the feed (from any thread); a blocked :meth:`wait` returns ``False`` soon after."""
        ...


@runtime_checkable
class Store(Protocol):
    """Session logs and durable question records (see :mod:`ipyask.store`)."""

    @property
    def location(self) -> str:
        """Where the data lives (a file path, or a URL without its password)."""
        ...

    # -- session logs -------------------------------------------------------------------------
    def append_event(self, session_id: str, event: Mapping[str, Any]) -> int:
        """Append ``event`` (wire form) to the session's log; returns its sequence number."""
        ...

    def read_events(self, session_id: str, after: int = -1) -> list[StoredEvent]:
        """The session's events with a sequence number above ``after``, in order."""
        ...

    # -- durable questions --------------------------------------------------------------------
    def open_question(
        self,
        session_id: str,
        call_id: str,
        questions: Sequence[Mapping[str, Any]],
        *,
        request_id: str,
        agent_id: str | None = None,
        assignee: str | None = None,
    ) -> tuple[QuestionRecord, bool]:
        """The session's record for ``call_id``, creating it (with ``request_id``, ``assignee``
        and the ``user-questions/asked`` event) when there is none; and whether it was created."""
        ...

    def open_question_at(
        self,
        session_id: str,
        call_id: str,
        questions: Sequence[Mapping[str, Any]],
        *,
        request_id: str,
        agent_id: str | None = None,
        assignee: str | None = None,
    ) -> tuple[QuestionRecord, int | None]:
        """As :meth:`open_question`, with the sequence number of the ``user-questions/asked``
        event it appended (``None``: the record was there already), so that the asking
        session takes the event in without reading it back."""
        ...

    def resolve_question(self, request_id: str, terminal: Terminal) -> ClaimResult:
        """Settle an open question with ``terminal`` (its ``answered_by`` kept in the record and
        the event) and append ``user-questions/answered`` to its session; the first claim wins
        (``accepted``), later ones get ``already-resolved``, an unknown id ``not-pending``."""
        ...

    def resolve_questions(self, claims: Sequence[tuple[str, Terminal]]) -> list[ClaimResult]:
        """Settle several questions in one transaction: each ``(request_id, terminal)`` as
        :meth:`resolve_question` settles one (in order: an id claimed twice is
        ``already-resolved`` the second time), with a result per claim in the same order, and
        one commit (and one notification per session) for all."""
        ...

    def question(self, request_id: str) -> QuestionRecord | None:
        """The record of ``request_id``, if any."""
        ...

    def question_for_call(self, session_id: str, call_id: str) -> QuestionRecord | None:
        """The session's record for ``call_id``, if any."""
        ...

    def pending_questions(self, session_id: str | None = None) -> list[QuestionRecord]:
        """Open questions, oldest first: of one session, or of every session (the inbox)."""
        ...

    def settled_questions(self) -> list[QuestionRecord]:
        """Settled questions of every session, in the order they were settled (the audit)."""
        ...

    def changes(self, sessions: Callable[[], Collection[str]] | None = None) -> ChangeFeed:
        """A new feed of committed changes. With ``sessions``, the feed may skip changes that
        touch none of the sessions it returns at the time (PostgreSQL names the session of each
        change; SQLite cannot tell, and wakes for every change)."""
        ...

    def close(self) -> None:
        """Close the store's connections."""
        ...


_STORE_TYPES: set[type] = set()
"""Types whose objects were found to be stores."""


def is_store(value: object) -> TypeGuard[Store]:
    """``isinstance(value, Store)``, remembered per type: the check against a runtime-checkable
    protocol looks up each of its methods (tens of microseconds), and an answer makes it."""
    if type(value) in _STORE_TYPES:
        return True
    if isinstance(value, Store):
        _STORE_TYPES.add(type(value))
        return True
    return False
