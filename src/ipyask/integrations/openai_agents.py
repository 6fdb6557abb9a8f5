"""OpenAI Agents SDK: run an agent, asking for every tool approval in the notebook.

``result = await run(agent, input, **runner_kwargs)`` is ``await Runner.run(agent, input,
**runner_kwargs)``, except that while the result has ``interruptions`` (calls of tools with
``needs_approval``, tools of ``mcp_servers=`` with ``require_approval``) each gets a
tool-approval card, all of one pause in one batch: the tool's name, description, arguments and
argument schema, and the decisions the SDK supports: *Approve* (``state.approve(item)``),
*Always allow* (``state.approve(item, always_approve=True)``), *Reject* with an optional reason
(``state.reject(item, rejection_message=...)``: the SDK's own "not approved" text, followed by
the reason) and *Always reject* (the same with ``always_reject=True``: later calls of the tool
are rejected without asking). The run is then resumed from its state; returns
the final result. The SDK has no argument editing, so the card offers none.

Needs ``pip install 'ipyask[openai-agents]'``.
"""

from ._openai_agents import run

__all__ = ["run"]
