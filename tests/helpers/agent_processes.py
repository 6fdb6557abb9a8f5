"""Agent processes for the tests: ``_agent_process.py`` run as a separate Python process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

AGENT = str(Path(__file__).parents[1] / "store" / "_agent_process.py")
"""The agent script: ``AGENT location call_id [assignee]`` asks and prints its answer as JSON;
``AGENT location --answer id label`` answers a question as another process."""


def start_agent(
    location: str, call_id: str = "call-1", assignee: str | None = None
) -> subprocess.Popen[str]:
    """An agent process asking on the store at ``location`` with ``call_id`` (for ``assignee``
    alone to answer, when given)."""
    argv = [sys.executable, AGENT, location, call_id, *([assignee] if assignee else [])]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)


def finish(agent: subprocess.Popen[str]) -> dict[str, object]:
    """What ``agent`` printed when it ended (it must end well, within 30 s)."""
    out, _ = agent.communicate(timeout=30)
    assert agent.returncode == 0
    result: dict[str, object] = json.loads(out)
    return result
