"""The README is a front page, and what it and the docs claim holds.

The README links into ``docs/``; the manual lives there (``mkdocs.yml`` builds it, see
``tests/docs/test_docs_site.py``). These tests keep the claims of both true: local links and
images point at files that exist, the set-up commands are the ones CI runs, the contributor
guide names every presentation module, and no page says a kind's view is unbuilt once it exists.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path

from ipyask.widget import Presentation

ROOT = Path(__file__).resolve().parents[1]
README_PATH = ROOT / "README.md"
README = README_PATH.read_text(encoding="utf-8")
DEVELOP = (ROOT / "DEVELOP.md").read_text(encoding="utf-8")
PRESENTATIONS = ROOT / "src" / "ipyask" / "widget" / "js" / "presentations"
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def prose_pages() -> list[Path]:
    """Every hand-read Markdown page: the README, the contributor guide, the changelog, docs/."""
    pages = [README_PATH, ROOT / "DEVELOP.md", ROOT / "CHANGELOG.md"]
    return pages + sorted((ROOT / "docs").rglob("*.md"))


def missing_local_links(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    targets = [t.split("#")[0] for t in _LINK.findall(text)]
    local = [t for t in targets if t and not re.match(r"[a-z]+:", t)]
    return [t for t in local if not (page.parent / t).exists()]


def test_the_readme_is_a_front_page() -> None:
    assert len(README.splitlines()) <= 150
    assert "## Documentation" in README


def test_every_local_link_and_image_exists() -> None:
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", README)
    assert images[:1] == ["docs/card.png"]  # the screenshot at the top
    broken = {
        page.relative_to(ROOT).as_posix(): missing
        for page in prose_pages()
        if (missing := missing_local_links(page))
    }
    assert broken == {}


def test_a_broken_link_is_found(tmp_path) -> None:
    (tmp_path / "there.md").write_text("x", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("[a](there.md#part) [b](gone.md) [c](https://example.com)", encoding="utf-8")
    assert missing_local_links(page) == ["gone.md"]


def test_the_card_screenshot_is_a_png() -> None:
    assert (ROOT / "docs" / "card.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# Pages of the site only: its home (the README's first screen) and the pages that include
# DEVELOP.md and CHANGELOG.md, which the README links directly.
_SITE_ONLY = {"index.md", "changelog.md", "develop.md"}


def test_the_readme_links_every_docs_page_of_the_manual() -> None:
    linked = {t.split("#")[0] for t in _LINK.findall(README)}
    manual = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "docs").rglob("*.md")
        if "reference" not in path.parts and path.name not in _SITE_ONLY
    }
    assert manual - linked == set()


def test_the_two_set_up_commands_are_the_ones_ci_runs() -> None:
    block = re.search(r"## Set-up: two commands\n.*?```bash\n(.*?)```", README, re.DOTALL)
    assert block is not None
    commands = [line.split("#")[0].strip() for line in block.group(1).splitlines()]
    assert commands == ["scripts/demo", "scripts/test"]
    assert "exec bash scripts/test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert all((ROOT / command).is_file() for command in commands)


def test_the_layout_names_every_presentation_module() -> None:
    modules = sorted(path.name for path in PRESENTATIONS.glob("*.js"))
    assert modules  # the folder moved: this test must follow it
    assert [name for name in modules if f"`{name}`" not in DEVELOP] == []


# -- claims that a kind's view is not built ---------------------------------------------------

_UNBUILT = re.compile(
    r"not (?:been |yet )?built|not (?:yet )?(?:implemented|rendered)|no dedicated views?"
    r"|(?:views?|cards?) (?:are|is) (?:still )?missing|through the generic flow for now",
    re.IGNORECASE,
)


def kinds_with_a_view() -> dict[str, set[str]]:
    """Each card kind whose presentation module exists, and the words a page may call it by."""
    union = typing.get_args(typing.get_args(Presentation)[0])
    kinds = [model.model_fields["kind"].default for model in union]
    return {
        kind: {kind, kind.replace("-", " ")}
        for kind in kinds
        if (PRESENTATIONS / f"{kind}.js").is_file()
    }


def stale_view_claims(text: str, kinds: dict[str, set[str]]) -> list[str]:
    """Paragraphs that call a view unbuilt while naming a kind whose presentation exists."""
    stale = []
    for paragraph in re.split(r"\n\s*\n|\n(?=\s*(?:[-*]|\d+\.) )", text):
        if not _UNBUILT.search(paragraph):
            continue
        words = paragraph.lower()
        named = sorted(
            kind
            for kind, names in kinds.items()
            if any(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", words) for name in names)
        )
        if named:
            stale.append(f"{', '.join(named)}: {' '.join(paragraph.split())[:160]}")
    return stale


def test_no_page_describes_an_existing_view_as_unbuilt() -> None:
    kinds = kinds_with_a_view()
    assert {"tool-approval", "form", "approval", "plan-review"} <= set(kinds)
    stale = {
        page.relative_to(ROOT).as_posix(): found
        for page in prose_pages()
        if (found := stale_view_claims(page.read_text(encoding="utf-8"), kinds))
    }
    assert stale == {}


def test_the_stale_claim_that_went_unnoticed_once_is_caught() -> None:
    # The README's words before the tool-approval and form views were described as built.
    old = (
        "- **Cards.** Options as radios; approvals (`approval` intent) with Reject / Approve.\n"
        "  Tool-approval and form cards: the kernel derives their presentation; the browser\n"
        "  view shows them through the generic flow for now. Their dedicated views are not\n"
        "  built yet.\n"
    )
    kinds = kinds_with_a_view()
    assert stale_view_claims(old, kinds) != []
    # a kind without a presentation module may be described as unbuilt
    assert stale_view_claims("A `survey` card's view is not built yet.", kinds) == []
    assert stale_view_claims("Form cards show typed fields.", kinds) == []
