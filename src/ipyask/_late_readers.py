"""Who reads a late reply: the readers an agent's code declares for its session's inbox.

A continued question's late reply is steered into the agent's inbox, and only the agent's own
code takes it from there. ipyask cannot see that code, so a loop that reads the inbox declares
itself with :meth:`UserQuestions.reading`: while it runs, a late reply waits for it, read at the
loop's next step (``"next-step"``) or when the caller asks the call again (``"re-ask"``, as an MCP
client collects it). Once every declared reader of a session has ended, nobody will read a reply:
one left unread then, and any later one, is *kept*, admitted into the session log at once, so the
projection settles the call with the answer and a transcript records it. A session whose code
declared no reader keeps the spec's default: the reply waits in the inbox for the next step; all
ipyask knows then is whether the task that asked (and got pending) has ended, which a card says.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Literal
from weakref import WeakKeyDictionary

from ._session import Session

__all__ = ["ReaderBook", "ReaderKind", "ReadingHandle", "ReplyReader"]

ReaderKind = Literal["next-step", "re-ask"]
"""How a declared reader reads late replies: at its next step, or when the call is asked again."""

ReplyReader = Literal["next-step", "re-ask", "nobody"]
"""Who reads a late reply now: a declared reader of either kind, or nobody (they all ended)."""


class ReadingHandle:
    """One declared reader; :meth:`close` (or leaving the ``with`` block) ends it. Idempotent."""

    def __init__(self, close: Callable[[], None]) -> None:
        self._close: Callable[[], None] | None = close

    @property
    def closed(self) -> bool:
        """Whether this reader has ended."""
        return self._close is None

    def close(self) -> None:
        """End this reader; when it was the session's last, its unread late replies are kept."""
        close, self._close = self._close, None
        if close is not None:
            close()

    def __enter__(self) -> ReadingHandle:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


@dataclass
class _Readers:
    declared: bool = False  # whether the session's code ever declared a reader
    open: list[tuple[object, ReaderKind]] = field(default_factory=list)
    kept: set[str] = field(default_factory=set)
    askers: dict[str, weakref.ref[asyncio.Task[object]]] = field(default_factory=dict)


class ReaderBook:
    """The declared readers of every session, and the calls whose late reply was kept.

    ``on_ended(session)`` runs (outside the lock) when the last reader of ``session`` ends.
    """

    def __init__(self, on_ended: Callable[[Session], None]) -> None:
        self._lock = threading.Lock()
        self._sessions: WeakKeyDictionary[Session, _Readers] = WeakKeyDictionary()
        self._on_ended = on_ended

    def open(self, session: Session, kind: ReaderKind) -> ReadingHandle:
        """Declare a reader of ``session``'s late replies."""
        token = object()
        with self._lock:
            readers = self._sessions.setdefault(session, _Readers())
            readers.declared = True
            readers.open.append((token, kind))

        def close() -> None:
            with self._lock:
                readers = self._sessions[session]
                readers.open = [entry for entry in readers.open if entry[0] is not token]
                ended = not readers.open
            if ended:
                self._on_ended(session)

        return ReadingHandle(close)

    def reader(self, session: Session) -> ReplyReader | None:
        """Who reads ``session``'s late replies now; ``None`` when its code declared nobody
        (the reply then waits in the inbox, the spec's default). The latest open reader wins."""
        with self._lock:
            readers = self._sessions.get(session)
            if readers is None or not readers.declared:
                return None
            return readers.open[-1][1] if readers.open else "nobody"

    def keep(self, session: Session, call_id: str) -> None:
        """Note that ``call_id``'s late reply was kept: recorded with nobody to read it."""
        with self._lock:
            self._sessions.setdefault(session, _Readers()).kept.add(call_id)

    def note_asker(self, session: Session, call_id: str, task: asyncio.Task[object]) -> None:
        """``task`` asked ``call_id`` and went on with pending."""
        with self._lock:
            readers = self._sessions.setdefault(session, _Readers())
            readers.askers = {k: r for k, r in readers.askers.items() if _running(r)}
            readers.askers[call_id] = weakref.ref(task)

    def asker_ended(self, session: Session, call_id: str) -> bool:
        """Whether the task that asked ``call_id`` and went on with pending has ended (``False``
        when it is not known)."""
        with self._lock:
            readers = self._sessions.get(session)
            asker = readers.askers.get(call_id) if readers is not None else None
            return asker is not None and not _running(asker)

    def unkeep(self, session: Session, call_id: str) -> None:
        """``call_id`` (asked again under the same id) took a reply that a reader will read."""
        with self._lock:
            readers = self._sessions.get(session)
            if readers is not None:
                readers.kept.discard(call_id)

    def kept(self, session: Session, call_id: str) -> bool:
        """Whether ``call_id``'s late reply was kept rather than read."""
        with self._lock:
            readers = self._sessions.get(session)
            return readers is not None and call_id in readers.kept


def _running(task: weakref.ref[asyncio.Task[object]]) -> bool:
    alive = task()
    return alive is not None and not alive.done()
