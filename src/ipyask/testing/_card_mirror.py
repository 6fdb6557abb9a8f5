"""A panel's cards as a browser view shows them: the synced state plus newer ``cards`` messages.

The state is split (``docs/protocol.md``): ``cards`` holds the revision and the numbers of live
and of history pages, ``live_0``, ``live_1``, … the live cards and ``history_0``, ``history_1``, …
the settled cards. The kernel sends
each card change as a ``cards`` message at once and syncs the entries it touched a moment later;
like the widget's hub, the mirror applies every message whose ``rev`` is above the state's and
forgets it once the state catches up.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

__all__ = ["LIVE_STATUSES", "CardMirror", "parse_card_state"]

Card = dict[str, Any]

LIVE_STATUSES = frozenset({"pending", "continued"})
"""Cards in the live part of the state; every other status is history."""


class CustomMessage(Protocol):
    """A ``custom`` comm message the kernel sent to the panel's model, as the kernel client
    records it (only its JSON content is read: the mirror needs no kernel client)."""

    @property
    def content(self) -> Any: ...


def _json(raw: object) -> object:
    return json.loads(raw) if isinstance(raw, str) else raw


def parse_card_state(raw: object) -> tuple[int, list[Card]]:
    """``(rev, cards)`` of a synced ``cards`` value (JSON text of ``{rev, live, pages}``, whose
    cards are in the pages, or of ``{rev, cards}``), or of a page or list of cards."""
    value = _json(raw)
    if isinstance(value, list):
        return 0, [card for card in value if isinstance(card, dict)]
    if isinstance(value, dict):
        rev = value.get("rev")
        listed = value.get("cards")
        cards = [c for c in listed if isinstance(c, dict)] if isinstance(listed, list) else []
        return (rev if isinstance(rev, int) else 0), cards
    return 0, []


def _count(raw: object, name: str) -> int:
    value = _json(raw)
    count = value.get(name) if isinstance(value, dict) else None
    return count if isinstance(count, int) and count > 0 else 0


class CardMirror:
    """The merged cards of one panel model (live cards first, then the history), kept current.

    The live cards alone are merged from ``cards`` and the messages, so reading them costs the
    same however long the history is; a history page is parsed only when its text changed, and
    the whole history merged only when asked for.
    """

    def __init__(self) -> None:
        self._head: object = None
        self._rev = 0
        self._state_live: list[Card] = []
        self._live_pages: list[tuple[object, list[Card]]] = []
        self._pages: list[tuple[object, list[Card]]] = []
        self._seen = 0
        self._changes: dict[int, dict[str, Any]] = {}
        self._live: dict[str, Card] | None = None
        self._all: tuple[dict[str, Card], dict[str, Card]] | None = None

    def cards(self, state: object, messages: Sequence[CustomMessage]) -> list[Card]:
        """The cards after the model's ``state`` (its state dict, or just its ``cards`` value)
        and its custom ``messages`` so far."""
        self._update(state, messages, history=True)
        if self._all is None:
            live: dict[str, Card] = {}
            history: dict[str, Card] = {}
            for card in self._state_live_cards():
                live.setdefault(str(card.get("key")), card)
            for _, page in self._pages:
                for card in page:
                    history.setdefault(str(card.get("key")), card)
            for rev in sorted(self._changes):
                _apply(live, history, self._changes[rev])
            self._all = live, history
        live, history = self._all
        return [*live.values(), *history.values()]

    def live(self, state: object, messages: Sequence[CustomMessage]) -> list[Card]:
        """Only the live cards (pending or continued), however long the history is."""
        self._update(state, messages, history=False)
        if self._live is None:
            live: dict[str, Card] = {}
            for card in self._state_live_cards():
                live.setdefault(str(card.get("key")), card)
            for rev in sorted(self._changes):
                _apply(live, None, self._changes[rev])
            self._live = live
        return list(self._live.values())

    def _state_live_cards(self) -> list[Card]:
        return [*self._state_live, *(card for _, page in self._live_pages for card in page)]

    def _update(self, state: object, messages: Sequence[CustomMessage], *, history: bool) -> None:
        """Take in what changed; the history pages only when ``history`` (reading the live
        cards looks at none of them: a later read of every card takes them in then)."""
        entries = state if isinstance(state, Mapping) else {"cards": state}
        head = entries.get("cards", [])
        changed = head is not self._head
        parts = [("live", self._live_pages)]
        if history:
            parts.append(("history", self._pages))
        for part, pages in parts:
            count = _count(head, "live" if part == "live" else "pages")
            changed = changed or len(pages) != count
            del pages[count:]
            for index in range(count):
                raw = entries.get(f"{part}_{index}", "[]")
                if index < len(pages) and pages[index][0] is raw:
                    continue
                page = (raw, parse_card_state(raw)[1])
                if index < len(pages):
                    pages[index] = page
                else:
                    pages.append(page)
                changed = True
        if changed:
            self._head = head
            self._rev, self._state_live = parse_card_state(head)
            self._changes = {rev: c for rev, c in self._changes.items() if rev > self._rev}
            self._live = self._all = None
        for message in messages[self._seen :]:
            content = message.content
            if isinstance(content, dict) and content.get("kind") == "cards":
                rev = content.get("rev")
                if isinstance(rev, int) and rev > self._rev and rev not in self._changes:
                    in_order = all(rev > known for known in self._changes)
                    self._changes[rev] = content
                    if not in_order:
                        self._live = self._all = None
                        continue
                    if self._live is not None:
                        _apply(self._live, None, content)
                    if self._all is not None:
                        _apply(*self._all, content)
        self._seen = len(messages)


def _apply(live: dict[str, Card], history: dict[str, Card] | None, change: dict[str, Any]) -> None:
    """Apply one ``cards`` message (to the live cards alone when ``history`` is None)."""
    for key in change.get("remove") or []:
        live.pop(str(key), None)
        if history is not None:
            history.pop(str(key), None)
    for card in change.get("upsert") or []:
        if not isinstance(card, dict):
            continue
        key = str(card.get("key"))
        # As the kernel places it: in place while it stays in its part, else last in the other.
        if card.get("status") in LIVE_STATUSES:
            if history is not None:
                history.pop(key, None)
            live[key] = card
        else:
            live.pop(key, None)
            if history is not None:
                history[key] = card
