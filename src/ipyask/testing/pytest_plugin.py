"""pytest fixtures of ipyask (registered through the ``pytest11`` entry point).

- ``headless_frontend``: a :class:`~ipyask.testing.HeadlessFrontend` on a fresh kernel.
- ``headless_frontend_factory``: make more (another view on the same kernel, or a subshell one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest

from ._headless import HeadlessFrontend


@pytest.fixture
def headless_frontend_factory() -> Iterator[Callable[..., HeadlessFrontend]]:
    """Make ``HeadlessFrontend`` objects; each is closed (its kernel shut down) after the test."""
    with ExitStack() as stack:

        def make(*args: Any, **kwargs: Any) -> HeadlessFrontend:
            return stack.enter_context(HeadlessFrontend(*args, **kwargs))

        yield make


@pytest.fixture
def headless_frontend(
    headless_frontend_factory: Callable[..., HeadlessFrontend],
) -> HeadlessFrontend:
    """A headless front end on a fresh kernel (ipykernel of this Python)."""
    return headless_frontend_factory()
