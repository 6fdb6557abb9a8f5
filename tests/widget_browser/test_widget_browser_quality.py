"""Accessibility (axe-core), XSS safety and light/dark screenshots for every card type."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from ipyask.widget import Card, QuestionWidget
from widget.widget_cardkit import (
    WRITE_SCHEMA,
    approval,
    batch,
    form_card,
    generic,
    options,
    plan,
    question,
    timed,
    tool_approval,
)

pytestmark = pytest.mark.browser

ANSWERED = {
    "answers": [
        {"id": "lang", "selected": ["Go"]},
        {"id": "features", "selected": ["Auth", "Search"], "custom": "Export"},
        {"id": "notes", "selected": []},
    ]
}


def _goto_multi(wpage) -> None:
    wpage.card("b1").get_by_role("button", name="Next question").click()
    wpage.card("b1").get_by_role("checkbox", name="Billing").click()
    wpage.card("b1").get_by_role("textbox", name="Other answer").fill("Export")


def _goto_text(wpage) -> None:
    wpage.card("b1").get_by_role("button", name="Skip").click()
    wpage.card("b1").get_by_role("button", name="Skip").click()
    wpage.card("b1").get_by_role("textbox").press("Enter")  # shows the validation message


def _expand(wpage) -> None:
    wpage.page.locator("article [data-action=collapse]").first.click()


def _error(wpage) -> None:
    wpage.card("g1").get_by_role("radio", name="SQLite").click()
    wpage.card("g1").get_by_role("button", name="Submit").click()
    wpage.emit({"kind": "error", "protocolVersion": 2, "code": "REPLY_QUEUED",
                "message": "A reply to this question is already queued.", "key": "g1"})  # fmt: skip
    wpage.emit({"kind": "error", "protocolVersion": 2, "code": "BAD_MESSAGE",
                "message": "invalid view message (kind: unknown)"})  # fmt: skip


def _focus_timed(wpage) -> None:
    wpage.card("t1").get_by_role("radio", name="SQLite").focus()


BIG_ARGUMENTS = {
    "path": "reports/q3.md",
    "content": "Quarterly numbers, region by region. " * 12,
    "rows": [{"region": f"r{i}", "total": i * 1.5} for i in range(30)],
    "overwrite": False,
    "owner": None,
}


def _tool_edit_form(wpage) -> None:
    wpage.card("tool1").locator("[data-action=tool-edit]").click()  # any language
    wpage.card("tool1").get_by_role("spinbutton").fill("9")


def _tool_edit_json(wpage) -> None:
    wpage.card("tool1").locator("[data-action=tool-edit]").click()
    wpage.card("tool1").get_by_role("textbox").fill('{"path": "reports/q3.md",')


def _tool_reject(wpage) -> None:
    wpage.card("tool1").locator("[data-action=tool-reject]").click()


def _form_errors(wpage) -> None:
    wpage.card("form1").get_by_role("textbox", name="Email").fill("ada@")
    wpage.card("form1").locator("[data-action=form-accept]").click()


SCENES: dict[str, tuple[list[Card], Any]] = {
    "generic": ([generic("g1")], None),
    "batch-single": ([batch("b1")], None),
    "batch-multi": ([batch("b1")], _goto_multi),
    "batch-text": ([batch("b1")], _goto_text),
    "plan-review": ([plan("p1")], None),
    "plan-review-request-changes": ([plan("p2", decline=False)], None),
    "approval": ([approval("a1")], None),
    "timed": ([timed("t1", remaining_ms=42_000)], None),
    "timed-paused": ([timed("t1", remaining_ms=42_000)], _focus_timed),
    "continued": ([timed("t1", status="continued")], None),
    "answered": ([batch("b1", status="answered", answer=ANSWERED)], _expand),
    "rejected": (
        [
            approval(
                "a1", status="answered", answer={"answers": [{"id": "perm", "selected": ["deny"]}]}
            )
        ],
        None,
    ),
    "cancelled": ([generic("c1", status="cancelled", notice="The run was stopped.")], None),
    "expired": ([generic("e1", status="expired", notice="The agent went on without it.")], None),
    "errors": ([generic("g1")], _error),
    "tool-approval": ([tool_approval(arguments=BIG_ARGUMENTS)], None),
    "tool-approval-edit-form": ([tool_approval(schema=WRITE_SCHEMA)], _tool_edit_form),
    "tool-approval-edit-json": ([tool_approval()], _tool_edit_json),
    "tool-approval-reject": ([tool_approval()], _tool_reject),
    "form": ([form_card()], None),
    "form-errors": ([form_card()], _form_errors),
}


def _mount_scene(wpage, name: str, theme: str, language: str = "") -> None:
    cards, act = SCENES[name]
    wpage.mount(QuestionWidget(cards=cards, language=language), theme=theme, clock=True)
    if act is not None:
        act(wpage)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("scene", list(SCENES))
def test_axe_has_no_violations(wpage, scene: str, theme: str) -> None:
    _mount_scene(wpage, scene, theme)
    assert wpage.axe() == []


@pytest.mark.parametrize(
    "scene",
    ["generic", "approval", "plan-review", "answered", "tool-approval-edit-form", "form-errors"],
)
def test_axe_chinese(wpage, scene: str) -> None:
    _mount_scene(wpage, scene, "light", language="zh-CN")
    assert wpage.axe() == []


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_screenshots(wpage, theme: str) -> None:
    """Every card type in one light and one dark page, plus one image per scene."""
    for name in SCENES:
        _mount_scene(wpage, name, theme)
        path = wpage.screenshot(f"{name}-{theme}")
        assert path.stat().st_size > 1000
    cards = [
        generic("g1"),
        batch("b1"),
        plan("p1"),
        approval("a1"),
        timed("t1", remaining_ms=42_000),
        timed("c1", status="continued"),
        batch("a2", status="answered", answer=ANSWERED),
        generic("x1", status="expired", notice="The agent went on without it."),
    ]
    wpage.mount(QuestionWidget(cards=cards), theme=theme, clock=True)
    wpage.screenshot(f"all-cards-{theme}")
    wpage.mount(QuestionWidget(cards=cards, language="zh"), theme=theme, clock=True)
    wpage.screenshot(f"all-cards-zh-{theme}")


# -- XSS -----------------------------------------------------------------------------------------

PAYLOADS = [
    "<script>window.__xss = 'script'</script>",
    "<img src=x onerror=\"window.__xss = 'img'\">",
    "[click me](javascript:window.__xss='link')",
    "<a href=\"javascript:window.__xss='a'\">anchor</a>",
    '<iframe src="http://evil.test/frame" onload="window.__xss=\'iframe\'"></iframe>',
    "<svg onload=\"window.__xss='svg'\"></svg>",
    "\"><img src=x onerror=window.__xss='attr'>",
    "![pixel](http://evil.test/pixel.png\" onerror=\"window.__xss='md-img')",
]
EVIL = " ".join(PAYLOADS)


def _xss_cards() -> list[Any]:
    opts = [{"label": f"{p} (Recommended)", "description": p} for p in PAYLOADS]
    generic_card = Card(
        key="x1",
        questions=[question("q", EVIL, header=EVIL, detail=EVIL, options=opts)],
        notice=EVIL,
    )
    multi = Card(key="x2", questions=[question("m", EVIL, multiSelect=True, options=opts)])
    plan_card = Card(
        key="x3",
        questions=[
            question(
                "p",
                EVIL,
                detail=EVIL,
                options=[{"label": PAYLOADS[0], "description": EVIL}, {"label": PAYLOADS[1]}],
                intent={"kind": "plan-review", "approve": PAYLOADS[0]},
            )
        ],
    )
    labels = {"reject": PAYLOADS[1], "approve": PAYLOADS[2], "always": PAYLOADS[3]}
    approval_card = Card(
        key="x4",
        questions=[
            question(
                "a",
                EVIL,
                detail=EVIL,
                options=options(*labels.values()),
                intent={
                    "kind": "approval",
                    **labels,
                    "subject": {"name": EVIL, "icon": "javascript:window.__xss='icon'"},
                    "display": {"question": {"en": EVIL}, "detail": {"en": EVIL},
                                "approve": {"en": EVIL}},
                },
            )
        ],
    )  # fmt: skip
    answered = Card(
        key="x5",
        questions=[question("q", EVIL, header=EVIL, options=opts)],
        status="answered",
        answer={"answers": [{"id": "q", "selected": PAYLOADS, "custom": EVIL}]},
    )
    icon_card = approval("x6").to_wire()
    icon_card["questions"][0]["intent"]["subject"]["icon"] = " data:text/html,<script>x</script>"
    return [generic_card, multi, plan_card, approval_card, answered, icon_card]


def test_xss_payloads_never_execute_or_load(wpage) -> None:
    widget = QuestionWidget(cards=_xss_cards())
    wpage.mount(widget)
    page = wpage.page
    expect(page.locator("article")).to_have_count(6)
    page.locator("article[data-key=x5]").get_by_role(
        "button", name="Expand the question card"
    ).click()
    page.locator("article[data-key=x1]").get_by_role("radio").nth(2).click()
    page.locator("article[data-key=x2]").get_by_role("checkbox").nth(3).click()
    for message in (
        {"kind": "error", "protocolVersion": 2, "code": "X", "message": EVIL, "key": "x1"},
        {"kind": "error", "protocolVersion": 2, "code": EVIL, "message": EVIL},
    ):
        wpage.emit(message)
    page.wait_for_timeout(300)
    # Payloads are visible as text, never as markup.
    expect(page.locator("article[data-key=x1] h2")).to_have_text(EVIL)
    expect(page.locator("article[data-key=x1] .ipyask-notice")).to_have_text(EVIL)
    expect(page.locator(".ipyask-banner")).to_contain_text("<script>")
    expect(page.locator("article[data-key=x1] .ipyask-markdown")).to_contain_text("<iframe")
    report = page.evaluate(
        """() => {
          const root = document.getElementById('out');
          const all = Array.from(root.querySelectorAll('*'));
          return {
            xss: window.__xss ?? null,
            active: root.querySelectorAll('script, iframe, object, embed, frame, link, style')
              .length,
            handlers: all.flatMap(el => Array.from(el.attributes).map(a => a.name))
                         .filter(name => name.startsWith('on')),
            hrefs: Array.from(root.querySelectorAll('[href]'), el => el.getAttribute('href')),
            srcs: Array.from(root.querySelectorAll('[src]'), el => el.getAttribute('src')),
            svgs: Array.from(root.querySelectorAll('svg'), el => el.getAttribute('class')),
          };
        }"""
    )
    assert report["xss"] is None
    assert report["active"] == 0
    assert report["handlers"] == []
    assert report["hrefs"] == []
    assert report["srcs"] == []  # both unsafe icons were left out
    assert set(report["svgs"]) == {"ipyask-svg"}  # only our own icons
    assert [url for url in wpage.requests if "evil" in url] == []
    # Clicking through every button still runs nothing.
    for button in page.locator("#out button:enabled").all():
        if button.is_visible():
            button.click()
    page.wait_for_timeout(200)
    assert page.evaluate("window.__xss ?? null") is None
    assert wpage.requests == []


def _xss_tool_and_form() -> list[Card]:
    schema = {
        "type": "object",
        "title": EVIL,
        "description": EVIL,
        "properties": {
            PAYLOADS[1]: {"type": "string", "title": EVIL, "description": EVIL, "default": EVIL},
            "choice": {"type": "string", "title": EVIL, "description": EVIL,
                       "oneOf": [{"const": PAYLOADS[0], "title": EVIL},
                                 {"const": "b", "title": PAYLOADS[6]}]},
            "many": {"type": "array", "title": EVIL, "description": EVIL,
                     "items": {"anyOf": [{"const": "a", "title": EVIL}]}},
            "flag": {"type": "boolean", "title": EVIL, "description": EVIL},
            "count": {"type": "integer", "title": EVIL, "description": EVIL},
        },
    }  # fmt: skip
    labels = dict(zip(("approve", "always", "edit", "reject", "respond"), PAYLOADS, strict=False))
    arguments = {PAYLOADS[1]: EVIL, "choice": PAYLOADS[0], "nested": {EVIL: [EVIL * 3]}}
    with_form = tool_approval("y1", name=EVIL, arguments=arguments, labels=labels,
                              description=EVIL, schema=schema)  # fmt: skip
    as_json = tool_approval("y2", name=EVIL, arguments=arguments, labels=labels, description=EVIL)
    return [with_form, as_json, form_card("y3", schema=schema, text=EVIL)]


def test_xss_in_tool_approval_and_form_cards_stays_text(wpage) -> None:
    wpage.mount(QuestionWidget(cards=_xss_tool_and_form()))
    page = wpage.page
    expect(page.locator("article")).to_have_count(3)
    expect(page.locator("article[data-key=y1] .ipyask-tool-name")).to_have_text(EVIL)
    for toggle in page.locator("article[data-key=y2] .ipyask-json__toggle").all():
        toggle.click()
    block = page.locator("article[data-key=y2] .ipyask-json-block")
    expect(block).to_contain_text(json.dumps(PAYLOADS[1]))  # as JSON text
    page.locator("article[data-key=y1]").get_by_role("button", name=PAYLOADS[2]).click()  # edit
    page.locator("article[data-key=y2]").get_by_role("button", name=PAYLOADS[2]).click()
    expect(page.locator("article[data-key=y1] .ipyask-field__label").first).to_have_text(EVIL + " ")
    expect(page.locator("article[data-key=y3] .ipyask-form__title")).to_have_text(EVIL)
    page.locator("article[data-key=y3]").get_by_role("button", name="Submit").click()
    fields = {PAYLOADS[1]: EVIL, "": EVIL}
    wpage.emit({"kind": "error", "protocolVersion": 2, "code": "BAD_ANSWER", "key": "y3",
                "message": EVIL, "questionId": "book", "fields": fields})  # fmt: skip
    page.wait_for_timeout(300)
    report = page.evaluate(
        """() => {
          const root = document.getElementById('out');
          const all = Array.from(root.querySelectorAll('*'));
          return {
            xss: window.__xss ?? null,
            active: root.querySelectorAll('script, iframe, object, embed, frame, link, style')
              .length,
            handlers: all.flatMap(el => Array.from(el.attributes).map(a => a.name))
                         .filter(name => name.startsWith('on')),
            hrefs: Array.from(root.querySelectorAll('[href]'), el => el.getAttribute('href')),
            srcs: Array.from(root.querySelectorAll('[src]'), el => el.getAttribute('src')),
            imgs: root.querySelectorAll('img').length,
          };
        }"""
    )
    assert report == {"xss": None, "active": 0, "handlers": [], "hrefs": [], "srcs": [], "imgs": 0}
    assert wpage.requests == []


def test_sanitizer_also_guards_html_in_state(wpage) -> None:
    """Defence in depth: even HTML that bypassed the kernel is scrubbed by the view."""
    card = generic("h1").to_wire()
    card["view"]["detailHtml"] = [
        '<p onclick="window.__xss=1">ok <a href="javascript:window.__xss=2">js</a>'
        '<a href="https://example.test/" style="color:red">fine</a>'
        '<img src="http://evil.test/p.png"><img src="data:image/svg+xml,x">'
        '<script>window.__xss=3</script><iframe src="http://evil.test/"></iframe>'
        "<form><button>b</button></form><table><tr><td style='text-align:right'>r</td>"
        "<td style='background:url(http://evil.test/)'>s</td></tr></table></p>"
    ]
    wpage.page.goto("http://ipyask.test/index.html")
    wpage.page.wait_for_function("window.__ready === true")
    wpage.page.evaluate("s => window.__mount(s, 1)", {"cards": [card], "language": "",
                                                      "protocol_version": 1})  # fmt: skip
    markdown = wpage.card("h1").locator(".ipyask-markdown")
    expect(markdown).to_contain_text("ok jsfine")
    # The svg image lost its src and is dropped; the http one waits behind the image gate.
    expect(markdown.locator("img")).to_have_count(0)
    expect(markdown.locator("button")).to_have_text(["Show images from evil.test"])
    html = markdown.inner_html()
    for bad in ("onclick", "javascript:", "<script", "<iframe", "<form", "svg+xml",
                "background", "color:red", ' src="http'):  # fmt: skip
        assert bad not in html, bad
    assert 'href="https://example.test/"' in html and 'style="text-align:right"' in html
    assert 'data-src="http://evil.test/p.png"' in html
    wpage.page.wait_for_timeout(200)
    assert wpage.page.evaluate("window.__xss ?? null") is None


def test_a_long_unbroken_subject_name_wraps_inside_the_card(wpage) -> None:
    name = "x" * 1500
    card = approval("long")
    intent = dict(card.questions[0].intent.model_dump(by_alias=True))  # type: ignore[union-attr]
    intent["subject"] = {"name": name}
    wire = card.to_wire()
    wire["questions"][0]["intent"] = intent
    wpage.mount(QuestionWidget(cards=[Card.model_validate(wire)]))
    page = wpage.page
    subject = page.locator("article[data-key=long] .ipyask-subject")
    expect(subject).to_contain_text("xxxx")
    box = page.evaluate(
        """() => {
          const card = document.querySelector('article[data-key=long]');
          const subject = card.querySelector('.ipyask-subject span');
          const close = card.querySelector('[data-action=close]');
          const c = card.getBoundingClientRect(), s = subject.getBoundingClientRect();
          return {cardRight: c.right, subjectRight: s.right, scroll: card.scrollWidth,
                  client: card.clientWidth, closeTop: close.getBoundingClientRect().top,
                  subjectTop: s.top, subjectHeight: s.height};
        }"""
    )
    assert box["subjectRight"] <= box["cardRight"] + 0.5, box
    assert box["scroll"] <= box["client"], box
    assert box["subjectHeight"] > 40, box  # it wrapped onto several lines
