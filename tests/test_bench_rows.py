"""The benchmark report's rows for the long wait and the MCP round trip (no benchmark runs)."""

from __future__ import annotations

from typing import Any

from bench import report


def _stats(p50: float, p99: float) -> dict[str, float]:
    return {"n": 10, "p50": p50, "p90": p99, "p99": p99, "max": p99}


def _results() -> dict[str, Any]:
    long_wait = {
        "backends": {
            "sqlite": {
                "wait_s": 3.0,
                "stats": _stats(2.0, 9.0),
                "agent": {"cpu_percent": 0.05, "wakeups_per_s": 1.2},
                "all_answered": True,
            },
            "postgres": {
                "wait_s": 3.0,
                "stats": _stats(2.0, 30.0),
                "agent": {"cpu_percent": 0.0, "wakeups_per_s": 1.0},
                "all_answered": True,
            },
        }
    }
    mcp = {
        "stats": {"bare": _stats(4.0, 8.0), "ipyask": _stats(5.0, 12.0)},
        "ratios": {"p50": 1.25, "p99": 1.5},
    }
    return {"sections": {"long_wait": long_wait, "mcp": mcp}}


def test_the_long_wait_rows_say_whether_each_store_meets_its_target() -> None:
    summary = report._long_wait_summary(_results())
    assert summary[0].startswith("| SQLite: answer → an agent that waited 3 s")
    assert "**yes**" in summary[0]
    assert "**no**" in summary[1]  # PostgreSQL's p99 is over 20 ms
    table = "\n".join(report._long_wait(_results()))
    assert "| PostgreSQL | 10 | 2.00 ms |" in table


def test_the_mcp_rows_compare_the_ask_with_the_bare_tool_call() -> None:
    table = "\n".join(report._mcp(_results()))
    assert "| `ask_user_question` through `serve()` | 10 | 5.00 ms |" in table
    assert "1.25×" in table


def test_a_failed_section_is_said_so() -> None:
    results = {"sections": {"mcp": {"error": "RuntimeError: no port"}}}
    assert "RuntimeError: no port" in "\n".join(report._mcp(results))


def test_the_inbox_render_row_says_whether_it_meets_its_targets() -> None:
    inbox = {
        "cards": 10_000,
        "processes": 50,
        "all_grouped_ms": {"p50": 240.0, "min": 200.0, "max": 300.0},
        "first_card_ms": {"p50": 330.0},
        "within_targets": False,
    }
    table = "\n".join(report._inbox_render(inbox))
    assert "| 10,000 | 240 ms | 200 ms – 300 ms | 330 ms | no |" in table
