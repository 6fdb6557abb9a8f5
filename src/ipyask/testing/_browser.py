"""Debian's Chromium for Playwright: where it is and the flags that run it headless here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "launch_chromium"]

CHROMIUM = "/usr/bin/chromium"
"""Debian's ``chromium`` package (``playwright install`` needs a download this package avoids)."""

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


def launch_chromium(playwright: Any, **options: Any) -> Any:
    """``playwright.chromium.launch(...)`` on Debian's Chromium with :data:`CHROMIUM_ARGS`."""
    if not Path(CHROMIUM).exists():
        raise FileNotFoundError(
            f"Chromium not found at {CHROMIUM}: install Debian's `chromium` package"
        )
    return playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS), **options)
