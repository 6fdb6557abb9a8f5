"""``CardOutcomes``: gives a card its final status and writes its record to the transcript."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from ..._vocabulary import AskUserQuestionAnswer
from ...widget import QuestionWidget
from ._transcript import record

__all__ = ["CardOutcomes", "Outcome"]

Outcome = Literal["answered", "cancelled", "expired"]
"""The final status of a card."""

_TITLES: dict[Outcome, str] = {
    "answered": "Answered",
    "cancelled": "Cancelled",
    "expired": "Expired",
}


class CardOutcomes:
    """Marks the cards of ``widget`` answered, cancelled or expired, one record each.

    ``write_record(key, markdown)`` appends card ``key``'s Markdown record to the transcripts.
    """

    def __init__(self, widget: QuestionWidget, write_record: Callable[[str, str], None]) -> None:
        self._widget = widget
        self._write_record = write_record

    def mark(
        self,
        key: str,
        status: Outcome,
        notice: str | None = None,
        answer: AskUserQuestionAnswer | None = None,
        *,
        late: bool = False,
    ) -> None:
        """Give card ``key`` its final ``status`` and record it (nothing if the card is gone).

        ``late``: the answer came after the agent went on without it (a continued card).
        """
        try:
            card = self._widget.update_card(key, status=status, notice=notice, answer=answer)
        except KeyError:
            return
        title = "Answered late" if late and status == "answered" else _TITLES[status]
        why = None if status == "answered" else notice  # an answer speaks for itself
        self._write_record(key, record(card.questions, title, answer, why))
