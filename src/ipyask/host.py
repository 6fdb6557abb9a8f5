"""Host-side vocabulary of the seam: what a harness that hosts agents needs beyond asking.

A notebook user and an agent author find what they need at the top level of :mod:`ipyask`. A
host (the program that runs agents, keeps their sessions and shows questions) also needs the
session events the seam reads and appends, the projection of a session's questions, timed-wait
plumbing, the tool's definition and result types, clocks, abort signals, the answerers of the
waterfall (``Answerer``, ``Next``, ``after_answer``), the approval rules' records (``Rule``,
``RuleDecision``, ``AppliedRule``) and the readers of answer items (``tool_decision``,
``form_result``): they live here. The wire models live in :mod:`ipyask.protocol`; the
exceptions, ``HarnessError`` and ``AbortError`` included, in :mod:`ipyask.errors`.
"""

from typing import Any

from ._abort import AbortController, AbortSignal
from ._agents import AgentRegistry
from ._clock import Clock, LoopClock
from ._decisions import (
    answer_errors,
    form_answer_item,
    form_result,
    tool_answer_item,
    tool_decision,
)
from ._errors import restore_error
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
from ._followups import after_answer
from ._form_schema import (
    BooleanField,
    EnumOption,
    FormField,
    FormSchema,
    MultiSelectField,
    NumberField,
    SelectField,
    StringField,
    form_value_errors,
    parse_form_schema,
)
from ._json_schema import json_schema_errors
from ._projection import (
    PendingUserQuestion,
    SettledUserQuestion,
    UserQuestionProjectionView,
    UserQuestionState,
)
from ._rich_questions import DECISION_LABELS, FORM_LABELS, form_question, tool_approval_question
from ._rules import AppliedRule, Rule, RuleDecision
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
from ._waterfall import Answerer, Next

__all__ = [
    "DECISION_LABELS",
    "FORM_LABELS",
    "PENDING_NOTICE",
    "AbortController",
    "AbortSignal",
    "AgentRegistry",
    "Answerer",
    "AppliedRule",
    "AskUserQuestionIntent",
    "BooleanField",
    "Clock",
    "EnumOption",
    "FormField",
    "FormSchema",
    "LoopClock",
    "MessageSource",
    "MultiSelectField",
    "Next",
    "NumberField",
    "OtherEvent",
    "PendingUserQuestion",
    "PtcDispatchEvent",
    "QuestionAnsweredEvent",
    "QuestionAskedEvent",
    "QuestionWait",
    "RequestHeaderEvent",
    "Rule",
    "RuleDecision",
    "SelectField",
    "Session",
    "SessionEvent",
    "SettledUserQuestion",
    "Settlement",
    "StringField",
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
    "after_answer",
    "answer_errors",
    "ask_user_question_definition",
    "form_answer_item",
    "form_question",
    "form_result",
    "form_value_errors",
    "json_schema_errors",
    "parse_form_schema",
    "restore_error",
    "tool_answer_item",
    "tool_approval_question",
    "tool_decision",
]


def __getattr__(name: str) -> Any:
    # The exceptions exported here until ipyask.errors held every one: ipyask._MOVED lists them.
    from . import _moved

    return _moved(__name__, name)
