"""ipyask: let an AI agent in a Jupyter kernel ask a human structured questions and approvals."""

from ._abort import AbortController, AbortError, AbortSignal
from ._agents import Agent, AgentRegistry
from ._clock import Clock, LoopClock
from ._errors import AskCancelledError, ErrorCode, HarnessError, UserQuestionError, restore_error
from ._events import (
    MessageSource,
    OtherEvent,
    PtcDispatchEvent,
    RequestHeaderEvent,
    SessionEvent,
    ToolCallEvent,
    ToolErrorInfo,
    ToolResultEvent,
    TurnEndEvent,
    TurnStartEvent,
    UserMessageEvent,
)
from ._followups import after_answer
from ._projection import (
    PendingUserQuestion,
    SettledUserQuestion,
    UserQuestionProjectionView,
    UserQuestionState,
)
from ._service import UserQuestions
from ._session import Session, UserMessage
from ._settlement import Settlement
from ._timed_wait import TimedQuestionWait
from ._tool import (
    PENDING_NOTICE,
    AskUserQuestionTool,
    ToolDefinition,
    ToolResult,
    ask_user_question_definition,
)
from ._version import __version__
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
    PendingAnswer,
    PlanReviewIntent,
    QuestionWait,
    TimedUserQuestionResult,
    UnknownIntent,
    WaitFrame,
)
from ._waterfall import Answerer, Next
from .bridge import QuestionPanel
from .bridge._blocking import BlockingUnsupportedError, approve_blocking, ask_blocking
from .bridge._quick import approve, ask, default_panel, default_service, show_panel

__all__ = [
    "PENDING_NOTICE",
    "AbortController",
    "AbortError",
    "AbortSignal",
    "Agent",
    "AgentRegistry",
    "Answerer",
    "ApprovalDisplay",
    "ApprovalIntent",
    "ApprovalSubject",
    "AskCancelledError",
    "AskUserQuestionAnswer",
    "AskUserQuestionAnswerItem",
    "AskUserQuestionIntent",
    "AskUserQuestionItem",
    "AskUserQuestionOption",
    "AskUserQuestionRequest",
    "AskUserQuestionTool",
    "BlockingUnsupportedError",
    "Clock",
    "ErrorCode",
    "HarnessError",
    "LoopClock",
    "MessageSource",
    "Next",
    "OtherEvent",
    "PendingAnswer",
    "PendingUserQuestion",
    "PlanReviewIntent",
    "PtcDispatchEvent",
    "QuestionPanel",
    "QuestionWait",
    "RequestHeaderEvent",
    "Session",
    "SessionEvent",
    "SettledUserQuestion",
    "Settlement",
    "TimedQuestionWait",
    "TimedUserQuestionResult",
    "ToolCallEvent",
    "ToolDefinition",
    "ToolErrorInfo",
    "ToolResult",
    "ToolResultEvent",
    "TurnEndEvent",
    "TurnStartEvent",
    "UnknownIntent",
    "UserMessage",
    "UserMessageEvent",
    "UserQuestionError",
    "UserQuestionProjectionView",
    "UserQuestionState",
    "UserQuestions",
    "WaitFrame",
    "__version__",
    "after_answer",
    "approve",
    "approve_blocking",
    "ask",
    "ask_blocking",
    "ask_user_question_definition",
    "default_panel",
    "default_service",
    "restore_error",
    "show_panel",
]
