"""The panel's list of the approval rules in force (ipyask extension): each rule's kind, text
and where it is written, synced as the panel's ``approval_rules``, and removing one.

Removing a rule takes it out of force in this process, and a rule of the rules file out of the
file too (every other line kept); a file changed on disk since it was read is not written over.
The panel says what happened beside the list (``rules_notice``), in the view's language.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from ..._rules import SESSION_SOURCE, Rule, Rules, RulesError, RulesFileChangedError, rules_of
from ..._service import UserQuestions
from ._texts import Notice

__all__ = ["RulesList", "rule_id"]


def rule_id(rule: Rule) -> str:
    """A stable name of ``rule`` for the views (the same rule written twice shares it)."""
    text = "\0".join((rule.kind, rule.text, rule.source, str(rule.line)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class RulesList:
    """Keeps ``publish(rows)`` told of the rules in force on ``service`` (none registered for
    every request: an empty list, and the views show no section)."""

    def __init__(
        self,
        service: UserQuestions,
        publish: Callable[[list[dict[str, Any]]], None],
        notify: Callable[[Notice], None] = lambda notice: None,
    ) -> None:
        self._rules = rules_of(service)
        self._publish = publish
        self._notify = notify
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
        """Take the rule named ``wanted`` out of force, and out of the rules file when it is
        written there; tell the views what happened (an unknown rule: already gone)."""
        if self._rules is None:
            return
        for rule in self._rules.rules:
            if rule_id(rule) == wanted:
                self._notify(self._removed(self._rules, rule))
                return
        self.refresh()  # the view's list was stale

    @staticmethod
    def _removed(rules: Rules, rule: Rule) -> Notice:
        words = f"{rule.kind} {rule.text}"
        file = str(rules.path)
        in_file = rules.in_file(rule)
        try:
            rules.remove(rule, from_file=True)
        except RulesFileChangedError:
            return Notice("rule-file-changed", {"rule": words, "file": file})
        except RulesError as error:
            return Notice("rule-not-removed", {"rule": words, "file": file, "detail": str(error)})
        if not in_file:
            return Notice("rule-removed", {"rule": words})
        return Notice(
            "rule-removed-from-file", {"rule": words, "file": file, "line": str(rule.line)}
        )

    def close(self) -> None:
        if self._off is not None:
            self._off()
            self._off = None
