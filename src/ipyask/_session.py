"""A minimal host session: an append-only log of :mod:`ipyask._events` records and an inbox of
user messages queued for the agent (late replies are steered into it).

A session opened on a :class:`~ipyask.store.Store` keeps its log there: it starts with the events
the store already holds for its id, every append is written to the store first, and
:meth:`Session.sync` brings in what other processes appended.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import Field

from ._events import (
    EVENT,
    Content,
    MessageSource,
    SessionEvent,
    TurnEndEvent,
    TurnStartEvent,
    UserMessageEvent,
    WireEvent,
)

if TYPE_CHECKING:
    from .store import Store

__all__ = ["Session", "SessionListener", "UserMessage"]


class UserMessage(WireEvent):
    """A user message waiting in the inbox; :meth:`Session.admit` turns it into an event."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    source: MessageSource | None = None
    content: Content = ""

    def to_event(self) -> UserMessageEvent:
        """The ``user/message`` event that admits this message."""
        return UserMessageEvent(message_id=self.id, source=self.source, content=self.content)


class SessionListener(Protocol):
    """Observes a session (the question service keeps its reply reservations with this)."""

    def event_appended(self, session: Session, event: SessionEvent) -> None: ...
    def message_claimed(self, session: Session, message: UserMessage, turn: int) -> None: ...
    def message_discarded(self, session: Session, message: UserMessage) -> None: ...


InboxQueue = Literal["next_step", "next_turn"]


class Session:
    """An append-only event log plus the inbox of messages queued for the agent."""

    def __init__(self, id: str | None = None, *, store: Store | None = None) -> None:
        self.id = id if id is not None else uuid.uuid4().hex
        self.store = store
        """Where the log is kept, or ``None`` for a log in memory only."""
        self._lock = threading.RLock()
        self._events: list[SessionEvent] = []
        self._queues: dict[InboxQueue, list[UserMessage]] = {"next_step": [], "next_turn": []}
        self._claimed: dict[str, tuple[UserMessage, int]] = {}
        self._listeners: list[SessionListener] = []
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._turn_seen = (0, False)  # events looked at for the open turn, and the answer
        if store is not None:
            self.sync()

    # -- the log -----------------------------------------------------------------------------
    @property
    def events(self) -> tuple[SessionEvent, ...]:
        """Every event so far, in order; an event's index is its sequence number."""
        with self._lock:
            return tuple(self._events)

    def open_turn_at(self) -> int | None:
        """The position of the log's last event while a turn is open (its latest
        ``turn/start`` has no ``turn/end`` after it), else ``None``. Each call looks only at the
        events that came since the one before (a durable ask checks it)."""
        with self._lock:
            seen, open_turn = self._turn_seen
            for event in self._events[seen:]:
                if isinstance(event, TurnStartEvent):
                    open_turn = True
                elif isinstance(event, TurnEndEvent):
                    open_turn = False
            self._turn_seen = (len(self._events), open_turn)
            return len(self._events) - 1 if open_turn else None

    def append(self, event: SessionEvent | Mapping[str, Any]) -> SessionEvent:
        """Append one event (a model, or a dict in wire form); returns the stored model."""
        stored = EVENT.validate_python(event)
        if self.store is not None:
            seq = self.store.append_event(self.id, stored.to_wire())
            return self.written(seq, stored)
        with self._lock:
            self._events.append(stored)
            listeners = list(self._listeners)
        for listener in listeners:
            listener.event_appended(self, stored)
        return stored

    def written(self, seq: int, stored: SessionEvent) -> SessionEvent:
        """Take in ``stored``, which this process just wrote to the store at ``seq``, without
        reading it back; returns the log's event at ``seq``.

        The log grows only without a gap: when it ends just before ``seq``, the event is
        appended here; when other processes appended events in between, those and this one are
        read from the store (once, in order); when a concurrent :meth:`sync` (or
        :meth:`noted`) already brought it in, nothing changes.
        """
        with self._lock:
            if seq < len(self._events):
                return self._events[seq]
            if seq == len(self._events):
                self._events.append(stored)
                listeners = list(self._listeners)
            else:
                listeners = None
        if listeners is None:
            self.sync()
            with self._lock:
                return self._events[seq]
        for listener in listeners:
            listener.event_appended(self, stored)
        return stored

    def noted(self, written: Sequence[tuple[int, Mapping[str, Any]]]) -> bool:
        """Take in events the store's change notes told of (``(seq, wire event)``, in order)
        without reading them; whether they left no gap.

        An event the log has already is skipped; one right after the log's end is appended
        (listeners see it); at the first one further on (or one that is not a valid event),
        nothing more is taken and ``False`` says that the store must be read (:meth:`sync`)."""
        fresh: list[SessionEvent] = []
        gap = False
        with self._lock:
            for seq, event in written:
                if seq < len(self._events):
                    continue
                if seq > len(self._events):
                    gap = True
                    break
                try:
                    stored = EVENT.validate_python(event)
                except ValueError:  # not an event this version knows: leave it to a read
                    gap = True
                    break
                self._events.append(stored)
                fresh.append(stored)
            listeners = list(self._listeners) if fresh else []
        for stored in fresh:
            for listener in listeners:
                listener.event_appended(self, stored)
        return not gap

    def sync(self) -> tuple[SessionEvent, ...]:
        """Bring in the events other processes appended to the store; returns them.

        Listeners see them as appended. Does nothing for a session without a store.
        """
        if self.store is None:
            return ()
        # Read without holding the log: an append of this process (``written``) does not wait
        # for another thread's read. Events that came in meanwhile are not taken twice.
        with self._lock:
            after = len(self._events) - 1
        read = [
            (seq, EVENT.validate_python(event))
            for seq, event in self.store.read_events(self.id, after)
        ]
        with self._lock:
            fresh = [event for seq, event in read if seq >= len(self._events)]
            self._events.extend(fresh)
            listeners = list(self._listeners)
        for stored in fresh:
            for listener in listeners:
                listener.event_appended(self, stored)
        return tuple(fresh)

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        """Observe appended events and inbox claims and discards; returns an unsubscribe."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    # -- the inbox ---------------------------------------------------------------------------
    @property
    def next_step(self) -> tuple[UserMessage, ...]:
        """Messages the agent reads before its next step (late replies are steered here)."""
        with self._lock:
            return tuple(self._queues["next_step"])

    @property
    def next_turn(self) -> tuple[UserMessage, ...]:
        """Messages the agent reads at its next turn."""
        with self._lock:
            return tuple(self._queues["next_turn"])

    def steer(self, message: UserMessage) -> None:
        """Queue ``message`` for the agent's next step and wake whoever waits for one."""
        self._enqueue("next_step", message)

    def follow_up(self, message: UserMessage) -> None:
        """Queue ``message`` for the agent's next turn."""
        self._enqueue("next_turn", message)

    def _enqueue(self, queue: InboxQueue, message: UserMessage) -> None:
        with self._lock:
            self._queues[queue].append(message)
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            loop.call_soon_threadsafe(_wake, future)

    def _take(self, message: UserMessage | str | None) -> UserMessage | None:
        with self._lock:
            wanted = message.id if isinstance(message, UserMessage) else message
            for queue in self._queues.values():
                for index, queued in enumerate(queue):
                    if wanted is None or queued.id == wanted:
                        return queue.pop(index)
            return None

    def claim(self, turn: int, message: UserMessage | str | None = None) -> UserMessage | None:
        """Take a queued message (the first one by default) into turn ``turn`` before admitting it.

        A claimed message that is not admitted before ``turn/end`` of that turn is dropped.
        """
        taken = self._take(message)
        if taken is None:
            return None
        with self._lock:
            self._claimed[taken.id] = (taken, turn)
            listeners = list(self._listeners)
        for listener in listeners:
            listener.message_claimed(self, taken, turn)
        return taken

    def admit(self, message: UserMessage | str | None = None) -> UserMessageEvent | None:
        """Turn a queued or claimed message (the first queued one by default) into a
        ``user/message`` event; returns the event, or ``None`` when there is no such message."""
        with self._lock:
            wanted = message.id if isinstance(message, UserMessage) else message
            claimed = self._claimed.pop(wanted, None) if wanted is not None else None
        taken = claimed[0] if claimed is not None else self._take(message)
        if taken is None:
            return None
        event = taken.to_event()
        self.append(event)
        return event

    def discard(self, message: UserMessage | str) -> bool:
        """Drop a queued or claimed message without admitting it; returns whether it was there."""
        with self._lock:
            wanted = message.id if isinstance(message, UserMessage) else message
            claimed = self._claimed.pop(wanted, None)
        taken = claimed[0] if claimed is not None else self._take(wanted)
        if taken is None:
            return False
        for listener in list(self._listeners):
            listener.message_discarded(self, taken)
        return True

    def end_turn(self, turn: int) -> None:
        """Record ``turn/end``; messages claimed by that turn and never admitted are dropped."""
        with self._lock:
            self._claimed = {k: v for k, v in self._claimed.items() if v[1] != turn}
        self.append(TurnEndEvent(turn=turn))

    async def next_message(self) -> UserMessage:
        """Wait until a message is queued; returns the first (without taking it)."""
        while True:
            with self._lock:
                for queue in self._queues.values():
                    if queue:
                        return queue[0]
                loop = asyncio.get_running_loop()
                future: asyncio.Future[None] = loop.create_future()
                self._waiters.append((loop, future))
            await future

    def __repr__(self) -> str:
        return f"<Session {self.id} events={len(self._events)}>"


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
