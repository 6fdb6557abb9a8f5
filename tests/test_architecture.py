"""The package's shape: no import cycles, the notebook side's two rooms apart (see also
test_public_api).

Import rule of these tests: every import of an ``ipyask`` module counts, relative or absolute
(``import ipyask.x``, ``from ipyask.x import y``, ``from ..x import y``), wherever it appears: at
module level, inside a function, under ``if TYPE_CHECKING:``. A lazy or type-only import is still
an arrow a reader has to follow, so a cycle through one is a cycle. ``from package import name``
points at the module ``package.name`` when there is one, else at ``package``; the parent
packages Python imports on the way are not counted (``ipyask/__init__`` imports everything).
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import ipyask

PACKAGE = Path(ipyask.__file__).parent
NOTEBOOK_ROOMS = ("ipyask._notebook.panel", "ipyask._notebook.cell_wait")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _target(name: str, modules: set[str]) -> str | None:
    """The module ``name`` refers to (itself, or the closest package holding it)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, source: str, is_package: bool, modules: set[str]) -> set[str]:
    """Every ``ipyask`` module in ``modules`` that ``module`` imports (see the rule above)."""
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                above = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{above}.{base}" if base else above
            names = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                for alias in node.names
            ]
        else:
            continue
        for name in names:
            target = _target(name, modules) if name.split(".")[0] == "ipyask" else None
            if target is not None and target != module:
                found.add(target)
    return found


GRAPH = {
    module: sorted(
        _imports(module, path.read_text(encoding="utf-8"), path.name == "__init__.py", set(MODULES))
    )
    for module, path in MODULES.items()
}


def _cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in graph.get(node, []):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_the_import_graph_has_no_cycles() -> None:
    assert _cycles(GRAPH) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_relative_lazy_and_type_only_imports_count() -> None:
    source = """
import ipyask.a
from ipyask import b
from .c import name
from ..d.e import name
from . import f, name

def later():
    from ipyask.g import name

if TYPE_CHECKING:
    from .h import Name
"""
    known = {"ipyask", *(f"ipyask.p.{m}" for m in "cfh"), "ipyask.p", "ipyask.d.e"}
    known |= {"ipyask.a", "ipyask.b", "ipyask.d", "ipyask.g"}
    found = _imports("ipyask.p.m", source, False, known)
    expected = {"a", "b", "p.c", "d.e", "p.f", "p", "g", "p.h"}
    assert found == {f"ipyask.{m}" for m in expected}


@pytest.mark.parametrize("room", NOTEBOOK_ROOMS)
def test_each_notebook_room_imports_nothing_else_of_the_notebook_side(room: str) -> None:
    """The panel and the cell wait do not import each other, nor the one-liners that wire them."""
    outside = {
        (module, target)
        for module, targets in GRAPH.items()
        if module == room or module.startswith(f"{room}.")
        for target in targets
        if target.startswith("ipyask._notebook")
        and not (target == room or target.startswith(f"{room}."))
    }
    assert outside == set()


def test_ipyask_takes_the_notebook_api_from_the_notebook_side() -> None:
    import ipyask._notebook

    from_notebook = [name for name, module in ipyask._PUBLIC.items() if module == "._notebook"]
    assert set(from_notebook) <= set(ipyask._notebook.__all__)
    for name in from_notebook:
        assert getattr(ipyask, name) is getattr(ipyask._notebook, name)
    assert [m for m in GRAPH["ipyask"] if m.startswith("ipyask._notebook")] == ["ipyask._notebook"]


def test_nothing_imports_the_deprecated_bridge() -> None:
    """``ipyask.bridge`` only forwards the previous release's names (with a warning) to their
    homes; ipyask itself imports the notebook side as ``ipyask._notebook``."""
    assert "ipyask.bridge" in GRAPH
    assert [module for module, targets in GRAPH.items() if "ipyask.bridge" in targets] == []


@pytest.mark.parametrize("name", sorted(m for m in MODULES if m.startswith("ipyask._notebook.")))
def test_every_notebook_module_names_what_it_exports(name: str) -> None:
    module = importlib.import_module(name)
    assert all(hasattr(module, attr) for attr in module.__all__)


KINDS_MAY_NOT_IMPORT = ("ipyask._vocabulary", "ipyask.widget", "ipyask._notebook")
PRESENTATIONS = PACKAGE / "widget" / "js" / "presentations"
SHARED_PRESENTATION_PARTS = {
    # Used by several presentations, not a kind of their own.
    "generic-flow.js": "the generic flow's pager and answers, shared by the kinds' fallbacks",
    "settled.js": "how a settled card of any kind shows its outcome",
    "tool-screens.js": "the tool approval's edit and reply screens",
}


def _kind_imports_above(graph: dict[str, list[str]]) -> set[tuple[str, str]]:
    """Each (kind module, module) where a module of ``ipyask.kinds`` imports the vocabulary,
    the widget or the notebook side."""
    return {
        (module, target)
        for module, targets in graph.items()
        if module == "ipyask.kinds" or module.startswith("ipyask.kinds.")
        for target in targets
        if any(target == above or target.startswith(f"{above}.") for above in KINDS_MAY_NOT_IMPORT)
    }


def test_no_kind_imports_the_vocabulary_the_widget_or_the_notebook_side() -> None:
    """A kind is a slice from the bottom: whatever serves every kind imports it, not the reverse."""
    assert "ipyask.kinds.tool_approval" in GRAPH
    assert _kind_imports_above(GRAPH) == set()


def test_a_kind_importing_the_widget_is_found() -> None:
    graph = {"ipyask.kinds.form": ["ipyask._wire", "ipyask.widget._cards"], "ipyask.x": []}
    graph["ipyask.kinds"] = ["ipyask._vocabulary"]
    assert _kind_imports_above(graph) == {
        ("ipyask.kinds.form", "ipyask.widget._cards"),
        ("ipyask.kinds", "ipyask._vocabulary"),
    }


def _kind_files(kinds: list[str], files: list[str]) -> tuple[set[str], set[str]]:
    """(kinds without a presentation module, presentation modules without a kind): a kind
    ``plan-review`` is presented by ``plan-review.js``; the shared parts are no kind's."""
    expected = {f"{kind}.js" for kind in kinds}
    found = {name for name in files if name.endswith(".js")} - set(SHARED_PRESENTATION_PARTS)
    return expected - found, found - expected


def test_every_kind_has_its_presentation_module_and_every_presentation_its_kind() -> None:
    from ipyask.kinds import KINDS

    files = sorted(path.name for path in PRESENTATIONS.iterdir())
    assert set(SHARED_PRESENTATION_PARTS) <= set(files)
    assert _kind_files(list(KINDS), files) == (set(), set())
    for name, kind in KINDS.items():
        module = importlib.import_module(f"ipyask.kinds.{name.replace('-', '_')}")
        assert module.KIND is kind
        assert kind.presentation.model_fields["kind"].default == name


def test_a_kind_without_its_presentation_module_is_found() -> None:
    files = ["generic.js", "settled.js", "poll.js", "plan-review.css"]
    assert _kind_files(["generic", "choose-file"], files) == ({"choose-file.js"}, {"poll.js"})


def test_the_vocabulary_and_the_card_serve_every_kind() -> None:
    from typing import get_args

    from ipyask import _vocabulary
    from ipyask.kinds import KINDS
    from ipyask.widget import _cards

    intents = {kind.intent for kind in KINDS.values() if kind.intent is not None}
    union = get_args(get_args(_vocabulary.AskUserQuestionIntent)[0])
    assert {get_args(member)[0] for member in union} == {*intents, _vocabulary.UnknownIntent}
    presentations = set(get_args(get_args(_cards.Presentation)[0]))
    assert presentations == {kind.presentation for kind in KINDS.values()}


# -- the fast lane needs no optional dependency ------------------------------------------------

TESTS = Path(__file__).parent


def _module_level(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The imports a module runs when it is imported: at module level and in module-level
    ``try``/``with``/``if`` blocks, except under ``if TYPE_CHECKING:``."""
    found: list[ast.Import | ast.ImportFrom] = []
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If) and ast.unparse(node.test) != "TYPE_CHECKING":
            pending += [*node.body, *node.orelse]
        elif isinstance(node, ast.Try | ast.With):
            pending += node.body
            pending += getattr(node, "orelse", []) + getattr(node, "finalbody", [])
    return found


def _imported(path: Path, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The dotted names ``node`` imports (``from a import b`` gives ``a`` and ``a.b``); a
    relative import is named from ``tests/`` (``from ._helpers import x`` in ``tests/bridge``
    gives ``bridge._helpers``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        parts = path.relative_to(TESTS).parent.parts
        above = ".".join(parts[: len(parts) - node.level + 1])
        base = f"{above}.{base}".strip(".") if base else above
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def _test_module(dotted: str) -> Path | None:
    """The file of the test module or helper ``dotted`` names, if it is one."""
    module = TESTS.joinpath(*dotted.split(".")).with_suffix(".py")
    package = TESTS.joinpath(*dotted.split("."), "__init__.py")
    return next((path for path in (module, package) if path.is_file()), None)


def _kernel_tool(dotted: str) -> bool:
    """Whether ``dotted`` is one of ``ipyask.testing``'s kernel tools (they import the kernel
    client's dependencies when loaded)."""
    import ipyask.testing

    module, _, name = dotted.rpartition(".")
    private = (
        "ipyask.testing._kernel_client",
        "ipyask.testing._headless",
        "ipyask.testing._notebook",
    )
    return (module == "ipyask.testing" and name in ipyask.testing._KERNEL_TOOLS) or any(
        dotted == p or dotted.startswith(f"{p}.") for p in private
    )


def optional_imports(path: Path, seen: frozenset[Path] = frozenset()) -> set[str]:
    """The optional modules importing the test module at ``path`` loads: its own module-level
    imports, the kernel tools of ``ipyask.testing``, and those of the test helpers it imports."""
    from helpers.optional import KERNEL, OPTIONAL

    optional = set(OPTIONAL.values())
    found: set[str] = set()
    for node in _module_level(ast.parse(path.read_text(encoding="utf-8"))):
        for dotted in _imported(path, node):
            top = dotted.split(".")[0]
            if top in optional:
                found.add(top)
            elif _kernel_tool(dotted):
                found |= set(KERNEL)
            elif (helper := _test_module(dotted)) is not None and helper not in seen | {path}:
                found |= optional_imports(helper, seen | {path})
    return found


def test_the_optional_imports_finder_follows_helpers_and_skips_type_checking() -> None:
    source = TESTS / "bridge" / "_optional_probe.py"  # a module that does not exist: parsed only
    tree = ast.parse(
        "import zmq\nfrom ipyask.testing import HeadlessFrontend, ManualClock\n"
        "if TYPE_CHECKING:\n    import playwright\ntry:\n    import nbformat\nexcept ImportError:\n"
        "    pass\nfrom ._helpers import FakeView\ndef later():\n    import agents\n"
    )
    names = [name for node in _module_level(tree) for name in _imported(source, node)]
    assert "zmq" in names and "nbformat" in names and "bridge._helpers" in names
    assert "playwright" not in names and "agents" not in names
    assert _kernel_tool("ipyask.testing.HeadlessFrontend")
    assert not _kernel_tool("ipyask.testing.ManualClock")
    assert "playwright" in optional_imports(
        TESTS / "widget_browser" / "test_widget_browser_form.py"
    )


@pytest.mark.parametrize(
    "path", sorted(TESTS.rglob("*.py")), ids=lambda path: str(path.relative_to(TESTS))
)
def test_no_test_module_imports_an_optional_dependency_outside_its_folder(path: Path) -> None:
    """The fast lane collects in a core install with the test tools: a module that imports a
    browser driver, the kernel client or a framework at module level lives in the folder that
    owns it (``tests/helpers/optional.py``), which a core install leaves out."""
    from helpers.optional import FOLDERS

    folder = path.relative_to(TESTS).parts[0]
    allowed = set(FOLDERS.get(folder, ()))
    assert optional_imports(path) - allowed == set()


def test_every_extra_is_a_test_tool_or_an_optional_module() -> None:
    """A new dependency in an extra of pyproject.toml is either a test tool the fast lane needs
    or optional, with the module it is imported as."""
    from helpers.optional import OPTIONAL, TEST_TOOLS

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    project = tomllib.loads((TESTS.parent / "pyproject.toml").read_text(encoding="utf-8"))
    extras = project["project"]["optional-dependencies"]
    names = {
        re.split(r"[\[<>=;~! ]", req, maxsplit=1)[0] for reqs in extras.values() for req in reqs
    }
    assert names - {"ipyask"} - TEST_TOOLS == set(OPTIONAL)


def test_a_folder_is_left_out_when_one_of_its_dependencies_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from helpers import optional

    assert set(optional.FOLDERS) <= {path.name for path in TESTS.iterdir() if path.is_dir()}
    monkeypatch.setattr(
        "importlib.util.find_spec", lambda name: None if name == "playwright" else object()
    )
    assert optional.missing("widget_browser") == ["playwright"]
    assert optional.missing("e2e") == ["playwright"]
    assert optional.missing("kernel_client") == []
