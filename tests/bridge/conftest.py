"""Fixtures of the bridge tests: a panel on the in-process service, and one view of it."""

from __future__ import annotations

from typing import Any

import pytest

import ipyask

from ._helpers import FakeView


@pytest.fixture
def sent() -> list[dict[str, Any]]:
    return []


@pytest.fixture
def panel(svc, sent, monkeypatch):
    made = ipyask.QuestionPanel(svc, heartbeat_timeout_ms=1000)
    monkeypatch.setattr(made, "send", lambda content, buffers=None: sent.append(content))
    yield made
    made.close()


@pytest.fixture
def view(panel, sent) -> FakeView:
    return FakeView(panel, sent, "view-1")
