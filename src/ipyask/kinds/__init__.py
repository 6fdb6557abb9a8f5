"""Question kinds: one module per kind, one-to-one with the card's presentation in
``widget/js/presentations/<kind>.js``.

A kind holds everything about itself: its intent model (what the agent asks), its rule
(``check``), its card (the presentation model and ``present``), and for a kind with a typed
result, that result, its reading of an answer item (``read``), its writer (``answer_item``) and
its question builder (``question_wire``). A kind never imports the vocabulary, the widget or
the notebook side; the code that serves every kind (the vocabulary's intent union, the intent check,
the card's presentation, the answer checks, the transcript, the scripted answerer) finds a
kind in :data:`KINDS` by ``intent.kind``. See ``docs/kinds.md`` for adding one.
"""

from __future__ import annotations

from typing import Any

from . import _common, approval, form, generic, plan_review, tool_approval

__all__ = ["KINDS", "Kind", "kind_of"]

Kind = _common.Kind

KINDS: dict[str, Kind[Any]] = {
    kind.name: kind
    for kind in (generic.KIND, plan_review.KIND, approval.KIND, tool_approval.KIND, form.KIND)
}
"""Every kind by name (its intent's and presentation's ``kind``; the generic flow has no
intent)."""


def kind_of(intent: object) -> Kind[Any] | None:
    """The kind of ``intent`` (``None`` for no intent and for an intent kind this version does
    not know, which the generic flow presents)."""
    if intent is None:  # most questions: no look-up (an answer's checks and record ask often)
        return None
    kind = KINDS.get(getattr(intent, "kind", None) or "")
    return kind if kind is not None and kind.of(intent) is not None else None
