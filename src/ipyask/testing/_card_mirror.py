"""A panel's cards as a browser view shows them: the synced state plus newer ``cards`` messages.

The state is split (``docs/protocol.md``): ``cards`` holds the revision, the live cards and the
number of history pages, and ``history_0``, ``history_1``, … the settled cards. The kernel sends
each card change as a ``cards`` message at once and syncs the entries it touched a moment later;
like the widget's hub, the mirror applies every message whose ``rev`` is above the state's and
forgets it once the state catches up.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ._kernel_client import CustomMessage

__all__ = ["LIVE_STATUSES", "CardMirror", "parse_card_state"]

Card = dict[str, Any]

LIVE_STATUSES = frozenset({"pending", "continued"})
"""Cards in the live part of the state; every other status is history."""


def _json(raw: object) -> object:
    return json.loads(raw) if isinstance(raw, str) else raw


def parse_card_state(raw: object) -> tuple[int, list[Card]]:
    """``(rev, cards)`` of a synced ``cards`` value: JSON text of ``{rev, cards}``, or a list."""
    value = _json(raw)
    if isinstance(value, list):
        return 0, [card for card in value if isinstance(card, dict)]
    if isinstance(value, dict) and isinstance(value.get("cards"), list):
        rev = value.get("rev")
        cards = [card for card in value["cards"] if isinstance(card, dict)]
        return (rev if isinstance(rev, int) else 0), cards
    return 0, []


def _pages(raw: object) -> int:
    value = _json(raw)
    pages = value.get("pages") if isinstance(value, dict) else None
    return pages if isinstance(pages, int) and pages > 0 else 0


class CardMirror:
    """The merged cards of one panel model (live cards first, then the history), kept current:
    a message newer than every one applied so far changes only its own cards."""

    def __init__(self) -> None:
        self._raw: list[object] = []
        self._rev = 0
        self._state_live: list[Card] = []
        self._state_history: list[Card] = []
        self._seen = 0
        self._changes: dict[int, dict[str, Any]] = {}
        self._merged: tuple[dict[str, Card], dict[str, Card]] | None = None

    def cards(self, state: object, messages: Sequence[CustomMessage]) -> list[Card]:
        """The cards after the model's ``state`` (its state dict, or just its ``cards`` value)
        and its custom ``messages`` so far."""
        live, history = self._update(state, messages)
        return [*live.values(), *history.values()]

    def live(self, state: object, messages: Sequence[CustomMessage]) -> list[Card]:
        """Only the live cards (pending or continued), however long the history is."""
        return list(self._update(state, messages)[0].values())

    def _update(
        self, state: object, messages: Sequence[CustomMessage]
    ) -> tuple[dict[str, Card], dict[str, Card]]:
        entries = state if isinstance(state, Mapping) else {"cards": state}
        head = entries.get("cards", [])
        raw = [head, *(entries.get(f"history_{i}", "[]") for i in range(_pages(head)))]
        if len(raw) != len(self._raw) or any(
            a is not b for a, b in zip(raw, self._raw, strict=True)
        ):
            self._raw = raw
            self._rev, self._state_live = parse_card_state(head)
            self._state_history = [c for page in raw[1:] for c in parse_card_state(page)[1]]
            self._changes = {rev: c for rev, c in self._changes.items() if rev > self._rev}
            self._merged = None
        for message in messages[self._seen :]:
            content = message.content
            if isinstance(content, dict) and content.get("kind") == "cards":
                rev = content.get("rev")
                if isinstance(rev, int) and rev > self._rev and rev not in self._changes:
                    in_order = all(rev > known for known in self._changes)
                    self._changes[rev] = content
                    if not in_order:
                        self._merged = None
                    elif self._merged is not None:
                        _apply(self._merged, content)
        self._seen = len(messages)
        if self._merged is None:
            self._merged = self._merge()
        return self._merged

    def _merge(self) -> tuple[dict[str, Card], dict[str, Card]]:
        live: dict[str, Card] = {}
        history: dict[str, Card] = {}
        for part, cards in ((live, self._state_live), (history, self._state_history)):
            for card in cards:
                part.setdefault(str(card.get("key")), card)
        for rev in sorted(self._changes):
            _apply((live, history), self._changes[rev])
        return live, history


def _apply(merged: tuple[dict[str, Card], dict[str, Card]], change: dict[str, Any]) -> None:
    live, history = merged
    for key in change.get("remove") or []:
        live.pop(str(key), None)
        history.pop(str(key), None)
    for card in change.get("upsert") or []:
        if not isinstance(card, dict):
            continue
        key = str(card.get("key"))
        # As the kernel places it: in place while it stays in its part, else last in the other.
        if card.get("status") in LIVE_STATUSES:
            history.pop(key, None)
            live[key] = card
        else:
            live.pop(key, None)
            history[key] = card
