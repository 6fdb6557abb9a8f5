"""Scoped Always allow on a panel: the card offers the rule, the kernel checks and adds it before
the agent gets the answer, and the next matching call is answered by the rule with no card."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import ipyask
from ipyask._decisions import tool_decision
from ipyask._rich_questions import tool_approval_question

from ._helpers import drain, only_key

DECISIONS = ["approve", "always", "reject"]


def ask_write(svc, path: str) -> asyncio.Future:
    question = tool_approval_question("write_file", {"path": path}, decisions=DECISIONS)
    return asyncio.ensure_future(svc.ask({"questions": [question.to_wire()]}))


def scoped(scope: str, rule: str) -> str:
    return json.dumps({"scope": scope, "rule": rule})


@pytest.fixture
def rules(svc, tmp_path: Path):
    made = ipyask.Rules(path=tmp_path / "rules.toml")
    off = made.register(svc)
    yield made
    off()


async def test_the_card_offers_the_suggested_rule_and_the_file(svc, rules, panel) -> None:
    task = ask_write(svc, "notes/a.md")
    await drain()
    card = panel.get_card(only_key(panel))
    assert card.always_rule is not None
    assert card.always_rule.suggested == 'write_file(path="notes/**")'
    assert card.always_rule.file == str(rules.path)
    assert panel.cards[0]["alwaysRule"] == {
        "suggested": 'write_file(path="notes/**")',
        "file": str(rules.path),
    }
    task.cancel()


async def test_no_rules_no_offer(svc, panel) -> None:
    task = ask_write(svc, "notes/a.md")
    await drain()
    assert panel.get_card(only_key(panel)).always_rule is None
    task.cancel()


async def test_a_session_rule_answers_the_next_matching_call_without_a_card(
    svc, rules, panel, view
) -> None:
    first = ask_write(svc, "notes/a.md")
    await drain()
    key = only_key(panel)
    view.answer(key, ("tool", ["Always allow"], scoped("session", 'write_file(path="notes/*.md")')))
    answer = await first
    assert view.errors == []
    # The agent gets the seam's answer: the Always allow label, the scope in custom.
    item = answer.answers[0]
    assert item.selected == ["Always allow"]
    assert json.loads(item.custom or "") == {
        "scope": "session",
        "rule": 'write_file(path="notes/*.md")',
    }
    question = tool_approval_question("write_file", {"path": "notes/a.md"}, decisions=DECISIONS)
    assert tool_decision(question, item).message == 'write_file(path="notes/*.md")'
    assert [rule.text for rule in rules.rules] == ['write_file(path="notes/*.md")']
    assert not rules.path.exists()  # session only
    await drain()
    cards = len(panel.cards)
    second = await ask_write(svc, "notes/b.md")  # no card: the rule answers
    assert second.answers[0].selected == ["Approve"]
    assert len(panel.cards) == cards
    third = ask_write(svc, "notes/sub/c.md")  # narrowed: this one still asks
    await drain()
    assert len(panel.cards) == cards + 1
    third.cancel()


async def test_a_saved_rule_is_appended_to_the_rules_file(svc, rules, panel, view) -> None:
    task = ask_write(svc, "notes/a.md")
    await drain()
    view.answer(
        only_key(panel), ("tool", ["Always allow"], scoped("saved", 'write_file(path="notes/**")'))
    )
    await task
    assert rules.path.read_text() == "allow = ['write_file(path=\"notes/**\")']\n"
    assert ipyask.Rules.load(rules.path).decide("write_file", {"path": "notes/z"}) is not None


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ("write_file(path=notes)", "this is not a rule"),
        ('write_file(path="docs/**")', "does not match this call"),
    ],
)
async def test_a_rule_that_does_not_fit_is_refused_and_the_card_stays(
    svc, rules, panel, view, rule: str, problem: str
) -> None:
    task = ask_write(svc, "notes/a.md")
    await drain()
    key = only_key(panel)
    view.answer(key, ("tool", ["Always allow"], scoped("saved", rule)))
    await drain()
    (error,) = view.errors
    assert error["code"] == "BAD_ANSWER"
    assert problem in error["fields"]["rule"]
    assert set(error["fieldTexts"]["zh"]) == {"rule"}
    assert panel.get_card(key).status == "pending" and not task.done()
    assert rules.rules == () and not rules.path.exists()
    task.cancel()


async def test_a_rule_the_file_cannot_take_is_refused_naming_the_file(
    svc, rules, panel, view
) -> None:
    rules.path.write_text("allow = ['a'\n")  # broken since it was loaded
    task = ask_write(svc, "notes/a.md")
    await drain()
    key = only_key(panel)
    view.answer(key, ("tool", ["Always allow"], scoped("saved", "write_file")))
    await drain()
    (error,) = view.errors
    assert "could not be saved" in error["fields"]["rule"]
    assert str(rules.path) in error["fields"]["rule"]
    assert not task.done()
    view.answer(key, ("tool", ["Always allow"], scoped("session", "write_file")))
    await task  # the session scope still works


async def test_the_transcript_says_the_rule_and_its_scope(svc, rules, panel, view) -> None:
    task = ask_write(svc, "notes/a.md")
    await drain()
    view.answer(only_key(panel), ("tool", ["Always allow"], scoped("saved", "write_file")))
    await task
    await drain()
    assert panel.records[-1].endswith("→ **Always allow**, saved as a rule: `write_file`")
