"""Fixtures shared by the in-process tests: a manual clock, a service on it, a live agent."""

from __future__ import annotations

import pytest

import ipyask
from ipyask.testing import ManualClock


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def svc(clock: ManualClock) -> ipyask.UserQuestions:
    return ipyask.UserQuestions(clock=clock)


@pytest.fixture
def agent(svc: ipyask.UserQuestions) -> ipyask.Agent:
    return svc.agents.enter(ipyask.Agent("main"))
