"""JSON texts written by a C encoder made once.

``JSONEncoder.encode`` makes the C encoder anew at every call (and passes through three Python
calls to get to it); a panel writes a few JSON texts for every answer. :func:`one_pass` makes it
once, for an encoder's own options.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any

try:
    import _json
except ImportError:  # a Python without the C accelerator: the encoder's own ``encode``
    _MAKE_ENCODER: Any = None
else:
    _MAKE_ENCODER = getattr(_json, "make_encoder", None)

__all__ = ["Chunks", "holds_lone_surrogate", "is_sendable", "one_pass"]

Chunks = Callable[[Any, int], Any]
"""Called with a value and ``0``: the chunks of its JSON text (join them)."""


def one_pass(encoder: json.JSONEncoder) -> Chunks:
    """What ``encoder.encode(value)`` writes, as ``"".join(one_pass(encoder)(value, 0))``.

    ``encoder`` must not check for cycles (a check keeps state between calls) nor indent (the
    C encoder does not); its other options are kept."""
    if encoder.check_circular or encoder.indent is not None:
        raise ValueError("one_pass takes an encoder without check_circular and indent")
    if _MAKE_ENCODER is None:
        return lambda value, _level: (encoder.encode(value),)
    chunks: Chunks = _MAKE_ENCODER(
        None,
        encoder.default,
        encode_basestring_ascii if encoder.ensure_ascii else encode_basestring,
        None,
        encoder.key_separator,
        encoder.item_separator,
        encoder.sort_keys,
        encoder.skipkeys,
        encoder.allow_nan,
    )
    return chunks


def is_sendable(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8 (a Jupyter message, a store): no lone
    surrogates."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_TEXT = json.JSONEncoder(ensure_ascii=False, check_circular=False, allow_nan=True)
"""Writes a JSON value's text as it is (a lone surrogate stays in it): one pass in C over a
value, which the walk below makes in Python, item by item."""

_TEXT_CHUNKS = one_pass(_TEXT)


def holds_lone_surrogate(value: object) -> bool:
    """Whether a string in ``value`` (JSON-like: dicts, lists, strings; other objects are
    passed over) holds a lone surrogate (``"\\ud800"``), which no UTF-8 text can carry."""
    try:
        text = "".join(_TEXT_CHUNKS(value, 0))
    except (TypeError, ValueError, RecursionError):  # not a JSON value: look at its parts
        return _part_holds_lone_surrogate(value)
    return not text.isascii() and not is_sendable(text)


def _part_holds_lone_surrogate(value: object) -> bool:
    # Iterative: the sender decides how deep a message nests.
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if not item.isascii() and not is_sendable(item):  # ASCII: checked without a copy
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False
