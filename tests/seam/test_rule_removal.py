"""Removing a rule of the rules file from the file too: its string goes, every other line,
comment and the order stay; a file changed on disk since it was read is not written over."""

from __future__ import annotations

from pathlib import Path

import pytest

import ipyask
from ipyask.errors import RulesFileChangedError


def loaded(tmp_path: Path, text: str) -> ipyask.Rules:
    path = tmp_path / "rules.toml"
    path.write_text(text, encoding="utf-8")
    return ipyask.Rules.load(path)


def named(rules: ipyask.Rules, text: str) -> ipyask.Rule:
    return next(rule for rule in rules.rules if rule.text == text)


@pytest.mark.parametrize(
    ("before", "removed", "after"),
    [
        ("allow = ['a', 'b']\n", "a", "allow = ['b']\n"),
        ("allow = ['a', 'b']  # both\n", "b", "allow = ['a']  # both\n"),
        ("allow = ['a']\ndeny = ['c']\n", "a", "allow = []\ndeny = ['c']\n"),
        (
            "# team rules\nallow = [\n  'a',  # reads\n  'b',\n]\ndeny = ['c']\n",
            "a",
            "# team rules\nallow = [\n  'b',\n]\ndeny = ['c']\n",
        ),
        (
            "allow = [\n  'a',  # reads\n  'b'\n]\n",
            "b",
            "allow = [\n  'a',  # reads\n]\n",
        ),
        (
            'allow = [\n  "shell(command=\\"git status\\")",\n  \'x\',\n]\n',
            'shell(command="git status")',
            "allow = [\n  'x',\n]\n",
        ),
    ],
)
def test_the_rule_leaves_the_file_and_everything_else_stays(
    tmp_path: Path, before: str, removed: str, after: str
) -> None:
    rules = loaded(tmp_path, before)
    rule = named(rules, removed)
    assert rules.remove(rule, from_file=True)
    assert rules.path is not None
    assert rules.path.read_text(encoding="utf-8") == after
    assert rule not in rules.rules
    # What stays in force is the file as it reads now, lines included.
    reread = ipyask.Rules.load(rules.path)
    assert [(r.kind, r.text, r.where) for r in rules.rules] == [
        (r.kind, r.text, r.where) for r in reread.rules
    ]


def test_a_later_removal_finds_a_rule_that_moved_up(tmp_path: Path) -> None:
    rules = loaded(tmp_path, "allow = [\n  'a',\n  'b',\n  'c',\n]\n")
    rules.remove(named(rules, "a"), from_file=True)
    rules.remove(named(rules, "c"), from_file=True)
    assert rules.path is not None
    assert rules.path.read_text(encoding="utf-8") == "allow = [\n  'b',\n]\n"


def test_a_saved_rule_is_removed_from_the_file(tmp_path: Path) -> None:
    rules = loaded(tmp_path, "# mine\nallow = ['a']\n")
    saved = rules.add('write_file(path="notes/**")', "saved")
    rules.remove(saved, from_file=True)
    assert rules.path is not None
    assert rules.path.read_text(encoding="utf-8") == "# mine\nallow = ['a']\n"


def test_a_file_changed_on_disk_is_not_written_over(tmp_path: Path) -> None:
    rules = loaded(tmp_path, "allow = ['a', 'b']\n")
    assert rules.path is not None
    rules.path.write_text("allow = ['a', 'b', 'z']\n", encoding="utf-8")  # edited meanwhile
    with pytest.raises(RulesFileChangedError, match="changed on disk since this kernel read it"):
        rules.remove(named(rules, "a"), from_file=True)
    assert rules.path.read_text(encoding="utf-8") == "allow = ['a', 'b', 'z']\n"
    assert [rule.text for rule in rules.rules] == ["a", "b"]  # nothing changed


def test_without_from_file_the_line_stays(tmp_path: Path) -> None:
    rules = loaded(tmp_path, "allow = ['a']\n")
    assert rules.remove(named(rules, "a"))
    assert rules.path is not None
    assert rules.path.read_text(encoding="utf-8") == "allow = ['a']\n"


def test_a_session_rule_has_no_line_to_remove(tmp_path: Path) -> None:
    rules = loaded(tmp_path, "allow = ['a']\n")
    session = rules.add("b", "session")
    assert not rules.in_file(session)
    assert rules.remove(session, from_file=True)
    assert rules.path is not None
    assert rules.path.read_text(encoding="utf-8") == "allow = ['a']\n"


def test_a_rule_that_cannot_be_taken_out_safely_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    text = 'allow = ["""read_file""", \'b\']\n'  # a multi-line string: not cut apart
    rules = loaded(tmp_path, text)
    with pytest.raises(ipyask.errors.RulesError, match="cannot be taken out of the file safely"):
        rules.remove(named(rules, "read_file"), from_file=True)
    assert rules.path is not None
    assert rules.path.read_text(encoding="utf-8") == text
    assert [rule.text for rule in rules.rules] == ["read_file", "b"]
