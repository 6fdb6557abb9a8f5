"""What a scripted person answers in each demo notebook (CI and `scripts/demo --headless`)."""

from __future__ import annotations

from ipyask.testing import LEAVE_PENDING, SKIP, TIME_OUT, Approve, Edit, Other, Reject

SCRIPTS = {
    "quickstart.ipynb": {
        "Which database should the project use?": "SQLite (Recommended)",
        "Delete 3 files in build/?": "Approve",
        "Which languages will you use?": {
            "langs": ["Python", "Rust"],
            "name": "ipyask-demo",
            "ci": SKIP,
        },
        "Run this migration plan?": "Approve",
        "Deploy to production tonight?": [TIME_OUT, "Yes"],
        "Run write_file?": Edit({"path": "report-draft.md", "overwrite": False}),
        "Book a table for the team dinner": {"name": "Ada", "email": "ada@example.org", "seats": 4},
    },
    "agent-loop.ipynb": {
        "Which format should the report use?": [TIME_OUT, Other("HTML")],
    },
    "testing-agents.ipynb": {},
    "mcp.ipynb": {
        "Book a table for the team dinner": {"name": "Ada", "seats": 4},
        "Which dataset should the nightly report use?": "sales-2026 (Recommended)",
        "Run send_report?": "Approve",
    },
    "langgraph.ipynb": {
        "Run delete_files?": Edit({"pattern": "build/*.tmp"}),
        "What should the report be called?": Other("Q3 report"),
        "Do you want to proceed with this action?": "No",
        "Approve the release?": {"approved": True, "note": "ship it"},
    },
    "openai-agents.ipynb": {"Run send_email?": Approve()},
    "pydantic-ai.ipynb": {"Run drop_table?": Reject("still in use")},
    # pending across the kernel restart, answered on the restarted kernel's panel
    "restart.ipynb": {
        "Deploy the new model to staging?": [LEAVE_PENDING, "Yes"],
        "Tell the team in #releases?": "Yes",
    },
}

THEN_AWAIT = {"quickstart.ipynb": "task"}
"""Notebooks that start their agent as a task: the run awaits it after the last cell."""
