"""The kernel's card notices in Chromium: a coded notice is shown in the view's language."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ipyask.widget import QuestionWidget
from widget.widget_cardkit import generic

pytestmark = pytest.mark.browser

YOU_CANCELLED = "You cancelled this question; the agent was told."


def _cancelled(key: str = "c1"):
    return generic(key, status="cancelled", notice=YOU_CANCELLED, notice_code="you-cancelled")


def test_a_coded_notice_follows_the_views_language(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[_cancelled()]))
    notice = wpage.card("c1").locator(".ipyask-notice")
    expect(notice).to_have_text(YOU_CANCELLED)
    wpage.set_language("zh")
    expect(notice).to_have_text("你取消了这个问题，智能体已得知。")
    wpage.set_language("en")
    expect(notice).to_have_text(YOU_CANCELLED)
    assert wpage.errors == []


def test_a_chinese_page_shows_a_coded_notice_in_chinese_with_its_params(wpage) -> None:
    earlier = generic(
        "e1",
        notice="Asked before a restart: …",
        notice_code="asked-earlier",
        notice_params={"process": "box:4242"},
    )
    # The panel's language is "" (the page's): only the view can choose Chinese here.
    wpage.mount(QuestionWidget(cards=[_cancelled(), earlier]), doc_lang="zh-CN")
    expect(wpage.card("c1").locator(".ipyask-notice")).to_have_text(
        "你取消了这个问题，智能体已得知。"
    )
    expect(wpage.card("e1").locator(".ipyask-notice")).to_have_text(
        "重启之前提出的问题：提出它的进程（box:4242）已结束。你的回答会被保存，"
        "智能体再次提出这个问题时会收到它。"
    )


def test_an_unknown_code_shows_the_kernels_notice(wpage) -> None:
    widget = QuestionWidget(cards=[_cancelled()], language="zh")
    wpage.mount(widget)
    wire = generic("n1", status="expired", notice="Something new happened.").to_wire()
    wire["noticeCode"] = "something-new"  # a code from a newer kernel
    wpage.emit(
        {
            "kind": "cards",
            "protocolVersion": 2,
            "rev": widget.store.rev + 1,
            "upsert": [wire],
            "remove": [],
        }
    )
    expect(wpage.card("n1").locator(".ipyask-notice")).to_have_text("Something new happened.")
    expect(wpage.card("c1").locator(".ipyask-notice")).to_have_text(
        "你取消了这个问题，智能体已得知。"
    )
    assert wpage.errors == []


def _refuse(wpage, code: str, message: str) -> None:
    wpage.emit(
        {"kind": "error", "protocolVersion": 2, "code": code, "message": message, "key": "g1"}
    )


def test_a_refusal_a_person_meets_is_said_in_the_views_language(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[generic("g1")], language="zh"))
    feedback = wpage.card("g1").get_by_role("status")
    _refuse(wpage, "ALREADY_ANSWERED", "this question was already answered")
    expect(feedback).to_have_text("这个问题已在这里或另一个视图中回答过了。")
    wpage.set_language("en")
    _refuse(wpage, "ALREADY_ANSWERED", "this question was already answered")
    expect(feedback).to_have_text("This question was already answered, here or in another view.")
    # A refusal whose detail only the kernel knows keeps the kernel's words.
    _refuse(wpage, "BAD_ANSWER", "'Zig' is not an option of question q1")
    expect(feedback).to_have_text("'Zig' is not an option of question q1")
    assert wpage.errors == []


def test_the_late_answer_notices_say_who_reads_it_in_both_languages(wpage) -> None:
    answer = {"answers": [{"id": "q", "selected": ["SQLite"]}]}
    kept = generic(
        "k1", status="answered", answer=answer, notice="Answer saved.", notice_code="reply-kept"
    )
    waits = generic(
        "r1",
        status="continued",
        notice="Answer saved.",
        notice_code="reply-awaits-reask",
        notice_params={"callId": "mcp-1a2b"},
    )
    unread = generic("u1", status="continued", notice="Answer sent.", notice_code="reply-unread")
    wpage.mount(QuestionWidget(cards=[kept, waits, unread]))
    expect(wpage.card("k1").locator(".ipyask-notice")).to_have_text(
        "Answer saved. The agent that asked has finished, so it will not read this answer; it is "
        "kept in the session log, where the projection and the transcript show it."
    )
    expect(wpage.card("r1").locator(".ipyask-notice")).to_have_text(
        "Answer saved. The MCP client gets it when it calls ask_user_question again with callId "
        "mcp-1a2b; until then it waits here."
    )
    expect(wpage.card("u1").locator(".ipyask-notice")).to_contain_text(
        "the task that asked has ended"
    )
    wpage.set_language("zh")
    expect(wpage.card("k1").locator(".ipyask-notice")).to_have_text(
        "回答已保存。提出问题的智能体已结束，不会读到这个回答；"
        "它保存在会话记录中，投影和记录里都能看到。"
    )
    expect(wpage.card("r1").locator(".ipyask-notice")).to_have_text(
        "回答已保存。MCP 客户端用 callId mcp-1a2b 再次调用 ask_user_question 时会收到它；"
        "在那之前它在这里等待。"
    )
    expect(wpage.card("u1").locator(".ipyask-notice")).to_contain_text("提出问题的任务已结束")
    assert wpage.errors == []


def test_a_card_answered_late_says_so_in_the_views_language(wpage) -> None:
    answer = {"answers": [{"id": "q1", "selected": ["SQLite"]}]}
    late = generic("l1", status="answered", answer=answer, late=True)
    on_time = generic("o1", status="answered", answer=answer)
    wpage.mount(QuestionWidget(cards=[late, on_time]))
    expect(wpage.card("l1").locator("[data-role=wait]")).to_have_text("Answered late")
    expect(wpage.card("o1").locator("[data-role=wait]")).to_have_text("Answered")
    wpage.set_language("zh")
    expect(wpage.card("l1").locator("[data-role=wait]")).to_have_text("已迟到回答")
    assert wpage.errors == []


def test_a_card_the_timeout_decided_says_so_and_still_takes_an_answer(wpage) -> None:
    decided = generic(
        "t1",
        call_id="c1",
        wait="timed",
        status="continued",
        notice="No answer in time: …",
        notice_code="decided-by-timeout",
        notice_params={"decision": "Reject"},
    )
    wpage.mount(QuestionWidget(cards=[decided]))
    card = wpage.card("t1")
    expect(card.locator(".ipyask-notice")).to_have_text(
        "No answer in time: the timeout decided “Reject” and the agent went on with that. You "
        "can still answer; your answer is recorded as late, not sent to the agent."
    )
    expect(card.get_by_role("button", name="Submit")).to_be_visible()
    wpage.set_language("zh")
    expect(card.locator(".ipyask-notice")).to_contain_text("超时已决定“Reject”")


def test_a_closed_stores_card_says_so_in_the_views_language(wpage) -> None:
    location = "/data/questions.sqlite3"
    closed = generic(
        "s1",
        notice="The store was closed: …",
        notice_code="store-closed",
        notice_params={"location": location},
    )
    wpage.mount(QuestionWidget(cards=[closed]))
    card = wpage.card("s1")
    notice = card.locator(".ipyask-notice")
    expect(notice).to_have_text(
        f"The store {location} was closed: this question stays open there, and cannot be "
        "answered here. Open the store again to answer it."
    )
    # It offers no answer the kernel would refuse.
    expect(card.locator("[data-role=wait]")).to_have_text("No longer live")
    expect(card.get_by_role("radio")).to_have_count(0)
    expect(card.get_by_role("button", name="Submit")).to_have_count(0)
    wpage.set_language("zh")
    expect(notice).to_have_text(
        f"存储 {location} 已关闭：这个问题仍在其中等待回答，但无法在这里回答。"
        "请重新打开存储后再回答。"
    )
    expect(card.locator("[data-role=wait]")).to_have_text("已失效")
    assert wpage.errors == []
