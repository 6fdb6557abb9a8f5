"""Every text a bridge writes on a card for a person to read, in English and Chinese.

A bridge builds its question in the kernel, before any view shows it, so it writes in the
language of the panel that shows its questions: that panel's ``language`` setting
(``ipyask.default_panel().language = "zh"``). A panel that follows the page's language
(``language=""``) gets English texts, as only the page knows its language. The texts an agent
or a model reads (a denial message, an MCP tool's description) stay English: they are for the
model, not the person.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from .._notebook.panel._texts import Language, fill, language_of

if TYPE_CHECKING:
    from .._service import UserQuestions

__all__ = ["BRIDGE_TEXTS", "BridgeText", "Language", "card_language", "text"]

BridgeText = Literal[
    "graph-waits",
    "graph-yes",
    "graph-no",
    "graph-resumes-with",
    "graph-resumes-with-inline",
    "hook-gets",
    "hook-gets-inline",
    "graph-option",
    "graph-reply-note",
    "graph-refused",
    "graph-json-schema",
    "graph-needs-answer",
    "graph-bad-json",
    "inbox-accept",
    "inbox-ignore",
    "mcp-open-page",
    "mcp-no-host",
    "mcp-not-https",
    "mcp-address",
    "mcp-continue-note",
    "mcp-retry-note",
    "mcp-continue",
    "mcp-decline",
    "mcp-cancel",
    "claude-allow",
    "claude-why",
    "claude-blocked-path",
]
"""The texts of the bridges' cards."""

BRIDGE_TEXTS: dict[Language, dict[BridgeText, str]] = {
    "en": {
        "graph-waits": "The graph waits for your answer",
        "graph-yes": "Yes",
        "graph-no": "No",
        "graph-resumes-with": "The graph resumes with",
        "graph-resumes-with-inline": "the graph resumes with",
        "hook-gets": "Your resume hook gets",
        "hook-gets-inline": "your resume hook gets",
        "graph-option": "{gets} {value}",
        "graph-reply-note": (
            "*{yes}*: {gets} `True`. *{no}*: {gets} `False`. A typed reply: {inline} your text "
            "(typed {yes} or {no} count as *{yes}* or *{no}*)."
        ),
        "graph-refused": "**Your last answer was refused:** {problem}",
        "graph-json-schema": "Answer with JSON that fits this schema:",
        "graph-needs-answer": "the graph needs an answer that fits the schema",
        "graph-bad-json": "it is not valid JSON ({problem} at line {line})",
        "inbox-accept": "Accept",
        "inbox-ignore": "Ignore",
        "mcp-open-page": "The server asks you to open a page on **{host}**.",
        "mcp-no-host": "(no host)",
        "mcp-not-https": "The address is not https (it is {scheme}).",
        "mcp-address": "Address: {address}",
        "mcp-continue-note": (
            "Continue tells the server you agree; open the address yourself if you trust it."
        ),
        "mcp-retry-note": (
            "Open the address yourself if you trust it, and Continue once you have finished "
            "there: the call is then made again. The card closes by itself if the server says "
            "you have finished."
        ),
        "mcp-continue": "Continue",
        "mcp-decline": "Decline",
        "mcp-cancel": "Cancel",
        "claude-allow": "Allow {name}?",
        "claude-why": "Why this is asked: {reason}",
        "claude-blocked-path": "Blocked path: {path}",
    },
    "zh": {
        "graph-waits": "图在等待你的回答",
        "graph-yes": "是",
        "graph-no": "否",
        "graph-resumes-with": "图恢复运行时收到",
        "graph-resumes-with-inline": "图恢复运行时收到",
        "hook-gets": "你的 resume 钩子收到",
        "hook-gets-inline": "你的 resume 钩子收到",
        "graph-option": "{gets} {value}",
        "graph-reply-note": (
            "*{yes}*：{gets} `True`。*{no}*：{gets} `False`。输入的回复：{inline}你输入的文字"
            "（输入 {yes} 或 {no} 等同于 *{yes}* 或 *{no}*）。"
        ),
        "graph-refused": "**你上一次的回答未被接受：**{problem}",
        "graph-json-schema": "请用符合以下结构的 JSON 回答：",
        "graph-needs-answer": "图需要一个符合该结构的回答",
        "graph-bad-json": "不是有效的 JSON（第 {line} 行：{problem}）",
        "inbox-accept": "接受",
        "inbox-ignore": "忽略",
        "mcp-open-page": "服务器请你打开 **{host}** 上的一个页面。",
        "mcp-no-host": "（无主机）",
        "mcp-not-https": "该地址不是 https（而是 {scheme}）。",
        "mcp-address": "地址：{address}",
        "mcp-continue-note": "点“继续”即告诉服务器你同意；如果你信任该地址，请自行打开它。",
        "mcp-retry-note": (
            "如果你信任该地址，请自行打开，在那里完成后点“继续”：调用会重新进行。"
            "服务器告知你已完成时，这张卡片会自行关闭。"
        ),
        "mcp-continue": "继续",
        "mcp-decline": "拒绝",
        "mcp-cancel": "取消",
        "claude-allow": "允许 {name}？",
        "claude-why": "询问原因：{reason}",
        "claude-blocked-path": "被阻止的路径：{path}",
    },
}
"""Each bridge text per language; ``{name}`` is filled by :func:`text`."""


def text(language: Language, key: BridgeText, **values: str) -> str:
    """The text ``key`` in ``language``, its ``{name}`` parts filled from ``values``."""
    return fill(BRIDGE_TEXTS[language][key], values)


def card_language(service: UserQuestions | None) -> Language:
    """The language of the cards that show ``service``'s questions (``None``: the default
    service): the ``language`` of its first open question panel, English without one."""
    from .._notebook import default_panel
    from .._notebook.panel import QuestionPanel

    if service is None:
        return language_of(default_panel().language)
    for answerer in service.answerers():
        panel = getattr(answerer, "__self__", None)  # a panel registers its bound method
        if isinstance(panel, QuestionPanel) and not panel.closed:
            return language_of(panel.language)
    return "en"
