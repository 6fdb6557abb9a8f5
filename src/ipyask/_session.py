"""A minimal host session: an append-only event log and an inbox of queued user messages.

Event shapes (wire form, camelCase; dicts are validated into these models on append):

==================== ===========================================================================
``type``             fields
==================== ===========================================================================
``request/header``   ``tools``: the tool schemas the model saw (``[{name, description?,
                     parameters}]``), or a placeholder string
``tool/call``        ``callId``, ``name``, ``arguments`` (JSON text)
``tool/result``      ``callId``, ``content`` (text, or ``[{type: 'text', text}]`` blocks),
                     ``isError`` (default false), ``error`` (``{name?, code?, message?}``)
``tool/ptc-dispatch`` ``callId`` (the ``run_code`` call), ``subCallId``, ``name``, ``arguments``
                     (object or JSON text), ``content``, ``isError``
``user/message``     ``messageId``, ``source`` (``{kind, callId?, outcome?}``), ``content``
``turn/start``       ``turn``
``turn/end``         ``turn``
anything else        kept verbatim with its ``type``
==================== ===========================================================================
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, TypeAdapter
from pydantic.alias_generators import to_camel

__all__ = [
    "Content",
    "MessageSource",
    "OtherEvent",
    "PtcDispatchEvent",
    "RequestHeaderEvent",
    "Session",
    "SessionEvent",
    "SessionListener",
    "ToolCallEvent",
    "ToolErrorInfo",
    "ToolResultEvent",
    "TurnEndEvent",
    "TurnStartEvent",
    "UserMessage",
    "UserMessageEvent",
    "first_text",
]

Content = str | list[dict[str, Any]]
"""Message content: plain text, or content blocks such as ``{type: 'text', text}``."""


def first_text(content: Content) -> str | None:
    """The first text of ``content``: the string itself, or the first ``text`` block's text."""
    if isinstance(content, str):
        return content
    for block in content:
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            return str(block["text"])
    return None


class _Event(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", frozen=True
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON-native wire form."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class RequestHeaderEvent(_Event):
    """The exact tool schemas the model saw for one model request."""

    type: Literal["request/header"] = "request/header"
    tools: list[Any] | str | None = None


class ToolCallEvent(_Event):
    """A tool call the model made."""

    type: Literal["tool/call"] = "tool/call"
    call_id: str
    name: str
    arguments: str


class ToolErrorInfo(_Event):
    """The error a failed tool call recorded."""

    name: str | None = None
    code: str | None = None
    message: str | None = None


class ToolResultEvent(_Event):
    """The result of a tool call."""

    type: Literal["tool/result"] = "tool/result"
    call_id: str
    content: Content = ""
    is_error: bool = False
    error: ToolErrorInfo | None = None


class PtcDispatchEvent(_Event):
    """A programmatic sub-call made from inside a ``run_code`` call."""

    type: Literal["tool/ptc-dispatch"] = "tool/ptc-dispatch"
    call_id: str
    sub_call_id: str
    name: str
    arguments: Any = None
    content: Content = ""
    is_error: bool = False


class MessageSource(_Event):
    """Where a user message came from; late replies use kind ``user-question-reply``."""

    kind: str
    call_id: str | None = None
    outcome: str | None = None


class UserMessageEvent(_Event):
    """A user message admitted into the session."""

    type: Literal["user/message"] = "user/message"
    message_id: str
    source: MessageSource | None = None
    content: Content = ""


class TurnStartEvent(_Event):
    """An agent turn started."""

    type: Literal["turn/start"] = "turn/start"
    turn: int


class TurnEndEvent(_Event):
    """An agent turn ended."""

    type: Literal["turn/end"] = "turn/end"
    turn: int


class OtherEvent(_Event):
    """Any other event, kept verbatim."""

    type: str


_KNOWN_TYPES = frozenset(
    {"request/header", "tool/call", "tool/result", "tool/ptc-dispatch", "user/message"}
    | {"turn/start", "turn/end"}
)


def _event_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, Mapping) else getattr(value, "type", None)
    return kind if kind in _KNOWN_TYPES else "other"


SessionEvent = Annotated[
    Annotated[RequestHeaderEvent, Tag("request/header")]
    | Annotated[ToolCallEvent, Tag("tool/call")]
    | Annotated[ToolResultEvent, Tag("tool/result")]
    | Annotated[PtcDispatchEvent, Tag("tool/ptc-dispatch")]
    | Annotated[UserMessageEvent, Tag("user/message")]
    | Annotated[TurnStartEvent, Tag("turn/start")]
    | Annotated[TurnEndEvent, Tag("turn/end")]
    | Annotated[OtherEvent, Tag("other")],
    Discriminator(_event_tag),
]
_EVENT: TypeAdapter[SessionEvent] = TypeAdapter(SessionEvent)


class UserMessage(_Event):
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

    def __init__(self, id: str | None = None) -> None:
        self.id = id if id is not None else uuid.uuid4().hex
        self._lock = threading.RLock()
        self._events: list[SessionEvent] = []
        self._queues: dict[InboxQueue, list[UserMessage]] = {"next_step": [], "next_turn": []}
        self._claimed: dict[str, tuple[UserMessage, int]] = {}
        self._listeners: list[SessionListener] = []
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    # -- the log -----------------------------------------------------------------------------
    @property
    def events(self) -> tuple[SessionEvent, ...]:
        """Every event so far, in order; an event's index is its sequence number."""
        with self._lock:
            return tuple(self._events)

    def append(self, event: SessionEvent | Mapping[str, Any]) -> SessionEvent:
        """Append one event (a model, or a dict in wire form); returns the stored model."""
        stored = _EVENT.validate_python(event)
        with self._lock:
            self._events.append(stored)
            listeners = list(self._listeners)
        for listener in listeners:
            listener.event_appended(self, stored)
        return stored

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
