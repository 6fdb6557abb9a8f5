"""The documentation site (``mkdocs.yml`` + ``docs/``) is whole.

``mkdocs build --strict`` (in ``scripts/test``) fails on broken links and on pages outside the
nav; these tests say the same in the fast lane, and check what a build cannot: every notebook is
an example, every public module has a reference page, and ``docs/errors.md`` names every error.
"""

from __future__ import annotations

import importlib.util
import pkgutil
import re
import typing
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

import ipyask.errors
import ipyask.integrations
import ipyask.kinds

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
CONFIG: dict[str, Any] = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def nav_pages(nav: object) -> list[str]:
    """Every page the nav lists, in order."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for entry in nav for page in nav_pages(entry)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in nav_pages(value)]
    return []


def site_pages() -> set[str]:
    pages = {path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")}
    return pages | {path.relative_to(DOCS).as_posix() for path in DOCS.glob("examples/*.ipynb")}


def test_every_docs_page_is_in_the_nav_and_every_nav_entry_exists() -> None:
    listed = nav_pages(CONFIG["nav"])
    assert len(listed) == len(set(listed))
    assert site_pages() - set(listed) == set()
    assert set(listed) - site_pages() == set()


def test_a_page_missing_from_the_nav_is_found() -> None:
    nav = [{"Home": "index.md"}, {"Part": ["part.md", {"Two": "two.md"}]}]
    assert nav_pages(nav) == ["index.md", "part.md", "two.md"]


def test_the_build_is_strict_about_the_nav_and_links() -> None:
    validation = CONFIG["validation"]
    assert CONFIG["strict"] is True
    assert validation["nav"] == {
        "omitted_files": "warn",
        "not_found": "warn",
        "absolute_links": "warn",
    }
    assert set(validation["links"].values()) == {"warn"}


def test_every_notebook_is_an_example_page() -> None:
    notebooks = sorted(path.name for path in (ROOT / "notebooks").glob("*.ipynb"))
    examples = DOCS / "examples"
    for name in notebooks:
        page = examples / name
        assert page.is_symlink(), f"docs/examples/{name}: link it to notebooks/{name}"
        assert page.resolve() == (ROOT / "notebooks" / name).resolve()
    assert sorted(path.name for path in examples.glob("*.ipynb")) == notebooks
    index = (DOCS / "examples.md").read_text(encoding="utf-8")
    assert [name for name in notebooks if f"(examples/{name})" not in index] == []


def public_modules() -> list[str]:
    """The modules the API reference must cover: ipyask, its user-facing modules, the bridges."""
    integrations = [
        info.name
        for info in pkgutil.iter_modules(ipyask.integrations.__path__, "ipyask.integrations.")
        if not info.name.rsplit(".", 1)[-1].startswith("_")
    ]
    kinds = [
        info.name
        for info in pkgutil.iter_modules(ipyask.kinds.__path__, "ipyask.kinds.")
        if not info.name.rsplit(".", 1)[-1].startswith("_")
    ]
    base = ["ipyask", "ipyask.errors", "ipyask.protocol", "ipyask.host", "ipyask.store"]
    base.append("ipyask.testing")
    return [*base, "ipyask.kinds", *kinds, *integrations]


def test_every_public_module_has_a_reference_page() -> None:
    documented = {
        match
        for page in (DOCS / "reference").glob("*.md")
        for match in re.findall(r"^::: ([\w.]+)$", page.read_text(encoding="utf-8"), re.M)
    }
    expected = set(public_modules())
    assert len(expected) >= 17  # the five kinds and the five bridges are found
    assert expected - documented == set()
    assert [name for name in documented if importlib.util.find_spec(name) is None] == []


def test_every_snippet_the_site_includes_exists() -> None:
    missing = []
    for page in DOCS.rglob("*.md"):
        for path, section in re.findall(
            r'^--8<-- "([^":]+)(?::(\w+))?"$', page.read_text(encoding="utf-8"), re.M
        ):
            text = (ROOT / path).read_text(encoding="utf-8")
            if section and f"--8<-- [start:{section}]" not in text:
                missing.append(f"{page.name}: {path}:{section}")
            if section and f"--8<-- [end:{section}]" not in text:
                missing.append(f"{page.name}: {path}:{section} (end)")
    assert missing == []


def test_the_errors_page_names_every_error_and_code() -> None:
    page = (DOCS / "errors.md").read_text(encoding="utf-8")
    codes = typing.get_args(ipyask.errors.ErrorCode)
    assert len(codes) >= 15
    assert [code for code in codes if f"| `{code}` |" not in page] == []
    assert [name for name in ipyask.errors.__all__ if name not in page] == []


def test_each_support_table_has_its_markers_once() -> None:
    for page, name in [("cells.md", "support-table"), ("hosts.md", "host-table")]:
        text = (DOCS / page).read_text(encoding="utf-8")
        assert text.count(f"<!-- {name}:start -->") == 1
        assert text.count(f"<!-- {name}:end -->") == 1


# -- the Griffe extension that renders the docstrings' reST for the API reference --------------


def load_roles() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_griffe_roles", DOCS / "_griffe_roles.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rest_roles_become_code() -> None:
    markdown = load_roles().markdown
    text = "See :class:`~ipyask.store.Store`, :func:`ipyask.ask` and :meth:`.close`."
    assert markdown(text) == "See `Store`, `ipyask.ask` and `close`."


def test_a_literal_block_marker_and_a_simple_table_render_as_text() -> None:
    markdown = load_roles().markdown
    text = (
        "The tree::\n\n    a\n\n====  ====\ncode  what\n====  ====\nX     y\n====  ====\n\nAfter."
    )
    assert markdown(text) == (
        "The tree:\n\n    a\n\n```text\n====  ====\ncode  what\n====  ====\nX     y\n"
        "====  ====\n```\n\nAfter."
    )


def test_the_extension_is_the_one_the_reference_loads() -> None:
    handler = CONFIG["plugins"][2]["mkdocstrings"]["handlers"]["python"]["options"]
    assert handler["extensions"] == ["docs/_griffe_roles.py"]
    assert hasattr(load_roles(), "ReSTRoles")
