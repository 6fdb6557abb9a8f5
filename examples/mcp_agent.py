"""An agent in another process that asks the notebook's person through ``serve``.

Run it with the server's URL and token in the environment (the notebook does this for you):

    IPYASK_MCP_URL=http://127.0.0.1:PORT/mcp IPYASK_MCP_TOKEN=... python mcp_agent.py
"""

from __future__ import annotations

import asyncio
import json
import os

import httpx2
import mcp
from mcp.client.streamable_http import streamable_http_client


async def main() -> None:
    headers = {"Authorization": f"Bearer {os.environ['IPYASK_MCP_TOKEN']}"}
    url = os.environ["IPYASK_MCP_URL"]
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=None)) as http,
        mcp.Client(streamable_http_client(url, http_client=http)) as client,
    ):
        question = {
            "id": "dataset",
            "question": "Which dataset should the nightly report use?",
            "options": [{"label": "sales-2026 (Recommended)"}, {"label": "sales-2025"}],
        }
        asked = await client.call_tool(
            "ask_user_question",
            {"questions": [question], "timeout": -1},
            progress_callback=lambda *_: asyncio.sleep(0),  # progress keeps the call waiting
        )
        answer = json.loads(asked.content[0].text)  # type: ignore[union-attr]
        print("answer:", answer["answers"][0]["selected"])
        approval = await client.call_tool(
            "approve_tool_call",
            {"name": "send_report", "arguments": {"to": "team@example.org"}},
        )
        print("decision:", json.loads(approval.content[0].text)["kind"])  # type: ignore[union-attr]


if __name__ == "__main__":
    asyncio.run(main())
