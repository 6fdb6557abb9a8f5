"""Plain Markdown records of settled questions, kept in the notebook where widget state is not."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any, Protocol

from ..._answered_by import Answerer, Door
from ..._clock import Clock, TimerHandle
from ..._vocabulary import AskUserQuestionAnswer, AskUserQuestionItem
from ...kinds import Kind, kind_of
from ...widget import QuestionWidget
from ._texts import DOOR_WORDS, RECORD_WORDS, Language, RecordWord, fill

__all__ = [
    "TRANSCRIPT_CHARS_PER_MS",
    "TRANSCRIPT_DELAY_MS",
    "TextDisplay",
    "Transcript",
    "display_with_transcript",
    "escape_markdown",
    "record",
]

_ESCAPED = str.maketrans({char: "\\" + char for char in "\\`*_{}[]()#+-.!|<>~"})
"""Markdown's punctuation, each behind a backslash (one ``translate``: a record is written per
settled question)."""


def escape_markdown(text: str) -> str:
    """``text`` with Markdown punctuation escaped and line breaks kept inside one list item."""
    escaped = text.translate(_ESCAPED)
    return escaped.replace("\n", "  \n  ") if "\n" in escaped else escaped


def _marked(
    question: AskUserQuestionItem, selected: list[str], kind: Kind[Any] | None
) -> RecordWord | None:
    """What a decision-card answer means, in plain words, when it is a no (else ``None``): the
    question's kind says."""
    return None if kind is None else kind.mark(question.intent, selected)


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _in_words(
    question: AskUserQuestionItem, selected: list[str], custom: str, kind: Kind[Any] | None
) -> str | None:
    """An edit's or a submitted form's JSON text as a person reads it (the card says the same):
    each changed argument (a removed one struck through), or each value under its field's title
    and a choice under its option's title. ``None`` for any other answer. The question's kind
    writes the words."""
    if kind is None:
        return None
    values = _json_object(custom)
    if values is None:
        return None
    return kind.words(question.intent, selected, values, escape_markdown)


def _scoped(
    question: AskUserQuestionItem,
    selected: list[str],
    custom: str | None,
    words: dict[RecordWord, str],
    kind: Kind[Any] | None,
) -> str | None:
    """A scoped answer's rule and scope in words (``for this session: read_file``); the
    question's kind reads them."""
    values = _json_object(custom) if custom else None
    if kind is None or values is None:
        return None
    found = kind.scope(question.intent, selected, values)
    if found is None:
        return None
    word, rule = found
    return fill(words[word], {"rule": f"`{rule}`" if "`" not in rule else escape_markdown(rule)})


def _values(
    question: AskUserQuestionItem, answer: AskUserQuestionAnswer, words: dict[RecordWord, str]
) -> str:
    for item in answer.answers:
        if item.id == question.id:
            break
    else:
        return f"*{words['no-answer']}*"
    kind = kind_of(question.intent)  # once: the parts below each ask it
    values = [f"**{escape_markdown(label)}**" for label in item.selected]
    scoped = None if kind is None else _scoped(question, item.selected, item.custom, words, kind)
    if scoped is not None:
        values.append(scoped)
    elif item.custom is not None and item.custom.strip():
        readable = _in_words(question, item.selected, item.custom, kind)
        if readable is not None:
            values.append(readable)
        else:
            values.append(fill(words["quoted"], {"text": escape_markdown(item.custom)}))
    text = ", ".join(values) if values else f"*{words['skipped']}*"
    marked = None if kind is None else _marked(question, item.selected, kind)
    return fill(words["marked"], {"values": text, "mark": words[marked]}) if marked else text


def _question(
    question: AskUserQuestionItem,
    answer: AskUserQuestionAnswer | None,
    words: dict[RecordWord, str],
) -> str:
    text = escape_markdown(question.question)
    if question.header:
        text = f"{escape_markdown(question.header)} — {text}"
    return text + (f" → {_values(question, answer, words)}" if answer is not None else "")


_TITLES: dict[tuple[str, Language, str | None, str | None, Door | None], str] = {}
"""Record titles already written, by outcome, language and answerer: a panel's answers share
a few (one answerer, one door), and a title takes more work than the rest of a short record."""

_MAX_TITLES = 256


def _title(outcome: str, language: Language, by: Answerer | None) -> str:
    """``**Answered**``, with who settled it and through which door (``by ada in the panel``)."""
    key = (
        (outcome, language, None, None, None)
        if by is None
        else (outcome, language, by.who, by.host, by.door)
    )
    title = _TITLES.get(key)
    if title is None:
        title = f"**{escape_markdown(outcome)}**"
        if by is not None:
            words = RECORD_WORDS[language]
            who = escape_markdown(by.name)
            title += fill(words["by"], {"who": who, "door": DOOR_WORDS[language][by.door]})
        if len(_TITLES) >= _MAX_TITLES:
            _TITLES.clear()
        _TITLES[key] = title
    return title


def record(
    questions: list[AskUserQuestionItem],
    outcome: str,
    answer: AskUserQuestionAnswer | None = None,
    notice: str | None = None,
    *,
    language: Language = "en",
    by: Answerer | None = None,
) -> str:
    """One settled card as compact Markdown: the outcome, then each question with its answer.

    A card of one question is one line (``**Answered**: Deploy? → **Yes**``); a longer card
    puts each question on its own line. A no to a decision card is marked in plain words
    (``(rejected)``); ``notice``, why a card closed unanswered, ends the record. No internal id
    is shown. ``outcome`` and ``notice`` come written; the record's own words are in
    ``language``. ``by``: who settled it, said after the outcome (``**Answered** by ada in the
    inbox page``).
    """
    words = RECORD_WORDS[language]
    title = _title(outcome, language, by)
    why = f" — {escape_markdown(notice)}" if notice else ""
    lines = [_question(question, answer, words) for question in questions]
    if len(lines) == 1:
        return fill(words["title"], {"title": title, "line": lines[0]}) + why
    return "\n".join([title + why, *(f"- {line}" for line in lines)])


TRANSCRIPT_DELAY_MS = 50.0
"""How long the transcript waits before showing new records: the agent gets its answer first,
and a burst of settled questions costs one display update, not one each."""

TRANSCRIPT_CHARS_PER_MS = 250.0
"""A display update sends the whole text, so a long transcript waits longer (4 ms per thousand
characters, when that is more than the delay): its updates then cost at most about 250 KB a
second however many questions settle, instead of the whole text every 50 ms. It is the saved
record, not what the person reads while answering (the cards are), so it can lag."""


class TextDisplay(Protocol):
    """A shown text that can be replaced (an IPython display handle of Markdown)."""

    def update(self, text: str) -> None: ...


class Transcript:
    """The records of one panel, shown as one Markdown display under it once it is displayed.

    Updating an IPython display flushes the kernel's output streams and waits for its IOPub
    thread, which took longer than the rest of a round trip; so new records are shown together,
    ``delay_ms`` after the first of them, on ``clock`` (at once when no event loop runs).
    ``display(text)`` shows the text and returns its :class:`TextDisplay` (IPython by default).
    """

    def __init__(
        self,
        clock: Clock,
        delay_ms: float = TRANSCRIPT_DELAY_MS,
        display: Callable[[str], TextDisplay] | None = None,
    ) -> None:
        self._clock = clock
        self._delay_ms = delay_ms
        self._display = display if display is not None else _MarkdownDisplay
        self._lock = threading.Lock()
        self._records: list[str] = []
        self._chars = 0
        self._handle: TextDisplay | None = None
        self._shown = 0
        self._timer: TimerHandle | None = None

    @property
    def records(self) -> list[str]:
        """Every record so far, oldest first (shown or about to be)."""
        with self._lock:
            return list(self._records)

    @property
    def due(self) -> bool:
        """Whether records wait to be shown."""
        return self._timer is not None

    def add(self, markdown: str) -> None:
        """Append a record; the display shows it shortly."""
        with self._lock:
            self._records.append(markdown)
            self._chars += len(markdown) + 2
            if self._handle is None or self._timer is not None:
                return
            delay = max(self._delay_ms, self._chars / TRANSCRIPT_CHARS_PER_MS)
            try:
                self._timer = self._clock.call_later(delay, self.flush)
                return
            except RuntimeError:  # no running event loop: nothing would run the timer
                pass
        self.flush()

    def show(self) -> None:
        """Display the records under the current output (the first time only)."""
        with self._lock:
            if self._handle is not None:
                return
            self._handle = self._display("\n\n".join(self._records))
            self._shown = len(self._records)

    def flush(self) -> None:
        """Show every record now (cancels the pending update); nothing new, nothing sent."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            handle = self._handle
            if handle is None or self._shown == len(self._records):
                return
            self._shown = len(self._records)
            handle.update("\n\n".join(self._records))  # under the lock: updates stay in order


class _MarkdownDisplay:
    """An IPython display of Markdown text, updated in place."""

    def __init__(self, text: str) -> None:
        from IPython.display import Markdown, display

        self._handle = display(Markdown(text), display_id=True)  # type: ignore[no-untyped-call]

    def update(self, text: str) -> None:
        from IPython.display import Markdown

        self._handle.update(Markdown(text))  # type: ignore[no-untyped-call]


def display_with_transcript(widget: QuestionWidget, transcript: Transcript | None) -> None:
    """Display ``widget`` (its widget view) and, under it, ``transcript``'s records (the first
    time only; ``None``: no transcript)."""
    from IPython.display import display

    bundle = widget._repr_mimebundle_()
    data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
    display(data, metadata=metadata, raw=True)  # type: ignore[no-untyped-call]
    if transcript is not None:
        transcript.show()
