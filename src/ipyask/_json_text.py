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

__all__ = ["Chunks", "one_pass"]

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
