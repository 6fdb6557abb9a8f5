"""Deprecated: ``ipyask.bridge``, ``ipyask.bridge.panel`` and ``ipyask.bridge.cell_wait`` are
the notebook side of the previous release, now the private ``ipyask._notebook``.

Every name they exported still imports from here until the next release, with a
DeprecationWarning that names its public home (``ipyask.ask``, ``ipyask.QuestionPanel``,
``ipyask.errors.BlockingUnsupportedError``, ...) or says it was private plumbing.
``ipyask._MOVED`` lists them all. ``panel`` and ``cell_wait`` are modules made here (registered
in ``sys.modules``), so ``import ipyask.bridge.panel`` works without files of their own.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from . import _moved

__all__: list[str] = []  # nothing new is exported from here


def __getattr__(name: str) -> Any:
    return _moved(__name__, name)


class _OldModule(types.ModuleType):
    """A module of the previous release whose every name is a moved one."""

    def __getattr__(self, name: str) -> Any:
        return _moved(self.__name__, name)


panel = _OldModule(f"{__name__}.panel", "Deprecated: the question panel, now ipyask.QuestionPanel.")
cell_wait = _OldModule(f"{__name__}.cell_wait", "Deprecated: private plumbing of a waiting cell.")
for _old in (panel, cell_wait):
    sys.modules.setdefault(_old.__name__, _old)
