"""The Claude Agent SDK: the notebook as the person behind ``can_use_tool``.

``ClaudeAgentOptions(can_use_tool=ipyask.integrations.claude.can_use_tool())`` sends the
agent's ``AskUserQuestion`` calls to the notebook as one ipyask batch, and every other
permission prompt as a tool-approval card. Needs the ``ipyask[claude]`` extra.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

try:
    import claude_agent_sdk as _claude_agent_sdk  # noqa: F401 (fails early, naming the extra)
except ImportError as _missing:
    raise ImportError(
        "ipyask.integrations.claude needs the Claude Agent SDK (claude-agent-sdk), which is not "
        "installed: pip install 'ipyask[claude]'"
    ) from _missing

from . import _asking, _claude_permissions
from ._claude_permissions import ASK_USER_QUESTION

if TYPE_CHECKING:
    from claude_agent_sdk.types import CanUseTool

    from .._service import UserQuestions

__all__ = ["ASK_USER_QUESTION", "can_use_tool"]


def can_use_tool(
    *,
    service: UserQuestions | None = None,
    timeout: float | None = None,
    on_timeout: str = "pending",
) -> CanUseTool:
    """The ``can_use_tool`` callback for ``ClaudeAgentOptions``.

    - ``AskUserQuestion``: its questions are asked as one batch (options, ``multiSelect``,
      free-text "Other"); the answers go back as ``PermissionResultAllow(updated_input={
      "questions": <the original array>, "answers": {<question text>: <label, labels joined
      with ", ", or the typed text>}})``. A skipped question has no entry in ``answers``.
    - any other tool: a tool-approval card (the tool, its input, and the prompt's title,
      description, reason and blocked path when given). Approve allows; Edit allows with
      ``updated_input``; Always allow (offered only when the prompt carries suggestions)
      allows with those suggestions as ``updated_permissions``; Reject denies with the
      person's reason, or a default that says so; Reject and stop denies the same way with
      ``interrupt=True``, which stops the agent.

    ``service=None`` asks on the default service and panel.

    ``timeout`` (seconds; ``None``, the default, waits for the person) asks each prompt timed:
    when no one answers in time, ``on_timeout`` decides: ``"pending"`` (the default) and
    ``"reject"`` deny a tool call with a message saying no one answered in time (an
    ``AskUserQuestion`` call, which has no refusal, then raises ``UserQuestionError``
    ``ASK_TIMED_OUT`` with ``"pending"``); a card decision's label answers as the person's click
    would. Bad values raise :class:`ValueError`.
    """
    return _claude_permissions.make_can_use_tool(service, _asking.timing(timeout, on_timeout))
