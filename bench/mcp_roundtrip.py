"""MCP: an ``ask_user_question`` round trip through ``serve()``, vs a bare MCP SDK tool call.

Both servers run in this process's event loop on loopback, streamable HTTP (stateless), under
uvicorn; the SDK's own client calls them over HTTP. *ipyask*: ``ipyask.integrations.mcp.serve``
on a service whose answerer (``ScriptedAnswerer``) answers at once, so the round trip is the
tool call, the seam and the answer's way back, without a person. *Bare*: an MCP SDK ``Server``
with one tool that returns its argument, served the same way (no bearer check, no seam). The
blocks alternate over the passes, so drift in the machine's speed hits both alike; warm-up
calls are dropped. Each answer is checked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import mcp
import uvicorn
from mcp import types
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server

import ipyask
from ipyask.integrations.mcp import serve
from ipyask.testing import ScriptedAnswerer

from ._common import Result, Settings, log, summary

PASSES = 5
QUESTION = {"id": "q", "question": "Go on?", "options": [{"label": "A"}, {"label": "B"}]}
ANSWER = {"answers": [{"id": "q", "selected": ["A"]}]}
ECHO = types.Tool(
    name="echo",
    description="Returns its argument.",
    input_schema={"type": "object", "properties": {"value": {"type": "string"}}},
)


@contextlib.asynccontextmanager
async def _bare_server() -> AsyncIterator[str]:
    """A bare MCP SDK server with one ``echo`` tool; yields its URL."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[ECHO])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        value = (params.arguments or {}).get("value", "")
        return types.CallToolResult(content=[types.TextContent(type="text", text=value)])

    server = Server("bare", on_list_tools=list_tools, on_call_tool=call_tool)
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listening.bind(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    app = server.streamable_http_app(host="127.0.0.1", stateless_http=True)
    config = uvicorn.Config(app, log_config=None, log_level="warning", access_log=False)
    running = uvicorn.Server(config)
    task = asyncio.get_running_loop().create_task(running.serve(sockets=[listening]))
    while not running.started:
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        running.should_exit = True
        await task
        listening.close()


@contextlib.asynccontextmanager
async def _client(url: str, token: str | None = None) -> AsyncIterator[mcp.Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        mcp.Client(streamable_http_client(url, http_client=http)) as session,
    ):
        yield session


async def _ask_block(session: mcp.Client, count: int) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        result = await session.call_tool("ask_user_question", {"questions": [QUESTION]})
        times.append((time.perf_counter() - started) * 1000)
        if result.structured_content != ANSWER:
            raise RuntimeError(f"the ask got {result.structured_content!r}")
    return times


async def _bare_block(session: mcp.Client, count: int) -> list[float]:
    times = []
    for i in range(count):
        started = time.perf_counter()
        result = await session.call_tool("echo", {"value": f"v{i}"})
        times.append((time.perf_counter() - started) * 1000)
        if result.content[0].text != f"v{i}":  # type: ignore[union-attr]
            raise RuntimeError(f"the echo got {result.content!r}")
    return times


async def _measure(rounds: int, warm: int, passes: int) -> dict[str, list[float]]:
    per_block = rounds // passes
    samples: dict[str, list[float]] = {"bare": [], "ipyask": []}
    async with ipyask.UserQuestions() as service:
        ScriptedAnswerer({"q": "A"}).register(service)
        server = await serve(service=service)
        try:
            async with (
                _bare_server() as bare_url,
                _client(bare_url) as bare,
                _client(server.url, server.token) as asking,
            ):
                for index in range(passes):
                    drop = warm if index == 0 else 0
                    log(f"mcp pass {index + 1}/{passes}: bare tool, then ask x{per_block}")
                    samples["bare"] += (await _bare_block(bare, per_block + drop))[drop:]
                    samples["ipyask"] += (await _ask_block(asking, per_block + drop))[drop:]
        finally:
            await server.aclose()
    return samples


def run(settings: Settings) -> Result:
    rounds, warm = settings.pick(200, 20), settings.pick(20, 2)
    samples = asyncio.run(_measure(rounds, warm, settings.pick(PASSES, 2)))
    stats = {name: summary(values) for name, values in samples.items()}
    peer = stats["bare"]
    ratios = {
        "p50": stats["ipyask"]["p50"] / peer["p50"],
        "p99": stats["ipyask"]["p99"] / peer["p99"],
    }
    log("mcp p50 ms: " + json.dumps({k: round(v["p50"], 2) for k, v in stats.items()}))
    return {"unit": "ms", "stats": stats, "ratios": ratios, "samples": samples}
