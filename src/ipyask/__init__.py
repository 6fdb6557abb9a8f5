"""ipyask: let an AI agent in a Jupyter kernel ask a human structured questions and approvals.

The top level holds what a notebook user and an agent author need: the verbs (``ask``,
``approve``, ``approve_tool``, ``form``, ``ask_batch`` and their blocking forms), the objects to
build (``UserQuestions``, ``QuestionPanel``, ``Agent``, ``AskUserQuestionTool``, ``Rules``), what
the verbs return, and the two errors to catch. The rest has one home each:

- :mod:`ipyask.protocol`: the wire (request and answer models, cards, view messages, codes);
- :mod:`ipyask.errors`: every exception, with the tree drawn;
- :mod:`ipyask.host`: what a harness that hosts agents needs beyond asking;
- :mod:`ipyask.store`, :mod:`ipyask.testing`, :mod:`ipyask.integrations`, :mod:`ipyask.widget`.

Every name is imported on first use (``_PUBLIC`` below is the one list of them), so
``import ipyask`` loads neither pydantic nor the notebook side (ipywidgets, IPython): an agent
in a plain process (``ipyask.connect``) starts without them.
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what _PUBLIC names, for type checkers (tests/test_public_api.py compares)
    from ._agents import Agent as Agent
    from ._connection import Connection as Connection
    from ._connection import connect as connect
    from ._decisions import FormResult as FormResult
    from ._decisions import ToolDecision as ToolDecision
    from ._rules import Rules as Rules
    from ._service import UserQuestions as UserQuestions
    from ._tool import AskUserQuestionTool as AskUserQuestionTool
    from ._version import __version__ as __version__
    from ._vocabulary import PendingAnswer as PendingAnswer
    from .bridge import (
        Diagnosis as Diagnosis,
    )
    from .bridge import (
        QuestionPanel as QuestionPanel,
    )
    from .bridge import (
        approve as approve,
    )
    from .bridge import (
        approve_blocking as approve_blocking,
    )
    from .bridge import (
        approve_tool as approve_tool,
    )
    from .bridge import (
        approve_tool_blocking as approve_tool_blocking,
    )
    from .bridge import (
        ask as ask,
    )
    from .bridge import (
        ask_batch as ask_batch,
    )
    from .bridge import (
        ask_blocking as ask_blocking,
    )
    from .bridge import (
        default_panel as default_panel,
    )
    from .bridge import (
        default_rules as default_rules,
    )
    from .bridge import (
        default_service as default_service,
    )
    from .bridge import (
        diagnose as diagnose,
    )
    from .bridge import (
        form as form,
    )
    from .bridge import (
        form_blocking as form_blocking,
    )
    from .bridge import (
        inbox as inbox,
    )
    from .bridge import (
        show_panel as show_panel,
    )
    from .errors import AskCancelledError as AskCancelledError
    from .errors import UserQuestionError as UserQuestionError

_PUBLIC = {
    # asking on the notebook's default panel
    "ask": ".bridge",
    "approve": ".bridge",
    "approve_tool": ".bridge",
    "form": ".bridge",
    "ask_batch": ".bridge",
    "ask_blocking": ".bridge",
    "approve_blocking": ".bridge",
    "approve_tool_blocking": ".bridge",
    "form_blocking": ".bridge",
    "show_panel": ".bridge",
    "default_service": ".bridge",
    "default_panel": ".bridge",
    "default_rules": ".bridge",
    "inbox": ".bridge",
    "diagnose": ".bridge",
    "Diagnosis": ".bridge",
    "QuestionPanel": ".bridge",
    # an agent in any process
    "connect": "._connection",
    "Connection": "._connection",
    "UserQuestions": "._service",
    "Agent": "._agents",
    "AskUserQuestionTool": "._tool",
    "Rules": "._rules",
    # what the verbs return, and the errors to catch
    "PendingAnswer": "._vocabulary",
    "ToolDecision": "._decisions",
    "FormResult": "._decisions",
    "UserQuestionError": ".errors",
    "AskCancelledError": ".errors",
    "__version__": "._version",
}
"""Every top-level name and the module it comes from: drives ``__getattr__``, ``__dir__`` and
``__all__``."""

_MOVED = {
    # the request and answer vocabulary
    "ApprovalDisplay": "ipyask.protocol",
    "ApprovalIntent": "ipyask.protocol",
    "ApprovalSubject": "ipyask.protocol",
    "AskUserQuestionAnswer": "ipyask.protocol",
    "AskUserQuestionAnswerItem": "ipyask.protocol",
    "AskUserQuestionItem": "ipyask.protocol",
    "AskUserQuestionOption": "ipyask.protocol",
    "AskUserQuestionRequest": "ipyask.protocol",
    "FormIntent": "ipyask.protocol",
    "PlanReviewIntent": "ipyask.protocol",
    "ToolApprovalIntent": "ipyask.protocol",
    "ToolCall": "ipyask.protocol",
    # exceptions and codes
    "BadAnswerError": "ipyask.errors",
    "BlockingUnsupportedError": "ipyask.errors",
    "ErrorCode": "ipyask.errors",
    "RulesError": "ipyask.errors",
    # answerers, follow-ups, rule records, reading answer items
    "Answerer": "ipyask.host",
    "Next": "ipyask.host",
    "after_answer": "ipyask.host",
    "AppliedRule": "ipyask.host",
    "Rule": "ipyask.host",
    "RuleDecision": "ipyask.host",
    "form_result": "ipyask.host",
    "tool_decision": "ipyask.host",
}
"""Top-level names of the previous release and their new home: importable from here, with a
DeprecationWarning, until the next release."""

_SUBMODULES = frozenset({"errors", "host", "protocol"})
"""The homes of the moved names: ``ipyask.host.X`` works after ``import ipyask`` alone."""


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name], __name__), name)
        globals()[name] = value  # found directly from now on
        return value
    if name in _MOVED:
        home = _MOVED[name]
        warnings.warn(
            f"ipyask.{name} is deprecated and will be removed in the next release: "
            f"import it from {home} (from {home} import {name})",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(home), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'ipyask' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    # Jupyter Server's entry point (enabled by the wheel's jupyter_server_config.d/ipyask.json):
    # the inbox page, ipyask.inbox_page (docs/inbox-page.md).
    from .inbox_page import _jupyter_server_extension_points as inbox_page_points

    return inbox_page_points()


__all__ = sorted(_PUBLIC)
