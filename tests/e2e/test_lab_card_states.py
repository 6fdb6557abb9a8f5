"""Every card kind in every state, in real JupyterLab 4, light and dark, English and Chinese.

One Lab server for the module and one page per theme × language: a kernel cell shows every card
of ``card_catalogue.py`` (each kind pending, settled by each decision, cancelled, expired and
answered late, and an inbox card whose store was closed) in one widget. The test reads what
each card says and how it looks (a refusal looks like one), opens the details of a settled tool
call and form, and saves one screenshot per kind in ``artifacts/e2e/``
(``lab-states-<theme>-<language>-<kind>.png``), to be looked at.
"""

from __future__ import annotations

import json
import re
import shutil
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import expect

from . import card_catalogue
from ._pages import ARTIFACTS, LabNotebook, write_notebook
from .card_catalogue import EXPECTED, KINDS, Expected

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser, Locator

    from ._servers import Server

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}

CELL = """\
from card_catalogue import cards
from ipyask.widget import QuestionWidget
QuestionWidget(cards=cards(), language={language!r})"""

# What every card shows, by key: its classes, status word, summary line, title, and its tone
# colour with the colours it is compared with, as the page resolves them.
_READ = """(cards) => Object.fromEntries(cards.map((card) => {
  const resolve = (name) => {
    const probe = document.createElement("span");
    probe.style.color = `var(${name})`;
    card.append(probe);
    const colour = getComputedStyle(probe).color;
    probe.remove();
    return colour;
  };
  const text = (selector) => card.querySelector(selector)?.textContent ?? null;
  return [card.dataset.key, {
    classes: card.className.split(" "), wait: text("[data-role=wait]"),
    line: text(".ipyask-summary__line"), title: text("h2"),
    tone: resolve("--ipyask-tone"), error: resolve("--ipyask-error"),
    success: resolve("--ipyask-success"), border: getComputedStyle(card).borderLeftColor,
  }];
}))"""


def _check(key: str, expected: Expected, shown: dict[str, Any], language: str) -> list[str]:
    """What is wrong with what card ``key`` shows."""
    problems = []
    if f"ipyask-tone-{expected.tone}" not in shown["classes"]:
        problems.append(f"{key}: classes {shown['classes']}, want ipyask-tone-{expected.tone}")
    wait = expected.wait[language]
    if wait is not None and shown["wait"] != wait:
        problems.append(f"{key}: status {shown['wait']!r}, want {wait!r}")
    if expected.line is not None and shown["line"] != expected.line[language]:
        problems.append(f"{key}: line {shown['line']!r}, want {expected.line[language]!r}")
    if key.startswith("tool-") and shown["title"] != TOOL_TITLE[language]:
        problems.append(f"{key}: title {shown['title']!r}, want {TOOL_TITLE[language]!r}")
    refusal = expected.tone in ("rejected", "declined")
    if refusal and not shown["tone"] == shown["border"] == shown["error"]:
        problems.append(f"{key}: a refusal not in the error colour: {shown}")
    if expected.tone == "answered" and shown["tone"] != shown["success"]:
        problems.append(f"{key}: an answer not in the success colour: {shown}")
    return problems


def _set_theme(lab: Server, theme: str) -> None:
    """Choose the theme as the Settings editor does: the themes plugin's user setting."""
    url = f"{lab.url}/lab/api/settings/@jupyterlab/apputils-extension:themes"
    body = json.dumps({"raw": json.dumps({"theme": theme})}).encode()
    request = urllib.request.Request(
        url,
        data=body,
        method="PUT",
        headers={"Authorization": f"token {lab.token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10):
        pass


@pytest.fixture(scope="module")
def catalogue_root(browser: Browser, lab: Server, lab_root: Path) -> Iterator[Path]:
    """The notebooks (one per language) and the catalogue beside them. Their kernels live for
    the module: the page of the other theme finds its language's kernel running."""
    shutil.copy(Path(card_catalogue.__file__), lab_root / "card_catalogue.py")
    for language in ("en", "zh"):
        write_notebook(lab_root / f"states-{language}.ipynb", [CELL.format(language=language)])
    yield lab_root
    context = browser.new_context()
    try:
        LabNotebook(context.new_page(), lab, shots="").shut_down_kernels()
    finally:
        context.close()


@pytest.fixture
def page_of(
    browser: Browser, lab: Server, catalogue_root: Path, request: pytest.FixtureRequest
) -> Iterator[LabNotebook]:
    del catalogue_root
    context = browser.new_context(viewport={"width": 1100, "height": 1600})
    page = context.new_page()
    page.set_default_timeout(15_000)
    notebook = LabNotebook(page, lab, shots="lab-states")
    try:
        yield notebook
    finally:
        context.close()


def _card(nb: LabNotebook, key: str) -> Locator:
    return nb.output(0).locator(f'article[data-key="{key}"]')


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("shade", ["light", "dark"])
def test_every_card_kind_in_every_state(
    page_of: LabNotebook, lab: Server, shade: str, language: str
) -> None:
    nb = page_of
    _set_theme(lab, THEMES[shade])
    nb.open(f"states-{language}.ipynb", workspace=f"states-{shade}-{language}")
    expect(nb.page.locator("body")).to_have_attribute("data-jp-theme-name", THEMES[shade])
    nb.run(0)
    # The widget shows the 20 latest settled cards; the rest are one click away.
    earlier = "Show earlier answers" if language == "en" else "显示更早的回答"
    nb.output(0).get_by_role("button", name=re.compile(earlier)).click()
    cards = nb.output(0).locator("article[data-key]")
    expect(cards).to_have_count(len(EXPECTED))
    expect(nb.output(0).locator(".ipyask")).to_have_attribute("lang", language)

    shown = nb.output(0).locator("article[data-key]").evaluate_all(_READ)  # one round trip
    problems = [
        problem
        for key, exp in EXPECTED.items()
        for problem in _check(key, exp, shown[key], language)
    ]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for kind in ("pending", *KINDS):  # before any check fails: the screenshots show why
        _shoot(nb, kind, ARTIFACTS / f"lab-states-{shade}-{language}-{kind}.png")
    assert problems == [], "\n".join(problems)

    _check_pending(nb, language)
    _check_details(nb, language)
    _shoot(nb, "details", ARTIFACTS / f"lab-states-{shade}-{language}-details.png")
    assert nb.log.errors == []


PENDING_BUTTONS = {
    "en": {
        "approval": ["Reject", "Always allow", "Approve"],
        "tool": ["Approve", "Always allow", "Edit", "Reject", "Respond", "Always reject",
                 "Reject and stop"],
        "form": ["Cancel", "Decline", "Submit"],
        "plan": ["Keep planning", "Approve"],
    },
    "zh": {
        "approval": ["拒绝", "始终允许", "批准"],
        "tool": ["批准", "始终允许", "编辑", "拒绝", "回复", "始终拒绝", "拒绝并停止"],
        "form": ["取消", "婉拒", "提交"],
        "plan": ["Keep planning", "同意执行"],
    },
}  # fmt: skip
TOOL_TITLE = {"en": "Run write_file?", "zh": "运行 write_file？"}


def _check_pending(nb: LabNotebook, language: str) -> None:
    """The pending cards offer their decisions in the card's language."""
    for kind, names in PENDING_BUTTONS[language].items():
        card = _card(nb, f"{kind}-pending")
        for name in names:
            expect(card.get_by_role("button", name=name, exact=True)).to_be_visible()
    tool = _card(nb, "tool-pending")
    expect(tool.get_by_role("heading", level=2)).to_have_text(TOOL_TITLE[language])
    expect(
        tool.get_by_role("group", name="Arguments" if language == "en" else "参数")
    ).to_contain_text("docs/report.md")


DETAILS = {
    "tool-rejected": [("path", "docs/report.md"), ("overwrite", {"en": "no", "zh": "否"})],
    "tool-edited": [("path", "docs/report-v2.md"), ("overwrite", {"en": "no", "zh": "否"})],
    "form-submitted": [("Name", "Ada"), ("Guests", "4"), ("Area", "Terrace")],
}


def _check_details(nb: LabNotebook, language: str) -> None:
    """A settled tool call's arguments (those refused, those run) and a form's values are one
    click away."""
    expand = "Expand the question card" if language == "en" else "展开问题卡片"
    for key, pairs in DETAILS.items():
        card = _card(nb, key)
        card.get_by_role("button", name=expand).click()
        terms, values = card.locator("dl dt"), card.locator("dl dd")
        expect(terms).to_have_text([name for name, _ in pairs])
        expect(values).to_have_text(
            [value if isinstance(value, str) else value[language] for _, value in pairs]
        )


_UNION = """(cards) => {
  const boxes = cards.map((card) => card.getBoundingClientRect());
  const top = Math.min(...boxes.map((b) => b.top));
  const bottom = Math.max(...boxes.map((b) => b.bottom));
  const left = Math.min(...boxes.map((b) => b.left));
  const right = Math.max(...boxes.map((b) => b.right));
  return { x: left - 8, y: top - 8, width: right - left + 16, height: bottom - top + 16 };
}"""


def _shoot(nb: LabNotebook, kind: str, path: Path) -> None:
    """One screenshot of ``kind``'s settled cards, of every pending card (the widget shows them
    first) or of the cards with their details open, scrolled to the top of the notebook's
    view."""
    if kind == "pending":
        cards = nb.output(0).locator('article[data-key$="-pending"]')
    elif kind == "details":
        cards = nb.output(0).locator(", ".join(f'article[data-key="{key}"]' for key in DETAILS))
    else:
        cards = nb.output(0).locator(f'article[data-key^="{kind}-"]:not([data-key$="-pending"])')
    cards.first.evaluate("(card) => card.scrollIntoView({ block: 'start' })")
    clip = cards.evaluate_all(_UNION)
    viewport = nb.page.viewport_size
    assert viewport is not None
    clip["y"] = max(clip["y"], 0)
    clip["height"] = min(clip["height"], viewport["height"] - clip["y"])
    nb.page.screenshot(path=str(path), clip=clip)
