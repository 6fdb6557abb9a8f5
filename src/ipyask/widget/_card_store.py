"""``CardStore``: the kernel's record of a widget's cards and the synced state made from it.

Only kernel code writes it (views cannot: the widget refuses their state updates), so it is what
the panel checks answers against.

The synced state is split so that a change costs the same however many cards the panel holds:
``cards`` holds only the revision and the page counts; the live cards (pending or continued) are
in live pages (``live_0``, ``live_1``, …) and the settled ones in history pages (``history_0``,
``history_1``, …), at most :data:`PAGE_SIZE` cards a page, one state entry each. A change
re-serializes only the card it changes, and the next sync sends ``cards`` and the pages it
touched, never every card.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import traitlets
from pydantic import ValidationError

from .._json_text import one_pass
from .._vocabulary import AskUserQuestionItem
from ._cards import SETTLED_FIELDS, Card, WireCard

__all__ = ["HEAD", "LIVE_STATUSES", "PAGE_SIZE", "CardStore", "page_name"]


HEAD = "cards"
"""The state entry with the revision and the number of live and history pages."""

PAGE_SIZE = 50
"""Cards per page: a sync sends at most two changed pages per changed card."""

LIVE_STATUSES = frozenset({"pending", "continued"})
"""Cards a person can still answer; every other status is history."""

_PLAIN = {"kind": "generic"}
"""The presentation of a plain card (its view has nothing else to derive when no question has
detail)."""

LIVE = "live"
HISTORY = "history"

_PAGE = re.compile(r"^(live|history)_(0|[1-9][0-9]*)$")


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)
"""Made once (``json.dumps`` with options makes an encoder on every call); a wire dict has no
cycles to check for."""

_CHUNKS = one_pass(_ENCODER)


_DECODER = json.JSONDecoder()

_PENDING_END = '"status":"pending"}'
"""How the text of a pending card ends: its status is its first settlement field and, with no
other, the last field of its text (:meth:`Card.to_wire`). Only a member of the top object can end
a text so (inside a string, these quotes would be escaped)."""

_PENDING_START = -len(_PENDING_END)
"""Where that end starts, from the end of the text."""


def _dump(value: object) -> str:
    return "".join(_CHUNKS(value, 0))


def _load(text: str) -> Any:
    # ``json.loads`` checks its argument's type and the text after the value, for each call;
    # the store only parses texts it wrote.
    return _DECODER.raw_decode(text)[0]


def page_name(part: str, index: int) -> str:
    """The state entry of page ``index`` of ``part`` (``"live"`` or ``"history"``)."""
    return f"{part}_{index}"


class _Pages:
    """One part of the cards (live or history) as ordered pages of keys, each a state entry.

    A card joins the end of the last page that holds any card, or the page after it when that
    one is full, so the pages in order hold the part's cards in order; a page a card leaves keeps
    its place (it may become empty; entries never go away, and empty pages at the end are filled
    again first). ``cache``: keep each page's text while it is unchanged (for history pages, which
    rarely change and go to every new view; live pages change with nearly every sync, and their
    texts would hold every live card's text twice).
    """

    __slots__ = ("_cache", "_names", "_page_of", "_pages", "_texts", "created", "part")

    def __init__(self, part: str, *, cache: bool) -> None:
        self.part = part
        self._cache = cache
        self._pages: list[dict[str, None]] = []  # each an ordered set of keys
        self._page_of: dict[str, int] = {}
        self._texts: list[str | None] = []  # None: changed since last serialized
        self._names: list[str] = []  # each page's entry (named once: every change names one)
        self.created: list[str] = []  # entries made since the widget last took them

    def __len__(self) -> int:
        return len(self._pages)

    def page_of(self, key: str) -> int | None:
        return self._page_of.get(key)

    def keys(self) -> Iterable[str]:
        for page in self._pages:
            yield from page

    def count(self) -> int:
        return len(self._page_of)

    def add(self, key: str) -> str:
        """Put ``key`` last; the entry it went to."""
        pages = self._pages
        count = len(pages)
        index = count - 1
        while index >= 0 and not pages[index]:
            index -= 1
        if index < 0 or len(pages[index]) >= PAGE_SIZE:
            index += 1
        if index == count:
            name = page_name(self.part, index)
            pages.append({})
            self._texts.append(None)
            self._names.append(name)
            self.created.append(name)
        pages[index][key] = None
        self._page_of[key] = index
        return self.changed(index)

    def remove(self, key: str) -> str:
        """Take ``key`` out of its page (it must be in one); the entry it left."""
        index = self._page_of.pop(key)
        del self._pages[index][key]
        return self.changed(index)

    def changed(self, index: int) -> str:
        """Page ``index`` changed (its text is made anew); its entry."""
        self._texts[index] = None
        return self._names[index]

    def clear(self) -> None:
        """Empty every page (the entries stay: views hold them)."""
        for index in range(len(self._pages)):
            self._pages[index] = {}
            self._texts[index] = None
        self._page_of = {}

    def names(self) -> list[str]:
        return list(self._names)

    def text(self, index: int, texts: Mapping[str, str]) -> str:
        """The JSON list of page ``index``'s cards (``"[]"`` past the last page)."""
        if not 0 <= index < len(self._pages):
            return "[]"
        text = self._texts[index]
        if text is None:
            text = "[" + ",".join(texts[key] for key in self._pages[index]) + "]"
            if self._cache:
                self._texts[index] = text
        return text


class _KeptView(NamedTuple):
    """A card's derived ``view``, and the wait and questions it was derived from."""

    wait: str
    questions: list[AskUserQuestionItem]
    view: dict[str, Any]

    def derives(self, card: Card) -> bool:
        """Whether ``card`` derives this view: the same wait and equal questions (the card
        may have been read back from its text)."""
        return self.wait == card.wait and self.questions == card.questions


class CardStore:
    """Every card of one widget by key: its wire JSON text, and where it is synced.

    The text is all a card keeps: a model is parsed from it when asked for (a card's model is
    twice the size of its text, and most cards are never read again). Also counts the revisions
    (one per change). Not thread-safe on its own: the widget serializes changes and reads of the
    state with its lock.
    """

    def __init__(self, cards: Iterable[Card | Mapping[str, Any]] = ()) -> None:
        """Hold ``cards`` (:class:`traitlets.TraitError` if invalid) as revision 1."""
        # Insertion order is the kernel's order (``get_cards``); a replaced card keeps its place.
        self._texts: dict[str, str] = {}
        # The derived ``view`` of the cards whose view costs something to derive (Markdown, a
        # presentation), reused while their questions stay the same (it does not change with the
        # status); a plain card's view is derived again, which costs less than keeping it.
        self._views: dict[str, _KeptView] = {}
        self._live = _Pages(LIVE, cache=False)
        self._history = _Pages(HISTORY, cache=True)
        self._rev = 0
        self.replace(list(cards))
        self._rev = 1

    # -- reads --------------------------------------------------------------------------------

    def card(self, key: str) -> Card:
        """The card with ``key`` (parsed anew); :class:`KeyError` if there is none."""
        return Card.model_validate_json(self._texts[key])

    def cards(self) -> list[Card]:
        """Every card (parsed anew), in the kernel's order (first added first)."""
        return [Card.model_validate_json(text) for text in self._texts.values()]

    def wire_card(self, key: str) -> WireCard:
        """The wire dict of card ``key`` (parsed anew, not validated: the store only keeps valid
        cards); :class:`KeyError` if there is none."""
        value: WireCard = _load(self._texts[key])
        return value

    def wire_cards(self) -> list[WireCard]:
        """Every card's wire dict (parsed anew), in the kernel's order."""
        return [_load(text) for text in self._texts.values()]

    def keys(self) -> list[str]:
        """Every card's key, in the kernel's order (nothing parsed)."""
        return list(self._texts)

    def live_keys(self) -> list[str]:
        """The keys of the live cards, in the order the views show them."""
        return list(self._live.keys())

    def __contains__(self, key: object) -> bool:
        return key in self._texts

    def __len__(self) -> int:
        return len(self._texts)

    @property
    def rev(self) -> int:
        """The revision of the state (one per change)."""
        return self._rev

    @property
    def live_count(self) -> int:
        """How many cards are live (pending or continued)."""
        return self._live.count()

    # -- changes ------------------------------------------------------------------------------

    def put(self, model: Card) -> tuple[WireCard, list[str]]:
        """Add ``model`` or replace the card with its key; its wire dict and the state entries
        the change touched."""
        key = model.key
        kept = self._views.get(key)
        wire = model.to_wire(view=kept.view if kept is not None and kept.derives(model) else None)
        self._keep_view(model, wire["view"])
        self._texts[key] = _dump(wire)
        self._rev += 1
        return wire, self._place(key, model.status in LIVE_STATUSES)

    def settle(self, key: str, fields: Mapping[str, Any]) -> tuple[WireCard, list[str]]:
        """Set the settlement ``fields`` of card ``key`` (by wire name, :data:`SETTLED_FIELDS`;
        ``None`` clears one) without parsing it into a model: the caller knows the card stays
        valid. Its new wire dict and the state entries the change touched; :class:`KeyError` if
        there is none, :class:`ValueError` for a field a settlement does not set or without a
        ``status`` (every card has one).

        These fields end a card's text (:meth:`Card.to_wire`), so only that end is written anew.
        """
        unknown = fields.keys() - SETTLED_FIELDS
        if unknown:
            raise ValueError(f"a settlement does not set {sorted(unknown)}")
        if "status" not in fields or fields["status"] is None:
            raise ValueError("a settlement sets the card's status")
        text = self._texts[key]
        # Membership and indexing, not ``get``: this runs for every settled question.
        ending = {
            name: fields[name]
            for name in SETTLED_FIELDS
            if name in fields and fields[name] is not None
        }
        wire: WireCard
        if text.endswith(_PENDING_END):
            # A pending card (most settled cards were): its status is its only settlement field.
            text = text[:_PENDING_START] + _dump(ending)[1:]
            wire = _load(text)
        else:
            wire = _load(text)
            ended = {name: wire.pop(name) for name in SETTLED_FIELDS if name in wire}
            wire.update(ending)
            old_end = _dump(ended)[1:]  # the fields without their "{", each text ends with "}"
            if ended and text.endswith(old_end):
                text = text[: len(text) - len(old_end)] + _dump(ending)[1:]
            else:  # not a text this store wrote in that order: write it whole
                text = _dump(wire)
        self._texts[key] = text
        self._rev += 1
        return wire, self._place(key, wire["status"] in LIVE_STATUSES)

    def drop(self, key: str) -> tuple[Card, list[str]]:
        """Remove card ``key``; the card and the state entries it left. :class:`KeyError` if
        absent."""
        model = Card.model_validate_json(self._texts.pop(key))
        self._views.pop(key, None)
        self._rev += 1
        part = self._live if self._live.page_of(key) is not None else self._history
        return model, [HEAD, part.remove(key)]

    def replace(self, value: object) -> bool:
        """Make ``value`` (a list of cards or wire dicts) the whole new set of cards.

        :class:`traitlets.TraitError` if it is not a valid list (nothing changes then);
        ``False`` when it holds exactly the current cards (nothing changes either).
        """
        models = self._checked(value)
        wires = [model.to_wire() for model in models]
        texts = {model.key: _dump(wire) for model, wire in zip(models, wires, strict=True)}
        if list(texts.items()) == list(self._texts.items()):
            return False
        self._texts, self._views = texts, {}
        self._live.clear()
        self._history.clear()
        for model, wire in zip(models, wires, strict=True):
            self._keep_view(model, wire["view"])
            self._place(model.key, model.status in LIVE_STATUSES)
        self._rev += 1
        return True

    def _keep_view(self, model: Card, view: dict[str, Any]) -> None:
        if view["presentation"] == _PLAIN and not any(view["detailHtml"]):
            self._views.pop(model.key, None)
        else:
            self._views[model.key] = _KeptView(model.wait, model.questions, view)

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
        part, other = (self._live, self._history) if live else (self._history, self._live)
        page = part._page_of.get(key)  # (not through page_of: every change of a card asks)
        if page is not None:  # stays in its part: in place
            return [HEAD, part.changed(page)]
        touched = [HEAD, part.add(key)]  # new, or changing part: last in its part
        if key in other._page_of:
            touched.append(other.remove(key))
        return touched

    # -- the synced state ---------------------------------------------------------------------

    def state_names(self) -> list[str]:
        """The state entries the store syncs: ``cards``, the live pages, the history pages."""
        return [HEAD, *self._live.names(), *self._history.names()]

    def created_names(self) -> list[str]:
        """The page entries made since this was last called (to sync from now on)."""
        if not self._live.created and not self._history.created:  # most changes make none
            return []
        names = [*self._live.created, *self._history.created]
        self._live.created.clear()
        self._history.created.clear()
        return names

    @staticmethod
    def owns(name: str) -> bool:
        """Whether ``name`` is a state entry of a store (``cards`` or a page)."""
        return name == HEAD or _PAGE.match(name) is not None

    def state_text(self, name: str) -> str:
        """The synced text of entry ``name``: for ``cards`` ``{"rev", "live", "pages"}`` (the
        revision, the number of live and of history pages), for a page the JSON list of its
        cards (unchanged pages are cached)."""
        if name == HEAD:
            return f'{{"rev":{self._rev},"live":{len(self._live)},"pages":{len(self._history)}}}'
        match = _PAGE.match(name)
        if match is None:
            return "[]"
        part = self._live if match.group(1) == LIVE else self._history
        return part.text(int(match.group(2)), self._texts)

    def state(self, names: Iterable[str]) -> Mapping[str, str]:
        """The synced texts of ``names`` (entries this store owns)."""
        return {name: self.state_text(name) for name in names}
