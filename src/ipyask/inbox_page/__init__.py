"""The inbox page: a Jupyter Server extension serving ``/ipyask/inbox``.

Every open question of the store the server's notebooks use, grouped as the inbox widget groups
them and answered on the same cards (the widget's own bundle), live as questions arrive and
settle, on any screen that reaches the server (a phone's included). It uses the server's own
authentication: no login of its own. Installing ipyask enables it: the wheel installs
``etc/jupyter/jupyter_server_config.d/ipyask.json``, enabling the server extension ``ipyask``,
whose extension point is this module. The store is ``c.IpyaskInboxPage.store``
(a path or a ``postgresql://`` URL), else ``$IPYASK_STORE``, else
``.ipyask/questions.sqlite3`` under the server's root directory. See docs/inbox-page.md.
"""

from __future__ import annotations

from typing import Any

__all__: list[str] = []


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    # jupyter_server only where a server runs: imported when one loads the extension.
    from ._app import IpyaskInboxPage

    return [{"module": "ipyask.inbox_page", "app": IpyaskInboxPage}]
