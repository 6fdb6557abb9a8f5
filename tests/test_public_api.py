"""Every public module of ipyask lists exactly its public names in ``__all__``.

A module is public when no part of its dotted name starts with an underscore. Names a module
imports from other packages for its own use (modules, ``typing``, ``contextlib``) are not public.
"""

from __future__ import annotations
import __future__

import importlib
import pkgutil
import subprocess
import sys
import types
import typing

import pytest

import ipyask

TOP_LEVEL = {
    # What a notebook user and an agent author need: asking, answering, the panel, the request
    # and answer vocabulary, errors. Host plumbing lives in ipyask.host.
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
    "Diagnosis",
    "Connection",
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
    "form",
    "form_blocking",
    "form_result",
    "diagnose",
    "inbox",
    "show_panel",
    "tool_decision",
}


def public_modules() -> list[str]:
    names = ["ipyask"]
    for info in pkgutil.walk_packages(ipyask.__path__, "ipyask."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return names


def own_names(module: types.ModuleType) -> set[str]:
    """Public names bound in the module, less what it imported for its own use."""
    names = set()
    for name, value in vars(module).items():
        if name.startswith("_") or isinstance(value, (types.ModuleType, __future__._Feature)):
            continue
        if value is typing.TYPE_CHECKING or value is typing.Any:
            continue
        home = getattr(value, "__module__", None)
        if isinstance(home, str) and not home.startswith("ipyask"):
            continue  # imported from elsewhere for the module's own use
        names.add(name)
    return names


def test_the_public_modules_are_known() -> None:
    assert {"ipyask", "ipyask.host", "ipyask.testing", "ipyask.widget", "ipyask.bridge"} <= set(
        public_modules()
    )


@pytest.mark.parametrize("name", public_modules())
def test_all_lists_exactly_the_public_names(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(module.__all__)
    assert len(exported) == len(set(exported)), "__all__ lists a name twice"
    for export in exported:
        getattr(module, export)  # every exported name resolves (lazy ones included)
    assert own_names(module) - {"__version__"} <= set(exported)


def test_the_top_level_holds_what_users_and_agent_authors_need() -> None:
    assert set(ipyask.__all__) == TOP_LEVEL


def test_host_side_vocabulary_lives_in_ipyask_host() -> None:
    assert not set(ipyask.__all__) & set(ipyask.host.__all__)
    assert {"SessionEvent", "Session", "UserQuestionProjectionView", "ToolDefinition"} <= set(
        ipyask.host.__all__
    )


def test_importing_ipyask_does_not_load_the_notebook_side() -> None:
    """An agent in a plain process (``ipyask.connect``) starts without ipywidgets and IPython;
    the notebook names load on first use."""
    code = (
        "import sys, ipyask\n"
        "loaded = sorted(m for m in ('ipywidgets', 'IPython', 'anywidget') if m in sys.modules)\n"
        "assert not loaded, loaded\n"
        "assert callable(ipyask.ask) and 'ipywidgets' in sys.modules\n"
        "assert 'QuestionPanel' in dir(ipyask)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
