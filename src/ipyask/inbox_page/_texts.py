"""The inbox page's own words (the cards have theirs), in each language, and its HTML."""

from __future__ import annotations

from html import escape
from typing import Literal, TypedDict

__all__ = ["TEXTS", "PageLanguage", "PageTexts", "error_page", "inbox_page", "page_language"]

PageLanguage = Literal["en", "zh"]


class PageTexts(TypedDict):
    title: str
    empty: str
    noscript: str
    store_failed: str


TEXTS: dict[PageLanguage, PageTexts] = {
    "en": {
        "title": "ipyask inbox",
        "empty": "No question is waiting. New questions appear here as agents ask them.",
        "noscript": "The inbox needs JavaScript to show and answer questions.",
        "store_failed": "The inbox could not open its store",
    },
    "zh": {
        "title": "ipyask 收件箱",
        "empty": "没有等待回答的问题。代理提出的新问题会出现在这里。",
        "noscript": "收件箱需要 JavaScript 才能显示和回答问题。",
        "store_failed": "收件箱无法打开它的存储",
    },
}


def page_language(accept_language: str | None) -> PageLanguage:
    """Chinese when the browser's first language is Chinese, else English."""
    first = (accept_language or "").split(",")[0].strip().lower()
    return "zh" if first == "zh" or first.startswith(("zh-", "zh_")) else "en"


def _head(language: PageLanguage, static: str) -> str:
    return (
        "<!doctype html>\n"
        f'<html lang="{language}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(TEXTS[language]['title'])}</title>\n"
        f'<link rel="stylesheet" href="{escape(static)}widget.css">\n'
        f'<link rel="stylesheet" href="{escape(static)}inbox-page.css">\n'
        "</head>\n"
    )


def inbox_page(
    language: PageLanguage, *, static: str, events: str, messages: str, xsrf: str
) -> str:
    """The page: the inbox widget's view mounted by ``inbox-page.js``, which reads its state
    from ``events`` (server-sent events) and posts what the view sends to ``messages``, with
    ``xsrf`` as Jupyter's XSRF token."""
    texts = {name: escape(str(text)) for name, text in TEXTS[language].items()}
    script = escape(static + "inbox-page.js")
    body = f"""<body style="margin: 0">
<main class="ipyask-page" data-events="{escape(events)}" data-messages="{escape(messages)}"
      data-xsrf="{escape(xsrf)}">
<header class="ipyask-page__header">
<h1 class="ipyask-page__title">{texts["title"]}</h1>
<p class="ipyask-page__status" role="status" aria-live="polite"></p>
</header>
<p class="ipyask-page__empty">{texts["empty"]}</p>
<div class="ipyask-page__inbox"></div>
<noscript>{texts["noscript"]}</noscript>
</main>
<script type="module" src="{script}"></script>
</body>
</html>
"""
    return _head(language, static) + body


def error_page(language: PageLanguage, *, static: str, reason: str) -> str:
    """The page when the store cannot be opened: what failed (``reason``) and nothing else."""
    texts = {name: escape(str(text)) for name, text in TEXTS[language].items()}
    body = f"""<body style="margin: 0">
<main class="ipyask-page">
<h1 class="ipyask-page__title">{texts["title"]}</h1>
<p class="ipyask-page__failure" role="alert"><strong>{texts["store_failed"]}</strong>:
{escape(reason)}</p>
</main>
</body>
</html>
"""
    return _head(language, static) + body
