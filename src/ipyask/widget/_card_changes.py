"""The ``cards`` messages of a widget: a card that settles waits a moment for others to join it.

Every ``cards`` message is one more message on the kernel's output channel, and a burst of answers
settles one card per answer. So the change of a card that settles (answered, cancelled, expired)
is held a moment: alone, it goes :data:`SETTLED_CARD_DELAY_MS` later; when another card settles
within that time, the burst is held until :data:`SETTLED_BURST_DELAY_MS` after its first card and
goes in one message. Any other change (a new or live card, a removed one) goes out at once, with
what is held in front of it in the same message, so views still get every change in the kernel's
order.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ._protocol import PROTOCOL_VERSION

if TYPE_CHECKING:
    from collections.abc import Callable

    from .._clock import Clock, TimerHandle
    from ._cards import WireCard

__all__ = ["SETTLED_BURST_DELAY_MS", "SETTLED_CARD_DELAY_MS", "CardChanges"]


SETTLED_CARD_DELAY_MS = 2.0
"""How long a card that settled alone waits before it goes: long enough to see whether the next
card settles too (the kernel settles the answers of a burst about a millisecond apart), short
enough that it goes before the agent asks again, not in the message of its next question (a
second card there makes the question arrive measurably later)."""

SETTLED_BURST_DELAY_MS = 100.0
"""How long after its first card a burst of settled cards is held, to go in one message (each
message costs the kernel about as much as the answers of a dozen cards; the agents already have
their answers)."""


class CardChanges:
    """Sends the ``cards`` messages of a widget through ``send`` (one message dict each).

    ``clock`` times the held changes; ``lock`` (the widget's) is held while a change is sent, so
    that messages leave in ``rev`` order whatever thread makes the change.
    """

    def __init__(
        self,
        send: Callable[[dict[str, Any]], None],
        clock: Clock,
        lock: threading.RLock,
        card_delay_ms: float = SETTLED_CARD_DELAY_MS,
        burst_delay_ms: float = SETTLED_BURST_DELAY_MS,
        *,
        before_flush: Callable[[], object] | None = None,
    ) -> None:
        self._send = send
        self._before_flush = before_flush
        self._clock = clock
        self._lock = lock
        self._card_delay_ms = card_delay_ms
        self._burst_delay_ms = burst_delay_ms
        self._held: dict[str, WireCard] = {}  # by key, in the order they settled
        self._rev = 0  # the revision the held changes lead to
        self._first_ms = 0.0  # when the first held change came
        self._burst = False
        self._timer: TimerHandle | None = None

    @property
    def held(self) -> int:
        """How many card changes wait to be sent."""
        return len(self._held)

    @property
    def bursting(self) -> bool:
        """Whether a burst of settled cards is held (its message goes when the burst ends)."""
        return self._burst

    def hold(self, card: WireCard, rev: int) -> bool:
        """Hold the change of a settled ``card`` (that led to revision ``rev``) for the next
        message; ``False`` when nothing could send it later (no running event loop)."""
        with self._lock:
            try:
                if self._timer is None:
                    self._timer = self._clock.call_later(self._card_delay_ms, self.flush)
                    self._first_ms = self._clock.now_ms()
                elif not self._burst and str(card["key"]) not in self._held:
                    # A second card: a burst, held longer (the timer moves once per burst).
                    self._burst = True
                    wait = self._first_ms + self._burst_delay_ms - self._clock.now_ms()
                    self._timer.cancel()
                    self._timer = self._clock.call_later(wait, self.flush)
            except RuntimeError:  # no running event loop: nothing would send it later
                self._timer = None
                self.flush()
                return False
            # A held card that changes again keeps its place: it stays settled (and in place).
            self._held[str(card["key"])] = card
            self._rev = rev
            return True

    def send(self, upsert: list[WireCard], remove: list[str], rev: int) -> None:
        """Send a change (that led to revision ``rev``) now, after what is held."""
        with self._lock:
            held = self._take()
            remove = list(remove)
            for key in remove:
                held.pop(key, None)
            for card in upsert:
                key = str(card["key"])
                if held.pop(key, None) is not None:
                    # Settled, then live again: views take it out of the history first, so it
                    # comes last among the live cards, as in the kernel.
                    remove.append(key)
            self._message([*held.values(), *upsert], remove, rev)

    def flush(self) -> None:
        """Send what is held now (nothing when nothing is), after ``before_flush()`` (the
        widget settles the cards whose settlement waits for the burst's message)."""
        with self._lock:
            if self._before_flush is not None:
                self._before_flush()
            held = self._take()
            if held:
                self._message(list(held.values()), [], self._rev)

    def _take(self) -> dict[str, WireCard]:
        held, self._held = self._held, {}
        timer, self._timer = self._timer, None
        self._burst = False
        if timer is not None:
            timer.cancel()
        return held

    def _message(self, upsert: list[WireCard], remove: list[str], rev: int) -> None:
        self._send(
            {
                "kind": "cards",
                "protocolVersion": PROTOCOL_VERSION,
                "rev": rev,
                "upsert": upsert,
                "remove": remove,
            }
        )
