"""pydantic-ai: approve, edit or deny deferred tool calls in the notebook.

Tools opt in with ``requires_approval=True`` (or raise ``ApprovalRequired``). Two flows:

- inline: ``Agent(..., capabilities=[approvals()])`` asks for every approval-required call while
  the run goes on (all calls of one model turn in one batch);
- run ends, then resumes: ``results = await resolve(result.output, tools=agent)`` turns the
  run's ``DeferredToolRequests`` output into ``DeferredToolResults`` for the next run
  (``agent.run(message_history=result.all_messages(), deferred_tool_results=results)``).

Each call gets a tool-approval card (tool name, arguments, the tool definition's description and
argument schema — the run's tools inline, ``tools=`` after the run — and the metadata of an
``ApprovalRequired(metadata=...)``) offering *Approve* (``True``), *Edit*
(``ToolApproved(override_args=...)``; the card refuses arguments outside the schema) and
*Reject* with an optional reason (``ToolDenied``: pydantic-ai's own "denied" text, followed by
the reason). Calls waiting for an external result (``requests.calls``) are left to the code that
runs them.

Needs ``pip install 'ipyask[pydantic-ai]'``.
"""

from ._pydantic_ai import approvals, resolve

__all__ = ["approvals", "resolve"]
