"""``CardOutcomes``: gives a card its final status and writes its record to the transcript."""

from __future__ import annotations

from collections.abc import Callable

from ..._answered_by import Answerer
from ..._vocabulary import AskUserQuestionAnswer, AskUserQuestionItem
from ...widget import QuestionWidget, SettledStatus
from ._texts import NO_NOTICE, RECORD_WORDS, Notice, RecordWord, language_of
from ._transcript import record

__all__ = ["CardOutcomes", "Outcome"]

Outcome = SettledStatus
"""The final status of a card."""


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
        notice: Notice | None = None,
        answer: AskUserQuestionAnswer | None = None,
        *,
        late: bool = False,
        kept: bool = False,
        after_timeout: bool = False,
        questions: list[AskUserQuestionItem] | None = None,
        by: Answerer | None = None,
    ) -> None:
        """Give card ``key`` its final ``status`` and record it (nothing if the card is gone).

        ``late``: the answer came after the agent went on without it (a continued card);
        ``kept``: and nobody was left to read it, so it was kept in the session log;
        ``after_timeout``: after the timeout had answered for the person. The
        card carries ``notice`` as its code (and English text); the record is written in the
        widget's language. ``questions``: the card's questions when the caller holds them (as
        asked), else they are read from the card. ``by``: who settled it, through which door
        (the record says it in words).
        """
        try:
            fields = NO_NOTICE if notice is None else notice.card_fields()
            is_late = late and status == "answered"
            wire = self._widget.settle_card(key, status, answer=answer, late=is_late, **fields)
        except KeyError:
            return
        if questions is None:
            questions = [AskUserQuestionItem.model_validate(item) for item in wire["questions"]]
        language = language_of(self._widget.language)
        word: RecordWord = status
        if late and status == "answered":
            word = "answered-late-kept" if kept else "answered-late"
            if after_timeout:
                word = "answered-after-timeout"
        # An answer speaks for itself.
        why = None if status == "answered" or notice is None else notice.text(language)
        title = RECORD_WORDS[language][word]
        self._write_record(key, record(questions, title, answer, why, language=language, by=by))

    def record(
        self,
        key: str,
        word: RecordWord,
        answer: AskUserQuestionAnswer,
        questions: list[AskUserQuestionItem],
    ) -> None:
        """Record ``answer`` to card ``key`` under ``word`` without settling the card (the
        timeout's decision on a card that stays answerable)."""
        language = language_of(self._widget.language)
        title = RECORD_WORDS[language][word]
        self._write_record(key, record(questions, title, answer, None, language=language))
