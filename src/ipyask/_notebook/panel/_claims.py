"""Claims of timed waits held on behalf of views, with a heartbeat watchdog.

A view that shows a pending timed card claims its wait; the panel holds
``svc.attach_wait(...)`` open for it and forwards the remaining time. A view that goes away without
a word (tab closed, browser crashed, connection lost) stops sending heartbeats: after
``timeout_ms`` its claims are released, so the host deadline runs again from the original
deadline. An explicit release lets go at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from ..._abort import AbortController
from ..._agents import Agent
from ..._clock import TimerHandle
from ..._service import UserQuestions

__all__ = ["ClaimTracker"]

FrameSink = Callable[[str, int], None]
"""Receives ``(card key, remaining ms)`` for each frame."""


@dataclass
class _Claim:
    controller: AbortController = field(default_factory=AbortController)
    last_seen: float = 0.0
    task: asyncio.Task[None] | None = None


class ClaimTracker:
    """The claims views hold, keyed by ``(card key, view id)``."""

    def __init__(self, service: UserQuestions, on_frame: FrameSink, timeout_ms: float) -> None:
        self._service = service
        self._on_frame = on_frame
        self.timeout_ms = timeout_ms
        self._claims: dict[tuple[str, str], _Claim] = {}
        self._watchdog: TimerHandle | None = None

    def held(self, key: str) -> list[str]:
        """The views claiming card ``key``."""
        return [view for (card, view) in self._claims if card == key]

    def claim(self, key: str, view_id: str, agent: Agent, call_id: str) -> None:
        """Hold the wait of ``call_id`` for ``view_id``; a repeated claim only counts as alive."""
        now = self._service.clock.now_ms()
        existing = self._claims.get((key, view_id))
        if existing is not None:
            existing.last_seen = now
            return
        claim = _Claim(last_seen=now)
        self._claims[(key, view_id)] = claim
        claim.task = asyncio.ensure_future(self._hold(key, view_id, agent, call_id, claim))
        self._arm()

    async def _hold(
        self, key: str, view_id: str, agent: Agent, call_id: str, claim: _Claim
    ) -> None:
        stream = self._service.attach_wait(agent, call_id, claim.controller.signal)
        try:
            async for frame in stream:
                self._on_frame(key, frame.remaining_ms)
        finally:
            await stream.aclose()
            if self._claims.get((key, view_id)) is claim:
                del self._claims[(key, view_id)]

    def release(self, key: str, view_id: str | None = None) -> None:
        """Release the claim of one view on ``key``, or of every view when ``view_id`` is None."""
        for card, view in list(self._claims):
            if card == key and view_id in (None, view):
                self._claims.pop((card, view)).controller.abort()

    def heartbeat(self, view_id: str, keys: list[str]) -> None:
        """``view_id`` is alive and still claims ``keys``."""
        now = self._service.clock.now_ms()
        for key in keys:
            claim = self._claims.get((key, view_id))
            if claim is not None:
                claim.last_seen = now

    def _arm(self) -> None:
        if self._watchdog is None and self._claims:
            self._watchdog = self._service.clock.call_later(self.timeout_ms, self._check)

    def _check(self) -> None:
        self._watchdog = None
        now = self._service.clock.now_ms()
        for pair, claim in list(self._claims.items()):
            if now - claim.last_seen >= self.timeout_ms:
                del self._claims[pair]
                claim.controller.abort()
        if self._claims:
            oldest = min(claim.last_seen for claim in self._claims.values())
            delay = max(1.0, oldest + self.timeout_ms - now)
            self._watchdog = self._service.clock.call_later(delay, self._check)

    def close(self) -> None:
        """Release every claim and stop the watchdog."""
        for claim in self._claims.values():
            claim.controller.abort()
        self._claims.clear()
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
