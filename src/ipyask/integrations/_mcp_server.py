"""The notebook as an MCP server: the MCP SDK's server over streamable HTTP, run by uvicorn
inside the kernel's event loop, behind a bearer token.

Each tool call asks the person through the service and reports MCP progress while it waits, so
clients that reset their timeout on progress keep waiting. A call the client cancels, or whose
connection ends, ends its ask: the card shows cancelled.

A timed ``ask_user_question`` that returns pending leaves its card answerable; an MCP client can
only receive that late answer by asking for it, so the server declares itself the session's
``"re-ask"`` reader: the card says the answer waits for the client, and a call with ``callId``
collects it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hmac
import json
import logging
import secrets
import socket
import uuid
from collections.abc import Awaitable, Callable, Generator, Mapping
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server import Server, ServerRequestContext
from starlette.types import ASGIApp, Receive, Scope, Send

from .._agents import Agent
from .._decisions import tool_decision
from .._errors import UserQuestionError
from .._rich_questions import tool_approval_question
from .._service import UserQuestions
from .._tool import (
    TIMED_DESCRIPTION,
    AskUserQuestionTool,
    ToolArgumentError,
    ToolResult,
    _check_seconds,
)
from .._vocabulary import AskUserQuestionItem, AskUserQuestionRequest, PendingAnswer
from ._asking import Timing, ask

__all__ = [
    "APPROVE_TOOL_CALL",
    "ASK_DESCRIPTION",
    "MCP_PENDING_NOTICE",
    "WAITING_MESSAGE",
    "NotebookMCPServer",
]

APPROVE_TOOL_CALL = "approve_tool_call"
"""The name of the tool-approval tool."""
_DEFAULT_DECISIONS = ("approve", "edit", "reject")
_DECISION_KINDS = ["approve", "always", "edit", "reject", "respond"]
_APPROVE_DESCRIPTION = (
    "Ask the person in the notebook whether a tool call may run. They may approve it, edit its "
    "arguments, reject it with a reason, or (when offered) always allow it or respond instead. "
    "The result is {kind, arguments, message}: run the tool with `arguments` only when kind is "
    "approve, always or edit; for reject, `message` is their reason; for respond, `message` "
    "stands in for the tool's result."
)
_APPROVE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "The tool's name."},
        "arguments": {"type": "object", "description": "The arguments the call would use."},
        "description": {"type": "string", "description": "What the tool does (Markdown)."},
        "input_schema": {
            "type": "object",
            "description": "The tool's JSON Schema of its arguments; edits must fit it.",
        },
        "decisions": {
            "type": "array",
            "items": {"type": "string", "enum": _DECISION_KINDS},
            "description": "The decisions to offer (default: approve, edit, reject).",
        },
    },
    "required": ["name", "arguments"],
}

MCP_PENDING_NOTICE = (
    "No answer batch arrived before the timeout. This is pending, not a skipped answer. Continue "
    "useful independent work. The user can still answer: to collect their answer, call "
    "ask_user_question again with the same questions and callId set to this callId; it returns "
    "their answer batch, or pending again if they have not answered within that call's timeout. "
    "Do not treat this as permission."
)
"""The pending result's message over MCP: a late answer reaches the client only when it asks."""

ASK_DESCRIPTION = (
    TIMED_DESCRIPTION + " A pending result's answer is never sent to you unasked: to collect it, "
    "call this tool again with the same questions and callId set to the pending result's "
    "callId; that call returns the answer batch once the user has answered (and the same batch "
    "on later calls), or pending again after timeout."
)
"""The ``ask_user_question`` description over MCP: the timed one, plus how to collect a late
answer."""

_CALL_ID_DESCRIPTION = (
    "Only to collect a late answer: the callId of an earlier pending result. The call then asks "
    "nothing new; it returns that question's answer batch, or pending again after timeout."
)

WAITING_MESSAGE = "Waiting for the person's answer in the notebook"
"""The message of the progress notifications sent while a question waits."""

ToolCallHandler = Callable[[Mapping[str, Any], str], Awaitable[ToolResult]]


class _BearerGuard:
    """Refuses every HTTP request without ``Authorization: Bearer <token>`` (401 when missing,
    403 when wrong) before it reaches the MCP app, so nothing is asked for it."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self._app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan
            await self._app(scope, receive, send)
            return
        headers = dict(scope.get("headers", ()))
        scheme, _, presented = headers.get(b"authorization", b"").partition(b" ")
        if scheme.lower() != b"bearer" or not presented:
            await _refuse(send, 401, "missing bearer token")
        elif not hmac.compare_digest(presented.strip(), self._token):
            await _refuse(send, 403, "wrong bearer token")
        else:
            await self._app(scope, receive, send)


async def _refuse(send: Send, status: int, reason: str) -> None:
    body = json.dumps({"error": reason}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="ipyask"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


log = logging.getLogger("ipyask")

_SDK_LOGGERS = ("mcp.server.streamable_http_manager", "mcp.server.streamable_http")
"""The SDK's loggers that write INFO lines about its own session bookkeeping."""

_serving: contextvars.ContextVar[bool] = contextvars.ContextVar("ipyask_mcp_serving", default=False)
"""Set in the tasks of a server run by ``serve()`` (the tasks it starts inherit it)."""


class _BookkeepingToDebug(logging.Filter):
    """Moves the SDK's INFO lines ("StreamableHTTP session manager started") logged by a
    ``serve()`` server to ipyask's logger at DEBUG.

    The SDK's own ``MCPServer`` sets the root logger to INFO on stderr, which a notebook shows
    in a red box under the cell; these lines are not the person's business. Warnings and errors,
    and every line of other servers in the process, pass unchanged.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING or not _serving.get():
            return True
        log.debug("MCP server: %s", record.getMessage())
        return False


_BOOKKEEPING_TO_DEBUG = _BookkeepingToDebug()


def _route_bookkeeping() -> None:
    for name in _SDK_LOGGERS:
        logger = logging.getLogger(name)
        if _BOOKKEEPING_TO_DEBUG not in logger.filters:
            logger.addFilter(_BOOKKEEPING_TO_DEBUG)


class _KernelFriendlyServer(uvicorn.Server):
    """uvicorn without its signal handlers: Ctrl-C / a kernel interrupt stays the kernel's."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield

    def install_signal_handlers(self) -> None:  # the name in uvicorn < 0.29
        return None


class NotebookMCPServer:
    """A running server: :attr:`url`, :attr:`token`, :meth:`aclose`.

    Made by :func:`ipyask.integrations.mcp.serve`; its tools are given as MCP tool definitions
    with a handler each.
    """

    def __init__(
        self,
        service: UserQuestions,
        *,
        host: str,
        port: int,
        token: str | None,
        progress_every: float,
        name: str = "ipyask",
        approval_timing: Timing | None = None,
    ) -> None:
        if progress_every <= 0:
            raise ValueError("progress_every must be a positive number of seconds")
        self.service = service
        self.token = token if token else secrets.token_urlsafe(32)
        self.agent = service.agents.enter(Agent(f"mcp-{uuid.uuid4().hex[:8]}"))
        """The agent every question of this server belongs to (timed asks need a live one)."""
        self._progress_every = progress_every
        self._approval_timing = approval_timing
        self._ask_tool = AskUserQuestionTool(service, mode="timed")
        # An MCP client reads a late answer only by asking again with its callId.
        self._reader = service.reading(self.agent, "re-ask")
        self._tools: dict[str, tuple[types.Tool, ToolCallHandler]] = {}
        self.add_tool(
            types.Tool(
                name=self._ask_tool.definition.name,
                description=ASK_DESCRIPTION,
                input_schema=_ask_schema(self._ask_tool.definition.parameters),
            ),
            self._ask,
        )
        self.add_tool(
            types.Tool(
                name=APPROVE_TOOL_CALL,
                description=_APPROVE_DESCRIPTION,
                input_schema=_APPROVE_SCHEMA,
            ),
            self._approve,
        )
        self._mcp = Server(name, on_list_tools=self._list_tools, on_call_tool=self._call_tool)
        self._socket = socket.socket(_family(host), socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        bound_port = self._socket.getsockname()[1]
        url_host = f"[{host}]" if ":" in host else host
        self.url = f"http://{url_host}:{bound_port}/mcp"
        """The streamable HTTP endpoint."""
        # Stateless: each call lives as long as its HTTP request, so a client that goes away
        # (even without ending its session) cancels its question.
        app = self._mcp.streamable_http_app(host=host, stateless_http=True)
        config = uvicorn.Config(
            _BearerGuard(app, self.token),
            log_config=None,  # leave the kernel's logging alone
            log_level="warning",
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=1,
        )
        self._uvicorn = _KernelFriendlyServer(config)
        self._task: asyncio.Task[None] | None = None

    def add_tool(self, tool: types.Tool, handler: ToolCallHandler) -> None:
        """Offer ``tool``; ``handler(arguments, call_id)`` runs each call."""
        self._tools[tool.name] = (tool, handler)

    async def start(self) -> None:
        """Start serving in the running event loop; returns once the port answers."""
        self._task = asyncio.get_running_loop().create_task(self._serve())
        while not self._uvicorn.started:
            if self._task.done():
                self._task.result()  # raises what stopped it
                raise RuntimeError("the MCP server stopped while starting")
            await asyncio.sleep(0.01)

    async def _serve(self) -> None:
        _route_bookkeeping()
        _serving.set(True)  # this task's own context: its lines, and its children's, only
        try:
            await self._uvicorn.serve(sockets=[self._socket])
        except SystemExit as stop:  # uvicorn's way of saying the app failed to start
            raise RuntimeError("the MCP server's app failed to start") from stop

    @property
    def closed(self) -> bool:
        """Whether :meth:`aclose` ran (or the server stopped)."""
        return self._task is None or self._task.done()

    async def aclose(self) -> None:
        """Stop serving and free the port; questions still waiting end as cancelled."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            self._uvicorn.should_exit = True
            await task
        self._socket.close()
        self._reader.close()  # no client can collect a late answer any more: keep it
        self.service.agents.leave(self.agent)

    async def __aenter__(self) -> NotebookMCPServer:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- MCP handlers ------------------------------------------------------------------------
    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool for tool, _ in self._tools.values()])

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        entry = self._tools.get(params.name)
        if entry is None:
            return _error_result(f"unknown tool {params.name!r}")
        _, handler = entry
        call_id = f"mcp-{uuid.uuid4().hex[:12]}"
        async with anyio.create_task_group() as progress:
            progress.start_soon(self._report_progress, ctx)
            try:
                result = await handler(params.arguments or {}, call_id)
            except asyncio.CancelledError as cancelled:
                # The ask wraps the transport's cancellation (the client went away); hand the
                # transport back its own, so its cancel scope recognises it.
                if isinstance(cancelled.__cause__, asyncio.CancelledError):
                    raise cancelled.__cause__ from None
                raise
            finally:
                progress.cancel_scope.cancel()
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=result.content)],
            structured_content=result.value,
            is_error=result.is_error,
        )

    async def _report_progress(self, ctx: ServerRequestContext[Any]) -> None:
        beats = 0
        while True:
            await anyio.sleep(self._progress_every)
            beats += 1
            await ctx.session.report_progress(beats, None, WAITING_MESSAGE)

    async def _ask(self, arguments: Mapping[str, Any], call_id: str) -> ToolResult:
        if "callId" in arguments:
            return await self._collect(arguments)
        result = await self._ask_tool.execute(arguments, call_id=call_id, agent=self.agent)
        if result.value is not None and result.value.get("pending") is True:
            value = {**result.value, "message": MCP_PENDING_NOTICE}
            return ToolResult(content=_compact(value), value=value)
        return result

    async def _collect(self, arguments: Mapping[str, Any]) -> ToolResult:
        """A call with ``callId``: the late answer of that earlier pending call."""
        call_id = arguments["callId"]
        try:
            if not isinstance(call_id, str) or not call_id:
                raise ToolArgumentError("callId must be the callId of a pending result")
            seconds = _check_seconds(arguments.get("timeout", self._ask_tool.default_timeout))
            timeout = None if seconds == -1 else seconds * 1000
            outcome = await self.service.collect_reply(self.agent, call_id, timeout)
        except (ToolArgumentError, UserQuestionError) as error:
            return ToolResult(content=f"Error: {error}", is_error=True)
        if outcome is None:
            message = (
                f"callId {call_id!r} names no pending question of this server: pass the callId "
                "of a pending result, or ask without callId"
            )
            return ToolResult(content=f"Error: {message}", is_error=True)
        if isinstance(outcome, PendingAnswer):
            value = {"pending": True, "callId": call_id, "message": MCP_PENDING_NOTICE}
        else:
            value = outcome.to_wire()
        return ToolResult(content=_compact(value), value=value)

    async def _approve(self, arguments: Mapping[str, Any], call_id: str) -> ToolResult:
        try:
            item = _approval_question(arguments)
            request = AskUserQuestionRequest(questions=[item], agent=self.agent)
            answer = await ask(request, self.service, self._approval_timing)
            decision = tool_decision(item, answer.answers[0])
        except (ValueError, TypeError, UserQuestionError) as error:  # pydantic's too
            return ToolResult(content=f"Error: {error}", is_error=True)
        value = decision.model_dump(mode="json")
        return ToolResult(content=json.dumps(value, ensure_ascii=False), value=value)


def _compact(value: object) -> str:
    """JSON as the seam's tool writes its results."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _ask_schema(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """The seam's timed ``ask_user_question`` schema plus ``callId``, to collect a late answer."""
    properties = dict(parameters["properties"])
    properties["callId"] = {"type": "string", "description": _CALL_ID_DESCRIPTION}
    return {**parameters, "properties": properties}


def _approval_question(arguments: Mapping[str, Any]) -> AskUserQuestionItem:
    name, tool_arguments = arguments.get("name"), arguments.get("arguments", {})
    if not isinstance(name, str) or not name:
        raise ValueError("name must be the tool's name")
    if not isinstance(tool_arguments, dict):
        raise ValueError("arguments must be an object")
    schema = arguments.get("input_schema")
    description = arguments.get("description")
    decisions = arguments.get("decisions", list(_DEFAULT_DECISIONS))
    if schema is not None and not isinstance(schema, dict):
        raise ValueError("input_schema must be an object")
    if description is not None and not isinstance(description, str):
        raise ValueError("description must be a string")
    if not isinstance(decisions, list):
        raise ValueError("decisions must be an array")
    return tool_approval_question(
        name, tool_arguments, schema=schema, decisions=decisions, description=description
    )


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _error_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"Error: {message}")], is_error=True
    )
