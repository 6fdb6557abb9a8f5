"""``CardStore``: the kernel's record of a widget's cards, in step with its ``cards`` trait.

Only kernel code writes it (views cannot: the widget refuses their state updates), so it is what
the bridge checks answers against.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

import traitlets
from pydantic import ValidationError

from ._cards import Card

__all__ = ["CardChange", "CardStore"]

WireCard = dict[str, Any]


def _dump(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class CardChange:
    """A per-card change of the trait: the new list, and the cards put in or taken out."""

    __slots__ = ("cards", "remove", "thread", "upsert")

    def __init__(
        self,
        cards: list[WireCard],
        *,
        upsert: Sequence[tuple[Card, WireCard]] = (),
        remove: Sequence[str] = (),
    ) -> None:
        self.cards = cards
        self.upsert = upsert
        self.remove = remove
        self.thread = threading.get_ident()


class CardStore:
    """Every card of one widget by key: its model, its wire dict and that dict's JSON text.

    Also counts the revisions of the trait's list. Not thread-safe on its own: the widget
    serializes changes with its lock.
    """

    def __init__(self) -> None:
        # The wire dict and the model of every card, in display order, as last accepted: reads
        # and updates start from the model instead of validating the dict again.
        self._wire: dict[str, WireCard] = {}
        self._models: dict[str, Card] = {}
        self._texts: dict[str, tuple[WireCard, str]] = {}
        self._rev = 0
        # The trait's current and previous list with their revisions: the state text names the
        # revision of the very list it serializes, even while another thread assigns a new one.
        self._revs: tuple[tuple[object, int], tuple[object, int]] = ((None, 0), (None, 0))
        self._change: CardChange | None = None

    # -- reads --------------------------------------------------------------------------------

    def card(self, key: str) -> Card:
        """The card with ``key``; :class:`KeyError` if there is none."""
        return self._models[key]

    def cards(self) -> list[Card]:
        """Every card, in display order."""
        return list(self._models.values())

    def __contains__(self, key: object) -> bool:
        return key in self._models

    def __len__(self) -> int:
        return len(self._models)

    @property
    def rev(self) -> int:
        """The revision of the current list (one per accepted list)."""
        return self._rev

    # -- changes ------------------------------------------------------------------------------

    def upsert(self, model: Card, current: list[WireCard]) -> CardChange:
        """The change that puts ``model`` into ``current`` (in place of its key, or appended)."""
        previous = self._models.get(model.key)
        reuse = previous is not None and model.same_view_as(previous)
        wire = model.to_wire(view=self._wire[model.key]["view"] if reuse else None)
        cards = list(current)
        if previous is None:
            cards.append(wire)
        else:  # list.index compares by identity first: the card's own dict is found fast
            cards[cards.index(self._wire[model.key])] = wire
        return CardChange(cards, upsert=[(model, wire)])

    def removal(self, key: str, current: list[WireCard]) -> CardChange:
        """The change that takes card ``key`` out of ``current``; :class:`KeyError` if absent."""
        wire = self._wire[key]
        cards = list(current)
        cards.remove(wire)  # identity first, as in upsert
        return CardChange(cards, remove=[key])

    def committing(self, change: CardChange | None) -> None:
        """Mark ``change`` as the one being assigned to the trait (``None`` when done)."""
        self._change = change

    def accept(self, value: object, *, before_new_list: Callable[[], None]) -> list[WireCard]:
        """Record ``value`` as the trait's new list and return it normalized (the validator).

        The change being committed on this thread updates only its cards; any other value is
        checked as a whole new list (:class:`traitlets.TraitError` if invalid), and
        ``before_new_list`` runs once it is known to be valid.
        """
        change = self._change
        result: list[WireCard]
        if change is not None and change.thread == threading.get_ident() and value is change.cards:
            # The list is the current one with checked cards changed, so only the maps of those
            # cards change (a panel with many cards stays cheap to update).
            for key in change.remove:
                del self._wire[key], self._models[key]
            for model, wire in change.upsert:
                self._wire[model.key] = wire
                self._models[model.key] = model
            result = change.cards
        else:
            result, models = self._checked(value)
            before_new_list()
            self._wire = {card["key"]: card for card in result}
            self._models = models
        self._rev += 1
        self._revs = ((result, self._rev), self._revs[0])
        return result

    def mark(self, value: object, rev: int) -> None:
        """Give the list ``value`` revision ``rev`` (a change the views may have seen failed)."""
        self._rev = rev
        self._revs = ((value, rev), self._revs[0])

    def _checked(self, value: object) -> tuple[list[WireCard], dict[str, Card]]:
        if not isinstance(value, (list, tuple)):
            raise traitlets.TraitError("cards must be a list of cards")
        result: list[WireCard] = []
        models: dict[str, Card] = {}
        for index, item in enumerate(value):
            key = item.get("key") if isinstance(item, dict) else None
            known = self._wire.get(key) if isinstance(key, str) else None
            if known is not None and (known is item or known == item):
                result.append(known)  # normalized before: skip validating and rendering it
                models[known["key"]] = self._models[known["key"]]
                continue
            try:
                model = item if isinstance(item, Card) else Card.model_validate(item)
            except ValidationError as exc:
                raise traitlets.TraitError(f"cards[{index}] is not a valid card: {exc}") from exc
            result.append(model.to_wire())
            models[model.key] = model
        if len(models) != len(result):
            raise traitlets.TraitError("card keys must be unique")
        return result, models

    # -- the synced state ---------------------------------------------------------------------

    def state_text(self, value: list[WireCard]) -> str:
        """The synced text of the list ``value`` with its revision, reusing unchanged cards' text.

        Cards are replaced, never mutated in place, so an unchanged card keeps its dict and text.
        """
        cache = self._texts
        fresh: dict[str, tuple[WireCard, str]] = {}
        for card in value:
            known = cache.get(card["key"])
            text = known[1] if known is not None and known[0] is card else _dump(card)
            fresh[card["key"]] = (card, text)
        self._texts = fresh
        cards = ",".join(text for _, text in fresh.values())
        return f'{{"rev":{self._rev_of(value)},"cards":[{cards}]}}'

    def _rev_of(self, value: object) -> int:
        current, previous = self._revs
        if value is previous[0]:
            return previous[1]
        return current[1]
