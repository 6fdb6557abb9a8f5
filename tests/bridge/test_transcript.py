"""The Markdown transcript under a panel: shown together, shortly after questions settle."""

from __future__ import annotations

from ipyask.bridge.panel._transcript import TRANSCRIPT_DELAY_MS, Transcript
from ipyask.testing import ManualClock, drain_loop


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
    log.add(record)  # 201,000 characters in all: the whole text goes out 201 ms later
    clock.advance(200)
    assert len(shown) == 2 and log.due
    clock.advance(1)
    assert len(shown) == 3 and shown[-1].count("x") == 201 * 998
