"""Scoped Always allow in the framework bridges: the scope the person chose on the card, and the
ipyask rule it adds, kept in force whichever door the answer came through.

A framework's own "always" (Claude's permission updates, the Agents SDK's ``always_approve``)
is given only as far as the person's rule reaches: a framework grant wider than the rule would
allow calls the person never agreed to. What the framework does not remember, ipyask's rule
answers at the framework's next prompt.
"""

from __future__ import annotations

import logging

from .._rule_patterns import SESSION_SOURCE, AlwaysScope, read_always_scope
from .._rules import rules_of
from .._service import UserQuestions
from .._vocabulary import AskUserQuestionAnswerItem, AskUserQuestionItem, ToolApprovalIntent
from ..errors import RulesError

__all__ = ["bridge_rules_service", "chosen_scope", "keep_rule"]

logger = logging.getLogger("ipyask.rules")


def chosen_scope(
    question: AskUserQuestionItem, item: AskUserQuestionAnswerItem
) -> AlwaysScope | None:
    """The scope of an Always allow answer (``None``: a plain Always allow, no rule)."""
    intent = question.intent
    if not isinstance(intent, ToolApprovalIntent) or item.custom is None:
        return None
    if intent.always is None or item.selected != [intent.always]:
        return None
    scope = read_always_scope(intent.tool.name, intent.tool.arguments, item.custom)
    return scope if isinstance(scope, AlwaysScope) else None


def bridge_rules_service(service: UserQuestions | None) -> UserQuestions:
    """The service a bridge asks on: ``service``, or the default one."""
    if service is not None:
        return service
    from .._notebook import default_service

    return default_service()


def keep_rule(service: UserQuestions | None, scope: AlwaysScope) -> None:
    """Make sure the rule of ``scope`` is in force on the service (``None``: the default one).

    A panel adds it before the agent gets the answer; an answer given through another door
    (code, another answerer) may not have, so it is added here. A rule that cannot be added is
    logged: the answer was given already."""
    rules = rules_of(bridge_rules_service(service))
    if rules is None:
        return
    session = scope.scope == "session"
    if any(
        rule.kind == "allow"
        and rule.text == scope.rule.text
        and (rule.source == SESSION_SOURCE) == session
        for rule in rules.rules
    ):
        return
    try:
        rules.add(scope.rule.text, scope.scope)
    except RulesError as error:
        logger.warning("the Always allow rule %s was not added: %s", scope.rule.text, error)
