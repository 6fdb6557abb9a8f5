"""The custom-message protocol between the widget's views and the kernel (``docs/protocol.md``).

Every message is a JSON object with a ``kind`` discriminator and ``protocolVersion``. State lives
in the ``cards`` trait; messages are only the fast path for events, and a message sent while no
view exists is lost.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, get_args

from pydantic import Field, TypeAdapter, field_validator, model_validator

from .._json_text import holds_lone_surrogate, is_sendable
from .._vocabulary import AskUserQuestionAnswer, WireModel

__all__ = [
    "KERNEL_MESSAGE",
    "PROTOCOL_VERSION",
    "VIEW_MESSAGE",
    "AnswerMessage",
    "CancelMessage",
    "CardsMessage",
    "ClaimMessage",
    "ErrorMessage",
    "FrameMessage",
    "HeartbeatMessage",
    "HelloMessage",
    "HoldMessage",
    "KernelMessage",
    "ReleaseMessage",
    "RemoveRuleMessage",
    "TimedOutMessage",
    "ViewErrorCode",
    "ViewMessage",
    "is_sendable",
    "sendable",
    "view_error_code",
]

PROTOCOL_VERSION: Final = 2
"""Bumped on any incompatible change of a message or of the card wire shape."""

_Key = Annotated[str, Field(min_length=1)]
_ViewId = Annotated[str, Field(min_length=1, max_length=128)]


class _Message(WireModel):
    protocol_version: int = PROTOCOL_VERSION

    @field_validator("protocol_version")
    @classmethod
    def _same_version(cls, value: int) -> int:
        if value != PROTOCOL_VERSION:
            raise ValueError(f"protocol version {value} is not supported (need {PROTOCOL_VERSION})")
        return value


def sendable(text: str) -> str:
    """``text`` with every character UTF-8 cannot carry written as an escape (``\\ud800``)."""
    return text if is_sendable(text) else text.encode("utf-8", "backslashreplace").decode("utf-8")


class _FromView(_Message):
    protocol_version: int
    """Required from views (the kernel fills it in on its own messages)."""
    view_id: _ViewId
    """Random per view instance; tells views of the same model apart."""

    @model_validator(mode="before")
    @classmethod
    def _valid_unicode(cls, data: object) -> object:
        # JSON may carry a lone surrogate (``"\ud800"``); no reply could echo it.
        if holds_lone_surrogate(data):
            raise ValueError("text must be valid Unicode (no lone surrogates)")
        return data


class HelloMessage(_FromView):
    """A view was mounted."""

    kind: Literal["hello"] = "hello"


class AnswerMessage(_FromView):
    """The person submitted a card: the whole batch, one item per question in request order."""

    kind: Literal["answer"] = "answer"
    key: _Key
    answer: AskUserQuestionAnswer


class CancelMessage(_FromView):
    """An un-keyed card was closed: the panel rejects the request with ``ASK_CANCELLED``."""

    kind: Literal["cancel"] = "cancel"
    key: _Key


class ClaimMessage(_FromView):
    """A pending timed card is shown by this view: hold the host's wait and send a frame."""

    kind: Literal["claim"] = "claim"
    key: _Key


class ReleaseMessage(_FromView):
    """This view stopped showing a timed card (closed, settled, removed or view gone)."""

    kind: Literal["release"] = "release"
    key: _Key


class TimedOutMessage(_FromView):
    """The countdown reached zero while not held: the panel rejects with ``ASK_TIMED_OUT``."""

    kind: Literal["timed_out"] = "timed_out"
    key: _Key


class HoldMessage(_FromView):
    """The person holds a pending timed card (Take time, or started answering): every view
    waits for them; the card's ``held`` says so in the synced state."""

    kind: Literal["hold"] = "hold"
    key: _Key


class HeartbeatMessage(_FromView):
    """Sent every 5 s while the view claims at least one card; lists every key it claims."""

    kind: Literal["heartbeat"] = "heartbeat"
    keys: list[_Key]


class RemoveRuleMessage(_FromView):
    """ipyask extension: the person removes an approval rule from the panel's list of the rules
    in force (``ruleId`` as the panel's ``approval_rules`` names it)."""

    kind: Literal["remove_rule"] = "remove_rule"
    rule_id: _Key


ViewMessage = Annotated[
    HelloMessage
    | AnswerMessage
    | CancelMessage
    | ClaimMessage
    | ReleaseMessage
    | TimedOutMessage
    | HeartbeatMessage
    | HoldMessage
    | RemoveRuleMessage,
    Field(discriminator="kind"),
]
"""Any view → kernel message."""


class FrameMessage(_Message):
    """Remaining time of a timed card's host wait; the view counts down from ``remainingMs``."""

    kind: Literal["frame"] = "frame"
    key: _Key
    remaining_ms: int = Field(ge=0)
    seq: int = Field(ge=0)
    """Same numbering as the card's stored ``frame``; a view anchors each ``seq`` once."""


ViewErrorCode = Literal[
    "BAD_MESSAGE",
    "INTERNAL_ERROR",
    "UNKNOWN_CARD",
    "NOT_PENDING",
    "NOT_TIMED",
    "HELD",
    "KEYED_CARD",
    "BAD_ANSWER",
    "ALREADY_ANSWERED",
    "NOT_ANSWERABLE",
    "NOT_SAVED_YET",
    "REPLY_QUEUED",
    "CALLER_NOT_LIVE",
    "DELEGATED_CALLER",
    "NOT_ASSIGNEE",
]
"""Every ``code`` of an ``error`` message to the views, each explained in ``docs/protocol.md``."""

_VIEW_ERROR_CODES: Final[frozenset[str]] = frozenset(get_args(ViewErrorCode))


def view_error_code(code: object) -> ViewErrorCode:
    """``code`` if it is a :data:`ViewErrorCode`, else ``INTERNAL_ERROR``."""
    if isinstance(code, str) and code in _VIEW_ERROR_CODES:
        return code  # type: ignore[return-value]  # checked against the Literal's values
    return "INTERNAL_ERROR"


MAX_ERROR_TEXT: Final = 400
"""An error's ``message`` is shortened to this many characters: it may quote what a view sent
(a label, a key), and a person reads it on the card."""


class ErrorMessage(_Message):
    """Something the view sent failed; shown on the card (or the widget) and controls re-armed."""

    kind: Literal["error"] = "error"
    code: ViewErrorCode
    message: str
    key: str | None = None
    """The card concerned; ``None`` for a widget-level error."""
    view_id: str | None = None
    """Only that view shows the error; ``None`` for every view."""
    question_id: str | None = None
    """The question of the card whose answer was refused, when known."""
    fields: dict[str, str] | None = None
    """What is wrong per field of that question's answer (a form field, or a tool argument's
    slash path; ``""`` for the whole answer). Sent for tool-approval and form answers."""
    field_texts: dict[Literal["en", "zh"], dict[str, str]] | None = None
    """``fields`` written in each language: a view shows those of its own language (the
    kernel cannot choose: a panel's language may be the page's, which only the page knows)."""

    @field_validator("message")
    @classmethod
    def _shortened(cls, text: str) -> str:
        if len(text) <= MAX_ERROR_TEXT:
            return text
        half = (MAX_ERROR_TEXT - 1) // 2
        return f"{text[:half]}…{text[-half:]}"


class CardsMessage(_Message):
    """Cards changed: the fast path of the ``cards`` state, which follows a moment later.

    ``upsert`` cards (wire form) replace the card with the same key in place, or are appended;
    ``remove`` lists keys removed. ``rev`` is the revision of the ``cards`` state this change
    leads to: a view applies it over any synced state of a lower ``rev`` and drops it once the
    state reaches ``rev``.
    """

    kind: Literal["cards"] = "cards"
    rev: int = Field(ge=1)
    upsert: list[dict[str, Any]] = Field(default_factory=list)
    remove: list[str] = Field(default_factory=list)


KernelMessage = Annotated[FrameMessage | ErrorMessage | CardsMessage, Field(discriminator="kind")]
"""Any kernel → view message."""

VIEW_MESSAGE: Final[TypeAdapter[ViewMessage]] = TypeAdapter(ViewMessage)
KERNEL_MESSAGE: Final[TypeAdapter[KernelMessage]] = TypeAdapter(KernelMessage)
