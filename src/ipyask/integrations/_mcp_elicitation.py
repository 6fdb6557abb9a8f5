"""MCP elicitation requests as cards: a form card for form mode, a consent card for URL mode.

The same callback serves the legacy protocol (the server sends ``elicitation/create``) and the
newer one (the server answers "input required" and the client SDK calls this callback before it
retries), since the client SDK turns both into one callback call. A URL elicitation a server
asks for by error (``URLElicitationRequiredError``, -32042, protocol 2025-11-25) is handled by
:class:`UrlElicitations`: a consent card per URL, then the call again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal
from urllib.parse import urlsplit

import mcp
import mcp_types as types
from mcp.client.session import ClientRequestContext, ElicitationFnT, MessageHandlerFnT
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError

from .._abort import AbortController
from .._decisions import form_result
from .._errors import UserQuestionError
from .._rich_questions import form_question
from .._service import UserQuestions
from .._vocabulary import AskUserQuestionItem, AskUserQuestionOption, AskUserQuestionRequest
from ._asking import ask
from ._markdown_text import code_span, literal
from ._texts import BridgeText, Language, card_language, text

__all__ = ["UrlElicitations", "consent_labels", "make_elicitation_callback"]

ConsentAction = Literal["accept", "decline", "cancel"]

_CONSENT_TEXTS: dict[ConsentAction, BridgeText] = {
    "accept": "mcp-continue",
    "decline": "mcp-decline",
    "cancel": "mcp-cancel",
}


def consent_labels(language: Language = "en") -> dict[ConsentAction, str]:
    """The consent card's options in ``language``, one per elicitation action."""
    return {action: text(language, key) for action, key in _CONSENT_TEXTS.items()}


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
    language = card_language(service)
    item = consent_question(params.message, params.url, language=language)
    answer = await ask(AskUserQuestionRequest(questions=[item]), service)
    return types.ElicitResult(action=_consent_action(answer.answers[0].selected, language))


def _consent_action(chosen: Sequence[str], language: Language) -> ConsentAction:
    actions = {label: action for action, label in consent_labels(language).items()}
    # Skipping the card, like closing a browser's prompt, is a dismissal: cancel.
    return actions.get(chosen[0], "cancel") if chosen else "cancel"


def consent_question(
    message: str, url: str, *, retry: bool = False, language: Language = "en"
) -> AskUserQuestionItem:
    """The consent card for a URL-mode elicitation: the server's message, the URL's host in
    bold and the whole URL as inert code (never a link, never opened by ipyask). ``retry``: the
    server refused a call until the page is done (-32042), so Continue makes the call again.
    The card's own texts are in ``language``."""
    parts = urlsplit(url)
    host = parts.hostname or text(language, "mcp-no-host")
    lines = [text(language, "mcp-open-page", host=literal(host))]
    if parts.scheme != "https":
        lines.append(text(language, "mcp-not-https", scheme=literal(parts.scheme or "none")))
    lines.append(text(language, "mcp-address", address=code_span(url)))
    lines.append(text(language, "mcp-retry-note" if retry else "mcp-continue-note"))
    labels = consent_labels(language).values()
    return AskUserQuestionItem(
        id="elicitation",
        question=message,
        header=host,
        detail="\n\n".join(lines),
        options=[AskUserQuestionOption(label=label) for label in labels],
    )


class UrlElicitations:
    """URL elicitations a server asks for by refusing a call (``URLElicitationRequiredError``,
    -32042): each URL gets a consent card; once the person continues on every one, the call is
    made again. The server's ``notifications/elicitation/complete`` for a URL closes its
    pending card as done (it reaches :meth:`message_handler`, given to the client).
    """

    def __init__(
        self, service: UserQuestions | None, forward: MessageHandlerFnT | None = None
    ) -> None:
        self._service = service
        self._forward = forward
        self._completed: set[str] = set()
        self._waiting: dict[str, AbortController] = {}

    async def message_handler(self, message: Any) -> None:
        """The client's ``message_handler``: notes completed URL elicitations, then hands every
        message to the handler this was made with."""
        if isinstance(message, types.ElicitCompleteNotification):
            self._complete(message.params.elicitation_id)
        if self._forward is not None:
            await self._forward(message)

    def _complete(self, elicitation_id: str) -> None:
        waiting = self._waiting.pop(elicitation_id, None)
        if waiting is not None:
            waiting.abort()
        else:
            self._completed.add(elicitation_id)

    async def call_tool(
        self, client: mcp.Client, name: str, arguments: dict[str, Any] | None = None, **kwargs: Any
    ) -> types.CallToolResult:
        """``client.call_tool(name, arguments, **kwargs)``; a -32042 refusal asks for its URLs
        and calls again. Declining or cancelling a card raises the server's error unchanged."""
        while True:
            try:
                return await client.call_tool(name, arguments, **kwargs)
            except MCPError as error:
                if error.code != types.URL_ELICITATION_REQUIRED:
                    raise
                required = UrlElicitationRequiredError.from_error(error.error)
                if not required.elicitations or not await self._all_done(required.elicitations):
                    raise

    async def _all_done(self, elicitations: Sequence[types.ElicitRequestURLParams]) -> bool:
        """Ask for each URL in turn; ``False`` as soon as the person declines or cancels one."""
        for params in elicitations:
            key = params.elicitation_id
            if key is not None and key in self._completed:
                self._completed.discard(key)  # one retry per completion
                continue
            if await self._ask(params) != "accept":
                return False
        return True

    async def _ask(self, params: types.ElicitRequestURLParams) -> ConsentAction:
        controller = AbortController()
        key = params.elicitation_id
        if key is not None:  # only an identified elicitation can be reported complete
            self._waiting[key] = controller
        language = card_language(self._service)
        item = consent_question(params.message, params.url, retry=True, language=language)
        request = AskUserQuestionRequest(questions=[item], signal=controller.signal)
        try:
            answer = await ask(request, self._service)
        except UserQuestionError as error:
            if error.code == "ASK_ABORTED" and controller.signal.aborted:
                return "accept"  # the server said the page is done: the card is no longer asked
            raise
        finally:
            if key is not None:
                self._waiting.pop(key, None)
        return _consent_action(answer.answers[0].selected, language)
