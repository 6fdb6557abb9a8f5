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


async def test_a_view_removes_a_rule_from_force(svc, rules, panel, view) -> None:
    denied = rules.rules[1]
    view.send("remove_rule", ruleId=rule_id(denied))
    assert view.errors == []
    assert denied not in rules.rules
    assert rules.decide("shell", {"command": "rm x"}) is None
    assert [row["text"] for row in panel.approval_rules] == ["read_file"]
    assert "rm *" in rules.path.read_text()  # the file keeps its line
    view.send("remove_rule", ruleId="gone")  # already removed elsewhere: nothing to do
    assert view.errors == []


async def test_a_service_without_rules_lists_none(svc, panel, view) -> None:
    assert panel.approval_rules == []
    view.send("remove_rule", ruleId="x")
    assert view.errors == []
