"""The Markdown transcript under a panel: shown together, shortly after questions settle."""

from __future__ import annotations

import asyncio
import json

import pytest

import ipyask
from ipyask._answered_by import DOORS, AnsweredBy
from ipyask._notebook.panel._texts import DOOR_WORDS
from ipyask._notebook.panel._transcript import (
    TRANSCRIPT_CHARS_PER_MS,
    TRANSCRIPT_DELAY_MS,
    Transcript,
    record,
)
from ipyask.testing import ManualClock, drain_loop

from ._helpers import FakeView, asked_then_stopped, chose, drain, item, only_key


class FakeDisplay:
    """Records what an IPython display would show."""

    def __init__(self, shown: list[str], text: str) -> None:
        self.shown = shown
        shown.append(text)

    def update(self, text: str) -> None:
        self.shown.append(text)


def transcript(clock: ManualClock, shown: list[str]) -> Transcript:
    return Transcript(clock, display=lambda text: FakeDisplay(shown, text))


def test_records_before_display_are_shown_when_it_is_displayed(clock) -> None:
    shown: list[str] = []
    log = transcript(clock, shown)
    log.add("**Answered** one")
    log.add("**Expired** two")
    assert shown == [] and not log.due  # nothing displayed, nothing scheduled
    log.show()
    log.show()  # once only
    assert shown == ["**Answered** one\n\n**Expired** two"]


def test_a_burst_of_records_costs_one_update_after_the_delay(clock) -> None:
    shown: list[str] = []
    log = transcript(clock, shown)
    log.show()
    for n in range(3):
        log.add(f"record {n}")
        clock.advance(10)
    assert shown == [""] and log.due
    clock.advance(TRANSCRIPT_DELAY_MS - 30)
    assert shown == ["", "record 0\n\nrecord 1\n\nrecord 2"]
    assert not log.due and clock.pending == []
    assert log.records == ["record 0", "record 1", "record 2"]


def test_flush_shows_now_and_sends_nothing_when_nothing_is_new(clock) -> None:
    shown: list[str] = []
    log = transcript(clock, shown)
    log.show()
    log.add("record")
    log.flush()
    assert shown == ["", "record"] and clock.pending == []
    log.flush()
    clock.advance(TRANSCRIPT_DELAY_MS)
    assert shown == ["", "record"]


def test_without_a_running_loop_a_record_is_shown_at_once() -> None:
    from ipyask.host import LoopClock

    shown: list[str] = []
    log = Transcript(LoopClock(), display=lambda text: FakeDisplay(shown, text))
    log.show()
    log.add("record")
    assert shown == ["", "record"]


async def test_on_the_loop_clock_the_update_follows_on_the_loop() -> None:
    from ipyask.host import LoopClock

    shown: list[str] = []
    log = Transcript(LoopClock(), delay_ms=0, display=lambda text: FakeDisplay(shown, text))
    log.show()
    log.add("record")
    assert shown == [""] and log.due  # a timer on the running loop, not an update now
    await drain_loop()
    assert shown == ["", "record"] and not log.due


def test_closing_the_panel_shows_what_is_due(svc) -> None:
    import ipyask

    shown: list[str] = []
    panel = ipyask.QuestionPanel(svc)
    panel._transcript = Transcript(svc.clock, display=lambda text: FakeDisplay(shown, text))
    panel._transcript.show()
    panel.write_record("**Answered** last")
    assert shown == [""]
    panel.close()
    assert shown == ["", "**Answered** last"]


def test_a_long_transcript_is_updated_less_often(clock) -> None:
    shown: list[str] = []
    log = transcript(clock, shown)
    log.show()
    record = "x" * 998  # with the blank line between records: 1,000 characters each
    for _ in range(200):
        log.add(record)
    log.flush()
    log.add(record)  # 201,000 characters in all: the whole text goes out that much later
    wait_ms = 201_000 / TRANSCRIPT_CHARS_PER_MS
    assert wait_ms > TRANSCRIPT_DELAY_MS
    clock.advance(wait_ms - 1)
    assert len(shown) == 2 and log.due
    clock.advance(1)
    assert len(shown) == 3 and shown[-1].count("x") == 201 * 998


DEPLOY = item(
    question="Deploy to production?",
    options=[{"label": "Apply"}, {"label": "Cancel"}],
    intent={"kind": "approval", "approve": "Apply", "reject": "Cancel"},
)


def test_a_one_question_record_is_one_line_with_its_header() -> None:
    question = item(header="Storage", question="Which database?", options=[{"label": "SQLite"}])
    assert record([question], "Answered", chose("SQLite")) == (
        "**Answered**: Storage — Which database? → **SQLite**"
    )


def test_a_rejected_approval_is_marked_in_plain_words() -> None:
    assert record([DEPLOY], "Answered", chose("Cancel")) == (
        "**Answered**: Deploy to production? → **Cancel** (rejected)"
    )
    assert record([DEPLOY], "Answered", chose("Apply")) == (
        "**Answered**: Deploy to production? → **Apply**"
    )


def test_noes_of_the_other_decision_cards_are_marked() -> None:
    tool = item(
        question="Run rm?",
        options=[{"label": "Run"}, {"label": "Skip"}],
        intent={
            "kind": "tool-approval",
            "tool": {"name": "rm", "arguments": {}},
            "approve": "Run",
            "reject": "Skip",
        },
    )
    plan = item(
        question="The plan",
        detail="1. migrate",
        options=[{"label": "Approve"}, {"label": "Request changes"}],
        intent={"kind": "plan-review", "approve": "Approve"},
    )
    form = item(
        question="Your details",
        options=[{"label": "Send"}, {"label": "No"}, {"label": "Later"}],
        intent={
            "kind": "form",
            "requestedSchema": {"type": "object", "properties": {}},
            "accept": "Send",
            "decline": "No",
            "cancel": "Later",
        },
    )
    assert record([tool], "Answered", chose("Skip", custom="too risky")).endswith(
        "→ **Skip**, “too risky” (rejected)"
    )
    assert record([plan], "Answered", chose("Request changes")).endswith("(not approved)")
    assert not record([plan], "Answered", chose("Approve")).endswith(")")
    assert record([form], "Answered", chose("No")).endswith("(declined)")
    assert record([form], "Answered", chose("Later")).endswith("(dismissed)")


def test_an_edit_and_a_submitted_form_are_recorded_in_words_not_json() -> None:
    tool = item(
        question="Run write_file?",
        options=[{"label": "Edit"}, {"label": "Reject"}],
        intent={
            "kind": "tool-approval",
            "tool": {"name": "write_file", "arguments": {"path": "a.md", "force": True, "n": 1}},
            "edit": "Edit",
            "reject": "Reject",
        },
    )
    edited = json.dumps({"path": "docs/b.md", "force": False})
    assert record([tool], "Answered", chose("Edit", custom=edited)) == (
        "**Answered**: Run write\\_file? → **Edit**, path → docs/b\\.md, force → false, ~~n~~"
    )
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Your name"},
            "area": {"type": "string", "title": "Area", "oneOf": [
                {"const": "in", "title": "Inside"}, {"const": "out", "title": "Terrace"}]},
            "seats": {"type": "integer", "title": "Seats"},
        },
    }  # fmt: skip
    form = item(
        question="Book a table",
        options=[{"label": "Submit"}, {"label": "Decline"}],
        intent={
            "kind": "form",
            "requestedSchema": schema,
            "accept": "Submit",
            "decline": "Decline",
        },
    )
    values = json.dumps({"name": "Ada", "area": "out", "seats": 4})
    assert record([form], "Answered", chose("Submit", custom=values)) == (
        "**Answered**: Book a table → **Submit**, Your name: Ada · Area: Terrace · Seats: 4"
    )


def test_an_unanswered_record_says_why_and_a_longer_card_has_a_line_per_question() -> None:
    questions = [item(question="Deploy?"), item(id="b", question="Now?")]
    assert record(questions[:1], "Expired", notice="Nobody answered.") == (
        r"**Expired**: Deploy? — Nobody answered\."
    )
    assert record(questions, "Cancelled", notice="The agent stopped waiting.") == (
        "**Cancelled** — The agent stopped waiting\\.\n- Deploy?\n- Now?"
    )


async def test_a_cancelled_card_is_recorded_with_the_reason(svc, panel) -> None:
    await asked_then_stopped(svc, {"questions": [{"id": "q", "question": "Deploy?"}]})
    assert panel.records == [
        r"**Cancelled**: Deploy? — The agent stopped waiting for this question\."
    ]


async def test_a_panel_without_a_transcript_records_and_shows_nothing(svc, sent) -> None:
    shown: list[str] = []
    panel = ipyask.QuestionPanel(svc, transcript=False)
    panel.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    panel._transcript = Transcript(svc.clock, display=lambda text: FakeDisplay(shown, text))
    try:
        panel._ipython_display_()
        task = asyncio.ensure_future(svc.ask({"questions": [{"id": "q", "question": "Name?"}]}))
        await drain()
        FakeView(panel, sent, "view-1").answer(only_key(panel), ("q", [], "ipyask"))
        await task
        await drain()
        assert panel.get_card(only_key(panel)).status == "answered"
        assert panel.records == [] and shown == []
    finally:
        panel.close()
    assert shown == []


def test_the_transcript_option_is_checked(svc) -> None:
    with pytest.raises(TypeError, match="transcript must be True or False"):
        ipyask.QuestionPanel(svc, transcript="no")


def test_who_answered_and_through_which_door_are_said_in_english_and_chinese() -> None:
    question = item(question="Deploy?", options=[{"label": "Yes"}])
    page = AnsweredBy(who="ada", at=1.0, door="inbox-page")
    os_user = AnsweredBy(who="root", host="lab-1", at=1.0, door="store-claim")
    assert record([question], "Answered", chose("Yes"), by=page) == (
        "**Answered** by ada in the inbox page: Deploy? → **Yes**"
    )
    assert record([question], "Answered", chose("Yes"), by=os_user) == (
        "**Answered** by root@lab\\-1 in a store claim: Deploy? → **Yes**"
    )
    assert record([question], "已回答", chose("Yes"), language="zh", by=page) == (
        "**已回答**（由 ada 在收件箱页面中）：Deploy? → **Yes**"
    )
    # every door has its words in both languages
    assert set(DOOR_WORDS["en"]) == set(DOOR_WORDS["zh"]) == set(DOORS)
    assert all(DOOR_WORDS[language][door] for language in ("en", "zh") for door in DOORS)
