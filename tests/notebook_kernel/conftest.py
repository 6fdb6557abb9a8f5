"""One real kernel per module; each test gets a fresh service and displayed panel in it."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from ipyask.testing import HeadlessFrontend, KernelFrontend

SETUP = """
import asyncio, json, threading, time
import ipyask
"""
_count = itertools.count()


@pytest.fixture(scope="module")
def kernel() -> Iterator[KernelFrontend]:
    with KernelFrontend(timeout=20) as fe:
        fe.execute(SETUP)
        yield fe


@pytest.fixture
def fe(kernel: KernelFrontend) -> HeadlessFrontend:
    """A view, plus a new ``svc`` and displayed ``panel`` in the kernel."""
    n = next(_count)
    kernel.execute(
        f"svc = ipyask.UserQuestions()\n"
        f"agent = svc.agents.enter(ipyask.Agent('agent-{n}'))\n"
        f"panel = ipyask.QuestionPanel(svc, heartbeat_timeout_ms=400)\n"
        f"display(panel)"
    )
    front = HeadlessFrontend(kernel, timeout=10)
    assert front.panels()
    return front
