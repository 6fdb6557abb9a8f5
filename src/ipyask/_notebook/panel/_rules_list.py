"""The panel's list of the approval rules in force (ipyask extension): each rule's kind, text
and where it is written, synced as the panel's ``approval_rules``, and removing one.

Removing a rule takes it out of force in this process. A saved rule's line stays in its file
(read again when the process starts); the panel says so beside the list.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from ..._rules import SESSION_SOURCE, Rule, rules_of
from ..._service import UserQuestions

__all__ = ["RulesList", "rule_id"]


def rule_id(rule: Rule) -> str:
    """A stable name of ``rule`` for the views (the same rule written twice shares it)."""
    text = "\0".join((rule.kind, rule.text, rule.source, str(rule.line)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class RulesList:
    """Keeps ``publish(rows)`` told of the rules in force on ``service`` (none registered for
    every request: an empty list, and the views show no section)."""

    def __init__(
        self, service: UserQuestions, publish: Callable[[list[dict[str, Any]]], None]
    ) -> None:
        self._rules = rules_of(service)
        self._publish = publish
        self._off = self._rules.on_change(self.refresh) if self._rules is not None else None
        self.refresh()

    def refresh(self) -> None:
        rules = self._rules.rules if self._rules is not None else ()
        self._publish(
            [
                {
                    "id": rule_id(rule),
                    "kind": rule.kind,
                    "text": rule.text,
                    "where": rule.where,
                    "session": rule.source == SESSION_SOURCE,
                }
                for rule in rules
            ]
        )

    def remove(self, wanted: str) -> None:
        """Take the rule named ``wanted`` out of force (an unknown one: already gone)."""
        if self._rules is None:
            return
        for rule in self._rules.rules:
            if rule_id(rule) == wanted:
                self._rules.remove(rule)
                return
        self.refresh()  # the view's list was stale

    def close(self) -> None:
        if self._off is not None:
            self._off()
            self._off = None
