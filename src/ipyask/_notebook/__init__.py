"""The notebook side (private): the notebook as an answerer of a ``UserQuestions`` service.

Its public names are ipyask's top-level ones (``ipyask._PUBLIC``); ``ipyask.bridge``, its name in
the previous release, still imports them with a DeprecationWarning.

Two rooms that do not import each other, and the one-liners that wire them:

- :mod:`ipyask._notebook.panel`: the panel answerer, :class:`QuestionPanel` (cards, view messages,
  continued cards, claims, transcript);
- :mod:`ipyask._notebook.cell_wait`: helping a cell that waits for the panel's answer, on each
  ipykernel (:class:`BlockingUnsupportedError` where it cannot);
- ``_one_liners``: ``ask``, ``approve``, ``approve_tool``, ``form``, their ``*_blocking`` twins,
  ``ask_batch`` (a whole request) and the default service and panel behind them;
- ``_inbox``: :func:`inbox`, a panel showing a store's open questions of every process;
- ``_diagnose``: :func:`diagnose`, what ipyask sees of its host.
"""

from ._diagnose import Diagnosis, diagnose
from ._inbox import inbox
from ._one_liners import (
    approve,
    approve_blocking,
    approve_tool,
    approve_tool_blocking,
    ask,
    ask_batch,
    ask_blocking,
    default_panel,
    default_rules,
    default_service,
    form,
    form_blocking,
    show_panel,
)
from .cell_wait import BlockingUnsupportedError
from .panel import QuestionPanel

__all__ = [
    "BlockingUnsupportedError",
    "Diagnosis",
    "QuestionPanel",
    "approve",
    "approve_blocking",
    "approve_tool",
    "approve_tool_blocking",
    "ask",
    "ask_batch",
    "ask_blocking",
    "default_panel",
    "default_rules",
    "default_service",
    "diagnose",
    "form",
    "form_blocking",
    "inbox",
    "show_panel",
]
