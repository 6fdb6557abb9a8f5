"""docs/threat-model.md names the test that proves each defence: every named test exists.

The other docs pages name tests too (the store faults in docs/durable.md, the claims): those
must exist as well.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "threat-model.md"
REFERENCE = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def missing_tests(references: list[tuple[str, str]]) -> list[str]:
    missing = []
    for path, name in references:
        if not (ROOT / path).is_file():
            missing.append(f"{path} (no such file)")
            continue
        source = (ROOT / path).read_text(encoding="utf-8")
        defined = {
            node.name
            for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        if name not in defined:
            missing.append(f"{path}::{name}")
    return missing


def test_every_defence_names_a_test_that_exists() -> None:
    references = REFERENCE.findall(PAGE.read_text(encoding="utf-8"))
    assert len(references) >= 15
    assert missing_tests(references) == []


def test_every_test_a_docs_page_names_exists() -> None:
    pages = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "DEVELOP.md"]
    references = [ref for page in pages for ref in REFERENCE.findall(page.read_text("utf-8"))]
    assert len(references) >= 30
    assert missing_tests(references) == []


def test_the_reference_pattern_finds_references() -> None:
    assert REFERENCE.findall("`tests/a/b.py::test_x` and `tests/c.py::test_y`") == [
        ("tests/a/b.py", "test_x"),
        ("tests/c.py", "test_y"),
    ]


def test_a_missing_test_or_file_is_reported() -> None:
    assert missing_tests(
        [
            ("tests/test_threat_model.py", "test_the_reference_pattern_finds_references"),
            ("tests/test_threat_model.py", "test_that_was_renamed"),
            ("tests/gone.py", "test_x"),
        ]
    ) == ["tests/test_threat_model.py::test_that_was_renamed", "tests/gone.py (no such file)"]
