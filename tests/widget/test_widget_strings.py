"""Every text a card shows exists in English and Chinese: the view's tables name the same keys."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STRINGS_JS = Path(__file__).resolve().parents[2] / "src" / "ipyask" / "widget" / "js" / "strings.js"
_TABLE = re.compile(r"^export const (\w+) = \{\n(.*?)^\};", re.M | re.S)
_LANGUAGE = re.compile(r"^  (en|zh): \{\n(.*?)^  \},", re.M | re.S)
_KEY = re.compile(r'^    "?([\w-]+)"?:', re.M)


def language_tables(source: str) -> dict[str, dict[str, set[str]]]:
    """``{table: {language: keys}}`` for every exported table of per-language texts."""
    tables = {}
    for name, body in _TABLE.findall(source):
        languages = {lang: set(_KEY.findall(text)) for lang, text in _LANGUAGE.findall(body)}
        if languages:
            tables[name] = languages
    return tables


def test_the_reader_finds_every_table_and_a_missing_key() -> None:
    tables = language_tables(STRINGS_JS.read_text(encoding="utf-8"))
    assert {"STRINGS", "NOTICES", "ERRORS"} <= set(tables)
    assert "answered" in tables["STRINGS"]["en"]
    one_sided = (
        'export const T = {\n  en: {\n    a: "A",\n    b: "B",\n  },\n'
        '  zh: {\n    a: "甲",\n  },\n};'
    )
    assert language_tables(one_sided) == {"T": {"en": {"a", "b"}, "zh": {"a"}}}


@pytest.mark.parametrize("table", ["STRINGS", "NOTICES", "ERRORS"])
def test_each_text_exists_in_both_languages(table: str) -> None:
    languages = language_tables(STRINGS_JS.read_text(encoding="utf-8"))[table]
    assert set(languages) == {"en", "zh"}
    assert sorted(languages["en"] ^ languages["zh"]) == []
