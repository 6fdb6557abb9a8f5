"""The inbox page's HTTP handlers, Jupyter's own: every request authenticated by the server's
identity provider (token, password, JupyterHub), every POST XSRF-checked, no login of their own.

``/ipyask/inbox``                the page
``/ipyask/static/<file>``        the widget's bundle and style, the page's script and style
``/ipyask/api/events``           the inbox's state and changes (server-sent events)
``/ipyask/api/messages``         what a page's view sends (POST, JSON)
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from jupyter_server.base.handlers import APIHandler, JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import web
from tornado.iostream import StreamClosedError

from ..store import StoreOpenError
from ._inbox import PageInbox, Subscription
from ._texts import error_page, inbox_page, page_language

__all__ = ["INBOX_PATH", "SETTING", "routes"]

INBOX_PATH = "ipyask/inbox"
"""The page's path under the server's base URL."""
SETTING = "ipyask_inbox_page"
"""The web application's setting holding the :class:`PageInbox`."""

KEEP_ALIVE_S = 20.0
"""A comment line on an idle event stream this often: proxies keep it open, a gone page is
noticed."""

_WIDGET_STATIC = Path(__file__).parents[1] / "widget" / "static"
_PAGE_STATIC = Path(__file__).parent / "static"
ASSETS = {
    "widget.js": _WIDGET_STATIC / "widget.js",
    "widget.css": _WIDGET_STATIC / "widget.css",
    "inbox-page.js": _PAGE_STATIC / "inbox-page.js",
    "inbox-page.css": _PAGE_STATIC / "inbox-page.css",
}
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


class _InboxHandler(JupyterHandler):
    @property
    def inbox(self) -> PageInbox:
        inbox: PageInbox = self.settings[SETTING]
        return inbox

    def url(self, *parts: str) -> str:
        return str(url_path_join(self.base_url, "ipyask", *parts))


class PageHandler(_InboxHandler):
    @web.authenticated
    def get(self) -> None:
        language = page_language(self.request.headers.get("Accept-Language"))
        static = self.url("static") + "/"
        try:
            self.inbox.panel()
        except (StoreOpenError, ImportError) as error:
            self.log.error("ipyask: the inbox page could not open its store: %s", error)
            self.set_status(503)
            self.finish(error_page(language, static=static, reason=str(error)))
            return
        xsrf = self.xsrf_token  # also sets the cookie the token is checked against
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(
            inbox_page(
                language,
                static=static,
                events=self.url("api", "events"),
                messages=self.url("api", "messages"),
                xsrf=xsrf.decode() if isinstance(xsrf, bytes) else str(xsrf),
            )
        )


class AssetHandler(_InboxHandler):
    @web.authenticated
    def get(self, name: str) -> None:
        path = ASSETS.get(name)
        if path is None:
            raise web.HTTPError(404)
        self.set_header("Content-Type", _TYPES[path.suffix])
        self.set_header("Cache-Control", "no-cache")  # a new ipyask's bundle at once
        self.finish(path.read_bytes())


def _username(handler: APIHandler) -> str:
    """The Jupyter user of a request (its identity provider's name for them)."""
    return getattr(handler.current_user, "username", None) or str(handler.current_user)


class _InboxAPIHandler(APIHandler):
    @property
    def inbox(self) -> PageInbox:
        inbox: PageInbox = self.settings[SETTING]
        return inbox


class EventsHandler(_InboxAPIHandler):
    """The inbox as a stream of server-sent events: ``state`` (the panel's synced state, on
    connecting), ``update`` (changed state entries) and ``custom`` (a message of the panel)."""

    _subscription: Subscription | None = None

    @web.authenticated
    async def get(self) -> None:
        try:
            subscription = self.inbox.subscribe(_username(self))
        except (StoreOpenError, ImportError) as error:
            raise web.HTTPError(503, str(error)) from error
        self._subscription = subscription
        self.set_header("Content-Type", "text/event-stream; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.set_header("X-Accel-Buffering", "no")  # a proxy passes each event on at once
        try:
            self.write("retry: 2000\n\n")
            while True:
                try:
                    text = await asyncio.wait_for(subscription.events.get(), KEEP_ALIVE_S)
                except asyncio.TimeoutError:
                    text = ": keep-alive\n\n"
                if text is None:
                    break
                self.write(text)
                await self.flush()
        except StreamClosedError:
            pass
        finally:
            self.inbox.unsubscribe(subscription)
        with contextlib.suppress(StreamClosedError):
            self.finish()

    def on_connection_close(self) -> None:
        if self._subscription is not None:
            self._subscription.events.put_nowait(None)


class MessagesHandler(_InboxAPIHandler):
    """One message of a page's view (``hello``, ``answer``, ...), as the widget's comm takes it."""

    @web.authenticated
    def post(self) -> None:
        content: Any = self.get_json_body()
        try:
            self.inbox.deliver(content, username=_username(self))
        except (StoreOpenError, ImportError) as error:
            raise web.HTTPError(503, str(error)) from error
        self.set_status(204)
        self.finish()


def routes() -> list[tuple[str, type[JupyterHandler]]]:
    """The page's routes (under the server's base URL)."""
    return [
        (INBOX_PATH, PageHandler),
        (r"ipyask/static/([A-Za-z0-9.-]+)", AssetHandler),
        ("ipyask/api/events", EventsHandler),
        ("ipyask/api/messages", MessagesHandler),
    ]
