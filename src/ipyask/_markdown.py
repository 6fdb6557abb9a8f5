"""Kernel-side Markdown rendering for card text: raw HTML off, unsafe URLs removed.

Question ``detail`` (and an approval's localized detail) is Markdown written by an agent, so it is
untrusted. It is rendered here with markdown-it-py (CommonMark plus tables and strikethrough):

* raw HTML is disabled, so ``<script>``, ``<iframe>`` or ``onerror=`` come out as escaped text;
* a link or image URL is kept only if it is relative or uses ``http:``, ``https:`` or
  ``mailto:``; ``data:image/{png,gif,jpeg,webp}`` is kept for images only. Everything else
  (``javascript:``, ``vbscript:``, ``file:``, other ``data:`` URLs, unknown schemes) is dropped
  and the Markdown source stays visible as text;
* links open in a new tab with ``rel="noopener noreferrer nofollow"``; images send no referrer;
* headings are shifted down two levels (``#`` becomes ``<h3>``) to sit under the card title.

The browser sanitizes this HTML once more before inserting it (defence in depth).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from markdown_it import MarkdownIt

if TYPE_CHECKING:
    from collections.abc import Sequence

    from markdown_it.renderer import RendererHTML
    from markdown_it.rules_core import StateCore
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict

__all__ = ["is_safe_icon_url", "render_markdown"]

_SCHEME = re.compile(r"^([a-z][a-z0-9+.\-]*):", re.IGNORECASE)
_SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
_IMAGE_DATA = re.compile(r"^data:image/(?:png|gif|jpeg|webp)[;,]", re.IGNORECASE)
_ICON_URL = re.compile(r"^(?:https?:|data:image/)", re.IGNORECASE)
_HEADING_SHIFT = 2


def _url_allowed(url: str, *, image: bool) -> bool:
    match = _SCHEME.match(url.strip())
    if match is None:
        return True  # relative URL or fragment
    if match.group(1).lower() in _SAFE_SCHEMES:
        return True
    return image and bool(_IMAGE_DATA.match(url.strip()))


def is_safe_icon_url(url: str) -> bool:
    """Whether ``url`` may be loaded as an approval subject icon (``https:``, ``http:``, images)."""
    return bool(_ICON_URL.match(url.strip()))


class _SafeMarkdownIt(MarkdownIt):
    def validateLink(self, url: str) -> bool:
        return _url_allowed(url, image=True)


def _drop_data_links(state: StateCore) -> None:
    """Unwrap links whose target is a ``data:`` URL (allowed for images only)."""
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        kept: list[Token] = []
        depth_dropped: list[bool] = []
        for token in block.children:
            if token.type == "link_open":
                drop = not _url_allowed(str(token.attrGet("href") or ""), image=False)
                depth_dropped.append(drop)
                if drop:
                    continue
            elif token.type == "link_close" and depth_dropped and depth_dropped.pop():
                continue
            kept.append(token)
        block.children = kept


def _shift_headings(state: StateCore) -> None:
    for token in state.tokens:
        if token.type in ("heading_open", "heading_close"):
            level = min(6, int(token.tag[1:]) + _HEADING_SHIFT)
            token.tag = f"h{level}"


def _link_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    tokens[idx].attrSet("target", "_blank")
    tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
    return self.renderToken(tokens, idx, options, env)


def _image(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    tokens[idx].attrSet("referrerpolicy", "no-referrer")
    tokens[idx].attrSet("loading", "lazy")
    return str(type(self).image(self, tokens, idx, options, env))


def _build() -> MarkdownIt:
    md = _SafeMarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.core.ruler.push("ipyask_drop_data_links", _drop_data_links)
    md.core.ruler.push("ipyask_shift_headings", _shift_headings)
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("image", _image)
    return md


_MD = _build()


def render_markdown(text: str) -> str:
    """Render untrusted Markdown to HTML that is safe to insert into the card."""
    return str(_MD.render(text))
