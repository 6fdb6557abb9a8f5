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


def test_the_layout_names_every_presentation_module() -> None:
    folder = ROOT / "src" / "ipyask" / "widget" / "js" / "presentations"
    modules = sorted(path.name for path in folder.glob("*.js"))
    assert modules  # the folder moved: this test must follow it
    assert [name for name in modules if f"`{name}`" not in README] == []


def test_no_card_kind_is_described_as_unbuilt() -> None:
    # A claim that a view "is not built yet" went stale once; every kind has its view now.
    assert re.search(r"not (?:been )?built yet", README) is None
