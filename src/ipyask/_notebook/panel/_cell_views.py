"""Cell views: the questions one notebook cell asked, shown in that cell.

The panel holds every card: it is the history, shown where the person put it. A cell that asks
(the one-liners) shows a :class:`CellView` instead, which holds only the cards asked from that
cell. It is a widget model of its own because no host gives a widget view per-display options
(JupyterLab, Notebook, Voila, VS Code, Colab and marimo all render a model id and nothing more),
so "only this cell's cards" cannot be a filter on the panel's one model.

A cell view is a copy the panel keeps in step, never a second owner of the truth. Every change
the panel makes to one of its cards (the card, its countdown frames, the errors its views get)
is made on the cell view too, and every message a cell view's views send is handed to the panel
as if one of the panel's views had sent it. So answers, claims, Take time and timeouts are
checked once, against the panel's record: the first answer wins across every view, and a hold
from any view holds the question everywhere.

Which cards a cell view gets: those the panel makes for requests asked inside
:meth:`CellView.collecting` (a context variable, so it follows the ask into the tasks it starts).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import traitlets

from ..._answered_by import Door
from ..._clock import Clock
from ...widget import Card, KernelMessage, QuestionWidget, ViewMessage, WireCard
from ._transcript import Transcript, display_with_transcript

__all__ = ["CellView", "CellViews"]

_COLLECTING: ContextVar[CellView | None] = ContextVar("ipyask_cell_view", default=None)


def _field(message: KernelMessage | Mapping[str, Any], name: str, wire: str) -> object:
    if isinstance(message, Mapping):
        return message.get(wire, message.get(name))
    return getattr(message, name, None)


class CellView(QuestionWidget):
    """Shows the cards asked from one cell: some of ``panel``'s cards, kept in step by it.

    Made by ``panel.cell_view()``; closes with the panel. Its language and image hosts are the
    panel's. ``transcript``: the Markdown records of its settled cards, shown under it.
    """

    def __init__(
        self,
        panel: QuestionWidget,
        forward: Callable[[ViewMessage, CellView], None],
        transcript: Transcript | None,
    ) -> None:
        super().__init__(language=panel.language, image_hosts=panel.image_hosts)
        self.panel = panel
        """The widget whose cards this view shows."""
        self._links = [
            traitlets.dlink((panel, name), (self, name)) for name in ("language", "image_hosts")
        ]
        self._transcript = transcript
        self.on_view_message(lambda message: forward(message, self))

    @contextmanager
    def collecting(self) -> Iterator[None]:
        """Cards the panel makes for requests asked inside this block are shown here too."""
        token = _COLLECTING.set(self)
        try:
            yield
        finally:
            _COLLECTING.reset(token)

    def _settle_waiting(self) -> None:
        # Its cards are settled through the panel: what waits there comes first.
        panel: QuestionWidget | None = getattr(self, "panel", None)  # None while being made
        if panel is not None:
            panel._settle_waiting()
        super()._settle_waiting()

    def write_record(self, markdown: str) -> None:
        """Append a record to the transcript under this view (nothing without one)."""
        if self._transcript is not None:
            self._transcript.add(markdown)

    def _ipython_display_(self) -> None:
        display_with_transcript(self, self._transcript)

    def close(self) -> None:
        """Close the widget (its views go away); the panel's cards stay."""
        for link in getattr(self, "_links", ()):
            link.unlink()
        self._links = []
        transcript: Transcript | None = getattr(self, "_transcript", None)
        if transcript is not None:
            transcript.flush()
        super().close()


class CellViews:
    """The cell views of one panel: which of them shows which card, kept in step.

    ``panel`` is the widget whose cards they show; a new view keeps a transcript on ``clock``
    (``None``: no transcripts). The panel calls :meth:`put`, :meth:`remove` and :meth:`send` for
    every change of its cards and every message it sends to its views.
    """

    def __init__(self, panel: QuestionWidget, clock: Clock | None) -> None:
        self._panel = panel
        self._clock = clock
        self._lock = threading.Lock()
        self._views: list[CellView] = []
        self._by_key: dict[str, CellView] = {}
        # The cell view each front-end view belongs to, from the messages it sent: an error
        # the panel sends to one view reaches it through its own widget.
        self._by_view_id: dict[str, CellView] = {}

    def new(self) -> CellView:
        """A new, empty cell view."""
        transcript = Transcript(self._clock) if self._clock is not None else None
        view = CellView(self._panel, self._forward, transcript)
        with self._lock:
            self._views.append(view)
        return view

    def adopt(self, key: str) -> None:
        """Card ``key`` is new: the cell view it is asked inside (if one of these) shows it."""
        view = _COLLECTING.get()
        if view is None or view.panel is not self._panel:
            return
        with self._lock:
            if any(known is view for known in self._views):
                self._by_key[key] = view

    def _view_of(self, key: object) -> CellView | None:
        if not self._by_key:  # no cell view holds a card (most panels): nothing to look up
            return None
        view = self._by_key.get(key) if isinstance(key, str) else None
        return view if view is not None and view.comm is not None else None  # not closed

    def put(self, card: Card | WireCard) -> None:
        """Card ``card`` (a model or its wire dict) was added or changed on the panel."""
        if not self._by_key:  # no cell view holds a card (most panels)
            return
        view = self._view_of(card.key if isinstance(card, Card) else card["key"])
        if view is not None:
            view.set_card(card)

    def remove(self, key: str) -> None:
        """Card ``key`` left the panel."""
        with self._lock:
            view = self._by_key.pop(key, None)
        if view is not None and view.comm is not None and key in view.store:
            view.remove_card(key)

    def send(self, message: KernelMessage | Mapping[str, Any]) -> None:
        """The panel sent ``message`` to its views: the cell views it concerns get it too."""
        key = _field(message, "key", "key")
        view_id = _field(message, "view_id", "viewId")
        by_view = self._by_view_id.get(view_id) if isinstance(view_id, str) else None
        targets = [
            view
            for view in (self._view_of(key), by_view)
            if view is not None and view.comm is not None
        ]
        for view in {id(view): view for view in targets}.values():
            view.send_message(message)

    def record(self, key: str, markdown: str) -> None:
        """Card ``key`` settled with record ``markdown``: its cell view's transcript shows it."""
        if not self._by_key:
            return
        view = self._view_of(key)
        if view is not None:
            view.write_record(markdown)

    def door_of(self, view_id: str) -> Door:
        """Through which door a front-end view answers: a cell view's, or the panel."""
        return "cell-view" if view_id in self._by_view_id else "panel"

    def _forward(self, message: ViewMessage, view: CellView) -> None:
        self._by_view_id[message.view_id] = view
        self._panel.deliver_view_message(message, replies=view)

    def close(self) -> None:
        """Close every cell view."""
        with self._lock:
            views, self._views = self._views, []
            self._by_key.clear()
            self._by_view_id.clear()
        for view in views:
            view.close()
