"""Every card kind in every state, as a kernel holds them: the cards of the screenshot test.

The kernel imports this file (it is copied next to the notebook) and shows :func:`cards` in one
widget; the test imports it for the keys and what each card must say. Each question is built by
the function ipyask's own one-liners and bridges use; each settled card carries the answer the
person's click sends (an edit's arguments and a form's values as JSON in ``custom``), so the
cards are what a real session leaves behind, without a person clicking 150 times.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ipyask._rich_questions import form_question, tool_approval_question
from ipyask.widget import Card, CardSource

KINDS = ("generic", "plan", "approval", "tool", "form")


@dataclass(frozen=True)
class Expected:
    """What a card must show: its status word and, when answered, its summary line, per
    language (``None``: not checked); ``tone`` is its ``ipyask-tone-*`` class."""

    tone: str
    wait: dict[str, str | None]
    line: dict[str, str] | None = None


def _q(**item: Any) -> dict[str, Any]:
    return item


GENERIC = _q(
    id="db",
    question="Which database should the agent use?",
    header="Database",
    options=[{"label": "Postgres", "description": "Server"}, {"label": "SQLite"}],
)
PLAN = _q(
    id="plan",
    question="Approve this plan?",
    detail="1. Add the `orders` table\n2. Backfill from the CSV export",
    options=[{"label": "Approve"}, {"label": "Keep planning"}],
    intent={"kind": "plan-review", "approve": "Approve"},
)
# As ipyask.approve("Delete 3 files in build/?", detail=..., always="Always allow rm") asks.
APPROVAL = _q(
    id="approval",
    question="Delete 3 files in build/?",
    detail="`rm build/*.o`",
    options=[{"label": "Reject"}, {"label": "Approve"}, {"label": "Always allow rm"}],
    intent={
        "kind": "approval",
        "approve": "Approve",
        "reject": "Reject",
        "always": "Always allow rm",
        "subject": {"name": "shell"},
        "display": {"question": {"en": "Delete 3 files in build/?"}, "approve": {"en": "Approve"}},
    },
)
TOOL_SCHEMA = {
    "type": "object",
    "required": ["path"],
    "properties": {
        "path": {"type": "string", "title": "Path"},
        "overwrite": {"type": "boolean", "title": "Overwrite"},
    },
}
TOOL = tool_approval_question(
    "write_file",
    {"path": "docs/report.md", "overwrite": False},
    schema=TOOL_SCHEMA,
    decisions=("approve", "always", "edit", "reject", "respond", "never", "stop"),
    description="Writes a file in the project.",
).to_wire()
FORM_SCHEMA = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "title": "Name"},
        "guests": {"type": "integer", "title": "Guests", "minimum": 1},
        "area": {
            "type": "string",
            "title": "Area",
            "oneOf": [{"const": "in", "title": "Inside"}, {"const": "out", "title": "Terrace"}],
        },
    },
}
FORM = form_question("Book a table", FORM_SCHEMA).to_wire()

_TIMED = {"wait": "timed", "timeout_ms": 120_000}


def _answered(question: dict[str, Any], *selected: str, custom: str | None = None) -> Any:
    item: dict[str, Any] = {"id": question["id"], "selected": list(selected)}
    if custom is not None:
        item["custom"] = custom
    return {"status": "answered", "answer": {"answers": [item]}}


def _states(kind: str, question: dict[str, Any], answers: dict[str, Any]) -> list[Card]:
    """``kind``'s card pending, settled by each answer in ``answers``, cancelled, expired and
    answered late (the first answer, after the agent went on)."""
    cards = [Card(key=f"{kind}-pending", questions=[question])]
    for state, settled in answers.items():
        cards.append(Card(key=f"{kind}-{state}", questions=[question], **settled))
    cards.append(
        Card(
            key=f"{kind}-cancelled",
            questions=[question],
            status="cancelled",
            notice="You cancelled this question; the agent was told.",
            notice_code="you-cancelled",
        )
    )
    cards.append(
        Card(
            key=f"{kind}-expired",
            call_id=f"{kind}-expired",
            questions=[question],
            status="expired",
            notice="The agent stopped waiting: the time for this question ran out.",
            notice_code="time-ran-out",
            **_TIMED,
        )
    )
    first = next(iter(answers.values()))
    cards.append(
        Card(
            key=f"{kind}-late",
            call_id=f"{kind}-late",
            questions=[question],
            late=True,
            notice="Answer sent: the agent reads it at its next step.",
            notice_code="reply-queued",
            **_TIMED,
            **first,
        )
    )
    return cards


EDITED = '{"path": "docs/report-v2.md", "overwrite": false}'
SUBMITTED = '{"name": "Ada", "guests": 4, "area": "out"}'

ANSWERS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "generic": (
        GENERIC,
        {
            "answered": _answered(GENERIC, "SQLite"),
            "other": _answered(GENERIC, custom="DuckDB"),
            "skipped": _answered(GENERIC),
        },
    ),
    "plan": (
        PLAN,
        {
            "approved": _answered(PLAN, "Approve"),
            "changes": _answered(PLAN, "Keep planning", custom="Split the backfill"),
        },
    ),
    "approval": (
        APPROVAL,
        {
            "approved": _answered(APPROVAL, "Approve"),
            "rejected": _answered(APPROVAL, "Reject"),
            "always": _answered(APPROVAL, "Always allow rm"),
        },
    ),
    "tool": (
        TOOL,
        {
            "approved": _answered(TOOL, "Approve"),
            "always": _answered(TOOL, "Always allow"),
            "edited": _answered(TOOL, "Edit", custom=EDITED),
            "rejected": _answered(TOOL, "Reject", custom="Not that file"),
            "responded": _answered(TOOL, "Respond", custom="Append instead"),
            "never": _answered(TOOL, "Always reject"),
            "stopped": _answered(TOOL, "Reject and stop"),
        },
    ),
    "form": (
        FORM,
        {
            "submitted": _answered(FORM, "Submit", custom=SUBMITTED),
            "declined": _answered(FORM, "Decline"),
            "dismissed": _answered(FORM, "Cancel"),
        },
    ),
}


# An inbox card whose store the kernel closed: still open in the store, no longer live here.
STORE_CLOSED = Card(
    key="store-closed-pending",
    call_id="store-closed",
    wait="indefinite",
    questions=[GENERIC],
    source=CardSource(agent="worker", session="s1", process="box:4242"),
    notice="The store /data/questions.sqlite3 was closed: …",
    notice_code="store-closed",
    notice_params={"location": "/data/questions.sqlite3"},
)


def cards() -> list[Card]:
    """Every kind's cards, kind after kind, then an inbox card whose store was closed."""
    return [card for kind in KINDS for card in _states(kind, *ANSWERS[kind])] + [STORE_CLOSED]


def _w(en: str | None, zh: str | None) -> dict[str, str | None]:
    return {"en": en, "zh": zh}


def _l(en: str, zh: str) -> dict[str, str]:
    return {"en": en, "zh": zh}


SUBMITTED_LINE_EN = "Submitted · Name: Ada · Guests: 4 · Area: Terrace"
SUBMITTED_LINE_ZH = "已提交 · Name：Ada · Guests：4 · Area：Terrace"
ANSWERED = _w("Answered", "已回答")
LATE = _w("Answered late", "已迟到回答")
REJECTED = _w("Rejected", "已拒绝")

EXPECTED: dict[str, Expected] = {
    "generic-answered": Expected("answered", ANSWERED, _l("SQLite", "SQLite")),
    "generic-other": Expected("answered", ANSWERED, _l("DuckDB", "DuckDB")),
    "generic-skipped": Expected("answered", ANSWERED, _l("Skipped", "已跳过")),
    "generic-late": Expected("answered", LATE, _l("SQLite", "SQLite")),
    "plan-approved": Expected("answered", ANSWERED, _l("Plan approved", "计划已批准")),
    "plan-changes": Expected(
        "rejected",
        _w("Not approved", "未批准"),
        _l("Changes requested: Split the backfill", "要求修改：Split the backfill"),
    ),
    "plan-late": Expected("answered", LATE, _l("Plan approved", "计划已批准")),
    "approval-approved": Expected("answered", ANSWERED, _l("Approved", "已批准")),
    "approval-rejected": Expected("rejected", REJECTED, _l("Rejected", "已拒绝")),
    "approval-always": Expected(
        "answered",
        ANSWERED,
        _l(
            "Always allowed · the agent received “Always allow rm”",
            "已始终允许 · 智能体收到“Always allow rm”",
        ),
    ),
    # A timed approval is answered in the generic flow (the approval card has no countdown);
    # settled, it says what was decided as an approval card does.
    "approval-late": Expected("answered", LATE, _l("Approved", "已批准")),
    "tool-approved": Expected("answered", ANSWERED, _l("Approved", "已批准")),
    "tool-always": Expected("answered", ANSWERED, _l("Always allowed", "已始终允许")),
    "tool-edited": Expected(
        "answered",
        ANSWERED,
        _l(
            "Approved with changes: path → docs/report-v2.md",
            "修改后批准：path → docs/report-v2.md",
        ),
    ),
    "tool-rejected": Expected(
        "rejected", REJECTED, _l("Rejected: Not that file", "已拒绝：Not that file")
    ),
    "tool-responded": Expected(
        "answered",
        ANSWERED,
        _l("Not run; replied instead: Append instead", "未运行，改为回复：Append instead"),
    ),
    "tool-never": Expected("rejected", REJECTED, _l("Always rejected", "已始终拒绝")),
    "tool-stopped": Expected(
        "rejected", REJECTED, _l("Rejected; the agent stops", "已拒绝，智能体停止")
    ),
    "tool-late": Expected("answered", LATE, _l("Approved", "已批准")),
    "form-submitted": Expected(
        "answered",
        ANSWERED,
        _l(SUBMITTED_LINE_EN, SUBMITTED_LINE_ZH),
    ),
    "form-declined": Expected("declined", _w("Declined", "已婉拒"), _l("Declined", "已婉拒")),
    "form-dismissed": Expected("cancelled", _w("Cancelled", "已取消"), _l("Cancelled", "已取消")),
    "form-late": Expected("answered", LATE, _l(SUBMITTED_LINE_EN, SUBMITTED_LINE_ZH)),
}
EXPECTED["store-closed-pending"] = Expected("expired", _w("No longer live", "已失效"))
for _kind in KINDS:
    EXPECTED[f"{_kind}-pending"] = Expected("pending", _w(None, None))
    EXPECTED[f"{_kind}-cancelled"] = Expected("cancelled", _w("Cancelled", "已取消"))
    EXPECTED[f"{_kind}-expired"] = Expected("expired", _w("Expired", "已失效"))
