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

__all__ = ["CONSENT_LABELS", "UrlElicitations", "make_elicitation_callback"]

ConsentAction = Literal["accept", "decline", "cancel"]

CONSENT_LABELS: dict[ConsentAction, str] = {
    "accept": "Continue",
    "decline": "Decline",
    "cancel": "Cancel",
}
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
    return types.ElicitResult(action=_consent_action(answer.answers[0].selected))


def _consent_action(chosen: Sequence[str]) -> ConsentAction:
    actions = {label: action for action, label in CONSENT_LABELS.items()}
    # Skipping the card, like closing a browser's prompt, is a dismissal: cancel.
    return actions.get(chosen[0], "cancel") if chosen else "cancel"


_RETRY_NOTE = (
    "Open the address yourself if you trust it, and Continue once you have finished there: the "
    "call is then made again. The card closes by itself if the server says you have finished."
)


def consent_question(message: str, url: str, *, retry: bool = False) -> AskUserQuestionItem:
    """The consent card for a URL-mode elicitation: the server's message, the URL's host in
    bold and the whole URL as inert code (never a link, never opened by ipyask). ``retry``: the
    server refused a call until the page is done (-32042), so Continue makes the call again."""
    parts = urlsplit(url)
    host = parts.hostname or "(no host)"
    lines = [f"The server asks you to open a page on **{literal(host)}**."]
    if parts.scheme != "https":
        lines.append(f"The address is not https (it is {literal(parts.scheme or 'none')}).")
    lines.append(f"Address: {code_span(url)}")
    lines.append(
        _RETRY_NOTE
        if retry
        else "Continue tells the server you agree; open the address yourself if you trust it."
    )
    return AskUserQuestionItem(
        id="elicitation",
        question=message,
        header=host,
        detail="\n\n".join(lines),
        options=[AskUserQuestionOption(label=label) for label in CONSENT_LABELS.values()],
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
        item = consent_question(params.message, params.url, retry=True)
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
        return _consent_action(answer.answers[0].selected)
