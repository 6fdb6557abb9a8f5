"""Scoped Always allow (ipyask extension): a tool approval's Always allow adds an allow rule to
the service's approval rules, for this session or saved to the rules file, so the next matching
call is answered by the rule without a card.

The card offers it only when rules are registered on the service for every request
(:func:`ipyask._rules.rules_of`; the default service always has them) and shows the rule
:func:`~ipyask._rules.suggest_rule` suggests, which the person may narrow. The kernel checks the
rule (an allow rule that still matches the call) and adds it before the agent gets the answer;
the answer keeps the seam's shape: the Always allow label, its scope in ``custom``.
"""

from __future__ import annotations

from ..._field_problems import FieldProblem
from ..._rules import read_always_scope, rules_of, suggest_rule
from ..._service import UserQuestions
from ..._vocabulary import AskUserQuestionAnswer, AskUserQuestionItem, ToolApprovalIntent
from ...errors import RulesError
from ...widget import AlwaysRuleOffer

__all__ = ["RuleProblem", "add_always_rules", "always_rule_offer"]

RuleProblem = tuple[str, str, FieldProblem]
"""Why a scoped Always allow was not added: the question's id, the message and the problem of
its ``rule`` field."""


def always_rule_offer(
    service: UserQuestions, questions: list[AskUserQuestionItem]
) -> AlwaysRuleOffer | None:
    """What the card of ``questions`` offers for Always allow: the suggested rule and the file
    a saved one goes to; ``None`` for a card whose Always allow only answers."""
    if len(questions) != 1:
        return None
    intent = questions[0].intent
    if not isinstance(intent, ToolApprovalIntent) or intent.always is None:
        return None
    rules = rules_of(service)
    if rules is None:
        return None
    suggested = suggest_rule(intent.tool.name, intent.tool.arguments)
    if suggested is None:
        return None
    file = str(rules.path) if rules.path is not None else None
    return AlwaysRuleOffer(suggested=suggested, file=file)


def add_always_rules(
    service: UserQuestions, questions: list[AskUserQuestionItem], answer: AskUserQuestionAnswer
) -> RuleProblem | None:
    """Add the rule of each scoped Always allow in ``answer`` (checked against its card
    already) to the service's rules; the first that cannot be added, else ``None``."""
    for question, item in zip(questions, answer.answers, strict=False):
        intent = question.intent
        if not isinstance(intent, ToolApprovalIntent) or item.custom is None:
            continue
        if intent.always is None or item.selected != [intent.always]:
            continue
        scope = read_always_scope(intent.tool.name, intent.tool.arguments, item.custom)
        if isinstance(scope, FieldProblem):
            return question.id, scope.text(), scope
        rules = rules_of(service)
        if rules is None:
            detail = "no approval rules are registered on this service"
            problem = FieldProblem("rule-not-saved", {"detail": detail})
            return question.id, problem.text(), problem
        try:
            rules.add(scope.rule.text, scope.scope)
        except RulesError as error:
            problem = FieldProblem("rule-not-saved", {"detail": str(error)})
            return question.id, problem.text(), problem
    return None
