"""Scoped Always allow, kernel side: the rule an Always allow suggests, the scope it carries in
the answer's ``custom``, and adding the rule for this session or to the rules file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import ipyask
from ipyask._decisions import tool_decision
from ipyask._field_problems import FieldProblem
from ipyask._rich_questions import tool_approval_question
from ipyask._rules import AlwaysScope, read_always_scope, rules_of, suggest_rule
from ipyask._vocabulary import AskUserQuestionAnswerItem


@pytest.mark.parametrize(
    ("tool", "arguments", "suggested"),
    [
        ("write_file", {"path": "notes/a.md", "content": "hi"}, 'write_file(path="notes/**")'),
        ("write_file", {"path": "/etc/hosts"}, 'write_file(path="/etc/**")'),
        ("write_file", {"path": "a.md"}, 'write_file(path="a.md")'),
        ("write_file", {"path": "notes/../secret"}, 'write_file(path="notes/../secret")'),
        ("shell", {"command": "git status"}, 'shell(command="git status")'),
        ("read_file", {"offset": 3}, "read_file"),
        ("search", {"text": "x"}, "search"),
        ("bad name!", {}, None),
    ],
)
def test_always_allow_suggests_a_rule_that_matches_the_call(
    tool: str, arguments: dict[str, Any], suggested: str | None
) -> None:
    assert suggest_rule(tool, arguments) == suggested
    if suggested is not None:
        assert ipyask.Rules.parse(f"allow = [{json.dumps(suggested)}]").decide(tool, arguments)


CALL = ("write_file", {"path": "notes/a.md"})


@pytest.mark.parametrize(
    ("custom", "problem"),
    [
        ("yes", "bad-always-scope"),
        ('{"scope": "forever", "rule": "write_file"}', "bad-always-scope"),
        ('{"scope": "session"}', "bad-always-scope"),
        ('{"scope": "session", "rule": "write_file(path=notes)"}', "bad-rule"),
        ('{"scope": "saved", "rule": "write_file(path=\\"docs/**\\")"}', "rule-misses-call"),
        ('{"scope": "saved", "rule": "read_file"}', "rule-misses-call"),
    ],
)
def test_a_scope_that_is_not_a_rule_for_this_call_names_the_problem(
    custom: str, problem: str
) -> None:
    read = read_always_scope(*CALL, custom)
    assert isinstance(read, FieldProblem)
    assert read.code == problem
    assert read.text("en") and read.text("zh") != read.text("en")


def test_a_narrowed_rule_is_read_with_its_scope() -> None:
    read = read_always_scope(
        *CALL, '{"scope": "saved", "rule": "write_file(path=\\"notes/*.md\\")"}'
    )
    assert isinstance(read, AlwaysScope)
    assert (read.scope, read.rule.kind, read.rule.text) == (
        "saved",
        "allow",
        'write_file(path="notes/*.md")',
    )


def test_the_agent_gets_always_with_the_rule_as_its_message() -> None:
    question = tool_approval_question(*CALL, decisions=["approve", "always", "reject"])
    custom = json.dumps({"scope": "session", "rule": 'write_file(path="notes/**")'})
    item = AskUserQuestionAnswerItem(id="tool", selected=["Always allow"], custom=custom)
    decision = tool_decision(question, item)
    assert decision == ipyask.ToolDecision(
        kind="always", arguments={"path": "notes/a.md"}, message='write_file(path="notes/**")'
    )
    bad = AskUserQuestionAnswerItem(id="tool", selected=["Always allow"], custom='{"scope": 1}')
    with pytest.raises(ipyask.errors.BadAnswerError) as refused:
        tool_decision(question, bad)
    assert list(refused.value.field_errors) == ["rule"]


def test_a_session_rule_is_in_force_in_memory_only(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    rules = ipyask.Rules.load(path) if path.exists() else ipyask.Rules(path=path)
    rule = rules.add('write_file(path="notes/**")', "session")
    assert (rule.source, rule.line) == ("this session", None)
    assert rules.decide(*CALL) is not None
    assert not path.exists()
    assert rules.remove(rule) and rules.decide(*CALL) is None
    assert not rules.remove(rule)


def test_a_saved_rule_creates_the_file_and_is_read_back(tmp_path: Path) -> None:
    path = tmp_path / ".ipyask" / "rules.toml"
    rules = ipyask.Rules(path=path)
    rule = rules.add('write_file(path="notes/**")', "saved")
    assert path.read_text() == "allow = ['write_file(path=\"notes/**\")']\n"
    assert (rule.source, rule.line) == (str(path), 1)
    assert ipyask.Rules.load(path).decide(*CALL) is not None


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "# team rules\ndeny = ['shell']\n",
            "# team rules\ndeny = ['shell']\nallow = ['read_file']\n",
        ),
        ("allow = []\n", "allow = ['read_file']\n"),
        ("allow = ['a', 'b']  # two\n", "allow = ['a', 'b', 'read_file']  # two\n"),
        (
            "allow = [\n  'a',  # first\n  'b(p=\"]\")',\n]\ndeny = ['x']\n",
            "allow = [\n  'a',  # first\n  'b(p=\"]\")', 'read_file'\n]\ndeny = ['x']\n",
        ),
    ],
)
def test_saving_keeps_the_files_comments_and_layout(
    tmp_path: Path, before: str, after: str
) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(before)
    ipyask.Rules.load(path).add("read_file", "saved")
    assert path.read_text() == after


def test_a_rule_with_a_single_quote_is_saved_as_a_basic_string(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    rules = ipyask.Rules(path=path)
    rules.add("shell(command=\"echo 'hi'\")", "saved")
    assert ipyask.Rules.load(path).decide("shell", {"command": "echo 'hi'"}) is not None


def test_a_file_broken_since_it_was_loaded_is_not_written_over(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text("allow = ['a']\n")
    rules = ipyask.Rules.load(path)
    path.write_text("allow = ['a'\n")
    with pytest.raises(ipyask.errors.RulesError, match=r"rules\.toml:"):
        rules.add("read_file", "saved")
    assert path.read_text() == "allow = ['a'\n"
    assert rules.decide("read_file", {}) is None  # nothing added


def test_rules_without_a_file_save_nothing() -> None:
    with pytest.raises(ipyask.errors.RulesError, match="not loaded from a file"):
        ipyask.Rules().add("read_file", "saved")


def test_a_bad_rule_or_scope_is_refused() -> None:
    with pytest.raises(ipyask.errors.RulesError):
        ipyask.Rules().add("read_file(", "session")
    with pytest.raises(ValueError, match="'session' or 'saved'"):
        ipyask.Rules().add("read_file", "forever")  # type: ignore[arg-type]


def test_registering_for_every_request_makes_them_the_services_rules() -> None:
    svc = ipyask.UserQuestions()
    rules = ipyask.Rules()
    off = rules.register(svc)
    assert rules_of(svc) is rules
    off()
    assert rules_of(svc) is None
    agent = svc.agents.enter(ipyask.Agent("a"))
    rules.register(svc, agent=agent)
    assert rules_of(svc) is None  # an agent's rules are not the whole service's
