"""``PageInbox``: the store's inbox panel, run in the Jupyter server, its views in browsers.

The page shows the inbox widget itself: a :class:`~ipyask._notebook.panel.QuestionPanel` on the
store runs in the server's process as it would in a kernel, and what its comm would carry goes
over HTTP instead: the panel's synced state and every message it sends reach each open page as
server-sent events, and what a page's view sends comes back as a POST, handed to the panel
through its comm. So the cards, their grouping, the checks of an answer (``BAD_ANSWER``, per
field) and the claim on the store (the first answer of any view or process wins) are the inbox
widget's own.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import TYPE_CHECKING

from .._notebook.panel._inbox_cards import ANSWERING_AS
from .._service import UserQuestions
from ..store import Store, open_store

if TYPE_CHECKING:
    from ._panel import PagePanel

__all__ = ["PageInbox", "Subscription"]


class Subscription:
    """One page's event stream: each event is the text to write (``None``: the stream ends)."""

    def __init__(self) -> None:
        self.events: asyncio.Queue[str | None] = asyncio.Queue()


def event(name: str, data: object) -> str:
    """A server-sent event named ``name`` carrying ``data`` as JSON (on one line)."""
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class PageInbox:
    """The inbox of the store at ``location`` for every page of one server.

    The store is opened, and the panel made, on first use (on the server's event loop, which
    the panel's changes are handed to); :meth:`close` closes both.
    """

    def __init__(self, location: str) -> None:
        self.location = location
        self._loop: asyncio.AbstractEventLoop | None = None
        self._store: Store | None = None
        self._panel: PagePanel | None = None
        self._subscriptions: set[Subscription] = set()
        self._lock = threading.Lock()

    def panel(self) -> PagePanel:
        """The panel, made (and the store opened) on first use; raises what opening the store
        raises (:class:`~ipyask.store.StoreOpenError`, ...)."""
        if self._panel is None:
            from ._panel import PagePanel  # the widget's modules: once a page is opened

            self._loop = asyncio.get_running_loop()
            store = open_store(self.location)
            try:
                self._panel = PagePanel(UserQuestions(store=store), self._broadcast)
            except BaseException:
                store.close()
                raise
            self._store = store
        return self._panel

    # -- to the pages -------------------------------------------------------------------------
    def subscribe(self, username: str | None = None) -> Subscription:
        """A new page's stream: the panel's state first, then every change as it happens.

        ``username`` (the page's Jupyter user) is the page's ``answerer``: its "Only mine"
        filter shows the questions assigned to them.
        """
        panel = self.panel()
        if panel.inbox is not None:
            # The panel outlives the pages: an agent that died since its card was made is
            # said to have ended on this page (and, by the change, on the pages open already).
            panel.inbox.relabel_ended()
        subscription = Subscription()
        state = panel.page_state()
        if username:
            state["answerer"] = username
        subscription.events.put_nowait(event("state", state))
        with self._lock:
            self._subscriptions.add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        """The page's stream has ended."""
        with self._lock:
            self._subscriptions.discard(subscription)

    def _broadcast(self, name: str, data: object) -> None:
        """What the panel sends its views, to every page (as a comm to every front end)."""
        text = event(name, data)
        with self._lock:
            subscriptions = list(self._subscriptions)
        for subscription in subscriptions:
            self._put(subscription, text)

    def _put(self, subscription: Subscription, text: str | None) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            subscription.events.put_nowait(text)
        else:  # sent from another thread: the queue belongs to the server's loop
            loop.call_soon_threadsafe(subscription.events.put_nowait, text)

    # -- from the pages -----------------------------------------------------------------------
    def deliver(self, content: object, *, username: str) -> None:
        """Hand a message of a page's view to the panel, through its comm, as a front end's
        message: the one place where the page answers (claims) a question.

        An ``answer`` is checked against its card and claimed on the store exactly as on the
        inbox widget; its outcome, or the refusal naming the view, reaches the pages as
        events. ``username`` is the Jupyter user who sent it: the store's record of the claim
        names them, and the inbox page as the door.
        """
        panel = self.panel()
        token = ANSWERING_AS.set((username, "inbox-page"))
        try:
            panel.page_comm.handle_msg(
                {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
            )
        finally:
            ANSWERING_AS.reset(token)

    # -- lifetime -----------------------------------------------------------------------------
    async def close(self) -> None:
        """End every page's stream, close the panel, its service and the store."""
        with self._lock:
            subscriptions = list(self._subscriptions)
            self._subscriptions.clear()
        for subscription in subscriptions:
            self._put(subscription, None)
        panel, store = self._panel, self._store
        self._panel = self._store = None
        if panel is not None:
            panel.close()
            await panel.service.aclose()
        if store is not None:
            store.close()
