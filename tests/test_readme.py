"""The README's local links and images point at files that exist (the card screenshot too)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_every_local_link_and_image_exists() -> None:
    targets = [t.split("#")[0] for t in _LINK.findall(README)]
    local = [t for t in targets if t and not re.match(r"[a-z]+:", t)]
    assert "docs/card.png" in local  # the screenshot at the top
    assert [t for t in local if not (ROOT / t).exists()] == []


def test_the_card_screenshot_is_a_png() -> None:
    assert (ROOT / "docs" / "card.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
