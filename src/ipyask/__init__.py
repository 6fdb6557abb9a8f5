"""ipyask: let an AI agent in a Jupyter kernel ask a human structured questions and approvals.

The top level holds what a notebook user and an agent author need; a harness that hosts agents
finds session events, the projection, clocks and tool plumbing in :mod:`ipyask.host`.
"""

from typing import TYPE_CHECKING, Any

from . import host as host  # the host-side vocabulary, as ipyask.host
from ._agents import Agent
from ._connection import Connection, connect
from ._decisions import FormResult, ToolDecision, form_result, tool_decision
from ._followups import after_answer
from ._rules import AppliedRule, Rule, RuleDecision, Rules, RulesError
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
    FormIntent,
    PendingAnswer,
    PlanReviewIntent,
    ToolApprovalIntent,
    ToolCall,
)
from ._waterfall import Answerer, Next
from .errors import AskCancelledError, BadAnswerError, ErrorCode, UserQuestionError

if TYPE_CHECKING:
    from .bridge import (
        BlockingUnsupportedError,
        Diagnosis,
        QuestionPanel,
        approve,
        approve_blocking,
        approve_tool,
        approve_tool_blocking,
        ask,
        ask_batch,
        ask_blocking,
        default_panel,
        default_rules,
        default_service,
        diagnose,
        form,
        form_blocking,
        inbox,
        show_panel,
    )

# The notebook side (panel, widget, one-liners) imports ipywidgets and IPython: loaded on first
# use, so an agent in a plain process (``ipyask.connect``) starts without them.
_BRIDGE_NAMES = frozenset(
    {
        "BlockingUnsupportedError",
        "Diagnosis",
        "QuestionPanel",
        "approve",
        "approve_blocking",
        "approve_tool",
        "approve_tool_blocking",
        "ask",
        "ask_batch",
        "ask_blocking",
        "default_panel",
        "default_rules",
        "default_service",
        "diagnose",
        "form",
        "form_blocking",
        "inbox",
        "show_panel",
    }
)


def __getattr__(name: str) -> Any:
    if name in _BRIDGE_NAMES:
        from . import bridge

        value = getattr(bridge, name)
        globals()[name] = value  # found directly from now on
        return value
    raise AttributeError(f"module 'ipyask' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_BRIDGE_NAMES})


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    # Jupyter Server's entry point (enabled by the wheel's jupyter_server_config.d/ipyask.json):
    # the inbox page, ipyask.inbox_page (docs/inbox-page.md).
    from .inbox_page import _jupyter_server_extension_points as inbox_page_points

    return inbox_page_points()


__all__ = [
    "Agent",
    "Answerer",
    "AppliedRule",
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
    "BadAnswerError",
    "BlockingUnsupportedError",
    "Connection",
    "Diagnosis",
    "ErrorCode",
    "FormIntent",
    "FormResult",
    "Next",
    "PendingAnswer",
    "PlanReviewIntent",
    "QuestionPanel",
    "Rule",
    "RuleDecision",
    "Rules",
    "RulesError",
    "ToolApprovalIntent",
    "ToolCall",
    "ToolDecision",
    "UserQuestionError",
    "UserQuestions",
    "__version__",
    "after_answer",
    "approve",
    "approve_blocking",
    "approve_tool",
    "approve_tool_blocking",
    "ask",
    "ask_batch",
    "ask_blocking",
    "connect",
    "default_panel",
    "default_rules",
    "default_service",
    "diagnose",
    "form",
    "form_blocking",
    "form_result",
    "inbox",
    "show_panel",
    "tool_decision",
]
