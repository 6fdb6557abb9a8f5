"""The inbox page's server side, in one process: which store it shows, the panel's state and
changes as events, and a page's messages answering through the inbox widget's own path.

tests/e2e/test_inbox_page.py runs it in a real Jupyter server, with Chromium and an agent process.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import ipyask
from ipyask._notebook.panel import _inbox_cards as inbox_cards
from ipyask.inbox_page._inbox import PageInbox, Subscription
from ipyask.inbox_page._settings import store_location
from ipyask.inbox_page._texts import inbox_page, page_language
from ipyask.store import open_store

DEPLOY = {
    "questions": [
        {"id": "q1", "question": "Deploy?", "options": [{"label": "Yes"}, {"label": "No"}]}
    ]
}
YES = {"answers": [{"id": "q1", "selected": ["Yes"]}]}


def test_the_configured_store_wins_over_the_environment_and_the_default() -> None:
    env = {"IPYASK_STORE": "/data/env.sqlite3"}
    assert store_location("/data/mine.sqlite3", "/srv", env) == "/data/mine.sqlite3"
    assert store_location("", "/srv", env) == "/data/env.sqlite3"
    assert store_location("", "/srv", {}) == "/srv/.ipyask/questions.sqlite3"


def test_a_relative_path_is_taken_from_the_root_and_a_url_as_given() -> None:
    assert store_location("shared/q.sqlite3", "/srv", {}) == "/srv/shared/q.sqlite3"
    assert store_location("", "/srv", {"IPYASK_STORE": "q.sqlite3"}) == "/srv/q.sqlite3"
    url = "postgresql://ada:secret@db/questions"
    assert store_location(url, "/srv", {"IPYASK_STORE": "x"}) == url


@pytest.mark.parametrize(
    ("header", "language"),
    [("zh-CN,zh;q=0.9,en;q=0.8", "zh"), ("zh", "zh"), ("en-GB,zh;q=0.5", "en"), (None, "en")],
)
def test_the_page_speaks_the_browsers_first_language(header: str | None, language: str) -> None:
    assert page_language(header) == language


def test_the_page_escapes_what_it_embeds() -> None:
    html = inbox_page(
        "zh", static="/s/", events="/e", messages="/m", xsrf='2|a"><script>x</script>'
    )
    assert '<html lang="zh">' in html
    assert "<script>x</script>" not in html
    assert 'data-xsrf="2|a&quot;&gt;&lt;script&gt;x&lt;/script&gt;"' in html
    assert "ipyask 收件箱" in html


@pytest.fixture
async def inbox(tmp_path: Path) -> AsyncIterator[PageInbox]:
    page_inbox = PageInbox(str(tmp_path / "questions.sqlite3"))
    yield page_inbox
    await page_inbox.close()


async def next_event(subscription: Subscription, name: str) -> Any:
    """The data of the next event called ``name`` (earlier events of other names are skipped)."""
    while True:
        text = await asyncio.wait_for(subscription.events.get(), 10)
        assert text is not None, "the stream ended"
        head, data = text.split("\n", 1)
        if head == f"event: {name}":
            assert data.startswith("data: ") and data.endswith("\n\n")
            return json.loads(data.removeprefix("data: "))


async def next_custom(subscription: Subscription, kind: str) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = await next_event(subscription, "custom")
        if message.get("kind") == kind:
            return message


def answer_message(key: str, answer: dict[str, Any], view_id: str = "view-1") -> dict[str, Any]:
    return {"kind": "answer", "viewId": view_id, "protocolVersion": 2, "key": key, "answer": answer}


async def test_a_page_gets_the_state_then_each_question_as_it_is_asked(
    inbox: PageInbox, tmp_path: Path
) -> None:
    subscription = inbox.subscribe()
    state = await next_event(subscription, "state")
    assert set(state) >= {"cards", "language", "image_hosts", "protocol_version"}
    assert not {"_esm", "_css", "layout"} & set(state)  # no code, nothing a view does not read
    async with ipyask.connect(str(tmp_path / "questions.sqlite3"), agent="worker") as conn:
        asking = asyncio.ensure_future(conn.ask(DEPLOY, call_id="step-1"))
        change = await next_custom(subscription, "cards")
        [card] = change["upsert"]
        assert card["callId"] == "step-1"
        assert card["source"]["agent"] == "worker"
        asking.cancel()
        await asyncio.gather(asking, return_exceptions=True)


async def test_an_answer_from_a_page_is_claimed_on_the_store_and_reaches_the_agent(
    inbox: PageInbox, tmp_path: Path
) -> None:
    subscription = inbox.subscribe()
    async with ipyask.connect(str(tmp_path / "questions.sqlite3"), agent="worker") as conn:
        asking = asyncio.ensure_future(conn.ask(DEPLOY, call_id="step-2"))
        [card] = (await next_custom(subscription, "cards"))["upsert"]
        inbox.deliver(answer_message(card["key"], YES), username="ada")
        assert (await asyncio.wait_for(asking, 10)).to_wire() == YES
        settled = await next_custom(subscription, "cards")
        assert [(c["key"], c["status"]) for c in settled["upsert"]] == [(card["key"], "answered")]
        # a second page's answer is refused as on the widget: the first claim won
        inbox.deliver(answer_message(card["key"], YES, view_id="view-2"), username="bob")
        error = await next_custom(subscription, "error")
        assert (error["code"], error["viewId"]) == ("ALREADY_ANSWERED", "view-2")


async def test_an_answer_that_does_not_fit_is_refused_as_on_the_widget_and_the_question_stays_open(
    inbox: PageInbox, tmp_path: Path
) -> None:
    subscription = inbox.subscribe()
    async with ipyask.connect(str(tmp_path / "questions.sqlite3"), agent="worker") as conn:
        asking = asyncio.ensure_future(conn.ask(DEPLOY, call_id="step-3"))
        [card] = (await next_custom(subscription, "cards"))["upsert"]
        wrong = {"answers": [{"id": "q1", "selected": ["Maybe"]}]}
        inbox.deliver(answer_message(card["key"], wrong), username="ada")
        error = await next_custom(subscription, "error")
        assert (error["code"], error["key"], error["viewId"]) == (
            "BAD_ANSWER",
            card["key"],
            "view-1",
        )
        assert "'Maybe' is not an option of question q1" in error["message"]
        assert not asking.done()
        assert [record.id for record in conn.pending()] == [card["key"]]
        asking.cancel()
        await asyncio.gather(asking, return_exceptions=True)


async def test_a_message_that_is_not_the_protocols_is_refused_to_the_page(
    inbox: PageInbox,
) -> None:
    subscription = inbox.subscribe()
    inbox.deliver({"kind": "answer", "viewId": "view-1", "protocolVersion": 2}, username="ada")
    error = await next_custom(subscription, "error")
    assert (error["code"], error["viewId"]) == ("BAD_MESSAGE", "view-1")


async def test_closing_ends_every_pages_stream(inbox: PageInbox) -> None:
    subscription = inbox.subscribe()
    await next_event(subscription, "state")
    await inbox.close()
    assert await asyncio.wait_for(subscription.events.get(), 10) is None


async def test_the_record_names_the_pages_jupyter_user_and_the_inbox_page_as_the_door(
    inbox: PageInbox, tmp_path: Path
) -> None:
    location = str(tmp_path / "questions.sqlite3")
    subscription = inbox.subscribe("grace")
    state = await next_event(subscription, "state")
    assert state["answerer"] == "grace"  # the page's "Only mine" is the Jupyter user's
    async with ipyask.connect(location, agent="worker") as conn:
        asking = asyncio.ensure_future(conn.ask(DEPLOY, call_id="step-4"))
        [card] = (await next_custom(subscription, "cards"))["upsert"]
        inbox.deliver(answer_message(card["key"], YES), username="grace")
        await asyncio.wait_for(asking, 10)
    store = open_store(location)
    try:
        record = store.question(card["key"])
    finally:
        store.close()
    assert record is not None and record.terminal is not None
    by = record.terminal.answered_by
    assert by is not None and (by.who, by.door) == ("grace", "inbox-page")


def live_cards(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The live cards of a page's state, by key."""
    cards: dict[str, dict[str, Any]] = {}
    for name, text in state.items():
        if name.startswith("live_"):
            cards.update((card["key"], card) for card in json.loads(text))
    return cards


async def test_a_page_opened_after_the_agent_process_died_shows_its_card_as_ended(
    inbox: PageInbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = inbox.subscribe()
    async with ipyask.connect(str(tmp_path / "questions.sqlite3"), agent="worker") as conn:
        asking = asyncio.ensure_future(conn.ask(DEPLOY, call_id="step-5"))
        [card] = (await next_custom(first, "cards"))["upsert"]
        assert card["source"]["earlier"] is False  # its process ran when the card was made
        # the asking process has ended since (tests/e2e/test_inbox_page.py kills a real one)
        monkeypatch.setattr(inbox_cards, "process_ended", lambda origin: True)
        later = inbox.subscribe()
        shown = live_cards(await next_event(later, "state"))[card["key"]]
        assert shown["source"]["earlier"] is True  # the view's group says "· ended"
        assert shown["noticeCode"] == "asked-earlier"
        assert shown["noticeParams"] == {"process": card["source"]["process"]}
        # the page open already is told too
        [relabelled] = (await next_custom(first, "cards"))["upsert"]
        assert (relabelled["key"], relabelled["source"]["earlier"]) == (card["key"], True)
        asking.cancel()
        await asyncio.gather(asking, return_exceptions=True)
