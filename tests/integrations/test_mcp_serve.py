"""serve: the notebook as an MCP server, exercised by the SDK's own client over HTTP on loopback."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import mcp
import pytest
from mcp.client.streamable_http import streamable_http_client

import ipyask
from ipyask.integrations._mcp_server import MCP_PENDING_NOTICE
from ipyask.integrations.mcp import NotebookMCPServer, serve
from ipyask.testing import Edit, Reject, ScriptedAnswerer

QUESTION = {"id": "db", "question": "Which database?", "options": [{"label": "SQLite"}]}


@pytest.fixture
async def service() -> AsyncIterator[ipyask.UserQuestions]:
    async with ipyask.UserQuestions() as questions:
        yield questions


@pytest.fixture
async def server(service: ipyask.UserQuestions) -> AsyncIterator[NotebookMCPServer]:
    running = await serve(service=service, progress_every=0.05)
    yield running
    await running.aclose()


@contextlib.asynccontextmanager
async def client(
    server: NotebookMCPServer, token: str | None = None, **options: Any
) -> AsyncIterator[mcp.Client]:
    """The SDK's client over HTTP, with the bearer token as an ordinary header."""
    headers = {"Authorization": f"Bearer {token or server.token}"}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        mcp.Client(streamable_http_client(server.url, http_client=http), **options) as session,
    ):
        yield session


class Holding:
    """An answerer that holds each question until told how to answer it."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self.release = asyncio.Event()
        self.ended: list[str] = []

    async def __call__(
        self, request: ipyask.protocol.AskUserQuestionRequest, next: ipyask.host.Next
    ) -> Any:
        self.asked.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.ended.append("cancelled")
            raise
        return {"answers": [{"id": "db", "selected": ["SQLite"]}]}


async def test_the_tools_are_listed_with_the_seams_schema(server: NotebookMCPServer) -> None:
    async with client(server) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    seam = ipyask.AskUserQuestionTool(ipyask.UserQuestions(), mode="timed").definition
    assert set(tools) == {"ask_user_question", "approve_tool_call"}
    schema = tools["ask_user_question"].input_schema
    # The seam's timed schema, plus callId to collect a late answer.
    assert {**schema, "properties": {**schema["properties"]}} == {
        **seam.parameters,
        "properties": {**seam.parameters["properties"], "callId": schema["properties"]["callId"]},
    }
    assert schema["properties"]["callId"]["type"] == "string"
    assert schema["required"] == ["questions"]
    description = tools["ask_user_question"].description
    assert description is not None and description.startswith(seam.description)
    assert "call this tool again with the same questions and callId" in description
    assert tools["approve_tool_call"].input_schema["required"] == ["name", "arguments"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_answered_ask(
    service: ipyask.UserQuestions, server: NotebookMCPServer, mode: str
) -> None:
    ScriptedAnswerer({"db": "SQLite"}).register(service)
    async with client(server, mode=mode) as session:
        result = await session.call_tool(
            "ask_user_question", {"questions": [QUESTION], "timeout": -1}
        )
    expected = {"answers": [{"id": "db", "selected": ["SQLite"]}]}
    assert result.structured_content == expected
    assert json.loads(result.content[0].text) == expected  # type: ignore[union-attr]
    assert not result.is_error


async def test_a_tool_approval_returns_the_decision(
    service: ipyask.UserQuestions, server: NotebookMCPServer
) -> None:
    ScriptedAnswerer({"deploy": Edit({"env": "staging"})}).register(service)
    async with client(server) as session:
        result = await session.call_tool(
            "approve_tool_call", {"name": "deploy", "arguments": {"env": "prod"}}
        )
    assert result.structured_content == {
        "kind": "edit",
        "arguments": {"env": "staging"},
        "message": None,
    }
    ScriptedAnswerer({"drop_table": Reject("never on Fridays")}).register(service)
    async with client(server) as session:
        result = await session.call_tool(
            "approve_tool_call",
            {"name": "drop_table", "arguments": {}, "decisions": ["approve", "reject"]},
        )
    assert result.structured_content == {
        "kind": "reject",
        "arguments": {},
        "message": "never on Fridays",
    }


async def test_approve_tool_call_is_answered_by_a_rule_with_no_card(
    service: ipyask.UserQuestions, server: NotebookMCPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel = ipyask.QuestionPanel(service)  # would show a card for anything it is asked
    monkeypatch.setattr(panel, "send", lambda content, buffers=None: None)
    rules = ipyask.Rules.parse(
        "allow = ['write_file(path=\"notes/**\")']\ndeny = ['shell(command=\"rm *\")']",
        "rules.toml",
    )
    rules.register(service)
    try:
        async with client(server) as session:
            allowed = await session.call_tool(
                "approve_tool_call", {"name": "write_file", "arguments": {"path": "notes/a.md"}}
            )
            denied = await session.call_tool(
                "approve_tool_call", {"name": "shell", "arguments": {"command": "rm -rf build"}}
            )
        assert allowed.structured_content == {
            "kind": "approve",
            "arguments": {"path": "notes/a.md"},
            "message": None,
        }
        assert denied.structured_content == {
            "kind": "reject",
            "arguments": {"command": "rm -rf build"},
            "message": 'Denied by rule shell(command="rm *") (rules.toml:2)',
        }
        assert panel.cards == []  # no card was shown for either
        assert [str(done) for done in rules.decisions] == [
            'allowed write_file by rule write_file(path="notes/**") (rules.toml:1)',
            'denied shell by rule shell(command="rm *") (rules.toml:2)',
        ]
    finally:
        panel.close()


async def test_bad_approval_arguments_are_a_tool_error(server: NotebookMCPServer) -> None:
    async with client(server) as session:
        result = await session.call_tool(
            "approve_tool_call", {"name": "x", "arguments": {}, "decisions": ["maybe"]}
        )
    assert result.is_error
    assert "decisions must be some of" in result.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("headers", "status"),
    [({}, 401), ({"Authorization": "Bearer wrong"}, 403), ({"Authorization": "Basic eA=="}, 401)],
)
async def test_a_request_without_the_token_is_refused_before_anything_is_asked(
    service: ipyask.UserQuestions,
    server: NotebookMCPServer,
    headers: dict[str, str],
    status: int,
) -> None:
    asked: list[object] = []
    service.on_request(lambda request, next: asked.append(request))  # type: ignore[arg-type,func-returns-value]
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "ask_user_question", "arguments": {"questions": [QUESTION]}},
    }
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            server.url,
            json=call,
            headers={"Accept": "application/json, text/event-stream", **headers},
        )
    assert response.status_code == status
    assert asked == []


async def test_the_sdk_client_with_a_wrong_token_fails(server: NotebookMCPServer) -> None:
    with pytest.raises(Exception) as caught:  # noqa: PT011 (the SDK wraps it in a task group's)
        async with client(server, token="wrong") as session:
            await session.list_tools()
    assert "Server returned an error response" in messages(caught.value)  # (the 403 above)


def messages(error: BaseException) -> str:
    """Every message in ``error``, its causes and (for a group) its members."""
    found = [str(error)]
    for inner in [*getattr(error, "exceptions", ()), error.__cause__]:
        if inner is not None:
            found.append(messages(inner))
    return " | ".join(found)


async def test_a_client_that_disconnects_cancels_its_question(
    service: ipyask.UserQuestions, server: NotebookMCPServer
) -> None:
    holding = Holding()
    service.on_request(holding)

    async def ask() -> None:
        async with client(server) as session:
            await session.call_tool("ask_user_question", {"questions": [QUESTION], "timeout": -1})

    task = asyncio.ensure_future(ask())
    await asyncio.wait_for(holding.asked.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(200):
        if holding.ended:
            break
        await asyncio.sleep(0.02)
    assert holding.ended == ["cancelled"]


async def test_progress_notifications_while_a_question_waits(
    service: ipyask.UserQuestions, server: NotebookMCPServer
) -> None:
    holding = Holding()
    service.on_request(holding)
    progress: list[tuple[float, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))
        if len(progress) == 3:
            holding.release.set()

    async with client(server) as session:
        result = await session.call_tool(
            "ask_user_question",
            {"questions": [QUESTION], "timeout": -1},
            progress_callback=on_progress,
        )
    assert not result.is_error
    assert [value for value, _ in progress[:3]] == [1, 2, 3]  # increasing, as the spec requires
    assert progress[0][1] == "Waiting for the person's answer in the notebook"


async def test_a_timed_ask_returns_the_pending_notice_and_stays_answerable(
    service: ipyask.UserQuestions, server: NotebookMCPServer
) -> None:
    holding = Holding()
    service.on_request(holding)
    async with client(server) as session:
        result = await session.call_tool(
            "ask_user_question", {"questions": [QUESTION], "timeout": 1}
        )
    value = result.structured_content
    assert value is not None
    assert value["pending"] is True
    assert value["message"] == MCP_PENDING_NOTICE  # how an MCP client gets the late answer
    assert "call ask_user_question again" in value["message"]
    projection = service.projection(server.agent)
    assert [row.call_id for row in projection.active] == [value["callId"]]  # still answerable


async def pending_call(session: mcp.Client, questions: list[dict[str, Any]]) -> str:
    """A timed ask nobody answers in its 1 s window; returns the pending result's callId."""
    result = await session.call_tool("ask_user_question", {"questions": questions, "timeout": 1})
    value = result.structured_content
    assert value is not None and value["pending"] is True
    return str(value["callId"])


async def test_a_late_answer_is_collected_by_calling_again_with_the_call_id(
    service: ipyask.UserQuestions, server: NotebookMCPServer
) -> None:
    service.on_request(Holding())
    batch = {"answers": [{"id": "db", "selected": ["SQLite"]}]}
    async with client(server) as session:
        call_id = await pending_call(session, [QUESTION])
        assert service.reply_reader(server.agent) == "re-ask"  # the card says so
        assert service.answer(server.agent, call_id, batch) is True  # the person, late
        again = {"questions": [QUESTION], "callId": call_id, "timeout": 1}
        collected = await session.call_tool("ask_user_question", again)
        assert collected.structured_content == batch
        assert json.loads(collected.content[0].text) == batch  # type: ignore[union-attr]
        assert service.projection(server.agent).to_wire()["settled"] == [
            {"callId": call_id, **batch}
        ]
        repeated = await session.call_tool("ask_user_question", again)  # the same batch again
        assert repeated.structured_content == batch
    assert service.reply_kept(server.agent, call_id) is False  # the client read it


async def test_calling_again_before_the_answer_waits_then_is_pending_again(
    service: ipyask.UserQuestions, server: NotebookMCPServer
) -> None:
    service.on_request(Holding())
    async with client(server) as session:
        call_id = await pending_call(session, [QUESTION])
        again = {"questions": [QUESTION], "callId": call_id, "timeout": 1}
        result = await session.call_tool("ask_user_question", again)
        assert result.structured_content == {
            "pending": True,
            "callId": call_id,
            "message": MCP_PENDING_NOTICE,
        }
        waiting = asyncio.ensure_future(
            session.call_tool("ask_user_question", {**again, "timeout": 30})
        )
        await asyncio.sleep(0.3)
        assert not waiting.done()
        service.answer(server.agent, call_id, {"answers": [{"id": "db", "selected": []}]})
        result = await asyncio.wait_for(waiting, 10)
        assert result.structured_content == {"answers": [{"id": "db", "selected": []}]}


@pytest.mark.parametrize("call_id", ["mcp-unknown", "", 7])
async def test_calling_with_a_call_id_that_names_no_pending_question_is_an_error(
    service: ipyask.UserQuestions, server: NotebookMCPServer, call_id: object
) -> None:
    asked: list[object] = []
    service.on_request(lambda request, next: asked.append(request))  # type: ignore[arg-type,func-returns-value]
    async with client(server) as session:
        result = await session.call_tool(
            "ask_user_question", {"questions": [QUESTION], "callId": call_id}
        )
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert "callId" in text and ("names no pending question" in text or "must be" in text)
    assert asked == []  # nothing was asked


async def test_a_late_answer_no_client_collected_is_kept_when_the_server_closes(
    service: ipyask.UserQuestions,
) -> None:
    service.on_request(Holding())
    running = await serve(service=service, progress_every=0.05)
    try:
        async with client(running) as session:
            call_id = await pending_call(session, [QUESTION])
            unanswered = await pending_call(session, [QUESTION])
        service.answer(running.agent, call_id, {"answers": [{"id": "db", "selected": ["SQLite"]}]})
        assert service.projection(running.agent).active[0].state == "continued"
    finally:
        await running.aclose()
    assert service.reply_kept(running.agent, call_id) is True
    assert service.projection(running.agent).settled[0].call_id == call_id
    assert running.agent.session.next_step == ()
    # Answered after the server closed: no client can collect it, so it is kept as well.
    late = {"answers": [{"id": "db", "selected": []}]}
    assert service.answer(running.agent, unanswered, late) is True
    assert service.reply_kept(running.agent, unanswered) is True
    assert [row.call_id for row in service.projection(running.agent).settled] == [
        call_id,
        unanswered,
    ]


async def test_the_sdks_bookkeeping_lines_stay_out_of_a_notebooks_stderr(
    service: ipyask.UserQuestions, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)  # as the SDK's own MCPServer sets the root logger
    caplog.set_level(logging.DEBUG, logger="ipyask")
    server = await serve(service=service)
    async with client(server) as session:
        await session.list_tools()
    await server.aclose()
    shown = [r for r in caplog.records if r.name.startswith("mcp") and r.levelno < logging.WARNING]
    assert shown == []
    moved = [r.getMessage() for r in caplog.records if r.name == "ipyask"]
    assert "MCP server: StreamableHTTP session manager started" in moved
    # The SDK's lines from anything else in the process are left as they are.
    logging.getLogger("mcp.server.streamable_http_manager").info("another server")
    assert caplog.records[-1].getMessage() == "another server"


async def test_aclose_frees_the_port(service: ipyask.UserQuestions) -> None:
    running = await serve(service=service)
    await running.aclose()
    async with httpx2.AsyncClient() as http:
        with pytest.raises(httpx2.ConnectError):
            await http.post(running.url, headers={"Authorization": f"Bearer {running.token}"})
    again = await serve(service=service, port=int(running.url.rsplit(":", 1)[1].split("/")[0]))
    await again.aclose()  # the very port is free to bind again


async def test_serving_leaves_sigint_to_the_kernel(service: ipyask.UserQuestions) -> None:
    before = signal.getsignal(signal.SIGINT)
    running = await serve(service=service)
    try:
        assert signal.getsignal(signal.SIGINT) is before
    finally:
        await running.aclose()
    assert signal.getsignal(signal.SIGINT) is before


async def test_a_given_token_is_used_and_a_generated_one_is_long(
    service: ipyask.UserQuestions,
) -> None:
    given = await serve(service=service, token="s3cret-token")
    generated = await serve(service=service)
    try:
        assert given.token == "s3cret-token"
        assert len(generated.token) >= 32
        assert given.url.startswith("http://127.0.0.1:")
    finally:
        await given.aclose()
        await generated.aclose()


def test_importing_without_the_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins
    import importlib
    import sys

    real_import = builtins.__import__

    def no_mcp(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "mcp" or name.startswith("mcp."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_mcp)
    monkeypatch.delitem(sys.modules, "ipyask.integrations.mcp")
    with pytest.raises(ImportError, match=r"pip install 'ipyask\[mcp\]'"):
        importlib.import_module("ipyask.integrations.mcp")
