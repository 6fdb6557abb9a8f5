"""Counting a database server process's work from Linux ``/proc``."""

from __future__ import annotations

from pathlib import Path

HAS_PROC = Path("/proc/self/status").exists()


def server_wakeups(pid: int) -> int:
    """How many times the server process ``pid`` was switched to (Linux ``/proc``): a backend
    wakes once for each round trip its client makes."""
    status = Path(f"/proc/{pid}/status").read_text()
    return sum(int(line.split(":")[1]) for line in status.splitlines() if "ctxt_switches" in line)
