"""Every public module of ipyask lists exactly its public names in ``__all__``.

A module is public when no part of its dotted name starts with an underscore. Names a module
imports from other packages for its own use (modules, ``typing``, ``contextlib``) are not public.
"""

from __future__ import annotations
import __future__

import ast
import builtins
import importlib
import pkgutil
import subprocess
import sys
import types
import typing
from pathlib import Path

import pytest

import ipyask
import ipyask.errors

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


ERRORS = {
    # Every exception a user of ipyask can meet or catch, defined in ipyask.errors.
    "AbortError",
    "AskCancelledError",
    "BadAnswerError",
    "BlockingUnsupportedError",
    "ErrorCode",
    "FormSchemaError",
    "HarnessError",
    "InterruptedAskError",
    "NotAssigneeError",
    "RulesError",
    "StoreFault",
    "StoreOpenError",
    "StoreUnavailableError",
    "StoreVersionError",
    "ToolArgumentError",
    "UserQuestionError",
}

PACKAGE = Path(ipyask.__file__).parent
KERNEL_CLIENT = "ipyask.testing._kernel_client"  # the testing tools' own errors, in ipyask.testing
INTERNAL_EXCEPTIONS = {
    # Raised and caught inside ipyask; a user never meets them.
    "ipyask.bridge.panel._view_dispatch.Refused": "the panel answers the view with its code",
    "ipyask.integrations._langgraph_cards.AskAgain": "the LangGraph bridge asks the card again",
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
    known = {"ipyask", "ipyask.host", "ipyask.testing", "ipyask.widget", "ipyask.bridge"}
    assert known | {"ipyask.errors"} <= set(public_modules())


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


def test_ipyask_errors_lists_the_exceptions_and_their_codes() -> None:
    assert set(ipyask.errors.__all__) == ERRORS


def _base_name(base: ast.expr) -> str | None:
    if isinstance(base, ast.Name):
        return base.id
    return base.attr if isinstance(base, ast.Attribute) else None


def exception_classes(sources: dict[str, str]) -> set[str]:
    """``module.Class`` of every module-level class in ``sources`` (module name → source) whose
    bases are exceptions by name: a built-in one, one found here, or any ``…Error`` /
    ``…Exception`` (imported ones included; the caller checks the class itself)."""
    known = {name for name, value in vars(builtins).items() if isinstance(value, type)}
    known = {name for name in known if issubclass(getattr(builtins, name), BaseException)}
    classes = [
        (module, node)
        for module, source in sources.items()
        for node in ast.parse(source).body
        if isinstance(node, ast.ClassDef)
    ]
    found: set[str] = set()
    while True:
        more = {
            (module, node.name)
            for module, node in classes
            if any(
                name is not None and (name in known or name.endswith(("Error", "Exception")))
                for name in map(_base_name, node.bases)
            )
        }
        if {f"{module}.{name}" for module, name in more} <= found:
            return found
        found |= {f"{module}.{name}" for module, name in more}
        known |= {name for _, name in more}


def test_exception_classes_follows_bases_by_name() -> None:
    sources = {
        "m": "class A(ValueError): pass\nclass B(A): pass\nclass Plain: pass\n",
        "n": "class C(B): pass\nclass D(x.SomeError): pass\nclass E(Plain): pass\n",
    }
    assert exception_classes(sources) == {"m.A", "m.B", "n.C", "n.D"}


def _sources() -> dict[str, str]:
    sources = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        sources[module] = path.read_text(encoding="utf-8")
    return sources


def test_every_exception_a_user_can_meet_is_in_ipyask_errors() -> None:
    """A new exception anywhere in ipyask fails here until ipyask.errors holds it (or it is
    a private ``_Helper``, the testing tools' own, or listed as internal with a reason)."""
    found = exception_classes(_sources())
    assert {"ipyask.errors.InterruptedAskError", *INTERNAL_EXCEPTIONS} <= found
    missing = []
    for dotted in sorted(found - set(INTERNAL_EXCEPTIONS)):
        module_name, _, name = dotted.rpartition(".")
        if name.startswith("_") or module_name.startswith(KERNEL_CLIENT):
            continue
        value = getattr(importlib.import_module(module_name), name)
        is_exception = isinstance(value, type) and issubclass(value, BaseException)
        if is_exception and getattr(ipyask.errors, name, None) is not value:
            missing.append(dotted)
    assert missing == [], "exceptions not reachable from ipyask.errors"
    for name in ipyask.errors.__all__:
        value = getattr(ipyask.errors, name)
        if isinstance(value, type):
            assert value.__module__ == "ipyask.errors", f"{name} is defined elsewhere"


OLD_PATHS = [
    ("ipyask", "AskCancelledError"),
    ("ipyask", "BadAnswerError"),
    ("ipyask", "BlockingUnsupportedError"),
    ("ipyask", "UserQuestionError"),
    ("ipyask.store", "StoreOpenError"),
    ("ipyask.store", "StoreUnavailableError"),
    ("ipyask.store", "StoreVersionError"),
    ("ipyask.bridge", "BlockingUnsupportedError"),
    ("ipyask.bridge.cell_wait", "BlockingUnsupportedError"),
    ("ipyask.bridge.cell_wait._interruptible", "InterruptedAskError"),
    ("ipyask._errors", "HarnessError"),
    ("ipyask._abort", "AbortError"),
    ("ipyask._form_schema", "FormSchemaError"),
    ("ipyask._tool", "ToolArgumentError"),
]


@pytest.mark.parametrize(("module", "name"), OLD_PATHS)
def test_old_import_paths_give_the_same_class(module: str, name: str) -> None:
    value = getattr(importlib.import_module(module), name)
    assert value is getattr(ipyask.errors, name)


def test_the_store_fault_type_is_the_stores() -> None:
    import ipyask.store

    assert ipyask.store.Fault is ipyask.errors.StoreFault


@pytest.mark.parametrize("name", ["AbortError", "FormSchemaError", "HarnessError"])
def test_host_exceptions_import_with_a_deprecation_warning(name: str) -> None:
    assert name not in ipyask.host.__all__
    assert name not in dir(ipyask.host)
    with pytest.warns(DeprecationWarning, match=rf"from ipyask\.errors import {name}"):
        value = getattr(ipyask.host, name)
    assert value is getattr(ipyask.errors, name)


def test_host_names_nothing_else_through_its_getattr() -> None:
    with pytest.raises(AttributeError, match="NoSuchName"):
        ipyask.host.NoSuchName  # noqa: B018
