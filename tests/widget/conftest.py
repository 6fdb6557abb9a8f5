"""Fixtures for the widget's Python tests: a recording comm (the browser tests are in
tests/widget_browser)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from ipyask.widget import QuestionWidget

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


@pytest.fixture
def widget_sends(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[QuestionWidget, list[Any]]]:
    """A widget whose ``send`` is recorded instead of going to a comm."""
    widget = QuestionWidget()
    sent: list[Any] = []
    monkeypatch.setattr(widget, "send", lambda content, buffers=None: sent.append(content))
    yield widget, sent
    widget.close()


@pytest.fixture
def record_calls(monkeypatch: pytest.MonkeyPatch) -> Callable[[object, str], list[Any]]:
    """``record_calls(owner, name)``: wraps the function ``owner.name`` for the test; the list of
    the first arguments it is called with (each call still runs)."""

    def record(owner: object, name: str) -> list[Any]:
        calls: list[Any] = []
        real = getattr(owner, name)

        def recording(first: Any, *args: Any, **kwargs: Any) -> Any:
            calls.append(first)
            return real(first, *args, **kwargs)

        monkeypatch.setattr(owner, name, recording)
        return calls

    return record
