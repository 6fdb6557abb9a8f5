"""Untrusted text inside the Markdown of a card's detail: shown as written, never as markup."""

from __future__ import annotations

import re

__all__ = ["code_span", "literal"]


def literal(text: str) -> str:
    """``text`` with every Markdown punctuation escaped, so it reads as plain text."""
    return re.sub(r"([\\`*_\[\]<>{}()#+!|~-])", r"\\\1", text)


def code_span(text: str) -> str:
    """``text`` as a code span: inert (no link, no emphasis), whatever backticks it holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {text} {fence}"
