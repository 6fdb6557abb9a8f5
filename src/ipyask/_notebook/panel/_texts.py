"""Every text the kernel writes for a person to read, in English and Chinese.

Card notices travel as a code (``Card.notice_code``) that each view shows from its own strings
(``widget/js/strings.js`` holds the same notices), so a view in another language, or a language
changed later, shows them in its language; the English text rides along for views that do not
know the code. The kernel cannot choose for the views: a panel's ``language`` may be ``""``,
"the page's language", which only the page knows. Transcript records are plain Markdown in the
notebook that nothing renders again, so they are written once, in the panel's language when the
record is made.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from ..._answered_by import Door
from ...widget import NoticeCode

__all__ = [
    "DOOR_WORDS",
    "NOTICES",
    "NO_NOTICE",
    "RECORD_WORDS",
    "Language",
    "Notice",
    "RecordWord",
    "cancelled_notice",
    "fill",
    "language_of",
]

Language = Literal["en", "zh"]
"""The languages ipyask's texts are written in."""

RecordWord = Literal[
    "allowed-by-rule",
    "denied-by-rule",
    "answered",
    "answered-late",
    "answered-late-kept",
    "decided-by-timeout",
    "answered-after-timeout",
    "always-session",
    "always-saved",
    "cancelled",
    "expired",
    "rejected",
    "not-approved",
    "declined",
    "dismissed",
    "no-answer",
    "skipped",
    "title",
    "marked",
    "quoted",
    "by",
]
"""The words and patterns of a transcript record."""

NOTICES: dict[Language, dict[NoticeCode, str]] = {
    "en": {
        "you-cancelled": "You cancelled this question; the agent was told.",
        "agent-stopped": "The agent stopped waiting for this question.",
        "time-ran-out": "The agent stopped waiting: the time for this question ran out.",
        "closed-unanswered": "The question was closed before it was answered.",
        "cancelled": "The question was cancelled.",
        "reply-queued": "Answer sent: the agent reads it at its next step.",
        "reply-unread": (
            "Answer sent to the agent's inbox, but the task that asked has ended: nobody reads "
            "it unless the agent's code reads its inbox again (agent.session.next_step)."
        ),
        "reply-kept": (
            "Answer saved. The agent that asked has finished, so it will not read this answer; "
            "it is kept in the session log, where the projection and the transcript show it."
        ),
        "reply-awaits-reask": (
            "Answer saved. The MCP client gets it when it calls ask_user_question again with "
            "callId {callId}; until then it waits here."
        ),
        "late-reply-impossible": "The agent went on without an answer and cannot take a late one.",
        "decided-by-timeout": (
            "No answer in time: the timeout decided “{decision}” and the agent went on with "
            "that. You can still answer; your answer is recorded as late, not sent to the agent."
        ),
        "answered-after-timeout": (
            "Recorded late: the agent had already gone on with the timeout's decision “{decision}”."
        ),
        "no-longer-answerable": "This question can no longer be answered.",
        "asked-earlier": (
            "Asked before a restart: the process that asked ({process}) has ended. Your answer "
            "is kept; the agent gets it when it asks this question again."
        ),
        "settled-elsewhere": "Settled in another view or process.",
        "not-in-store": "This question is no longer in the store.",
        "nobody-could-answer": "Nobody could answer this question.",
        "store-unreachable": "Not saved yet: the store is unreachable; retrying…",
        "store-locked": (
            "Not saved yet: the store {location} is locked by another process; retrying… "
            "Finish or close the process that holds it."
        ),
        "store-read-only": (
            "Not saved yet: the store {location} is read-only; retrying… Make the file and "
            "its folder writable."
        ),
        "store-full": (
            "Not saved yet: the disk holding the store {location} is full; retrying… Free "
            "some space there."
        ),
        "store-closed": (
            "The store {location} was closed: this question stays open there, and cannot be "
            "answered here. Open the store again to answer it."
        ),
        "rule-removed": ("Removed {rule}: it no longer applies in this kernel."),
        "rule-removed-from-file": (
            "Removed {rule}: it no longer applies in this kernel, and it was deleted from "
            "{file} (line {line}); the file's other lines are as they were."
        ),
        "rule-file-changed": (
            "{rule} was not removed: {file} changed on disk since this kernel read it, so it "
            "was not written over. Nothing was changed; delete the rule there, or restart "
            "the kernel to read the file again."
        ),
        "rule-not-removed": (
            "{rule} was not removed: it could not be deleted from {file} safely ({detail}). "
            "Nothing was changed; delete it there."
        ),
    },
    "zh": {
        "you-cancelled": "你取消了这个问题，智能体已得知。",
        "agent-stopped": "智能体不再等待这个问题的回答。",
        "time-ran-out": "智能体不再等待：这个问题的回答时间已到。",
        "closed-unanswered": "这个问题在回答之前已关闭。",
        "cancelled": "这个问题已取消。",
        "reply-queued": "回答已发送：智能体会在下一步读到它。",
        "reply-unread": (
            "回答已放入智能体的收件箱，但提出问题的任务已结束："
            "除非智能体的代码再次读取收件箱（agent.session.next_step），否则没有人会读到它。"
        ),
        "reply-kept": (
            "回答已保存。提出问题的智能体已结束，不会读到这个回答；"
            "它保存在会话记录中，投影和记录里都能看到。"
        ),
        "reply-awaits-reask": (
            "回答已保存。MCP 客户端用 callId {callId} 再次调用 ask_user_question 时会收到它；"
            "在那之前它在这里等待。"
        ),
        "late-reply-impossible": "智能体没等到回答就继续工作了，且无法接收迟到的回答。",
        "decided-by-timeout": (
            "未及时回答：超时已决定“{decision}”，智能体已按此继续。"
            "你仍可回答；你的回答会作为迟到回答记录，不会发送给智能体。"
        ),
        "answered-after-timeout": "已作为迟到回答记录：智能体此前已按超时的决定“{decision}”继续。",
        "no-longer-answerable": "这个问题已无法回答。",
        "asked-earlier": (
            "重启之前提出的问题：提出它的进程（{process}）已结束。你的回答会被保存，"
            "智能体再次提出这个问题时会收到它。"
        ),
        "settled-elsewhere": "已在另一个视图或进程中处理。",
        "not-in-store": "这个问题已不在存储中。",
        "nobody-could-answer": "没有人能回答这个问题。",
        "store-unreachable": "尚未保存：无法连接到存储，正在重试…",
        "store-locked": (
            "尚未保存：存储 {location} 被另一个进程锁定，正在重试…请结束或关闭占用它的进程。"
        ),
        "store-read-only": (
            "尚未保存：存储 {location} 是只读的，正在重试…请让该文件及其文件夹可写。"
        ),
        "store-full": ("尚未保存：存储 {location} 所在的磁盘已满，正在重试…请在那里腾出空间。"),
        "store-closed": (
            "存储 {location} 已关闭：这个问题仍在其中等待回答，但无法在这里回答。"
            "请重新打开存储后再回答。"
        ),
        "rule-removed": ("已移除 {rule}：它在当前内核中不再生效。"),
        "rule-removed-from-file": (
            "已移除 {rule}：它在当前内核中不再生效，并已从 {fi"
            "le} 中删除（第 {line} 行）；文件的其他行保持不变"
            "。"
        ),
        "rule-file-changed": (
            "{rule} 未被移除：本内核读取 {file} 之后，该文件已在磁盘上被修改，"
            "因此没有覆盖它。没有做任何更改；请在文件中删除这条规则，或重启内核以重新读取文件"
            "。"
        ),
        "rule-not-removed": (
            "{rule} 未被移除：无法安全地从 {file} 中删除它"
            "（{detail}）。没有做任何更改；请在文件中删除它。"
        ),
    },
}
"""Each card notice per language; ``{name}`` is filled from the card's notice params."""

RECORD_WORDS: dict[Language, dict[RecordWord, str]] = {
    "en": {
        "allowed-by-rule": "Allowed by rule",
        "denied-by-rule": "Denied by rule",
        "answered": "Answered",
        "answered-late": "Answered late",
        "answered-late-kept": "Answered late, after the agent that asked had finished (kept)",
        "decided-by-timeout": "Decided by the timeout (no answer in time)",
        "always-session": "for this session: {rule}",
        "always-saved": "saved as a rule: {rule}",
        "answered-after-timeout": (
            "Answered late, after the timeout had decided (the agent went on with the timeout's "
            "decision)"
        ),
        "cancelled": "Cancelled",
        "expired": "Expired",
        "rejected": "rejected",
        "not-approved": "not approved",
        "declined": "declined",
        "dismissed": "dismissed",
        "no-answer": "no answer",
        "skipped": "skipped",
        "title": "{title}: {line}",
        "marked": "{values} ({mark})",
        "quoted": "“{text}”",
        "by": " by {who} in {door}",
    },
    "zh": {
        "allowed-by-rule": "已按规则允许",
        "denied-by-rule": "已按规则拒绝",
        "answered": "已回答",
        "answered-late": "已迟到回答",
        "answered-late-kept": "已迟到回答，提问的智能体当时已结束（已保存）",
        "decided-by-timeout": "已由超时决定（未及时回答）",
        "always-session": "仅限本次会话：{rule}",
        "always-saved": "已保存为规则：{rule}",
        "answered-after-timeout": "已迟到回答，此前超时已作出决定（智能体已按超时的决定继续）",
        "cancelled": "已取消",
        "expired": "已失效",
        "rejected": "已拒绝",
        "not-approved": "未批准",
        "declined": "已谢绝",
        "dismissed": "已关闭",
        "no-answer": "未回答",
        "skipped": "已跳过",
        "title": "{title}：{line}",
        "marked": "{values}（{mark}）",
        "quoted": "“{text}”",
        "by": "（由 {who} 在{door}）",
    },
}
"""The words of a transcript record per language (``title``, ``marked`` and ``quoted`` are
patterns: Chinese takes full-width punctuation)."""

DOOR_WORDS: dict[Language, dict[Door, str]] = {
    "en": {
        "cell-view": "the cell view",
        "panel": "the panel",
        "inbox-widget": "the inbox widget",
        "inbox-page": "the inbox page",
        "mcp-client": "an MCP client",
        "api": "an API call",
        "store-claim": "a store claim",
        "rule": "a rule",
        "timeout": "the timeout",
    },
    "zh": {
        "cell-view": "单元格视图中",
        "panel": "问题面板中",
        "inbox-widget": "收件箱小部件中",
        "inbox-page": "收件箱页面中",
        "mcp-client": "MCP 客户端中",
        "api": "API 调用中",
        "store-claim": "存储认领中",
        "rule": "规则中",
        "timeout": "超时时",
    },
}
"""Through which door a question was settled, as a transcript record says it (``by``)."""

_ZH = re.compile(r"^zh(?:$|[-_])", re.IGNORECASE)
_NAME = re.compile(r"\{(\w+)\}")


@lru_cache(maxsize=64)  # asked at every settled question, of one tag or a few
def language_of(tag: str) -> Language:
    """The language of texts for a language tag, as the views choose it (``zh*``: Chinese;
    anything else, ``""`` included, English)."""
    return "zh" if _ZH.match(tag) else "en"


@lru_cache(maxsize=256)
def _pieces(template: str) -> tuple[str, ...]:
    # Text, name, text, …, text: a record is written per settled question, from a few templates.
    return tuple(_NAME.split(template))


def fill(template: str, values: Mapping[str, str]) -> str:
    """``template`` with each ``{name}`` replaced by its value (``""`` when it has none), as the
    views fill their strings."""
    pieces = list(_pieces(template))
    for index in range(1, len(pieces), 2):
        pieces[index] = values.get(pieces[index], "")
    return "".join(pieces)


@dataclass(frozen=True)
class Notice:
    """A card notice: its code and the values its text names."""

    code: NoticeCode
    params: Mapping[str, str] = field(default_factory=dict)

    def text(self, language: Language = "en") -> str:
        """The notice in ``language``."""
        return fill(NOTICES[language][self.code], self.params)

    def card_fields(self) -> dict[str, Any]:
        """The card fields that carry this notice: its code and params, and its English text
        for views that do not know the code."""
        return {
            "notice": self.text(),
            "notice_code": self.code,
            "notice_params": dict(self.params) if self.params else None,
        }


NO_NOTICE: dict[str, Any] = {"notice": None, "notice_code": None, "notice_params": None}
"""The card fields of no notice."""


_CANCELLED: dict[str, NoticeCode] = {
    "ASK_CANCELLED": "you-cancelled",
    "ASK_ABORTED": "agent-stopped",
    "ASK_TIMED_OUT": "time-ran-out",
}


def cancelled_notice(error_code: str) -> Notice:
    """What a card cancelled with ``error_code`` says, in plain words, for the codes a person
    meets."""
    return Notice(_CANCELLED.get(error_code, "closed-unanswered"))
