"""Card factories for the widget tests: every card is built through the real models."""

from __future__ import annotations

from typing import Any

from ipyask._vocabulary import AskUserQuestionItem
from ipyask.widget import Card, QuestionWidget


def question(qid: str = "q1", text: str = "Which database should we use?", **fields: Any):
    return AskUserQuestionItem.model_validate({"id": qid, "question": text, **fields})


def options(*labels: str, descriptions: dict[str, str] | None = None) -> list[dict[str, str]]:
    described = descriptions or {}
    return [
        {"label": label, **({"description": described[label]} if label in described else {})}
        for label in labels
    ]


def generic(key: str = "g1", *questions: AskUserQuestionItem, **fields: Any) -> Card:
    items = list(questions) or [
        question(
            header="Storage",
            detail="We need **one** store for the job queue. See `docs/queue.md`.",
            options=options(
                "PostgreSQL (Recommended)",
                "SQLite",
                "Redis",
                descriptions={"PostgreSQL (Recommended)": "Already deployed", "Redis": "Fast"},
            ),
        )
    ]
    return Card(key=key, questions=items, **fields)


def batch(key: str = "b1", **fields: Any) -> Card:
    return Card(
        key=key,
        questions=[
            question("lang", "Which language?", header="Stack", options=options("Python", "Go")),
            question(
                "features",
                "Which features?",
                multiSelect=True,
                options=options("Auth", "Billing", "Search"),
            ),
            question("notes", "Anything else?"),
        ],
        **fields,
    )


PLAN = """# Migration plan

1. Add the `jobs` table.
2. Backfill from the old queue.
3. Switch readers, then writers.

| Step | Risk |
|---|---|
| Backfill | low |
"""


def plan(key: str = "p1", *, decline: bool = True, **fields: Any) -> Card:
    labels = ["Approve the plan", "Keep planning"] if decline else ["Approve the plan"]
    return Card(
        key=key,
        questions=[
            question(
                "plan",
                "Approve this plan?",
                detail=PLAN,
                options=options(*labels, descriptions={"Approve the plan": "Start the work"}),
                intent={"kind": "plan-review", "approve": "Approve the plan", "callId": "c-plan"},
            )
        ],
        **fields,
    )


ICON = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def approval(key: str = "a1", *, always: bool = True, **fields: Any) -> Card:
    intent: dict[str, Any] = {
        "kind": "approval",
        "approve": "allow",
        "reject": "deny",
        "subject": {"name": "Shell tool", "icon": ICON},
        "display": {
            "question": {"en": "Run `rm -rf build/`?", "zh": "运行 `rm -rf build/`？"},
            "detail": {"en": "Deletes the **build** folder.", "zh": "删除 **build** 文件夹。"},
            "approve": {"en": "Run once", "zh": "运行一次"},
        },
    }
    labels = ["deny", "allow"]
    if always:
        intent["always"] = "allow-always"
        labels.append("allow-always")
    return Card(
        key=key,
        questions=[
            question(
                "perm",
                "Allow the shell command?",
                detail="The agent wants to run a command.",
                options=options(*labels),
                intent=intent,
            )
        ],
        **fields,
    )


def timed(key: str = "t1", remaining_ms: int = 10_000, seq: int = 1, **fields: Any) -> Card:
    base = generic(key)
    return Card(
        key=key,
        call_id=f"call-{key}",
        wait="timed",
        questions=base.questions,
        frame={"remainingMs": remaining_ms, "seq": seq},
        **fields,
    )


def state_of(widget: QuestionWidget) -> dict[str, Any]:
    """The synced state a real front end would receive."""
    return dict(widget.get_state(["cards", "language", "protocol_version"]))


WRITE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "title": "Path", "description": "Where to write"},
        "content": {"type": "string", "title": "Content"},
        "mode": {"type": "string", "enum": ["w", "a"], "enumNames": ["Overwrite", "Append"]},
        "retries": {"type": "integer", "minimum": 0, "maximum": 5},
        "backup": {"type": "boolean", "title": "Keep a backup"},
    },
    "required": ["path", "content"],
}

DECISION_LABELS = {
    "approve": "Approve",
    "always": "Always allow",
    "edit": "Edit",
    "reject": "Reject",
    "respond": "Respond",
    "never": "Always reject",
    "stop": "Reject and stop",
}


def tool_approval(
    key: str = "tool1",
    *,
    name: str = "write_file",
    arguments: dict[str, Any] | None = None,
    schema: dict[str, Any] | None = None,
    decisions: tuple[str, ...] = ("approve", "always", "edit", "reject", "respond"),
    labels: dict[str, str] | None = None,
    description: str | None = "Writes `content` to a **file** in the workspace.",
    **fields: Any,
) -> Card:
    """A tool-approval card (the kernel derives its ``tool-approval`` presentation)."""
    named = {kind: (labels or DECISION_LABELS)[kind] for kind in decisions}
    tool: dict[str, Any] = {
        "name": name,
        "arguments": {"path": "notes/todo.md", "content": "- ship it"}
        if arguments is None
        else arguments,
    }
    if schema is not None:
        tool["inputSchema"] = schema
    item = question(
        "tool",
        f"Run {name}?",
        options=options(*named.values()),
        intent={"kind": "tool-approval", "tool": tool, **named},
        **({"detail": description} if description is not None else {}),
    )
    return Card(key=key, questions=[item], **fields)


BOOKING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "Table booking",
    "description": "We hold the table for 15 minutes.",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2, "maxLength": 40},
        "email": {"type": "string", "format": "email", "title": "Email"},
        "site": {"type": "string", "format": "uri", "title": "Website"},
        "code": {"type": "string", "title": "Booking code", "pattern": "^[A-Z]{3}[0-9]{2}$",
                 "description": "Three capitals and two digits, e.g. ABC12"},
        "day": {"type": "string", "format": "date", "title": "Day"},
        "arrival": {"type": "string", "format": "date-time", "title": "Arrival"},
        "guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 12,
                   "default": 2},
        "budget": {"type": "number", "title": "Budget per person", "minimum": 0},
        "terrace": {"type": "boolean", "title": "Terrace", "default": False},
        "seating": {"type": "string", "title": "Seating",
                    "oneOf": [{"const": "in", "title": "Inside"},
                              {"const": "out", "title": "Outside"}]},
        "diet": {"type": "array", "title": "Dietary needs", "minItems": 0, "maxItems": 2,
                 "items": {"anyOf": [{"const": "veg", "title": "Vegetarian"},
                                     {"const": "gf", "title": "Gluten-free"},
                                     {"const": "nuts", "title": "No nuts"}]}},
    },
    "required": ["name", "email", "day", "guests"],
}  # fmt: skip


def form_card(
    key: str = "form1",
    *,
    schema: dict[str, Any] | None = None,
    decline: str | None = "Decline",
    cancel: str | None = "Cancel",
    text: str = "Book a table",
    **fields: Any,
) -> Card:
    """A form card (the kernel derives its ``form`` presentation)."""
    labels = {"accept": "Submit", "decline": decline, "cancel": cancel}
    named = {action: label for action, label in labels.items() if label is not None}
    item = question(
        "book",
        text,
        options=options(*named.values()),
        intent={"kind": "form", "requestedSchema": schema or BOOKING_SCHEMA, **named},
    )
    return Card(key=key, questions=[item], **fields)
