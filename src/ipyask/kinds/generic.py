"""The generic flow: any question without an intent this version presents (``generic.js``).

Options, free text, Skip, a pager and Next / Submit; every question can fall back to it. Its
answer is the plain item: the chosen labels and, where allowed, free text in ``custom``.
"""

from __future__ import annotations

from typing import Literal

from .. import _wire
from . import _common

__all__ = ["KIND", "GenericPresentation"]


class GenericPresentation(_wire.WireModel):
    """The generic flow: options, free text, Skip, pager and Next / Submit."""

    kind: Literal["generic"] = "generic"


KIND: _common.Kind[None] = _common.Kind(
    name="generic", intent=None, presentation=GenericPresentation
)
"""The generic flow's entry: no intent, nothing to check or read."""
