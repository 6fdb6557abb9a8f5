"""A Griffe extension: ipyask's reST docstrings, readable in the Markdown API reference.

The docstrings are written for ``help()`` and use a few reST forms that Markdown does not know:

- roles such as ``:class:`~ipyask.store.Store``` become inline code (``Store``); ``~`` keeps
  the last part of the name, as Sphinx does;
- a paragraph ending in ``::`` (a literal block follows) ends in ``:``;
- a simple table (its rows between ``====`` rules) is shown as preformatted text, as written.

Only the rendered copy changes; the docstrings stay as they are.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|data|exc|obj|const):`([^`]+)`")
_RULE = re.compile(r"^\s*=+(?:\s+=+)+\s*$")


def _role(match: re.Match[str]) -> str:
    target = match.group(1).strip()
    if target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    return f"`{target.lstrip('.')}`"


def _fence_tables(text: str) -> str:
    # A simple table opens with a rule and closes with its last rule (three rules in all, or
    # two for a table without a header).
    lines = text.split("\n")
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if _RULE.match(line):
            rules = [i for i in range(index, len(lines)) if _RULE.match(lines[i])]
            blank = next((i for i in range(index, len(lines)) if not lines[i].strip()), len(lines))
            end = max(i for i in rules if i < blank) if any(i < blank for i in rules) else index
            if end > index:
                out += ["```text", *lines[index : end + 1], "```"]
                index = end + 1
                continue
        out.append(line)
        index += 1
    return "\n".join(out)


def markdown(text: str) -> str:
    """``text`` (a reST docstring) as the Markdown the reference renders."""
    text = _ROLE.sub(_role, text)
    text = re.sub(r"(\S)::$", r"\1:", text, flags=re.MULTILINE)
    return _fence_tables(text)


class ReSTRoles(griffe.Extension):
    """Rewrites every docstring Griffe loads with :func:`markdown`."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
