"""The panel lists the approval rules in force and a view removes one."""

from __future__ import annotations

from pathlib import Path

import pytest

import ipyask
from ipyask._notebook.panel._rules_list import rule_id


@pytest.fixture
def rules(svc, tmp_path: Path):
    path = tmp_path / "rules.toml"
    path.write_text("allow = ['read_file']\ndeny = ['shell(command=\"rm *\")']\n")
    made = ipyask.Rules.load(path)
    off = made.register(svc)
    yield made
    off()


async def test_the_panel_lists_the_rules_in_force(svc, rules, panel) -> None:
    assert panel.approval_rules == [
        {
            "id": rule_id(rules.rules[0]),
            "kind": "allow",
            "text": "read_file",
            "where": f"{rules.path}:1",
            "session": False,
        },
        {
            "id": rule_id(rules.rules[1]),
            "kind": "deny",
            "text": 'shell(command="rm *")',
            "where": f"{rules.path}:2",
            "session": False,
        },
    ]
    rules.add("write_file", "session")
    assert panel.approval_rules[-1]["text"] == "write_file"
    assert panel.approval_rules[-1]["session"] is True
    assert "approval_rules" in panel.get_state()


async def test_a_view_removes_a_rule_from_force_and_from_its_file(svc, rules, panel, view) -> None:
    denied = rules.rules[1]
    view.send("remove_rule", ruleId=rule_id(denied))
    assert view.errors == []
    assert denied not in rules.rules
    assert rules.decide("shell", {"command": "rm x"}) is None
    assert [row["text"] for row in panel.approval_rules] == ["read_file"]
    assert rules.path.read_text() == "allow = ['read_file']\ndeny = []\n"  # the rest stays
    assert panel.rules_notice["code"] == "rule-removed-from-file"
    assert panel.rules_notice["params"] == {
        "rule": 'deny shell(command="rm *")',
        "file": str(rules.path),
        "line": "2",
    }
    assert panel.rules_notice["text"] == (
        f'Removed deny shell(command="rm *"): it no longer applies in this kernel, and it was '
        f"deleted from {rules.path} (line 2); the file's other lines are as they were."
    )
    view.send("remove_rule", ruleId="gone")  # already removed elsewhere: nothing to do
    assert view.errors == []


async def test_a_file_changed_on_disk_is_not_written_over(svc, rules, panel, view) -> None:
    edited = "allow = ['read_file']  # edited by hand\ndeny = ['shell(command=\"rm *\")']\n"
    rules.path.write_text(edited)
    view.send("remove_rule", ruleId=rule_id(rules.rules[0]))
    assert view.errors == []
    assert [rule.text for rule in rules.rules] == ["read_file", 'shell(command="rm *")']
    assert rules.path.read_text() == edited
    assert panel.rules_notice["code"] == "rule-file-changed"
    assert "was not removed" in panel.rules_notice["text"]
    assert "changed on disk" in panel.rules_notice["text"]


async def test_a_session_rule_is_removed_from_force_only(svc, rules, panel, view) -> None:
    added = rules.add("write_file", "session")
    before = rules.path.read_text()
    view.send("remove_rule", ruleId=rule_id(added))
    assert added not in rules.rules
    assert rules.path.read_text() == before
    assert panel.rules_notice == {
        "code": "rule-removed",
        "params": {"rule": "allow write_file"},
        "text": "Removed allow write_file: it no longer applies in this kernel.",
    }


async def test_a_service_without_rules_lists_none(svc, panel, view) -> None:
    assert panel.approval_rules == []
    view.send("remove_rule", ruleId="x")
    assert view.errors == []
