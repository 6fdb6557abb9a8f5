"""``IpyaskInboxPage``: the Jupyter Server extension that serves the inbox page."""

from __future__ import annotations

import os

from jupyter_server.extension.application import ExtensionApp
from jupyter_server.utils import url_path_join
from traitlets import Unicode

from ..store import DEFAULT_SQLITE_PATH
from ._handlers import INBOX_PATH, SETTING, routes
from ._inbox import PageInbox
from ._settings import store_location

__all__ = ["IpyaskInboxPage"]


class IpyaskInboxPage(ExtensionApp):
    """The inbox page at ``/ipyask/inbox`` (configured as ``c.IpyaskInboxPage.…``)."""

    name = "ipyask"
    load_other_extensions = True

    store = Unicode(
        "",
        help=(
            "The store whose open questions the inbox page shows: a path (relative to the "
            "server's root directory) or a postgresql:// URL. Empty: $IPYASK_STORE, else "
            f"{DEFAULT_SQLITE_PATH} under the server's root directory."
        ),
    ).tag(config=True)

    def initialize_settings(self) -> None:
        assert self.serverapp is not None  # linked to its server before this runs
        location = store_location(self.store, self.serverapp.root_dir, os.environ)
        self.settings[SETTING] = PageInbox(location)

    def initialize_handlers(self) -> None:
        self.handlers.extend(routes())
        assert self.serverapp is not None
        base_url = self.serverapp.base_url
        self.log.info("ipyask: the inbox page is at %s", url_path_join(base_url, INBOX_PATH))

    async def stop_extension(self) -> None:
        inbox: PageInbox | None = self.settings.get(SETTING)
        if inbox is not None:
            await inbox.close()
