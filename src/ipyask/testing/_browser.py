"""Chromium for Playwright: which browser to launch and the flags that run it headless anywhere.

Playwright's own ``playwright install`` downloads a browser build; on machines where that is not
possible a system Chromium works as well. :func:`find_chromium` looks for one.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

__all__ = ["CHROMIUM_ARGS", "find_chromium", "launch_chromium"]

CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # Without these Chromium keeps dialling out, which a closed network refuses many times over.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

_SYSTEM_CHROMIUMS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    """The Chromium to launch: ``$IPYASK_CHROMIUM``, else the first system Chromium on ``PATH``
    (Debian's ``chromium`` package, ...), else ``None`` (Playwright's own downloaded browser)."""
    chosen = os.environ.get("IPYASK_CHROMIUM")
    if chosen:
        if not os.access(chosen, os.X_OK):
            raise FileNotFoundError(f"IPYASK_CHROMIUM={chosen!r} is not an executable file")
        return chosen
    for name in _SYSTEM_CHROMIUMS:
        found = shutil.which(name)
        if found:
            return found
    return None


def launch_chromium(playwright: Any, **options: Any) -> Any:
    """``playwright.chromium.launch(...)`` with :data:`CHROMIUM_ARGS`, on :func:`find_chromium`'s
    browser when there is one (else on the browser ``playwright install`` downloaded)."""
    executable = find_chromium()
    if executable is not None:
        options.setdefault("executable_path", executable)
    return playwright.chromium.launch(args=list(CHROMIUM_ARGS), **options)
