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


def _cross_process_results() -> dict[str, Any]:
    inbox = {"questions": 10_000, "processes": 50, "none_lost_or_duplicated": True}
    store = {
        "roundtrip": {
            "ratios": {
                "sqlite_panel": {"p50": 1.4, "p99": 1.9},
                "postgres_panel": {"p50": 1.6, "p99": 1.9},
            }
        },
        "backends": {
            "sqlite": {"inbox": {**inbox, "ask_s": 8.0, "answer_s": 4.0}},
            "postgres": {"inbox": {**inbox, "ask_s": 9.5, "answer_s": 7.0}},
        },
    }
    settle = {"n": 10_000, "all_settled": True}
    scale = {
        "panel": [{**settle, "settle_s": 11.0, "settle_runs_s": [11.0, 12.5]}],
        "bare": [{**settle, "settle_s": 10.0, "settle_runs_s": [10.0, 10.0]}],
    }
    return {"sections": {**_results()["sections"], "store": store, "scale": scale}}


def test_the_cross_process_table_checks_each_row_against_its_target() -> None:
    rows = {
        line.split(" | ")[0]: line
        for line in report._process_targets(_cross_process_results())
        if line.startswith("| ") and "---" not in line
    }
    assert rows["| ask → answer through an inbox panel (SQLite) vs the in-kernel panel"].endswith(
        "**yes** |"
    )
    # PostgreSQL's p50 is over 1.5× the in-kernel panel.
    assert rows[
        "| ask → answer through an inbox panel (PostgreSQL) vs the in-kernel panel"
    ].endswith("**no** |")
    assert rows["| 10,000 questions from 50 processes (PostgreSQL)"].endswith("**yes** |")
    # Answering took 1.75× SQLite's time on PostgreSQL.
    assert "answer 1.75×" in rows["| … PostgreSQL vs SQLite"]
    assert rows["| … PostgreSQL vs SQLite"].endswith("**no** |")
    settle = rows["| 10,000 pending on one panel settled vs the bare comm"]
    assert "1.10× (medians; pairs 1.10×–1.25×)" in settle
    assert settle.endswith("**yes** |")
    assert rows["| answer → an agent that waited a while (PostgreSQL)"].endswith("**no** |")
    assert rows["| MCP `ask_user_question` through `serve()` vs a bare MCP SDK tool call (p50)"]
