"""Shared fixtures: a manual clock, a service on it, a live agent; one real kernel for the run.

The test folders that need an optional dependency (see ``helpers/optional.py``) are left out
when it is not installed, so a core install with the test tools collects the fast lane."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

import ipyask
from helpers import optional
from ipyask.testing import ManualClock

if TYPE_CHECKING:
    from ipyask.testing import KernelFrontend

# Hypothesis' per-example deadline measures the machine, not ipyask: on a busy two-core host a
# single slow example would fail a property that holds.
settings.register_profile("ipyask", deadline=None)
settings.load_profile("ipyask")

# Who answers in these tests (and in the kernels and servers they start): records and
# transcripts name a known person, not whichever OS user and host run the suite.
os.environ["IPYASK_USER"] = "ada"

_LEFT_OUT = {folder: names for folder in optional.FOLDERS if (names := optional.missing(folder))}
collect_ignore = sorted(_LEFT_OUT)


def pytest_report_header() -> list[str]:
    return [
        f"left out: tests/{folder} (not installed: {', '.join(names)})"
        for folder, names in sorted(_LEFT_OUT.items())
    ]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def svc(clock: ManualClock) -> ipyask.UserQuestions:
    return ipyask.UserQuestions(clock=clock)


@pytest.fixture
def agent(svc: ipyask.UserQuestions) -> ipyask.Agent:
    return svc.agents.enter(ipyask.Agent("main"))


@pytest.fixture(scope="session")
def kernel() -> Iterator[KernelFrontend]:
    """The run's one shared kernel, started on first use: for tests that need a real kernel but
    not a fresh one (each sets up what it needs in it). The kernel client is imported here: the
    fast lane runs without its dependencies."""
    from ipyask.testing import KernelFrontend

    with KernelFrontend(timeout=20) as frontend:
        yield frontend
