"""``TimedQuestionWait``: one live foreground wait, counted by the host only while unclaimed."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncGenerator, Callable

from ._abort import AbortController, AbortSignal
from ._clock import Clock, TimerHandle, call_on_loop
from ._vocabulary import WaitFrame

__all__ = ["TimedQuestionWait"]


class TimedQuestionWait:
    """A foreground wait with an absolute host deadline.

    The host timer runs only while no client holds a claim. Claims never move the deadline: when
    the last claim is released the timer is armed again for what remains of the original
    deadline, and fires at once if it has passed. Closing is idempotent.
    """

    def __init__(
        self,
        deadline_ms: float,
        *,
        parent: AbortSignal | None,
        timeout: BaseException,
        clock: Clock,
    ) -> None:
        self.deadline_ms = deadline_ms
        # The whole window (how far the deadline was when the wait began): a countdown's length.
        self.window_ms = max(0.0, deadline_ms - clock.now_ms())
        self._clock = clock
        self._timeout = timeout
        self._loop = asyncio.get_running_loop()
        self._controller = AbortController()
        self._claims: set[object] = set()
        self._timer: TimerHandle | None = None
        self._parent = parent
        self._forget_parent: Callable[[], None] | None = None
        if parent is not None and parent.aborted:
            self.close(parent.reason)
            return
        if parent is not None:
            self._forget_parent = parent.add_listener(self._parent_aborted)
        self._schedule()

    @property
    def signal(self) -> AbortSignal:
        """Aborted when the wait ends: with the timeout error, the parent's reason, or close's."""
        return self._controller.signal

    @property
    def claims(self) -> int:
        """How many clients hold the wait now."""
        return len(self._claims)

    @property
    def armed(self) -> bool:
        """Whether the host timer is running."""
        return self._timer is not None

    async def done(self) -> None:
        """Wait until the wait is closed."""
        await self.signal.wait()

    def _parent_aborted(self) -> None:
        call_on_loop(self._loop, lambda: self.close(self._parent.reason if self._parent else None))

    def _schedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.signal.aborted or self._claims:
            return
        delay = max(0.0, self.deadline_ms - self._clock.now_ms())
        self._timer = self._clock.call_later(delay, self._expire)

    def _expire(self) -> None:
        self._timer = None
        self.close(self._timeout)

    async def attach(self, client: AbortSignal | None = None) -> AsyncGenerator[WaitFrame, None]:
        """Claim the wait: yields one frame with the remaining time, then ends with the wait.

        The claim lasts until ``client`` aborts, the consumer stops iterating, or the wait ends.
        Attaching to an ended wait, with an aborted ``client``, or to an unclaimed wait whose
        deadline has passed (which closes it with the timeout) yields nothing.
        """
        if (client is not None and client.aborted) or self.signal.aborted:
            return
        if not self._claims and self._clock.now_ms() >= self.deadline_ms:
            self.close(self._timeout)
            return
        token = object()
        ended = asyncio.Event()
        forget: list[object] = []

        def release() -> None:
            if token not in self._claims:
                return
            self._claims.discard(token)
            ended.set()
            self._schedule()

        def release_on_loop() -> None:
            call_on_loop(self._loop, release)

        self._claims.add(token)
        if client is not None:
            forget.append(client.add_listener(release_on_loop))
        forget.append(self.signal.add_listener(release_on_loop))
        self._schedule()
        try:
            remaining = max(0, math.ceil(self.deadline_ms - self._clock.now_ms()))
            yield WaitFrame(remaining_ms=remaining)
            await ended.wait()
        finally:
            release()
            for remove in forget:
                if callable(remove):
                    remove()

    def close(self, reason: BaseException | None) -> None:
        """End the wait with ``reason``; every claim ends with it. Idempotent."""
        if self.signal.aborted:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._forget_parent is not None:
            self._forget_parent()
            self._forget_parent = None
        self._controller.abort(reason)
