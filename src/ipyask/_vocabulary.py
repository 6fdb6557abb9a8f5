"""The user-questions vocabulary: options, intents, questions, requests and answers.

Python attributes are snake_case; the wire form (JSON and dict input) is the specification's
camelCase (``multiSelect``, ``callId``, ``remainingMs``). ``model_dump(by_alias=True,
exclude_none=True)`` — or :func:`to_wire` — gives the wire form; ``model_validate`` accepts it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Discriminator, Field, Tag, model_validator

from . import _wire
from ._abort import AbortSignal
from ._agents import Agent
from ._json_text import holds_lone_surrogate
from ._wire import AskUserQuestionAnswerItem, AskUserQuestionOption, WireModel, to_wire
from .kinds import KINDS
from .kinds.approval import ApprovalDisplay, ApprovalIntent, ApprovalSubject, LocalizedText
from .kinds.form import FormIntent
from .kinds.plan_review import PlanReviewIntent
from .kinds.tool_approval import ToolApprovalIntent, ToolCall

__all__ = [
    "ApprovalDisplay",
    "ApprovalIntent",
    "ApprovalSubject",
    "AskUserQuestionAnswer",
    "AskUserQuestionAnswerItem",
    "AskUserQuestionIntent",
    "AskUserQuestionItem",
    "AskUserQuestionOption",
    "AskUserQuestionRequest",
    "FormIntent",
    "LocalizedText",
    "PendingAnswer",
    "PlanReviewIntent",
    "QuestionWait",
    "TimedUserQuestionResult",
    "ToolApprovalIntent",
    "ToolCall",
    "UnknownIntent",
    "WaitFrame",
    "WireModel",
    "to_wire",
]


_FIELD_NAMES = _wire.FIELD_NAME_SETS
_MAX_FIELD_NAME_SETS = _wire.MAX_FIELD_NAME_SETS
"""A bound for models whose names come from their input (``extra="allow"``)."""


class UnknownIntent(WireModel):
    """An intent kind this version does not know: kept verbatim, presented as the generic flow."""

    model_config = ConfigDict(extra="allow")

    kind: str

    def model_post_init(self, context: Any, /) -> None:
        # Its field names come from its input: bounded by this module's table.
        _wire.share_field_names(self, _FIELD_NAMES, _MAX_FIELD_NAME_SETS)


def _intent_tag(value: Any) -> str:
    kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
    return kind if kind in _KNOWN_KINDS else "unknown"


_KNOWN_KINDS = tuple(name for name, kind in KINDS.items() if kind.intent is not None)
"""The intent kinds this version knows (:data:`ipyask.kinds.KINDS`)."""

AskUserQuestionIntent = Annotated[
    Annotated[PlanReviewIntent, Tag("plan-review")]
    | Annotated[ApprovalIntent, Tag("approval")]
    | Annotated[ToolApprovalIntent, Tag("tool-approval")]
    | Annotated[FormIntent, Tag("form")]
    | Annotated[UnknownIntent, Tag("unknown")],
    Discriminator(_intent_tag),
]
"""A presentation intent, discriminated by ``kind``; unknown kinds are kept, never rejected."""


class AskUserQuestionItem(WireModel):
    """One question in a request."""

    id: str
    """Stable caller-provided id, echoed in the answer."""
    question: str
    detail: str | None = None
    """Supporting Markdown rendered with the question, never inside option labels."""
    header: str | None = None
    """A short heading or group label."""
    options: list[AskUserQuestionOption] | None = None
    multi_select: bool | None = None
    """Whether more than one option may be chosen; absent means single-select."""
    intent: AskUserQuestionIntent | None = None


class QuestionWait(WireModel):
    """How a request waits: keyed by ``call_id``; ``timed`` for a bounded foreground wait."""

    call_id: str = Field(min_length=1)
    timed: bool | None = None


class AskUserQuestionRequest(WireModel):
    """A request to the answerer waterfall.

    ``agent`` and ``signal`` are live objects, never part of the wire form. A request with an
    agent and a ``callId`` (:attr:`durable_call_id`) but no ``wait`` is a durable ask: it is
    recorded in the agent's session, and asking again with the same ``callId`` reuses the record.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    questions: list[AskUserQuestionItem]
    wait: QuestionWait | None = None
    durable_call_id: str | None = Field(default=None, alias="callId", min_length=1)
    """The tool call a durable ask belongs to (wire ``callId``)."""
    request_id: str | None = None
    """The durable record's id, set on the request the waterfall receives for a durable ask."""
    assignee: str | None = Field(default=None, min_length=1)
    """ipyask extension: the one person (a Jupyter user's name, or an OS user's) who may answer
    a durable ask through a claim; everyone sees the question."""
    agent: Agent | None = Field(default=None, exclude=True)
    signal: AbortSignal | None = Field(default=None, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _valid_unicode(cls, data: object) -> object:
        # A lone surrogate ("\ud800") is text no card, message or store can carry: refused
        # here, with the reason, rather than failing later where the text is written.
        if isinstance(data, dict) and holds_lone_surrogate(data):
            raise ValueError(
                "the request's text holds a lone surrogate (such as '\\ud800'), which is not "
                "valid Unicode and cannot be shown or stored: remove it or replace it"
            )
        return data

    @property
    def call_id(self) -> str | None:
        """The card key, when the request has one: the wait's call id, else the durable one."""
        return self.wait.call_id if self.wait is not None else self.durable_call_id

    @property
    def durable(self) -> bool:
        """Whether this is a durable ask (an agent, a ``callId``, no ``wait``)."""
        return self.agent is not None and self.durable_call_id is not None and self.wait is None

    @property
    def timed(self) -> bool:
        """Whether this is a timed foreground wait."""
        return bool(self.wait is not None and self.wait.timed)


class AskUserQuestionAnswer(WireModel):
    """One answer item per question id."""

    answers: list[AskUserQuestionAnswerItem]


class PendingAnswer(WireModel):
    """A timed question that got no answer batch in its window. It can still be answered.

    Pending is not an empty answer, a refusal, a confirmation or an authorization.
    """

    pending: Literal[True] = True
    call_id: str


TimedUserQuestionResult = AskUserQuestionAnswer | PendingAnswer


class WaitFrame(WireModel):
    """One frame of :meth:`UserQuestions.attach_wait`: the host-computed remaining time."""

    remaining_ms: int
