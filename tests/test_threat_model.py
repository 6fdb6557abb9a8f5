"""docs/threat-model.md names the test that proves each defence: every named test exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "threat-model.md"
REFERENCE = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def test_every_defence_names_a_test_that_exists() -> None:
    references = REFERENCE.findall(PAGE.read_text(encoding="utf-8"))
    assert len(references) >= 15
    missing = []
    for path, name in references:
        source = (ROOT / path).read_text(encoding="utf-8")
        defined = {
            node.name
            for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        if name not in defined:
            missing.append(f"{path}::{name}")
    assert missing == []


def test_the_reference_pattern_finds_references() -> None:
    assert REFERENCE.findall("`tests/a/b.py::test_x` and `tests/c.py::test_y`") == [
        ("tests/a/b.py", "test_x"),
        ("tests/c.py", "test_y"),
    ]
