"""``CardStore``: the kernel's record of a widget's cards and the synced state made from it.

Only kernel code writes it (views cannot: the widget refuses their state updates), so it is what
the bridge checks answers against.

The synced state is split so that a change costs the same however long the panel's history is:
the live cards (pending or continued) are one state entry, ``cards``, and the settled ones are
appended to history pages of at most :data:`PAGE_SIZE` cards, one state entry each
(``history_0``, ``history_1``, …). A change re-serializes only the card it changes, and the next
sync sends ``cards`` and the pages it touched, never the whole history.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

import traitlets
from pydantic import ValidationError

from ._cards import Card

__all__ = ["HEAD", "LIVE_STATUSES", "PAGE_SIZE", "CardStore"]

WireCard = dict[str, Any]

HEAD = "cards"
"""The state entry with the revision, the live cards and the number of history pages."""

PAGE_SIZE = 50
"""Settled cards per history page: a sync sends at most one changed page per settled card."""

LIVE_STATUSES = frozenset({"pending", "continued"})
"""Cards a person can still answer; every other status is history."""

_PAGE = re.compile(r"^history_(0|[1-9][0-9]*)$")


def _dump(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def page_name(index: int) -> str:
    """The state entry of history page ``index``."""
    return f"history_{index}"


class CardStore:
    """Every card of one widget by key: its model, its wire JSON text, and where it is synced.

    Also counts the revisions (one per change). Not thread-safe on its own: the widget serializes
    changes and reads of the state with its lock.
    """

    def __init__(self, cards: Iterable[Card | Mapping[str, Any]] = ()) -> None:
        """Hold ``cards`` (:class:`traitlets.TraitError` if invalid) as revision 1."""
        # Insertion order is the kernel's order (``get_cards``); a replaced card keeps its place.
        self._models: dict[str, Card] = {}
        self._texts: dict[str, str] = {}
        # The derived ``view`` of every card, reused while its questions stay the same objects
        # (its Markdown does not change with the status).
        self._views: dict[str, dict[str, Any]] = {}
        self._live: dict[str, None] = {}  # an ordered set of the live keys
        self._pages: list[dict[str, None]] = []
        self._page_of: dict[str, int] = {}
        self._page_texts: list[str | None] = []  # None: changed since last serialized
        self._rev = 0
        self.replace(list(cards))
        self._rev = 1

    # -- reads --------------------------------------------------------------------------------

    def card(self, key: str) -> Card:
        """The card with ``key``; :class:`KeyError` if there is none."""
        return self._models[key]

    def cards(self) -> list[Card]:
        """Every card, in the kernel's order (first added first)."""
        return list(self._models.values())

    def wire_cards(self) -> list[WireCard]:
        """Every card's wire dict, in the kernel's order (parsed anew: the store keeps text)."""
        return [json.loads(self._texts[key]) for key in self._models]

    def __contains__(self, key: object) -> bool:
        return key in self._models

    def __len__(self) -> int:
        return len(self._models)

    @property
    def rev(self) -> int:
        """The revision of the state (one per change)."""
        return self._rev

    @property
    def live_count(self) -> int:
        """How many cards are live (pending or continued)."""
        return len(self._live)

    # -- changes ------------------------------------------------------------------------------

    def put(self, model: Card) -> tuple[WireCard, list[str]]:
        """Add ``model`` or replace the card with its key; its wire dict and the state entries
        the change touched."""
        key = model.key
        previous = self._models.get(key)
        reuse = previous is not None and model.same_view_as(previous)
        wire = model.to_wire(view=self._views[key] if reuse else None)
        self._views[key] = wire["view"]
        self._models[key] = model
        self._texts[key] = _dump(wire)
        self._rev += 1
        return wire, self._place(key, model.status in LIVE_STATUSES)

    def drop(self, key: str) -> tuple[Card, list[str]]:
        """Remove card ``key``; the card and the state entries it left. :class:`KeyError` if
        absent."""
        model = self._models.pop(key)
        del self._texts[key], self._views[key]
        self._rev += 1
        return model, self._unplace(key)

    def replace(self, value: object) -> bool:
        """Make ``value`` (a list of cards or wire dicts) the whole new set of cards.

        :class:`traitlets.TraitError` if it is not a valid list (nothing changes then);
        ``False`` when it holds exactly the current cards (nothing changes either).
        """
        models = self._checked(value)
        if [m.key for m in models] == list(self._models) and all(
            m is self._models[m.key] or m == self._models[m.key] for m in models
        ):
            return False
        self._models, self._texts, self._views = {}, {}, {}
        self._live, self._page_of = {}, {}
        for page in range(len(self._pages)):  # the entries stay (views hold them), emptied
            self._pages[page] = {}
            self._page_texts[page] = None
        for model in models:
            wire = model.to_wire()
            self._models[model.key] = model
            self._texts[model.key] = _dump(wire)
            self._views[model.key] = wire["view"]
            self._place(model.key, model.status in LIVE_STATUSES)
        self._rev += 1
        return True

    def _checked(self, value: object) -> list[Card]:
        if not isinstance(value, (list, tuple)):
            raise traitlets.TraitError("cards must be a list of cards")
        models: list[Card] = []
        for index, item in enumerate(value):
            try:
                model = item if isinstance(item, Card) else Card.model_validate(item)
            except ValidationError as exc:
                raise traitlets.TraitError(f"cards[{index}] is not a valid card: {exc}") from exc
            models.append(model)
        if len({model.key for model in models}) != len(models):
            raise traitlets.TraitError("card keys must be unique")
        return models

    def _place(self, key: str, live: bool) -> list[str]:
        page = self._page_of.get(key)
        if live:
            touched = [HEAD]
            if page is not None:
                touched.append(self._leave_page(key, page))
            self._live.setdefault(key, None)
            return touched
        if page is None:  # newly settled (or new): the end of the history
            self._live.pop(key, None)
            if not self._pages or len(self._pages[-1]) >= PAGE_SIZE:
                self._pages.append({})
                self._page_texts.append(None)
            page = len(self._pages) - 1
            self._pages[page][key] = None
            self._page_of[key] = page
        self._page_texts[page] = None
        return [HEAD, page_name(page)]

    def _unplace(self, key: str) -> list[str]:
        page = self._page_of.get(key)
        if page is None:
            del self._live[key]
            return [HEAD]
        return [HEAD, self._leave_page(key, page)]

    def _leave_page(self, key: str, page: int) -> str:
        del self._pages[page][key], self._page_of[key]
        self._page_texts[page] = None
        return page_name(page)

    # -- the synced state ---------------------------------------------------------------------

    def state_names(self, start: int = 0) -> list[str]:
        """The state entries the store syncs, from the ``start``-th on: ``cards``, then one per
        history page."""
        names = [HEAD] if start == 0 else []
        return names + [page_name(index) for index in range(max(start - 1, 0), len(self._pages))]

    @property
    def entry_count(self) -> int:
        """How many state entries the store syncs (``cards`` and the pages)."""
        return 1 + len(self._pages)

    @staticmethod
    def owns(name: str) -> bool:
        """Whether ``name`` is a state entry of a store (``cards`` or a history page)."""
        return name == HEAD or _PAGE.match(name) is not None

    def state_text(self, name: str) -> str:
        """The synced text of entry ``name``: for ``cards`` ``{"rev", "cards", "pages"}`` with
        the live cards, for a page the JSON list of its cards (unchanged pages are cached)."""
        if name == HEAD:
            live = ",".join(self._texts[key] for key in self._live)
            return f'{{"rev":{self._rev},"cards":[{live}],"pages":{len(self._pages)}}}'
        match = _PAGE.match(name)
        index = int(match.group(1)) if match is not None else -1
        if not 0 <= index < len(self._pages):
            return "[]"
        text = self._page_texts[index]
        if text is None:
            text = "[" + ",".join(self._texts[key] for key in self._pages[index]) + "]"
            self._page_texts[index] = text
        return text

    def state(self, names: Iterable[str]) -> Mapping[str, str]:
        """The synced texts of ``names`` (entries this store owns)."""
        return {name: self.state_text(name) for name in names}
