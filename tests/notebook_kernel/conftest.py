"""The shared kernel with ipyask imported; each test gets a fresh service and displayed panel."""

from __future__ import annotations

import itertools

import pytest

from ipyask.testing import HeadlessFrontend, KernelFrontend

SETUP = """
import asyncio, json, threading, time
import ipyask
"""
_count = itertools.count()


@pytest.fixture(scope="module")
def ipyask_kernel(kernel: KernelFrontend) -> KernelFrontend:
    kernel.execute(SETUP)
    return kernel


@pytest.fixture
def fe(ipyask_kernel: KernelFrontend) -> HeadlessFrontend:
    """A view, plus a new ``svc`` and displayed ``panel`` in the kernel, and no default panel
    left from earlier tests (the kernel is shared; a one-liner shows a new one)."""
    n = next(_count)
    ipyask_kernel.handler_errors.clear()  # the kernel is shared: earlier tests' errors are theirs
    ipyask_kernel.execute(
        f"ipyask.default_panel().close()\n"
        f"svc = ipyask.UserQuestions()\n"
        f"agent = svc.agents.enter(ipyask.Agent('agent-{n}'))\n"
        f"panel = ipyask.QuestionPanel(svc, heartbeat_timeout_ms=400)\n"
        f"display(panel)"
    )
    front = HeadlessFrontend(ipyask_kernel, timeout=10)
    assert front.panels()
    return front
