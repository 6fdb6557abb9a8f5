"""MCP (the Model Context Protocol's Python SDK): the notebook as the person an MCP server
elicits from, and as an MCP server other processes ask.

- :func:`elicitation_callback` for a client session (``elicitation_callback=``): form-mode
  requests become form cards; URL-mode requests become a consent card that shows the URL's
  host and never opens the URL itself.
- :func:`serve` runs, inside the kernel's event loop, an MCP server (streamable HTTP) whose
  ``ask_user_question`` and ``approve_tool_call`` tools reach the person as cards.

Needs the ``ipyask[mcp]`` extra.
"""

from __future__ import annotations

try:
    import mcp as _mcp  # noqa: F401 (the check that the extra is installed)
except ImportError as error:  # pragma: no cover - exercised by simulating the missing module
    raise ImportError(
        "ipyask.integrations.mcp needs the MCP Python SDK, which is not installed: "
        "pip install 'ipyask[mcp]'"
    ) from error

from .._service import UserQuestions
from ._asking import chosen_service
from ._mcp_server import NotebookMCPServer

__all__ = ["NotebookMCPServer", "serve"]


async def serve(
    *,
    service: UserQuestions | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    token: str | None = None,
    progress_every: float = 10.0,
) -> NotebookMCPServer:
    """Serve the notebook as an MCP server (streamable HTTP at ``server.url``) in this event loop.

    Every request must carry ``Authorization: Bearer <server.token>`` (a random token is made
    when ``token`` is not given); others are refused with 401/403 before anything is asked.
    ``port=0`` picks a free port. While a question waits, MCP progress notifications go out
    every ``progress_every`` seconds. ``service=None`` asks on the default service, its panel
    shown in the running cell. Stop it with ``await server.aclose()``.
    """
    server = NotebookMCPServer(
        chosen_service(service), host=host, port=port, token=token, progress_every=progress_every
    )
    await server.start()
    return server
