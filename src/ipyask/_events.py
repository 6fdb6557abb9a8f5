"""Session events: the records a host appends to a session's log.

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
``user/message``     ``messageId``, ``source`` (``{kind, callId?, outcome?, answeredBy?}``),
                     ``content``
``turn/start``       ``turn``
``turn/end``         ``turn``
``user-questions/asked``     ``id``, ``callId``, ``questions`` (wire-form question items),
                     ``assignee`` (when assigned): a durable ask was recorded
``user-questions/answered``  ``id``, ``outcome`` (``answered``, ``cancelled`` or
                     ``unavailable``), ``answer`` (when answered) or ``error``
                     (``{name, code, message}``), ``answeredBy`` (``{who, host?, at, door,
                     digest?}``, when known): it was settled
anything else        kept verbatim with its ``type``
==================== ===========================================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Tag, TypeAdapter
from pydantic.alias_generators import to_camel

from ._answered_by import AnsweredBy

__all__ = [
    "EVENT",
    "Content",
    "MessageSource",
    "OtherEvent",
    "PtcDispatchEvent",
    "QuestionAnsweredEvent",
    "QuestionAskedEvent",
    "RequestHeaderEvent",
    "SessionEvent",
    "ToolCallEvent",
    "ToolErrorInfo",
    "ToolResultEvent",
    "TurnEndEvent",
    "TurnStartEvent",
    "UserMessageEvent",
    "WireEvent",
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


class WireEvent(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", frozen=True
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON-native wire form."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class RequestHeaderEvent(WireEvent):
    """The exact tool schemas the model saw for one model request."""

    type: Literal["request/header"] = "request/header"
    tools: list[Any] | str | None = None


class ToolCallEvent(WireEvent):
    """A tool call the model made."""

    type: Literal["tool/call"] = "tool/call"
    call_id: str
    name: str
    arguments: str


class ToolErrorInfo(WireEvent):
    """The error a failed tool call recorded."""

    name: str | None = None
    code: str | None = None
    message: str | None = None


class ToolResultEvent(WireEvent):
    """The result of a tool call."""

    type: Literal["tool/result"] = "tool/result"
    call_id: str
    content: Content = ""
    is_error: bool = False
    error: ToolErrorInfo | None = None


class PtcDispatchEvent(WireEvent):
    """A programmatic sub-call made from inside a ``run_code`` call."""

    type: Literal["tool/ptc-dispatch"] = "tool/ptc-dispatch"
    call_id: str
    sub_call_id: str
    name: str
    arguments: Any = None
    content: Content = ""
    is_error: bool = False


class MessageSource(WireEvent):
    """Where a user message came from; late replies use kind ``user-question-reply``."""

    kind: str
    call_id: str | None = None
    outcome: str | None = None
    answered_by: AnsweredBy | None = None
    """Who gave a late reply, when, through which door, having seen which card."""


class UserMessageEvent(WireEvent):
    """A user message admitted into the session."""

    type: Literal["user/message"] = "user/message"
    message_id: str
    source: MessageSource | None = None
    content: Content = ""


class TurnStartEvent(WireEvent):
    """An agent turn started."""

    type: Literal["turn/start"] = "turn/start"
    turn: int


class TurnEndEvent(WireEvent):
    """An agent turn ended."""

    type: Literal["turn/end"] = "turn/end"
    turn: int


class QuestionAskedEvent(WireEvent):
    """A durable ask was recorded: its request ``id``, tool ``call_id`` and questions."""

    type: Literal["user-questions/asked"] = "user-questions/asked"
    id: str
    call_id: str
    questions: list[dict[str, Any]]
    """The question items in wire form (``AskUserQuestionItem.to_wire()``; the vocabulary sits
    above this module, so the recorder writes them)."""
    assignee: str | None = None
    """Who alone may answer it where identities are known (an ipyask extension)."""


class QuestionAnsweredEvent(WireEvent):
    """A durable ask was settled: answered (with ``answer``), cancelled or unavailable (with
    ``error``)."""

    type: Literal["user-questions/answered"] = "user-questions/answered"
    id: str
    outcome: Literal["answered", "cancelled", "unavailable"]
    answer: dict[str, Any] | None = None
    """The answer batch in wire form (``AskUserQuestionAnswer.to_wire()``)."""
    error: ToolErrorInfo | None = None
    answered_by: AnsweredBy | None = None
    """Who settled it, when, through which door, and the digest of the card they saw."""


class OtherEvent(WireEvent):
    """Any other event, kept verbatim."""

    type: str


_KNOWN_TYPES = frozenset(
    {"request/header", "tool/call", "tool/result", "tool/ptc-dispatch", "user/message"}
    | {"turn/start", "turn/end", "user-questions/asked", "user-questions/answered"}
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
    | Annotated[QuestionAskedEvent, Tag("user-questions/asked")]
    | Annotated[QuestionAnsweredEvent, Tag("user-questions/answered")]
    | Annotated[OtherEvent, Tag("other")],
    Discriminator(_event_tag),
]
EVENT: TypeAdapter[SessionEvent] = TypeAdapter(SessionEvent)
