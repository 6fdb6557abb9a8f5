"""Host-side vocabulary of the seam: what a harness that hosts agents needs beyond asking.

A notebook user and an agent author find what they need at the top level of :mod:`ipyask`. A
host (the program that runs agents, keeps their sessions and shows questions) also needs the
session events the seam reads and appends, the projection of a session's questions, timed-wait
plumbing, the tool's definition and result types, clocks, and abort signals: they live here.
"""

from ._abort import AbortController, AbortError, AbortSignal
from ._agents import AgentRegistry
from ._clock import Clock, LoopClock
from ._errors import HarnessError, restore_error
from ._events import (
    MessageSource,
    OtherEvent,
    PtcDispatchEvent,
    QuestionAnsweredEvent,
    QuestionAskedEvent,
    RequestHeaderEvent,
    SessionEvent,
    ToolCallEvent,
    ToolErrorInfo,
    ToolResultEvent,
    TurnEndEvent,
    TurnStartEvent,
    UserMessageEvent,
)
from ._projection import (
    PendingUserQuestion,
    SettledUserQuestion,
    UserQuestionProjectionView,
    UserQuestionState,
)
from ._session import Session, UserMessage
from ._settlement import Settlement
from ._timed_wait import TimedQuestionWait
from ._tool import PENDING_NOTICE, ToolDefinition, ToolResult, ask_user_question_definition
from ._vocabulary import (
    AskUserQuestionIntent,
    QuestionWait,
    TimedUserQuestionResult,
    UnknownIntent,
    WaitFrame,
)

__all__ = [
    "PENDING_NOTICE",
    "AbortController",
    "AbortError",
    "AbortSignal",
    "AgentRegistry",
    "AskUserQuestionIntent",
    "Clock",
    "HarnessError",
    "LoopClock",
    "MessageSource",
    "OtherEvent",
    "PendingUserQuestion",
    "PtcDispatchEvent",
    "QuestionAnsweredEvent",
    "QuestionAskedEvent",
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
    "UserQuestionProjectionView",
    "UserQuestionState",
    "WaitFrame",
    "ask_user_question_definition",
    "restore_error",
]
