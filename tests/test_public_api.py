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
import re
import subprocess
import sys
import types
import typing
from pathlib import Path

import pytest

import ipyask
import ipyask.errors

TOP_LEVEL = {
    # What a notebook user and an agent author need: the verbs and their blocking forms, the
    # objects to build, what the verbs return, the two errors to catch. The wire models live in
    # ipyask.protocol, the other exceptions in ipyask.errors, host plumbing in ipyask.host.
    "Agent",
    "AskCancelledError",
    "AskUserQuestionTool",
    "Connection",
    "Diagnosis",
    "FormResult",
    "PendingAnswer",
    "QuestionPanel",
    "Rules",
    "ToolDecision",
    "UserQuestionError",
    "UserQuestions",
    "__version__",
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
    "inbox",
    "show_panel",
}

MOVED_FROM_THE_TOP_LEVEL = {
    # The previous release's top-level names that moved, and their home; importable from
    # ipyask with a DeprecationWarning until the next release.
    "AppliedRule": "ipyask.host",
    "Answerer": "ipyask.host",
    "ApprovalDisplay": "ipyask.protocol",
    "ApprovalIntent": "ipyask.protocol",
    "ApprovalSubject": "ipyask.protocol",
    "AskUserQuestionAnswer": "ipyask.protocol",
    "AskUserQuestionAnswerItem": "ipyask.protocol",
    "AskUserQuestionItem": "ipyask.protocol",
    "AskUserQuestionOption": "ipyask.protocol",
    "AskUserQuestionRequest": "ipyask.protocol",
    "BadAnswerError": "ipyask.errors",
    "BlockingUnsupportedError": "ipyask.errors",
    "ErrorCode": "ipyask.errors",
    "FormIntent": "ipyask.protocol",
    "Next": "ipyask.host",
    "PlanReviewIntent": "ipyask.protocol",
    "Rule": "ipyask.host",
    "RuleDecision": "ipyask.host",
    "RulesError": "ipyask.errors",
    "ToolApprovalIntent": "ipyask.protocol",
    "ToolCall": "ipyask.protocol",
    "after_answer": "ipyask.host",
    "form_result": "ipyask.host",
    "tool_decision": "ipyask.host",
}

PROTOCOL = {
    # The wire: request and answer models, cards and presentations, view messages, codes.
    "PROTOCOL_VERSION",
    "AlwaysRuleOffer",
    "AnswerMessage",
    "ApprovalDisplay",
    "ApprovalIntent",
    "ApprovalPresentation",
    "ApprovalSubject",
    "AskUserQuestionAnswer",
    "AskUserQuestionAnswerItem",
    "AskUserQuestionIntent",
    "AskUserQuestionItem",
    "AskUserQuestionOption",
    "AskUserQuestionRequest",
    "CancelMessage",
    "Card",
    "CardSettlement",
    "CardSource",
    "CardStatus",
    "CardView",
    "CardsMessage",
    "ClaimMessage",
    "CountdownFrame",
    "ErrorCode",
    "ErrorMessage",
    "FormIntent",
    "FormPresentation",
    "FrameMessage",
    "GenericPresentation",
    "HeartbeatMessage",
    "HelloMessage",
    "HoldMessage",
    "KernelMessage",
    "NoticeCode",
    "PlanReviewIntent",
    "PlanReviewPresentation",
    "Presentation",
    "ReleaseMessage",
    "RemoveRuleMessage",
    "SettledStatus",
    "TimedOutMessage",
    "ToolApprovalIntent",
    "ToolApprovalPresentation",
    "ToolCall",
    "ToolDecisionOption",
    "UnknownIntent",
    "ViewErrorCode",
    "ViewMessage",
    "WaitKind",
    "WireCard",
    "view_error_code",
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
    "RulesFileChangedError",
    "StoreClosedError",
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
    "ipyask._notebook.panel._view_dispatch.Refused": "the panel answers the view with its code",
    "ipyask.integrations._langgraph_cards.AskAgain": "the LangGraph bridge asks the card again",
}


NEEDS_AN_EXTRA = "pip install 'ipyask["
"""What the import error of a part that needs an optional dependency says."""


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
    known = {"ipyask", "ipyask.host", "ipyask.testing", "ipyask.widget", "ipyask.errors"}
    assert known | {"ipyask.protocol"} <= set(public_modules())
    assert not [name for name in public_modules() if name.startswith("ipyask._notebook")]


@pytest.mark.parametrize("name", public_modules())
def test_all_lists_exactly_the_public_names(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ImportError as error:
        if NEEDS_AN_EXTRA not in str(error):
            raise
        pytest.skip(f"not installed here: {error}")  # a framework bridge in a core install
    exported = list(module.__all__)
    assert len(exported) == len(set(exported)), "__all__ lists a name twice"
    for export in exported:
        try:
            getattr(module, export)  # every exported name resolves (lazy ones included)
        except ImportError as error:  # a kernel tool in a core install: it says what to install
            if NEEDS_AN_EXTRA not in str(error):
                raise
    assert own_names(module) - {"__version__"} <= set(exported)


def test_the_top_level_holds_what_users_and_agent_authors_need() -> None:
    assert set(ipyask.__all__) == TOP_LEVEL
    assert ipyask.__all__ == sorted(ipyask._PUBLIC)  # the table is the list


def test_dir_lists_the_table_and_no_moved_name() -> None:
    assert set(ipyask._PUBLIC) <= set(dir(ipyask))
    assert not set(MOVED_FROM_THE_TOP_LEVEL) & set(dir(ipyask))


@pytest.mark.parametrize("name", sorted(TOP_LEVEL))
def test_each_top_level_name_is_its_modules_object(name: str) -> None:
    home = importlib.import_module(ipyask._PUBLIC[name], "ipyask")
    assert getattr(ipyask, name) is getattr(home, name)


def _type_checking_imports() -> dict[str, str]:
    """Name → module of every import under ``if TYPE_CHECKING:`` in ``ipyask/__init__.py``."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imported in node.body:
                assert isinstance(imported, ast.ImportFrom), ast.unparse(imported)
                module = "." * imported.level + (imported.module or "")
                for alias in imported.names:
                    assert alias.asname == alias.name, f"{alias.name}: re-export it as itself"
                    found[alias.name] = module
    return found


def test_type_checkers_see_the_same_names_from_the_same_modules_as_the_table() -> None:
    assert _type_checking_imports() == ipyask._PUBLIC


def test_the_moved_names_are_the_previous_top_level_less_the_kept_ones() -> None:
    top_level = {name: home for name, home in ipyask._MOVED.items() if "." not in name}
    assert top_level == MOVED_FROM_THE_TOP_LEVEL
    assert not set(MOVED_FROM_THE_TOP_LEVEL) & TOP_LEVEL


@pytest.mark.parametrize(("name", "home"), sorted(MOVED_FROM_THE_TOP_LEVEL.items()))
def test_a_moved_name_imports_with_a_warning_naming_its_home(name: str, home: str) -> None:
    module = importlib.import_module(home)
    assert name in module.__all__
    with pytest.warns(DeprecationWarning, match=rf"from {re.escape(home)} import {name}\b"):
        value = getattr(ipyask, name)
    assert value is getattr(module, name)


def test_from_ipyask_import_a_moved_name_warns_too() -> None:
    with pytest.warns(DeprecationWarning, match=r"from ipyask\.protocol import ToolCall"):
        from ipyask import ToolCall
    assert ToolCall is importlib.import_module("ipyask.protocol").ToolCall


def test_an_unknown_top_level_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="NoSuchName"):
        ipyask.NoSuchName  # noqa: B018


def test_the_protocol_module_is_the_wire() -> None:
    import ipyask.protocol
    import ipyask.widget

    assert set(ipyask.protocol.__all__) == PROTOCOL
    for name in set(ipyask.widget.__all__) & PROTOCOL:
        assert getattr(ipyask.protocol, name) is getattr(ipyask.widget, name)


def test_every_wire_shape_of_the_widget_is_in_the_protocol() -> None:
    import ipyask.protocol
    import ipyask.widget

    widget_only = {"CardStore", "QuestionWidget", "render_markdown"}
    assert set(ipyask.widget.__all__) - widget_only <= set(ipyask.protocol.__all__)


def test_importing_ipyask_loads_nothing_until_a_name_is_used() -> None:
    """``import ipyask`` loads none of its modules, pydantic nor the notebook side (ipywidgets,
    IPython): an agent in a plain process (``ipyask.connect``) starts without them, and each
    name loads what it needs on first use."""
    code = (
        "import sys, ipyask\n"
        "mine = sorted(m for m in sys.modules if m.startswith('ipyask.'))\n"
        "assert mine == [], mine\n"
        "heavy = ('pydantic', 'ipywidgets', 'IPython', 'anywidget')\n"
        "assert not [m for m in heavy if m in sys.modules], sys.modules.keys() & set(heavy)\n"
        "assert ipyask.UserQuestions and 'ipywidgets' not in sys.modules\n"
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
    ("ipyask", "UserQuestionError"),
    ("ipyask.store", "StoreClosedError"),
    ("ipyask.store", "StoreOpenError"),
    ("ipyask.store", "StoreUnavailableError"),
    ("ipyask.store", "StoreVersionError"),
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


def test_host_moved_names_are_in_the_one_table() -> None:
    in_host = {name for name in ipyask._MOVED if name.startswith("host.")}
    assert in_host == {"host.AbortError", "host.FormSchemaError", "host.HarnessError"}


OLD_NOTEBOOK_SIDE = {
    # The previous release's public modules of the notebook side, now the private
    # ipyask._notebook: what each exported and where it is now (a private home: kernel plumbing
    # that nothing public replaces).
    "ipyask.bridge": {
        **dict.fromkeys(
            [
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
            ],
            "ipyask",
        ),
        "BlockingUnsupportedError": "ipyask.errors",
    },
    "ipyask.bridge.panel": {"QuestionPanel": "ipyask", "CellView": "ipyask._notebook.panel"},
    "ipyask.bridge.cell_wait": {
        "BlockingUnsupportedError": "ipyask.errors",
        **dict.fromkeys(
            [
                "HOST_NAMES",
                "CellWait",
                "Host",
                "HostName",
                "PanelComm",
                "Strategy",
                "await_strategy",
                "blocking_strategy",
                "colab_widget_manager",
                "current_kernel",
                "detect_host",
                "enable_colab_widget_manager",
                "front_end_seen",
                "marimo_cell",
                "share_route",
            ],
            "ipyask._notebook.cell_wait",
        ),
    },
}
OLD_NOTEBOOK_NAMES = sorted(
    (module, name, home)
    for module, names in OLD_NOTEBOOK_SIDE.items()
    for name, home in names.items()
)


def test_the_old_notebook_side_is_in_the_one_table_of_moved_names() -> None:
    listed = {old: home for old, home in ipyask._MOVED.items() if old.startswith("bridge.")}
    assert listed == {f"{module[7:]}.{name}": home for module, name, home in OLD_NOTEBOOK_NAMES}


@pytest.mark.parametrize(("module", "name", "home"), OLD_NOTEBOOK_NAMES)
def test_an_old_notebook_name_imports_with_a_warning(module: str, name: str, home: str) -> None:
    old = importlib.import_module(module)
    now = importlib.import_module(home)
    if home.startswith("ipyask._"):  # kernel plumbing: it still resolves; it will go
        says = "it is private to ipyask and nothing public replaces it"
    else:
        assert name in now.__all__
        says = f"import it from {home} (from {home} import {name})"
    said = f"{module}.{name} is deprecated and will be removed in the next release: {says}"
    with pytest.warns(DeprecationWarning, match=f"^{re.escape(said)}$") as caught:
        value = getattr(old, name)
    assert len(caught) == 1
    assert value is getattr(now, name)


def test_the_old_notebook_imports_warn_where_they_are_written() -> None:
    with pytest.warns(DeprecationWarning, match=r"from ipyask import QuestionPanel") as caught:
        from ipyask.bridge.panel import QuestionPanel
    assert QuestionPanel is ipyask.QuestionPanel
    assert [Path(warning.filename).name for warning in caught] == [Path(__file__).name]
    with pytest.warns(
        DeprecationWarning, match=r"ipyask\.bridge\.cell_wait\.share_route .* private"
    ):
        from ipyask.bridge.cell_wait import share_route  # noqa: F401


def test_the_old_notebook_modules_export_nothing_new() -> None:
    import ipyask.bridge

    assert ipyask.bridge.__all__ == []
    assert ipyask.bridge.panel is importlib.import_module("ipyask.bridge.panel")
    assert ipyask.bridge.cell_wait is importlib.import_module("ipyask.bridge.cell_wait")
    with pytest.raises(AttributeError, match="NoSuchName"):
        ipyask.bridge.panel.NoSuchName  # noqa: B018
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("ipyask.bridge.panel._question_panel")
