"""A panel's cards as a browser view shows them: the synced state plus newer ``cards`` messages.

The kernel sends each card change as a ``cards`` message at once and syncs the whole ``cards``
state a moment later (``docs/protocol.md``); like the widget's hub, the mirror applies every
message whose ``rev`` is above the state's and forgets it once the state catches up.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ._kernel_client import CustomMessage

__all__ = ["CardMirror", "parse_card_state"]

Card = dict[str, Any]


def parse_card_state(raw: object) -> tuple[int, list[Card]]:
    """``(rev, cards)`` of a synced ``cards`` value: JSON text of ``{rev, cards}``, or a list."""
    value = json.loads(raw) if isinstance(raw, str) else raw
    if isinstance(value, list):
        return 0, [card for card in value if isinstance(card, dict)]
    if isinstance(value, dict) and isinstance(value.get("cards"), list):
        rev = value.get("rev")
        cards = [card for card in value["cards"] if isinstance(card, dict)]
        return (rev if isinstance(rev, int) else 0), cards
    return 0, []


class CardMirror:
    """The merged cards of one panel model, updated incrementally."""

    def __init__(self) -> None:
        self._raw: object = None
        self._rev = 0
        self._state: list[Card] = []
        self._seen = 0
        self._changes: dict[int, dict[str, Any]] = {}
        self._merged: list[Card] | None = None

    def cards(self, raw_state: object, messages: Sequence[CustomMessage]) -> list[Card]:
        """The cards after the state ``raw_state`` and the model's custom ``messages`` so far."""
        if raw_state is not self._raw and raw_state != self._raw:
            self._raw = raw_state
            self._rev, self._state = parse_card_state(raw_state)
            self._changes = {rev: c for rev, c in self._changes.items() if rev > self._rev}
            self._merged = None
        for message in messages[self._seen :]:
            content = message.content
            if isinstance(content, dict) and content.get("kind") == "cards":
                rev = content.get("rev")
                if isinstance(rev, int) and rev > self._rev and rev not in self._changes:
                    self._changes[rev] = content
                    self._merged = None
        self._seen = len(messages)
        if self._merged is None:
            self._merged = self._merge()
        return list(self._merged)

    def _merge(self) -> list[Card]:
        if not self._changes:
            return self._state
        by_key: dict[str, Card] = {}
        for card in self._state:
            by_key.setdefault(str(card.get("key")), card)
        for rev in sorted(self._changes):
            change = self._changes[rev]
            for key in change.get("remove") or []:
                by_key.pop(str(key), None)
            for card in change.get("upsert") or []:
                if isinstance(card, dict):
                    by_key[str(card.get("key"))] = card
        return list(by_key.values())
