"""pytest fixtures of ipyask (registered through the ``pytest11`` entry point).

- ``headless_frontend``: a :class:`~ipyask.testing.HeadlessFrontend` on a fresh kernel.
- ``headless_frontend_factory``: make more (another view on the same kernel, or a subshell one).

The plugin loads with the core install alone; a test that uses these fixtures without the kernel
client's dependencies fails with a message naming the extra to install.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

import pytest

__all__ = ["headless_frontend", "headless_frontend_factory"]

if TYPE_CHECKING:
    from ._headless import HeadlessFrontend


def _headless_frontend_class() -> type[HeadlessFrontend]:
    from . import _KERNEL_EXTRA

    try:
        from ._headless import HeadlessFrontend
    except ImportError as error:
        pytest.fail(
            f"the headless_frontend fixture drives a real kernel and needs "
            f"{error.name or 'the kernel client'}, which is not installed: "
            f"pip install '{_KERNEL_EXTRA}'",
            pytrace=False,
        )
    return HeadlessFrontend


@pytest.fixture
def headless_frontend_factory() -> Iterator[Callable[..., HeadlessFrontend]]:
    """Make ``HeadlessFrontend`` objects; each is closed (its kernel shut down) after the test."""
    frontend_class = _headless_frontend_class()
    with ExitStack() as stack:

        def make(*args: Any, **kwargs: Any) -> HeadlessFrontend:
            return stack.enter_context(frontend_class(*args, **kwargs))

        yield make


@pytest.fixture
def headless_frontend(
    headless_frontend_factory: Callable[..., HeadlessFrontend],
) -> HeadlessFrontend:
    """A headless front end on a fresh kernel (ipykernel of this Python)."""
    return headless_frontend_factory()
