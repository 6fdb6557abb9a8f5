"""ipyask: let an AI agent in a Jupyter kernel ask a human structured questions and approvals.

The top level holds what a notebook user and an agent author need; a harness that hosts agents
finds session events, the projection, clocks and tool plumbing in :mod:`ipyask.host`.
"""

from . import host as host  # the host-side vocabulary, as ipyask.host
from ._agents import Agent
from ._connection import Connection, connect
from ._errors import AskCancelledError, ErrorCode, UserQuestionError
from ._followups import after_answer
from ._service import UserQuestions
from ._tool import AskUserQuestionTool
from ._version import __version__
from ._vocabulary import (
    ApprovalDisplay,
    ApprovalIntent,
    ApprovalSubject,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    PendingAnswer,
    PlanReviewIntent,
)
from ._waterfall import Answerer, Next
from .bridge import QuestionPanel
from .bridge._blocking import BlockingUnsupportedError, approve_blocking, ask_blocking
from .bridge._quick import approve, ask, default_panel, default_service, show_panel

__all__ = [
    "Agent",
    "Answerer",
    "ApprovalDisplay",
    "ApprovalIntent",
    "ApprovalSubject",
    "AskCancelledError",
    "AskUserQuestionAnswer",
    "AskUserQuestionAnswerItem",
    "AskUserQuestionItem",
    "AskUserQuestionOption",
    "AskUserQuestionRequest",
    "AskUserQuestionTool",
    "BlockingUnsupportedError",
    "Connection",
    "ErrorCode",
    "Next",
    "PendingAnswer",
    "PlanReviewIntent",
    "QuestionPanel",
    "UserQuestionError",
    "UserQuestions",
    "__version__",
    "after_answer",
    "approve",
    "approve_blocking",
    "ask",
    "ask_blocking",
    "connect",
    "default_panel",
    "default_service",
    "show_panel",
]
