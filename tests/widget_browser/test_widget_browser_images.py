"""Images from other hosts: not loaded until the person or the panel allows their host."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from playwright.sync_api import expect

from ipyask.widget import Card, QuestionWidget
from widget.widget_cardkit import approval, generic, options, question

pytestmark = pytest.mark.browser

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
DETAIL = (
    "A chart: ![pixel](http://images.test/pixel.png)\n\n"
    "Ours: ![local](/local.png)\n\n"
    f"Inline: ![inline](data:image/png;base64,{base64.b64encode(PNG).decode()})"
)


def cards() -> list[Card]:
    pictures = generic("g1", question(detail=DETAIL, options=options("Yes", "No")))
    icon = approval("a1")
    wire = icon.to_wire()
    wire["questions"][0]["intent"]["subject"] = {
        "name": "Shell tool",
        "icon": "http://images.test/icon.png",
    }
    return [pictures, Card.model_validate(wire)]


def serve_images(wpage: Any) -> list[str]:
    """A stand-in image host that counts what the page fetches from it."""
    hits: list[str] = []

    def serve(route: Any) -> None:
        hits.append(route.request.url)
        route.fulfill(body=PNG, content_type="image/png")

    wpage.page.route("http://images.test/**", serve)
    return hits


def test_remote_images_wait_for_the_persons_click(wpage) -> None:
    hits = serve_images(wpage)
    wpage.mount(QuestionWidget(cards=cards()))
    card = wpage.card("g1")
    show = card.get_by_role("button", name="Show images from images.test")
    expect(show).to_be_visible()
    expect(card.locator(".ipyask-image-gate")).to_contain_text("pixel")
    # Same-origin and data: images load at once; nothing reached the other host.
    expect(card.locator("img[alt=local]")).to_have_count(1)
    expect(card.locator("img[alt=inline]")).to_have_count(1)
    expect(wpage.card("a1").locator("img")).to_have_count(0)  # the icon is left out
    wpage.page.wait_for_timeout(200)
    assert hits == []
    show.click()
    expect(card.locator("img[alt=pixel]")).to_have_count(1)
    expect(wpage.card("a1").locator("img.ipyask-subject__icon")).to_have_count(1)
    expect(card.get_by_role("button", name="Show images from images.test")).to_have_count(0)
    wpage.page.wait_for_function(
        "() => Array.from(document.images).filter(img => img.src.startsWith('http://images.test'))"
        ".every(img => img.complete && img.naturalWidth > 0)"
    )
    assert sorted(hits) == ["http://images.test/icon.png", "http://images.test/pixel.png"]
    assert wpage.page.get_attribute("img[alt=pixel]", "referrerpolicy") == "no-referrer"


def test_a_panel_that_allows_a_host_loads_its_images_at_once(wpage) -> None:
    hits = serve_images(wpage)
    wpage.mount(QuestionWidget(cards=cards(), image_hosts=["images.test"]))
    expect(wpage.card("g1").locator("img[alt=pixel]")).to_have_count(1)
    expect(wpage.card("a1").locator("img.ipyask-subject__icon")).to_have_count(1)
    expect(wpage.page.locator(".ipyask-image-gate")).to_have_count(0)
    wpage.page.wait_for_function("() => Array.from(document.images).every(img => img.complete)")
    assert sorted(hits) == ["http://images.test/icon.png", "http://images.test/pixel.png"]


def test_the_button_speaks_chinese(open_page) -> None:
    wpage = open_page(locale="zh-CN")
    serve_images(wpage)
    wpage.mount(QuestionWidget(cards=cards(), language="zh"))
    expect(
        wpage.card("g1").get_by_role("button", name="显示来自 images.test 的图片")
    ).to_be_visible()
