"""MCP elicitation requests as cards: a form card for form mode, a consent card for URL mode.

The same callback serves the legacy protocol (the server sends ``elicitation/create``) and the
newer one (the server answers "input required" and the client SDK calls this callback before it
retries), since the client SDK turns both into one callback call.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import mcp_types as types
from mcp.client.session import ClientRequestContext, ElicitationFnT

from .._decisions import form_result
from .._errors import UserQuestionError
from .._rich_questions import form_question
from .._service import UserQuestions
from .._vocabulary import AskUserQuestionItem, AskUserQuestionOption, AskUserQuestionRequest
from ._asking import ask
from ._markdown_text import code_span, literal

__all__ = ["CONSENT_LABELS", "make_elicitation_callback"]

CONSENT_LABELS = {"accept": "Continue", "decline": "Decline", "cancel": "Cancel"}
"""The consent card's options, one per elicitation action."""


def make_elicitation_callback(service: UserQuestions | None) -> ElicitationFnT:
    """The callback for ``elicitation_callback=``; see ``ipyask.integrations.mcp``."""

    async def elicit(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        try:
            if isinstance(params, types.ElicitRequestURLParams):
                return await _consent(params, service)
            return await _form(params, service)
        except UserQuestionError as error:
            if error.code != "BAD_INTENT":
                raise
            # A schema outside the elicitation subset: the server hears why, nothing is asked.
            return types.ErrorData(code=types.INVALID_PARAMS, message=str(error))

    return elicit


async def _form(
    params: types.ElicitRequestFormParams, service: UserQuestions | None
) -> types.ElicitResult:
    item = form_question(params.message, params.requested_schema, question_id="elicitation")
    answer = await ask(AskUserQuestionRequest(questions=[item]), service)
    result = form_result(item, answer.answers[0])
    content: dict[str, Any] | None = result.values if result.accepted else None
    return types.ElicitResult(action=result.action, content=content)


async def _consent(
    params: types.ElicitRequestURLParams, service: UserQuestions | None
) -> types.ElicitResult:
    item = consent_question(params.message, params.url)
    answer = await ask(AskUserQuestionRequest(questions=[item]), service)
    chosen = answer.answers[0].selected
    actions = {label: action for action, label in CONSENT_LABELS.items()}
    # Skipping the card, like closing a browser's prompt, is a dismissal: cancel.
    action = actions.get(chosen[0], "cancel") if chosen else "cancel"
    return types.ElicitResult(action=action)


def consent_question(message: str, url: str) -> AskUserQuestionItem:
    """The consent card for a URL-mode elicitation: the server's message, the URL's host in
    bold and the whole URL as inert code (never a link, never opened by ipyask)."""
    parts = urlsplit(url)
    host = parts.hostname or "(no host)"
    lines = [f"The server asks you to open a page on **{literal(host)}**."]
    if parts.scheme != "https":
        lines.append(f"The address is not https (it is {literal(parts.scheme or 'none')}).")
    lines.append(f"Address: {code_span(url)}")
    lines.append("Continue tells the server you agree; open the address yourself if you trust it.")
    return AskUserQuestionItem(
        id="elicitation",
        question=message,
        header=host,
        detail="\n\n".join(lines),
        options=[AskUserQuestionOption(label=label) for label in CONSENT_LABELS.values()],
    )
