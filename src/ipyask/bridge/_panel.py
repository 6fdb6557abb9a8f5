"""``QuestionPanel``: the notebook as a waterfall answerer.

Every request the panel claims becomes a card in its synced state; the person's answer settles
the request. Comm handlers may run on a subshell thread, so every view message is handled on the
event loop (``call_soon_threadsafe``), and every settlement goes through a thread-safe
:class:`~ipyask.Settlement`.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from .._agents import Agent
from .._clock import call_on_loop
from .._errors import UserQuestionError
from .._followups import after_answer
from .._service import UserQuestions
from .._settlement import Settlement
from .._vocabulary import AskUserQuestionAnswer, AskUserQuestionRequest
from .._waterfall import Next
from ..widget import Card, QuestionWidget, ViewMessage
from ._claims import ClaimTracker
from ._routing import ViewRouter
from ._sessions import ContinuedCards
from ._transcript import Transcript, record

__all__ = ["QuestionPanel"]

HEARTBEAT_TIMEOUT_MS = 15_000
"""A view that sent no heartbeat for this long has gone: its claims are released."""


class _Delegate:
    """Settles a card when its panel closes: the request goes on down the waterfall."""


_DELEGATE = _Delegate()


@dataclass
class Live:
    """A request the panel holds while the person decides."""

    key: str
    request: AskUserQuestionRequest
    card: Card
    """The card as asked: what an answer is checked against."""
    settlement: Settlement[AskUserQuestionAnswer | _Delegate] = field(default_factory=Settlement)

    @property
    def agent(self) -> Agent | None:
        return self.request.agent

    @property
    def call_id(self) -> str | None:
        return self.request.call_id


class QuestionPanel(QuestionWidget):
    """Shows every request of ``service`` as a card and settles it from the person's answer.

    ``agent`` scopes the panel to that agent (and the agents it owns); several panels may exist.
    Closing the panel (``panel.close()``) unregisters it: later requests, and the ones it still
    held, go on down the waterfall.
    """

    def __init__(
        self,
        service: UserQuestions,
        *,
        agent: Agent | None = None,
        heartbeat_timeout_ms: float = HEARTBEAT_TIMEOUT_MS,
        language: str = "",
        **unknown: Any,
    ) -> None:
        if not isinstance(service, UserQuestions):
            raise TypeError(f"QuestionPanel needs an ipyask.UserQuestions, not {service!r}")
        super().__init__(language=language, **unknown)
        self.service = service
        self.agent = agent
        self._loop: asyncio.AbstractEventLoop | None = None
        self._live: dict[str, Live] = {}
        self._closed = False
        self._transcript = Transcript(service.clock)
        self._guard = threading.Lock()
        self.claims = ClaimTracker(service, self._send_frame, heartbeat_timeout_ms)
        self.continued = ContinuedCards(self)
        self._router = ViewRouter(self)
        self.on_view_message(self._receive)
        self._off = service.on_request(self._answer, agent=agent)

    # -- the answerer ------------------------------------------------------------------------
    def _new_key(self, request: AskUserQuestionRequest) -> str:
        call_id = request.call_id
        if call_id is None:
            return f"q-{uuid.uuid4().hex[:12]}"
        owner = request.agent.id if request.agent is not None else "-"
        key = f"{owner}:{call_id}"
        return key if key not in self._live else f"{key}#{uuid.uuid4().hex[:6]}"

    def _answer(
        self, request: AskUserQuestionRequest, next: Next
    ) -> Awaitable[AskUserQuestionAnswer]:
        # Not a coroutine function: the waterfall calls its first answerer before the asker
        # yields, so the card goes out at once; the wait for the person is the coroutine.
        if self._closed:
            return next()
        self._loop = asyncio.get_running_loop()
        key = self._new_key(request)
        wait = "timed" if request.timed else ("indefinite" if request.call_id else "none")
        self.continued.forget(key)
        card = self.set_card(
            Card(key=key, call_id=request.call_id, wait=wait, questions=request.questions)
        )
        live = Live(key, request, card)
        self._live[key] = live
        return self._settle(live, next)

    async def _settle(self, live: Live, next: Next) -> AskUserQuestionAnswer:
        key = live.key
        try:
            outcome = await live.settlement
        except BaseException as error:
            self._live.pop(key, None)
            if isinstance(error, asyncio.CancelledError):
                self._settled_without_answer(live)
            elif isinstance(error, UserQuestionError) and error.code == "ASK_TIMED_OUT":
                self.continued.after_timeout(live)
            elif isinstance(error, UserQuestionError):
                self._mark(key, "cancelled", error.message)
            raise
        finally:
            self.claims.release(key)
        if isinstance(outcome, _Delegate):
            self._live.pop(key, None)
            self.remove_card(key)
            return await next()
        # The agent gets the answer first; the card turns answered right after. Until then the
        # request stays live, so a second answer is refused as ALREADY_ANSWERED.
        after_answer(lambda: self._answered(live, outcome))
        return outcome

    def _answered(self, live: Live, answer: AskUserQuestionAnswer) -> None:
        if self._live.get(live.key) is live:
            del self._live[live.key]
        self._mark(live.key, "answered", answer=answer)

    def _settled_without_answer(self, live: Live) -> None:
        signal = live.request.signal
        reason = signal.reason if signal is not None and signal.aborted else None
        if isinstance(reason, UserQuestionError) and reason.code == "ASK_TIMED_OUT":
            self.continued.after_timeout(live)
        elif not self._closed:
            self._mark(live.key, "cancelled", "The agent stopped waiting for this question.")

    # -- card outcomes -----------------------------------------------------------------------
    def _mark(
        self,
        key: str,
        status: str,
        notice: str | None = None,
        answer: AskUserQuestionAnswer | None = None,
    ) -> None:
        try:
            card = self.update_card(key, status=status, notice=notice, answer=answer)  # type: ignore[arg-type]
        except KeyError:
            return
        outcome = {"answered": "Answered", "cancelled": "Cancelled", "expired": "Expired"}
        self.write_record(record(card.questions, outcome.get(status, status), answer, card.call_id))

    def write_record(self, markdown: str) -> None:
        """Append a Markdown record to the transcript shown under the panel (shortly)."""
        self._transcript.add(markdown)

    @property
    def records(self) -> list[str]:
        """The Markdown records of every settled card, oldest first."""
        return self._transcript.records

    def _ipython_display_(self) -> None:
        from IPython.display import display

        bundle = self._repr_mimebundle_()
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        display(data, metadata=metadata, raw=True)  # type: ignore[no-untyped-call]
        self._transcript.show()

    def _send_frame(self, key: str, remaining_ms: int) -> None:
        if key in self._live and not self._closed:
            self.send_frame(key, remaining_ms)

    def live(self, key: str) -> Live | None:
        """The request behind pending card ``key``."""
        return self._live.get(key)

    # -- view messages -----------------------------------------------------------------------
    def _receive(self, message: ViewMessage) -> None:
        # Possibly on a subshell thread: handle on the loop that awaits the card (an agent may run
        # its own loop on a worker thread), else on the loop the panel last answered on.
        live = self._live.get(getattr(message, "key", ""))
        loop = live.settlement.loop if live is not None else self._loop
        if loop is None or loop.is_closed():
            self._router.handle(message)
        else:
            call_on_loop(loop, lambda: self._router.handle(message))

    # -- lifetime ----------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        """Whether the panel was closed (it no longer answers)."""
        return self._closed

    def close(self) -> None:
        """Stop answering: unregister, hand held requests down the waterfall, close the widget."""
        if hasattr(self, "_off") and not self._closed:
            self._closed = True
            self._off()
            self.claims.close()
            self.continued.close()
            for live in list(self._live.values()):
                live.settlement.resolve(_DELEGATE)
            self._transcript.flush()
        super().close()
