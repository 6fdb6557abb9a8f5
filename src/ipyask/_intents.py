"""The intent rules ``ask()`` enforces, which the type system cannot express."""

from __future__ import annotations

from ._vocabulary import AskUserQuestionRequest
from .kinds import kind_of

__all__ = ["check_intents"]


def check_intents(request: AskUserQuestionRequest) -> None:
    """Raise ``BAD_INTENT`` for the first question, in order, whose intent cannot hold.

    Every known intent needs its ``approve`` label among the question's options, then a
    ``detail`` (an empty string counts). An ``approval`` also needs: to be the only question of a
    request without a timed wait, single-select, with distinct approve / reject / always labels
    that are exactly the offered options. ipyask's ``tool-approval`` and ``form`` need a
    single-select question whose options are exactly their distinct decision labels, JSON
    arguments and an object ``inputSchema`` (tool approval), and a ``requestedSchema`` inside the
    MCP elicitation subset (form). Unknown intent kinds are presentation hints only and are never
    rejected. Each rule is its kind's ``check`` (:mod:`ipyask.kinds`).
    """
    for question in request.questions:
        kind = kind_of(question.intent)
        if kind is not None:
            kind.check(request, question, question.intent)
