"""An MCP server (the SDK's own MCPServer) whose tools elicit from the client's person."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve
from pydantic import BaseModel, Field

BOOKING = "Book a table: when, and for how many?"


class Booking(BaseModel):
    date: str = Field(description="Day of the booking", json_schema_extra={"format": "date"})
    guests: int = Field(ge=1, le=12, description="How many people")
    terrace: bool = Field(default=False, description="Sit outside")


def ask_booking() -> Elicit[Booking]:
    """A resolver that elicits: the SDK sends elicitation/create mid-call (legacy protocol) or
    answers "input required" and resumes when the client retries (the newer protocol)."""
    return Elicit(BOOKING, Booking)


def booking_server() -> MCPServer:
    server = MCPServer("bookings")

    @server.tool()
    async def book(booking: Annotated[ElicitationResult[Booking], Resolve(ask_booking)]) -> str:
        """Book a table after asking the person."""
        if booking.action == "accept":
            return f"accept {booking.data.model_dump_json()}"
        return booking.action

    @server.tool()  # a mid-call request: the legacy protocol only
    async def connect_account(ctx: Context) -> str:
        """Ask the person to authorize at the provider."""
        result = await ctx.elicit_url(
            "Authorize access to your calendar", "https://auth.example.com/authorize?x=1", "el-1"
        )
        return result.action

    return server
