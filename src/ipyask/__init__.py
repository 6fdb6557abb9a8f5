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
    from ._notebook import (
        Diagnosis as Diagnosis,
    )
    from ._notebook import (
        QuestionPanel as QuestionPanel,
    )
    from ._notebook import (
        approve as approve,
    )
    from ._notebook import (
        approve_blocking as approve_blocking,
    )
    from ._notebook import (
        approve_tool as approve_tool,
    )
    from ._notebook import (
        approve_tool_blocking as approve_tool_blocking,
    )
    from ._notebook import (
        ask as ask,
    )
    from ._notebook import (
        ask_batch as ask_batch,
    )
    from ._notebook import (
        ask_blocking as ask_blocking,
    )
    from ._notebook import (
        default_panel as default_panel,
    )
    from ._notebook import (
        default_rules as default_rules,
    )
    from ._notebook import (
        default_service as default_service,
    )
    from ._notebook import (
        diagnose as diagnose,
    )
    from ._notebook import (
        form as form,
    )
    from ._notebook import (
        form_blocking as form_blocking,
    )
    from ._notebook import (
        inbox as inbox,
    )
    from ._notebook import (
        show_panel as show_panel,
    )
    from ._rules import Rules as Rules
    from ._service import UserQuestions as UserQuestions
    from ._tool import AskUserQuestionTool as AskUserQuestionTool
    from ._version import __version__ as __version__
    from ._vocabulary import PendingAnswer as PendingAnswer
    from .errors import AskCancelledError as AskCancelledError
    from .errors import UserQuestionError as UserQuestionError

_PUBLIC = {
    # asking on the notebook's default panel
    "ask": "._notebook",
    "approve": "._notebook",
    "approve_tool": "._notebook",
    "form": "._notebook",
    "ask_batch": "._notebook",
    "ask_blocking": "._notebook",
    "approve_blocking": "._notebook",
    "approve_tool_blocking": "._notebook",
    "form_blocking": "._notebook",
    "show_panel": "._notebook",
    "default_service": "._notebook",
    "default_panel": "._notebook",
    "default_rules": "._notebook",
    "inbox": "._notebook",
    "diagnose": "._notebook",
    "Diagnosis": "._notebook",
    "QuestionPanel": "._notebook",
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
    # ipyask.host's exceptions
    "host.AbortError": "ipyask.errors",
    "host.FormSchemaError": "ipyask.errors",
    "host.HarnessError": "ipyask.errors",
    # the notebook side, ipyask.bridge before it became the private ipyask._notebook
    "bridge.ask": "ipyask",
    "bridge.approve": "ipyask",
    "bridge.approve_tool": "ipyask",
    "bridge.form": "ipyask",
    "bridge.ask_batch": "ipyask",
    "bridge.ask_blocking": "ipyask",
    "bridge.approve_blocking": "ipyask",
    "bridge.approve_tool_blocking": "ipyask",
    "bridge.form_blocking": "ipyask",
    "bridge.show_panel": "ipyask",
    "bridge.default_service": "ipyask",
    "bridge.default_panel": "ipyask",
    "bridge.default_rules": "ipyask",
    "bridge.inbox": "ipyask",
    "bridge.diagnose": "ipyask",
    "bridge.Diagnosis": "ipyask",
    "bridge.QuestionPanel": "ipyask",
    "bridge.BlockingUnsupportedError": "ipyask.errors",
    "bridge.panel.QuestionPanel": "ipyask",
    "bridge.panel.CellView": "ipyask._notebook.panel",
    "bridge.cell_wait.BlockingUnsupportedError": "ipyask.errors",
    "bridge.cell_wait.HOST_NAMES": "ipyask._notebook.cell_wait",
    "bridge.cell_wait.CellWait": "ipyask._notebook.cell_wait",
    "bridge.cell_wait.Host": "ipyask._notebook.cell_wait",
    "bridge.cell_wait.HostName": "ipyask._notebook.cell_wait",
    "bridge.cell_wait.PanelComm": "ipyask._notebook.cell_wait",
    "bridge.cell_wait.Strategy": "ipyask._notebook.cell_wait",
    "bridge.cell_wait.await_strategy": "ipyask._notebook.cell_wait",
    "bridge.cell_wait.blocking_strategy": "ipyask._notebook.cell_wait",
    "bridge.cell_wait.colab_widget_manager": "ipyask._notebook.cell_wait",
    "bridge.cell_wait.current_kernel": "ipyask._notebook.cell_wait",
    "bridge.cell_wait.detect_host": "ipyask._notebook.cell_wait",
    "bridge.cell_wait.enable_colab_widget_manager": "ipyask._notebook.cell_wait",
    "bridge.cell_wait.front_end_seen": "ipyask._notebook.cell_wait",
    "bridge.cell_wait.marimo_cell": "ipyask._notebook.cell_wait",
    "bridge.cell_wait.share_route": "ipyask._notebook.cell_wait",
}
"""Every name of the previous release that moved, by its old path below ``ipyask`` (a bare name
is a top-level one), and the module that holds it now: importable from the old path, with a
DeprecationWarning, until the next release. A public home is the import to use instead; a
private one (``ipyask._notebook``) means the name was plumbing and nothing public replaces it."""

_SUBMODULES = frozenset({"bridge", "errors", "host", "protocol"})
"""The old and new homes of the moved names: ``ipyask.host.X`` works after ``import ipyask``
alone."""


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name], __name__), name)
        globals()[name] = value  # found directly from now on
        return value
    if name in _MOVED:
        return _moved(__name__, name)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'ipyask' has no attribute {name!r}")


def _moved(module: str, name: str) -> Any:
    """``module.name`` of the previous release, from the module ``_MOVED`` says holds it now,
    with a DeprecationWarning naming the import to use instead (or saying it was private);
    ``AttributeError`` when ``_MOVED`` does not list it. The old module's ``__getattr__``."""
    old = f"{module}.{name}"
    home = _MOVED.get(old.removeprefix(f"{__name__}."))
    if home is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    if any(part.startswith("_") for part in home.split(".")):
        advice = "it is private to ipyask and nothing public replaces it"
    else:
        advice = f"import it from {home} (from {home} import {name})"
    warnings.warn(
        f"{old} is deprecated and will be removed in the next release: {advice}",
        DeprecationWarning,
        stacklevel=3,  # the code that named it, beyond the module's __getattr__
    )
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    # Jupyter Server's entry point (enabled by the wheel's jupyter_server_config.d/ipyask.json):
    # the inbox page, ipyask.inbox_page (docs/inbox-page.md).
    from .inbox_page import _jupyter_server_extension_points as inbox_page_points

    return inbox_page_points()


__all__ = sorted(_PUBLIC)
