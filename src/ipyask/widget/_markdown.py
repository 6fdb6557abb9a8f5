"""Kernel-side Markdown rendering for card text (:mod:`ipyask._markdown`, kept at this path)."""

from .._markdown import is_safe_icon_url, render_markdown

__all__ = ["is_safe_icon_url", "render_markdown"]
