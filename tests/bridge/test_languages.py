"""What the kernel writes for a person, in both languages: card notices as codes a view shows in
its own language, and transcript records in the panel's language."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import get_args

import pytest
from pydantic import ValidationError

import ipyask
from ipyask import UserQuestionError
from ipyask._field_problems import FIELD_PROBLEMS, FieldProblem, FieldProblemCode
from ipyask._notebook.panel._texts import (
    NOTICES,
    RECORD_WORDS,
    Notice,
    RecordWord,
    cancelled_notice,
    language_of,
)
from ipyask._notebook.panel._transcript import record
from ipyask.protocol import AskUserQuestionAnswer
from ipyask.widget import Card, NoticeCode, QuestionWidget

from ._helpers import FakeView, asked_then_stopped, chose, drain, item, only_key

STRINGS_JS = Path(ipyask.__file__).parent / "widget" / "js" / "strings.js"

DB = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_every_kernel_text_is_written_in_both_languages() -> None:
    assert set(NOTICES) == set(RECORD_WORDS) == {"en", "zh"}
    for language in ("en", "zh"):
        assert sorted(NOTICES[language]) == sorted(get_args(NoticeCode))
        assert sorted(RECORD_WORDS[language]) == sorted(get_args(RecordWord))
        assert all(text.strip() for text in NOTICES[language].values())
        assert all(text.strip() for text in RECORD_WORDS[language].values())
    for code in get_args(NoticeCode):  # a translation names the same values
        assert _placeholders(NOTICES["zh"][code]) == _placeholders(NOTICES["en"][code])
    for word in get_args(RecordWord):
        assert _placeholders(RECORD_WORDS["zh"][word]) == _placeholders(RECORD_WORDS["en"][word])


def _js_notices() -> dict[str, dict[str, str]]:
    source = STRINGS_JS.read_text(encoding="utf-8")
    block = source[source.index("export const NOTICES = {") :]
    block = block[: block.index("\n};\n")]
    tables: dict[str, dict[str, str]] = {}
    for language, body in re.findall(r"\n  (\w+): \{\n(.*?)\n  \},", block, re.DOTALL):
        tables[language] = {
            key: json.loads(text)
            for key, text in re.findall(r'^ +"([\w-]+)": (".*"),$', body, re.M)
        }
    return tables


def test_the_views_show_the_same_notices_as_the_kernel_writes() -> None:
    assert _js_notices() == NOTICES


def test_language_of_follows_the_views_choice() -> None:
    assert [language_of(tag) for tag in ("zh", "zh-CN", "ZH_tw", "")] == ["zh", "zh", "zh", "en"]
    assert [language_of(tag) for tag in ("en", "de-DE", "zha")] == ["en", "en", "en"]


def test_a_notice_is_filled_in_each_language() -> None:
    notice = Notice("asked-earlier", {"process": "box:42"})
    assert "(box:42)" in notice.text() and notice.text() == notice.text("en")
    assert "（box:42）" in notice.text("zh")
    assert cancelled_notice("ASK_CANCELLED") == Notice("you-cancelled")
    assert cancelled_notice("SOMETHING_NEW") == Notice("closed-unanswered")


def test_a_coded_notice_carries_its_text_and_a_new_text_drops_the_code() -> None:
    question = {"id": "q", "question": "Deploy?"}
    with pytest.raises(ValidationError, match="notice text too"):
        Card(key="a", questions=[question], notice_code="agent-stopped")
    with pytest.raises(ValidationError, match="notice params"):
        Card(key="a", questions=[question], notice="x", notice_params={"process": "p"})
    widget = QuestionWidget(cards=[{"key": "a", "questions": [question]}])
    try:
        card = widget.update_card(
            "a", status="cancelled", notice="You cancelled.", notice_code="you-cancelled"
        )
        assert card.to_wire()["noticeCode"] == "you-cancelled"
        card = widget.update_card(
            "a",
            notice="Asked earlier.",
            notice_code="asked-earlier",
            notice_params={"process": "p"},
        )
        assert card.to_wire()["noticeParams"] == {"process": "p"}
        card = widget.update_card("a", notice="Settled.", notice_code="settled-elsewhere")
        assert card.notice_params is None  # the params belonged to the old code
        card = widget.update_card("a", notice="Something else.")
        assert (card.notice, card.notice_code, card.notice_params) == (
            "Something else.",
            None,
            None,
        )
    finally:
        widget.close()


@pytest.fixture
def zh_panel(svc, sent, monkeypatch):
    made = ipyask.QuestionPanel(svc, heartbeat_timeout_ms=1000, language="zh-CN")
    monkeypatch.setattr(made, "send", lambda content, buffers=None: sent.append(content))
    yield made
    made.close()


async def test_a_chinese_panels_cancelled_card_has_a_code_and_a_chinese_record(
    svc, zh_panel, sent
) -> None:
    view = FakeView(zh_panel, sent, "view-zh")
    task = asyncio.ensure_future(svc.ask({"questions": [DB]}))
    await drain()
    key = only_key(zh_panel)
    view.send("cancel", key=key)
    with pytest.raises(UserQuestionError):
        await task
    card = zh_panel.get_card(key)
    assert card.status == "cancelled"
    assert card.notice_code == "you-cancelled"
    assert card.notice == "You cancelled this question; the agent was told."  # older views
    assert zh_panel.cards[0]["noticeCode"] == "you-cancelled"
    assert zh_panel.records == ["**已取消**：Which database? — 你取消了这个问题，智能体已得知。"]


async def test_a_chinese_panels_records_use_chinese_words(svc, zh_panel, sent) -> None:
    view = FakeView(zh_panel, sent, "view-zh")
    questions = [DB, {"id": "name", "question": "Project name?"}]
    task = asyncio.ensure_future(svc.ask({"questions": questions}))
    await drain()
    view.answer(only_key(zh_panel), ("db", ["SQLite"]), ("name", []))
    await task
    await drain()
    assert zh_panel.records == [
        "**已回答**（由 ada 在问题面板中）\n"
        "- Which database? → **SQLite**\n- Project name? → *已跳过*"
    ]


async def test_the_record_takes_the_language_the_panel_has_when_it_is_made(svc, panel) -> None:
    await asked_then_stopped(svc, {"questions": [DB]})
    panel.language = "zh"
    await asked_then_stopped(svc, {"questions": [DB]})
    assert panel.records == [
        r"**Cancelled**: Which database? — The agent stopped waiting for this question\.",
        "**已取消**：Which database? — 智能体不再等待这个问题的回答。",
    ]
    assert [card.notice_code for card in panel.get_cards()] == ["agent-stopped"] * 2


def test_a_chinese_record_marks_a_no_and_a_missing_answer_in_chinese() -> None:
    deploy = item(
        question="Deploy?",
        detail="To production.",
        options=[{"label": "Apply"}, {"label": "Cancel"}],
        intent={"kind": "approval", "approve": "Apply", "reject": "Cancel"},
    )
    assert record([deploy], "已回答", chose("Cancel", custom="not now"), language="zh") == (
        "**已回答**：Deploy? → **Cancel**, “not now”（已拒绝）"
    )
    empty = AskUserQuestionAnswer.model_validate({"answers": []})
    assert record([deploy], "已回答", empty, language="zh") == "**已回答**：Deploy? → *未回答*"


def test_every_field_problem_is_written_in_both_languages() -> None:
    assert set(FIELD_PROBLEMS) == {"en", "zh"}
    for language in ("en", "zh"):
        assert sorted(FIELD_PROBLEMS[language]) == sorted(get_args(FieldProblemCode))
        assert all(text.strip() for text in FIELD_PROBLEMS[language].values())
    for code in get_args(FieldProblemCode):  # a translation names the same values
        assert _placeholders(FIELD_PROBLEMS["zh"][code]) == _placeholders(
            FIELD_PROBLEMS["en"][code]
        )


def test_a_field_problem_joins_its_words_in_each_language() -> None:
    problem = FieldProblem("wrong-type", {"types": ("boolean", "null")})
    assert problem.text() == "must be boolean or null"
    assert problem.text("zh") == "必须是 boolean 或 null"
