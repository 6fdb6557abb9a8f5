"""Scoped Always allow in Chromium: the rule shown, narrowed, saved to the rules file by the
kernel (a real panel, on an event loop of its own), and the next matching call answered by the
rule with no card; the kernel's refusal of a rule shown beside it; keyboard and Chinese. And the
panel's list of the rules in force, with Remove."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

import ipyask
from ipyask._rich_questions import tool_approval_question
from ipyask.widget import AlwaysRuleOffer, QuestionWidget
from widget.widget_cardkit import tool_approval

pytestmark = pytest.mark.browser

OFFER = AlwaysRuleOffer(suggested='write_file(path="notes/**")', file="/work/.ipyask/rules.toml")


def test_always_allow_shows_the_rule_and_its_scopes(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[tool_approval(always_rule=OFFER)]))
    card = wpage.card("tool1")
    card.get_by_role("button", name="Always allow").click()
    assert wpage.sent("answer") == []  # nothing is sent before the person confirms
    rule = card.get_by_role("textbox", name="Rule: the calls it allows without asking")
    expect(rule).to_be_focused()
    expect(rule).to_have_value('write_file(path="notes/**")')
    expect(card.locator("[data-role=rule-preview]")).to_have_text(
        'Adds the allow rule: allow write_file(path="notes/**")'
    )
    session = card.get_by_role("radio", name="For this session (until the kernel stops)")
    saved = card.get_by_role("radio", name="Save as a rule in /work/.ipyask/rules.toml")
    expect(session).to_be_checked()
    expect(saved).not_to_be_checked()
    expect(card.get_by_role("group", name="For how long")).to_be_visible()
    rule.fill("")
    expect(card.get_by_role("button", name="Submit")).to_be_disabled()
    expect(card.locator("[data-role=rule-error]")).to_have_text(
        "Enter a rule, e.g. the tool's name."
    )
    rule.press("Escape")  # back to the review, nothing sent
    expect(card.get_by_role("button", name="Approve")).to_be_visible()
    assert wpage.sent("answer") == []
    assert wpage.axe() == []


def test_the_screen_speaks_chinese(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[tool_approval(always_rule=OFFER)], language="zh"))
    card = wpage.card("tool1")
    card.get_by_role("button", name="始终允许").click()
    expect(card.get_by_role("radio", name="仅限本次会话（直到内核停止）")).to_be_checked()
    expect(card.get_by_role("textbox", name="规则：无需询问即可允许的调用")).to_be_visible()


def test_without_an_offer_always_allow_answers_at_once(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[tool_approval()]))
    wpage.card("tool1").get_by_role("button", name="Always allow").click()
    assert wpage.answers()[0]["answers"][0] == {"id": "tool", "selected": ["Always allow"]}


class Kernel:
    """A real service, rules and panel on an event loop in a thread; the page's messages are
    handed to the panel as a comm would, and what the panel sends is kept."""

    def __init__(self, rules_path: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.sent: list[dict[str, Any]] = []
        self.svc, self.rules, self.panel = self.run(self._start(rules_path))

    async def _start(self, rules_path: Path) -> Any:
        svc = ipyask.UserQuestions()
        rules = (
            ipyask.Rules.load(rules_path) if rules_path.exists() else ipyask.Rules(path=rules_path)
        )
        rules.register(svc)
        panel = ipyask.QuestionPanel(svc)
        panel.send = lambda content, buffers=None: self.sent.append(content)  # type: ignore[method-assign]
        return svc, rules, panel

    def run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(10)

    def ask(self, path: str) -> Any:
        question = tool_approval_question(
            "write_file", {"path": path}, decisions=["approve", "always", "reject"]
        )
        request = {"questions": [question.to_wire()]}
        return asyncio.run_coroutine_threadsafe(self.svc.ask(request), self.loop)

    def deliver(self, message: dict[str, Any]) -> None:
        data = {"content": {"data": {"method": "custom", "content": message}}, "buffers": []}
        self.loop.call_soon_threadsafe(self.panel.comm.handle_msg, data)

    def errors(self) -> list[dict[str, Any]]:
        return [m for m in self.sent if m.get("kind") == "error"]

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.panel.close)
        self.run(self.svc.aclose())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[Kernel]:
    made = Kernel(tmp_path / ".ipyask" / "rules.toml")
    yield made
    made.close()


def _wait_for(predicate: Any) -> None:
    for _ in range(200):
        if predicate():
            return
        threading.Event().wait(0.02)
    raise AssertionError("the kernel did not get there")


def test_narrowed_saved_and_the_next_call_answered_by_the_rule(wpage, kernel) -> None:
    first = kernel.ask("notes/a.md")
    _wait_for(lambda: len(kernel.panel.cards) == 1)
    wpage.mount(kernel.panel)
    key = kernel.panel.cards[0]["key"]
    card = wpage.card(key)
    card.get_by_role("button", name="Always allow").click()
    rule = card.get_by_role("textbox", name="Rule: the calls it allows without asking")
    expect(rule).to_have_value('write_file(path="notes/**")')

    # Narrowed too far: the kernel refuses it, and says so beside the rule.
    rule.fill('write_file(path="docs/**")')
    card.get_by_role("radio", name=f"Save as a rule in {kernel.rules.path}").check()
    card.get_by_role("button", name="Submit").click()
    kernel.deliver(wpage.sent("answer")[-1])
    _wait_for(lambda: kernel.errors())
    wpage.emit(kernel.errors()[-1])
    expect(card.locator("[data-role=rule-error]")).to_contain_text("does not match this call")
    expect(rule).to_have_attribute("aria-invalid", "true")
    assert not first.done() and not kernel.rules.path.exists()

    # Narrowed to the markdown files of notes/, saved: the agent gets Always allow.
    rule.fill('write_file(path="notes/*.md")')
    expect(card.locator("[data-role=rule-error]")).to_have_text("")
    rule.press("Enter")
    sent = wpage.sent("answer")[-1]
    assert json.loads(sent["answer"]["answers"][0]["custom"]) == {
        "scope": "saved",
        "rule": 'write_file(path="notes/*.md")',
    }
    kernel.deliver(sent)
    answer = first.result(10)
    assert answer.answers[0].selected == ["Always allow"]
    assert kernel.rules.path.read_text() == "allow = ['write_file(path=\"notes/*.md\")']\n"

    # The next matching call is answered by the rule: no card; a call outside it still asks.
    cards = len(kernel.panel.cards)
    assert kernel.ask("notes/b.md").result(10).answers[0].selected == ["Approve"]
    assert len(kernel.panel.cards) == cards
    outside = kernel.ask("notes/sub/c.txt")
    _wait_for(lambda: len(kernel.panel.cards) == cards + 1)
    outside.cancel()


def _sync_rules(wpage, kernel: Kernel) -> None:
    """Hand the panel's synced ``approval_rules`` to the page, as a state update would."""
    wpage.page.evaluate("r => window.__model.set('approval_rules', r)", kernel.panel.approval_rules)
    wpage.page.evaluate("n => window.__model.set('rules_notice', n)", kernel.panel.rules_notice)


def test_the_panel_lists_the_rules_and_removes_one(wpage, tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text("allow = ['read_file']\ndeny = ['shell(command=\"rm *\")']\n")
    kernel = Kernel(path)
    try:
        wpage.mount(kernel.panel)
        _sync_rules(wpage, kernel)
        section = wpage.page.locator("details.ipyask-rules")
        summary = section.locator("summary")
        expect(summary).to_have_text("Rules in force (2)")
        summary.press("Enter")  # a native disclosure: the keyboard opens it
        expect(section.locator("li code")).to_have_text(
            ["allow read_file", 'deny shell(command="rm *")']
        )
        expect(section.locator("li .ipyask-rules__where")).to_have_text([f"{path}:1", f"{path}:2"])
        section.get_by_role("button", name='Remove the rule deny shell(command="rm *")').click()
        kernel.deliver(wpage.sent("remove_rule")[-1])
        _wait_for(lambda: len(kernel.rules.rules) == 1)
        _sync_rules(wpage, kernel)
        expect(section.locator("li code")).to_have_text(["allow read_file"])
        expect(summary).to_have_text("Rules in force (1)")
        assert path.read_text() == "allow = ['read_file']\ndeny = []\n"
        status = section.get_by_role("status")
        expect(status).to_have_text(
            'Removed deny shell(command="rm *"): it no longer applies in this kernel, and it was '
            f"deleted from {path} (line 2); the file's other lines are as they were."
        )
        assert wpage.axe() == []
        wpage.set_language("zh")
        expect(summary).to_have_text("生效的规则（1）")
        expect(section.get_by_role("button", name="移除规则 allow read_file")).to_be_visible()
        expect(status).to_have_text(
            f'已移除 deny shell(command="rm *")：它在当前内核中不再生效，并已从 {path} 中删除'
            "（第 2 行）；文件的其他行保持不变。"
        )

        # Edited by hand since it was read: the kernel refuses, and the panel says why.
        path.write_text("allow = ['read_file']  # mine\ndeny = []\n")
        section.get_by_role("button", name="移除规则 allow read_file").click()
        kernel.deliver(wpage.sent("remove_rule")[-1])
        _wait_for(lambda: kernel.panel.rules_notice.get("code") == "rule-file-changed")
        _sync_rules(wpage, kernel)
        expect(status).to_contain_text("未被移除")
        expect(section.get_by_role("button", name="移除规则 allow read_file")).to_be_enabled()
        assert path.read_text() == "allow = ['read_file']  # mine\ndeny = []\n"
    finally:
        kernel.close()


def test_no_rules_no_section(wpage) -> None:
    wpage.mount(QuestionWidget(cards=[tool_approval()]))
    expect(wpage.page.locator("details.ipyask-rules")).to_be_hidden()
