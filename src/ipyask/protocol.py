"""The wire: every shape that crosses between an agent, the kernel and a card's view.

- the request and its answer: :class:`AskUserQuestionRequest` (questions, options, intents) and
  :class:`AskUserQuestionAnswer` (one item per question), as agents and answerers exchange them;
- the card the kernel shows for a request (:class:`Card`, its presentation per intent) and the
  custom messages between the panel and its views (:data:`KernelMessage`, :data:`ViewMessage`,
  :data:`PROTOCOL_VERSION`), documented in ``docs/protocol.md``;
- the codes: :data:`ErrorCode` (a failed question) and :data:`ViewErrorCode` (what the panel
  answers a view whose message it refuses).

Everything here is a pydantic model or a type of one, named as the JSON names it.
"""

from ._vocabulary import (
    ApprovalDisplay,
    ApprovalIntent,
    ApprovalSubject,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionIntent,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    FormIntent,
    PlanReviewIntent,
    ToolApprovalIntent,
    ToolCall,
    UnknownIntent,
)
from .errors import ErrorCode
from .widget import _wire_shapes
from .widget._wire_shapes import *  # noqa: F403  (the card models and the messages)

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
    "ErrorCode",
    "FormIntent",
    "PlanReviewIntent",
    "ToolApprovalIntent",
    "ToolCall",
    "UnknownIntent",
]
__all__ += _wire_shapes.__all__
