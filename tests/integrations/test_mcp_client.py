"""MCP elicitation reaches the person as cards, under both protocols the client SDK speaks."""

from __future__ import annotations

import asyncio
import json
import webbrowser
from typing import Any

import mcp
import pytest
from mcp.server.mcpserver import Context, MCPServer

import ipyask
import ipyask.host
from ipyask.integrations.mcp import elicitation_callback, url_elicitations
from ipyask.testing import Cancel, Decline, ScriptedAnswerer

from ._mcp_servers import BOOKING, Booking, booking_server

# "legacy": the server sends elicitation/create over the session; "auto" (the SDK's default)
# negotiates the newer protocol, where the call returns "input required" and is retried.
MODES = ["legacy", "auto"]


async def call(service: ipyask.UserQuestions, mode: str, tool: str) -> str:
    async with mcp.Client(
        booking_server(), mode=mode, elicitation_callback=elicitation_callback(service=service)
    ) as client:
        result = await client.call_tool(tool, {})
    assert not result.is_error, result
    (content,) = result.content
    assert isinstance(content, mcp.types.TextContent)
    return content.text


def scripted(reply: Any) -> tuple[ipyask.UserQuestions, ScriptedAnswerer]:
    service = ipyask.UserQuestions()
    answerer = ScriptedAnswerer({BOOKING: reply, "elicitation": reply}, delegate_unknown=False)
    answerer.register(service)
    return service, answerer


@pytest.mark.parametrize("mode", MODES)
async def test_a_form_elicitation_is_a_form_card_accepted_with_values(mode: str) -> None:
    service, answerer = scripted({"date": "2026-12-24", "guests": 4})
    assert await call(service, mode, "book") == (
        'accept {"date":"2026-12-24","guests":4,"terrace":false}'
    )
    (request,) = answerer.requests
    (question,) = request.questions
    assert question.question == BOOKING
    assert isinstance(question.intent, ipyask.protocol.FormIntent)
    schema = question.intent.requested_schema
    assert schema["properties"]["guests"]["maximum"] == 12
    assert set(schema["required"]) == {"date", "guests"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("reply", "action"), [(Decline(), "decline"), (Cancel(), "cancel")])
async def test_decline_and_cancel_are_the_protocols_own_actions(
    mode: str, reply: Any, action: str
) -> None:
    service, _ = scripted(reply)
    assert await call(service, mode, "book") == action


async def test_values_outside_the_schema_never_reach_the_server() -> None:
    service = ipyask.UserQuestions()

    async def careless(
        request: ipyask.protocol.AskUserQuestionRequest, next: ipyask.host.Next
    ) -> Any:
        values = json.dumps({"date": "2026-12-24", "guests": 40})
        return {"answers": [{"id": "elicitation", "selected": ["Submit"], "custom": values}]}

    service.on_request(careless)
    params = mcp.types.ElicitRequestFormParams(
        message=BOOKING, requested_schema=Booking.model_json_schema()
    )
    with pytest.raises(ipyask.errors.BadAnswerError, match="guests"):
        await elicitation_callback(service=service)(None, params)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("label", "action"), [("Continue", "accept"), ("Decline", "decline"), ("Cancel", "cancel")]
)
async def test_a_url_elicitation_is_a_consent_card_that_never_opens_the_url(
    label: str, action: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url))
    service, answerer = scripted(label)
    assert await call(service, "legacy", "connect_account") == action
    (question,) = answerer.requests[0].questions
    assert question.question == "Authorize access to your calendar"
    assert question.header == "auth.example.com"
    assert question.detail is not None
    assert "**auth.example.com**" in question.detail
    assert "` https://auth.example.com/authorize?x=1 `" in question.detail  # inert code
    assert opened == []


async def test_a_schema_outside_the_subset_is_an_error_and_asks_nothing() -> None:
    service, answerer = scripted(Decline())
    callback = elicitation_callback(service=service)
    params = mcp.types.ElicitRequestFormParams(
        message="Nested?",
        requested_schema={"type": "object", "properties": {"a": {"type": "object"}}},
    )
    result = await callback(None, params)  # type: ignore[arg-type]
    assert isinstance(result, mcp.types.ErrorData)
    assert result.code == mcp.types.INVALID_PARAMS
    assert "requestedSchema" in result.message
    assert answerer.requests == []


def test_the_form_answer_is_json_text_in_custom() -> None:
    # What a client that knows only the spec sends is what the form card sends.
    question = ipyask.protocol.AskUserQuestionItem.model_validate(
        {
            "id": "elicitation",
            "question": BOOKING,
            "options": [{"label": "Submit"}, {"label": "Decline"}, {"label": "Cancel"}],
            "intent": {
                "kind": "form",
                "requestedSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
                "accept": "Submit",
                "decline": "Decline",
                "cancel": "Cancel",
            },
        }
    )
    item = ipyask.protocol.AskUserQuestionAnswerItem(
        id="elicitation", selected=["Submit"], custom=json.dumps({"n": 2})
    )
    assert ipyask.host.form_result(question, item).values == {"n": 2}


KERNEL_SERVER = """
import asyncio, json
from typing import Annotated
import mcp
from mcp.server.mcpserver import Elicit, ElicitationResult, MCPServer, Resolve
from pydantic import BaseModel, Field
from ipyask.integrations.mcp import elicitation_callback, url_elicitations

class Booking(BaseModel):
    date: str = Field(json_schema_extra={"format": "date"})
    guests: int = Field(ge=1, le=12)

def ask_booking() -> Elicit[Booking]:
    return Elicit("Book a table?", Booking)

booking = MCPServer("bookings")

@booking.tool()
async def book(answer: Annotated[ElicitationResult[Booking], Resolve(ask_booking)]) -> str:
    return answer.data.model_dump_json() if answer.action == "accept" else answer.action

async def run_booking(mode):
    async with mcp.Client(booking, mode=mode, elicitation_callback=elicitation_callback()) as c:
        return (await c.call_tool("book", {})).content[0].text
"""


@pytest.fixture
def front(kernel: Any) -> Any:
    from ipyask.testing import HeadlessFrontend

    kernel.handler_errors.clear()
    kernel.execute(KERNEL_SERVER)
    return HeadlessFrontend(kernel, timeout=15)


@pytest.mark.kernel
@pytest.mark.parametrize("mode", MODES)
def test_a_person_fills_the_form_card_in_a_real_kernel(front: Any, mode: str) -> None:
    # service=None: the default service and panel, shown in the cell that runs the client.
    front.execute(f"task = asyncio.ensure_future(run_booking({mode!r}))")
    card = front.wait_for_card("Book a table?")
    (question,) = card["questions"]
    assert question["intent"]["kind"] == "form"
    values = {"date": "2026-12-24", "guests": 2}
    front.fill(card["key"], values)
    cell = front.execute("print(await asyncio.wait_for(task, 10))")
    assert json.loads(cell.stdout) == values
    front.wait_for_status(card["key"], "answered")
    assert front.kernel.handler_errors == []


# -- URL elicitation by error: URLElicitationRequiredError (-32042) ----------------------------

CALENDAR_URL = "https://auth.example.com/authorize?x=2"


class CalendarServer:
    """A server whose ``read_calendar`` refuses with -32042 until the person is authorized
    (out of band, at ``CALENDAR_URL``); it keeps the session, to report the page done."""

    def __init__(self) -> None:
        self.authorized = False
        self.calls = 0
        self.session: Any = None
        self.server = MCPServer("calendar")

        @self.server.tool()
        async def read_calendar(ctx: Context) -> str:
            """Read the person's calendar."""
            self.calls += 1
            self.session = ctx.session
            if not self.authorized:
                raise mcp.UrlElicitationRequiredError(
                    [
                        mcp.types.ElicitRequestURLParams(
                            message="Authorize access to your calendar",
                            url=CALENDAR_URL,
                            elicitation_id="cal-1",
                        )
                    ]
                )
            return "3 meetings"


async def read_calendar(
    calendar: CalendarServer, service: ipyask.UserQuestions
) -> str | mcp.MCPError:
    """The tool's text, or the error the call raised (caught inside the client, whose task
    group would wrap it)."""
    urls = url_elicitations(service=service)
    async with mcp.Client(
        calendar.server, mode="legacy", message_handler=urls.message_handler
    ) as client:
        try:
            result = await urls.call_tool(client, "read_calendar")
        except mcp.MCPError as error:
            return error
    (content,) = result.content
    assert isinstance(content, mcp.types.TextContent)
    return content.text


async def test_a_call_refused_for_a_url_is_made_again_once_the_person_continues() -> None:
    """URL mode by error (https://modelcontextprotocol.io/specification/2025-11-25/client/
    elicitation#url-elicitation-required-error): the URL's consent card, then the same call."""
    calendar = CalendarServer()

    def done_on_the_page(question: ipyask.protocol.AskUserQuestionItem) -> str:
        calendar.authorized = True  # the person finished on the page, out of band
        return "Continue"

    service, answerer = scripted(done_on_the_page)
    assert await read_calendar(calendar, service) == "3 meetings"
    assert calendar.calls == 2
    (question,) = answerer.requests[0].questions
    assert question.question == "Authorize access to your calendar"
    assert question.header == "auth.example.com"
    assert question.detail is not None
    assert f"` {CALENDAR_URL} `" in question.detail
    assert "the call is then made again" in question.detail


@pytest.mark.parametrize("label", ["Decline", "Cancel"])
async def test_declining_the_url_raises_the_servers_error(label: str) -> None:
    """https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation: a declined
    URL elicitation is not retried; the caller gets the server's -32042 error as it came."""
    calendar = CalendarServer()
    service, _ = scripted(label)
    error = await read_calendar(calendar, service)
    assert isinstance(error, mcp.MCPError)
    assert error.code == mcp.types.URL_ELICITATION_REQUIRED
    assert calendar.calls == 1


async def test_the_completion_notification_closes_the_card_and_the_call_is_made_again() -> None:
    """``notifications/elicitation/complete`` (https://modelcontextprotocol.io/specification/
    2025-11-25/client/elicitation#completion-notifications-for-url-mode-elicitation): the
    waiting card is closed (its ask aborted) and the call made again, with no answer given."""
    calendar = CalendarServer()
    service = ipyask.UserQuestions()
    signals: list[ipyask.host.AbortSignal] = []

    async def finishes_on_the_page(
        request: ipyask.protocol.AskUserQuestionRequest, next: Any
    ) -> Any:
        assert request.signal is not None
        signals.append(request.signal)
        calendar.authorized = True
        await calendar.session.send_elicit_complete("cal-1")
        await asyncio.sleep(60)  # never answered: the abort ends the ask

    service.on_request(finishes_on_the_page)
    assert await asyncio.wait_for(read_calendar(calendar, service), 10) == "3 meetings"
    assert [signal.aborted for signal in signals] == [True]
    assert calendar.calls == 2


KERNEL_CALENDAR = """
import asyncio, mcp
from mcp.server.mcpserver import Context, MCPServer
from ipyask.integrations.mcp import url_elicitations

calendar = MCPServer("calendar")
state = {"authorized": False, "session": None}

@calendar.tool()
async def read_calendar(ctx: Context) -> str:
    state["session"] = ctx.session
    if not state["authorized"]:
        raise mcp.UrlElicitationRequiredError([mcp.types.ElicitRequestURLParams(
            message="Authorize access to your calendar",
            url="https://auth.example.com/authorize?x=3", elicitation_id="cal-9")])
    return "3 meetings"

async def run_calendar():
    urls = url_elicitations()
    async with mcp.Client(calendar, mode="legacy", message_handler=urls.message_handler) as c:
        return (await urls.call_tool(c, "read_calendar")).content[0].text
"""


@pytest.mark.kernel
def test_the_completion_notification_settles_the_card_in_a_real_kernel(front: Any) -> None:
    """https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation: the server
    reports the page done while its card waits in the panel; the card settles (the agent no
    longer waits for it, as it says) and the call is made again."""
    front.execute(KERNEL_CALENDAR)
    front.execute("task = asyncio.ensure_future(run_calendar())")
    card = front.wait_for_card("Authorize access to your calendar")
    front.execute(
        'state["authorized"] = True\nawait state["session"].send_elicit_complete("cal-9")'
    )
    settled = front.wait_for_status(card["key"], "cancelled")
    assert settled["noticeCode"] == "agent-stopped"
    cell = front.execute("print(await asyncio.wait_for(task, 10))")
    assert cell.stdout.strip() == "3 meetings"
    assert front.kernel.handler_errors == []


async def test_a_chinese_panel_gets_the_consent_card_in_chinese() -> None:
    service, answerer = scripted("拒绝")
    panel = ipyask.QuestionPanel(service, language="zh")
    try:
        assert await call(service, "legacy", "connect_account") == "decline"
    finally:
        panel.close()
    (question,) = answerer.requests[0].questions
    assert [option.label for option in question.options or []] == ["继续", "拒绝", "取消"]
    assert question.detail is not None
    assert "服务器请你打开 **auth.example.com** 上的一个页面。" in question.detail
    assert "地址：` https://auth.example.com/authorize?x=1 `" in question.detail
