"""The texts the bridges write on their cards exist in English and Chinese, and a bridge writes
in the language of the panel that shows its questions."""

from __future__ import annotations

import re
from typing import get_args

import pytest

import ipyask
from ipyask.integrations._texts import BRIDGE_TEXTS, BridgeText, card_language, text

_NAME = re.compile(r"\{(\w+)\}")


def one_sided(tables: dict[str, dict[str, str]]) -> list[str]:
    """Every key that is in some language's table and missing from another's."""
    keys = set().union(*tables.values())
    return sorted(f"{key} ({lang})" for lang, table in tables.items() for key in keys - set(table))


def test_the_check_finds_a_key_in_one_language_only() -> None:
    assert one_sided({"en": {"a": "A", "b": "B"}, "zh": {"a": "甲"}}) == ["b (zh)"]


def test_each_bridge_text_exists_in_english_and_chinese() -> None:
    tables: dict[str, dict[str, str]] = {lang: dict(t) for lang, t in BRIDGE_TEXTS.items()}
    assert set(tables) == {"en", "zh"}
    assert one_sided(tables) == []
    assert set(tables["en"]) == set(get_args(BridgeText))


@pytest.mark.parametrize("key", get_args(BridgeText))
def test_both_languages_fill_in_the_same_values(key: BridgeText) -> None:
    assert set(_NAME.findall(BRIDGE_TEXTS["en"][key])) == set(
        _NAME.findall(BRIDGE_TEXTS["zh"][key])
    )


def test_a_text_is_filled_in() -> None:
    assert text("zh", "claude-allow", name="Bash") == "允许 Bash？"


def test_the_language_is_the_language_setting_of_the_services_panel() -> None:
    service = ipyask.UserQuestions()
    assert card_language(service) == "en"  # no panel
    page = ipyask.QuestionPanel(service)  # follows the page: only the page knows its language
    assert card_language(service) == "en"
    page.close()
    chinese = ipyask.QuestionPanel(service, language="zh-CN")
    try:
        assert card_language(service) == "zh"
    finally:
        chinese.close()
    assert card_language(service) == "en"  # a closed panel shows nothing
