"""MCP (the Model Context Protocol's Python SDK): the notebook as the person an MCP server
elicits from, and as an MCP server that other processes ask.

- :func:`elicitation_callback` for a client (``mcp.Client(..., elicitation_callback=...)``):
  form-mode requests become form cards; URL-mode requests become a consent card that shows the
  URL's host and never opens the URL itself.
- :func:`url_elicitations` for a client whose server refuses calls until a page is done
  (``URLElicitationRequiredError``, -32042): consent cards, then the call again.
- :func:`serve` runs, inside the kernel's event loop, an MCP server (streamable HTTP) whose
  ``ask_user_question`` and ``approve_tool_call`` tools reach the person as cards.

Needs the ``ipyask[mcp]`` extra.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

try:
    import mcp as _mcp  # noqa: F401 (fails early, naming the extra)
except ImportError as _missing:
    raise ImportError(
        "ipyask.integrations.mcp needs the MCP Python SDK (mcp), which is not installed: "
        "pip install 'ipyask[mcp]'"
    ) from _missing

from . import _asking, _mcp_elicitation
from ._mcp_elicitation import UrlElicitations
from ._mcp_server import NotebookMCPServer

if TYPE_CHECKING:
    from mcp.client.session import ElicitationFnT, MessageHandlerFnT

    from .._service import UserQuestions

__all__ = [
    "NotebookMCPServer",
    "UrlElicitations",
    "elicitation_callback",
    "serve",
    "url_elicitations",
]


def elicitation_callback(*, service: UserQuestions | None = None) -> ElicitationFnT:
    """The ``elicitation_callback`` for an MCP client: each elicitation becomes a card.

    Form mode: a form card from ``requestedSchema`` whose question is the elicitation's
    ``message``; Submit returns ``accept`` with the validated values, Decline ``decline``,
    Cancel (or skipping) ``cancel``. A schema outside the elicitation subset is answered with an
    ``INVALID_PARAMS`` error, asking nothing. URL mode: a consent card showing the URL's host;
    the URL is never opened by ipyask. ``service=None`` asks on the default service and panel.
    """
    return _mcp_elicitation.make_elicitation_callback(service)


def url_elicitations(
    *, service: UserQuestions | None = None, message_handler: MessageHandlerFnT | None = None
) -> UrlElicitations:
    """URL elicitations asked by error: ``URLElicitationRequiredError`` (-32042, protocol
    2025-11-25, so a ``mode="legacy"`` client).

    ``urls = url_elicitations()``; ``mcp.Client(server, mode="legacy",
    message_handler=urls.message_handler)``; ``await urls.call_tool(client, name, arguments)``
    is ``client.call_tool``, except that a -32042 refusal shows a consent card per URL (as
    :func:`elicitation_callback` does, never opening it) and, once the person continues on
    each, calls again. Declining or cancelling raises the server's error unchanged. The server's
    ``notifications/elicitation/complete`` for a URL whose card waits closes that card (the
    agent no longer waits for it) and counts as done. ``message_handler`` receives every message
    after that. ``service=None`` asks on the default service and panel.
    """
    return UrlElicitations(service, message_handler)


async def serve(
    *,
    service: UserQuestions | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    token: str | None = None,
    progress_every: float = 10.0,
    approval_timeout: float | None = None,
    on_approval_timeout: str = "pending",
) -> NotebookMCPServer:
    """Serve the notebook as an MCP server (streamable HTTP at ``server.url``) in this event loop.

    Every request must carry ``Authorization: Bearer <server.token>`` (a random token is made
    when ``token`` is not given); others are refused with 401/403 before anything is asked.
    ``port=0`` picks a free port. While a question waits, MCP progress notifications go out
    every ``progress_every`` seconds. ``service=None`` asks on the default service, its panel
    shown in the running cell. Stop it with ``await server.aclose()`` (the port is freed).

    A timed ``ask_user_question`` the person does not answer in time returns pending and its
    card stays answerable; the client collects the late answer by calling the tool again with
    ``callId`` set to the pending result's (the tool's description says so). Until then the
    card says the answer waits for the client. Late answers no client collected before
    ``aclose``, and those given after it, are kept in the session log
    (``service.projection(server.agent)`` settles them; their cards say nobody will read them).

    ``approval_timeout`` (seconds; ``None``, the default, waits for the person) makes each
    ``approve_tool_call`` a timed question: when no one answers in time,
    ``on_approval_timeout`` decides, as ``on_timeout`` of the other bridges: ``"pending"`` (the
    default) and ``"reject"`` return a ``reject`` decision whose message says no one answered
    in time; a card decision's label (``"Approve"``) answers as the person's click would. Bad
    values raise :class:`ValueError` here.
    """
    approval_timing = _asking.timing(approval_timeout, on_approval_timeout)
    server = NotebookMCPServer(
        _asking.chosen_service(service),
        host=host,
        port=port,
        token=token,
        progress_every=progress_every,
        approval_timing=approval_timing,
    )
    await server.start()
    return server
