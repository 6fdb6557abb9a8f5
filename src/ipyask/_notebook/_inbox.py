"""``inbox``: a panel on a store, showing the open questions of every process that asks there."""

from __future__ import annotations

import os
from typing import Any

from .._service import UserQuestions
from ..store import Store, open_store
from .panel import QuestionPanel

__all__ = ["inbox"]


def inbox(
    store: Store | str | os.PathLike[str] | None = None, **panel_options: Any
) -> QuestionPanel:
    """A :class:`QuestionPanel` on a new service on ``store`` (a :class:`~ipyask.store.Store`,
    a path or a ``postgresql://`` URL; default: :func:`ipyask.store.open_store`'s default).

    It shows every open question in the store — of agents in worker processes, scripts using
    :func:`ipyask.connect`, other kernels, and earlier runs of this one — and answers them there
    (the first answer of any view or process wins). Display it like any widget;
    ``panel.service`` is its service. ``panel_options`` go to :class:`QuestionPanel`.
    """
    opened = store if isinstance(store, Store) else open_store(store)
    return QuestionPanel(UserQuestions(store=opened), **panel_options)
