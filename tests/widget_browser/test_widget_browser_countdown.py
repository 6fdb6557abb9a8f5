"""Timed cards with a controlled clock: countdown, pause, hold, claims and ASK_TIMED_OUT."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ipyask.widget import QuestionWidget
from widget.widget_cardkit import generic, timed

pytestmark = pytest.mark.browser


def wait_text(wpage, key: str = "t1"):
    return wpage.card(key).locator(".ipyask-wait")


def kinds(wpage) -> list[tuple[str, str | None]]:
    return [(m["kind"], m.get("key")) for m in wpage.sent() if m["kind"] != "hello"]


def test_countdown_runs_and_times_out_once(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[timed("t1", remaining_ms=10_000)]), clock=True)
    expect(wait_text(wpage)).to_have_text("Continuing in 10s")
    assert kinds(wpage) == [("claim", "t1")]
    wpage.page.clock.run_for(3_000)
    expect(wait_text(wpage)).to_have_text("Continuing in 7s")
    wpage.page.clock.run_for(6_500)
    expect(wait_text(wpage)).to_have_text("Continuing in 1s")
    assert wpage.sent("timed_out") == []
    wpage.page.clock.run_for(1_000)
    expect(wait_text(wpage)).to_have_text("Continuing in 0s")
    wpage.page.clock.run_for(5_000)
    assert [m["key"] for m in wpage.sent("timed_out")] == ["t1"]
    card = wpage.card("t1")
    expect(card.get_by_role("button", name="Submit")).to_be_disabled()  # no channel until continued


def test_timed_out_card_becomes_continued_and_stays_answerable(wpage) -> None:
    widget = QuestionWidget(cards=[timed("t1", remaining_ms=1_000)])
    wpage.mount(widget, clock=True)
    wpage.page.clock.run_for(1_500)
    assert len(wpage.sent("timed_out")) == 1
    widget.update_card("t1", status="continued", frame=None)
    wpage.set_state(widget)
    expect(wait_text(wpage)).to_have_text("Work continued — you can still answer")
    assert kinds(wpage)[-1] == ("release", "t1")
    wpage.card("t1").get_by_role("radio", name="PostgreSQL", exact=True).click()
    wpage.card("t1").get_by_role("button", name="Submit").click()
    assert wpage.answers() == [
        {"answers": [{"id": "q1", "selected": ["PostgreSQL (Recommended)"]}]}
    ]


def test_focus_inside_the_card_pauses(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[timed("t1", remaining_ms=10_000), generic("g")]), clock=True)
    wpage.page.clock.run_for(2_000)
    wpage.card("t1").get_by_role("radio", name="SQLite").focus()
    expect(wait_text(wpage)).to_have_text("Paused · 8s remaining")
    expect(wpage.card("t1").get_by_role("button", name="Take time")).to_be_visible()
    wpage.page.clock.run_for(60_000)
    expect(wait_text(wpage)).to_have_text("Paused · 8s remaining")
    assert wpage.sent("timed_out") == []
    wpage.card("g").get_by_role("radio", name="SQLite").focus()  # focus leaves the card
    expect(wait_text(wpage)).to_have_text("Continuing in 8s")
    wpage.page.clock.run_for(3_000)
    expect(wait_text(wpage)).to_have_text("Continuing in 5s")
    wpage.card("t1").get_by_role("button", name="Collapse the question card").focus()
    expect(wait_text(wpage)).to_have_text("Paused · 5s remaining")  # anywhere in the card


def test_window_blur_resumes_a_focused_card(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[timed("t1", remaining_ms=10_000)]), clock=True)
    wpage.card("t1").get_by_role("radio", name="SQLite").focus()
    expect(wait_text(wpage)).to_have_text("Paused · 10s remaining")
    wpage.page.evaluate("window.dispatchEvent(new Event('blur'))")
    expect(wait_text(wpage)).to_have_text("Continuing in 10s")
    wpage.page.clock.run_for(4_000)
    expect(wait_text(wpage)).to_have_text("Continuing in 6s")
    wpage.page.evaluate("window.dispatchEvent(new Event('focus'))")
    expect(wait_text(wpage)).to_have_text("Paused · 6s remaining")


def test_take_time_holds_indefinitely(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[timed("t1", remaining_ms=5_000)]), clock=True)
    wpage.card("t1").get_by_role("button", name="Take time").click()
    expect(wait_text(wpage)).to_have_text("Waiting until you answer")
    expect(wpage.card("t1").get_by_role("button", name="Take time")).to_have_count(0)
    wpage.page.evaluate("document.activeElement.blur()")
    wpage.page.clock.run_for(120_000)
    expect(wait_text(wpage)).to_have_text("Waiting until you answer")
    assert wpage.sent("timed_out") == []
    assert ("claim", "t1") in kinds(wpage)  # the claim stays while held


def test_first_edit_holds_indefinitely(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[timed("t1", remaining_ms=5_000)]), clock=True)
    field = wpage.card("t1").get_by_role("textbox", name="Other answer")
    field.press_sequentially("x")
    expect(wait_text(wpage)).to_have_text("Waiting until you answer")
    expect(field).to_be_focused()  # no rebuild while typing
    field.press_sequentially("yz")
    expect(field).to_have_value("xyz")
    wpage.page.evaluate("document.activeElement.blur()")
    wpage.page.clock.run_for(60_000)
    assert wpage.sent("timed_out") == []


def test_a_recommended_option_is_not_chosen_for_the_person(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[timed("t1", remaining_ms=2_000)]), clock=True)
    expect(wpage.card("t1").get_by_role("radio", name="PostgreSQL")).to_have_attribute(
        "aria-checked", "false"
    )
    wpage.page.clock.run_for(3_000)
    assert len(wpage.sent("timed_out")) == 1


def test_kernel_frame_reanchors_the_countdown(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[timed("t1", remaining_ms=10_000, seq=1)]), clock=True)
    wpage.page.clock.run_for(4_000)
    wpage.emit(
        {"kind": "frame", "protocolVersion": 2, "key": "t1", "remainingMs": 60_000, "seq": 2}
    )
    expect(wait_text(wpage)).to_have_text("Continuing in 60s")
    wpage.emit({"kind": "frame", "protocolVersion": 2, "key": "t1", "remainingMs": 5_000, "seq": 2})
    wpage.emit({"kind": "frame", "protocolVersion": 3, "key": "t1", "remainingMs": 5_000, "seq": 9})
    wpage.emit({"kind": "frame", "protocolVersion": 2, "key": "t1", "remainingMs": "soon"})
    expect(wait_text(wpage)).to_have_text("Continuing in 60s")  # old seq / bad frames ignored


def test_state_frame_is_anchored_once_per_seq(wpage) -> None:
    widget = QuestionWidget(cards=[timed("t1", remaining_ms=10_000, seq=1)])
    wpage.mount(widget, clock=True)
    wpage.page.clock.run_for(4_000)
    widget.update_card("t1", notice="still waiting")  # same frame: no re-anchoring
    wpage.set_state(widget)
    expect(wpage.card("t1").locator(".ipyask-notice")).to_have_text("still waiting")
    expect(wait_text(wpage)).to_have_text("Continuing in 6s")
    widget.update_card("t1", frame={"remainingMs": 30_000, "seq": 7})
    wpage.set_state(widget)
    expect(wait_text(wpage)).to_have_text("Continuing in 30s")


def test_frames_received_before_render_are_kept(wpage) -> None:
    wpage.mount(
        QuestionWidget(cards=[timed("t1", remaining_ms=10_000, seq=1)]), views=0, clock=True
    )
    wpage.emit(
        {"kind": "frame", "protocolVersion": 2, "key": "t1", "remainingMs": 42_000, "seq": 5}
    )
    wpage.page.evaluate("window.__addView()")
    expect(wait_text(wpage)).to_have_text("Continuing in 42s")


def test_no_countdown_without_a_frame(wpage) -> None:
    card = timed("t1")
    wire = card.to_wire()
    del wire["frame"]
    wpage.mount(QuestionWidget(cards=[wire]), clock=True)
    expect(wait_text(wpage)).to_be_hidden()
    expect(wpage.card("t1").get_by_role("button", name="Take time")).to_have_count(0)
    assert kinds(wpage) == [("claim", "t1")]
    wpage.page.clock.run_for(60_000)
    assert wpage.sent("timed_out") == []


def test_heartbeat_lists_claimed_keys(wpage) -> None:
    cards = [timed("t1"), timed("t2", remaining_ms=90_000), generic("g")]
    wpage.mount(QuestionWidget(cards=cards), clock=True)
    wpage.page.clock.run_for(5_000)
    beats = wpage.sent("heartbeat")
    assert len(beats) == 1 and sorted(beats[0]["keys"]) == ["t1", "t2"]
    wpage.page.clock.run_for(5_000)
    assert len(wpage.sent("heartbeat")) == 2


def test_close_releases_and_restore_reclaims(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[timed("t1", remaining_ms=3_000)]), clock=True)
    wpage.clear_sent()
    wpage.card("t1").get_by_role(
        "button", name="Close the panel — reopen it from the tool call"
    ).click()
    assert kinds(wpage) == [("release", "t1")]
    wpage.page.clock.run_for(10_000)
    assert wpage.sent("timed_out") == [] and wpage.sent("heartbeat") == []
    wpage.page.get_by_role("button", name="Show hidden questions (1)").click()
    assert kinds(wpage) == [("release", "t1"), ("claim", "t1")]


def test_removed_card_and_removed_view_release(wpage) -> None:
    widget = QuestionWidget(cards=[timed("t1"), timed("t2")])
    wpage.mount(widget, clock=True)
    widget.remove_card("t1")
    wpage.set_state(widget)
    expect(wpage.card("t1")).to_have_count(0)
    wpage.page.evaluate("window.__removeView(0)")
    assert kinds(wpage) == [("claim", "t1"), ("claim", "t2"), ("release", "t1"), ("release", "t2")]
    wpage.page.clock.run_for(20_000)
    assert wpage.sent("heartbeat") == []  # timers stopped with the view


def test_answered_timed_card_releases(wpage) -> None:
    widget = QuestionWidget(cards=[timed("t1")])
    wpage.mount(widget, clock=True)
    wpage.card("t1").get_by_role("radio", name="SQLite").click()
    wpage.card("t1").get_by_role("button", name="Submit").click()
    widget.update_card(
        "t1",
        status="answered",
        frame=None,
        answer={"answers": [{"id": "q1", "selected": ["SQLite"]}]},
    )
    wpage.set_state(widget)
    expect(wait_text(wpage)).to_have_text("Answered")
    # choosing an option holds the count (hold) before the answer goes
    assert kinds(wpage) == [("claim", "t1"), ("hold", "t1"), ("answer", "t1"), ("release", "t1")]
