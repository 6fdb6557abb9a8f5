"""Bridges to the agent frameworks people run in notebooks: one line makes the notebook the human
side of their human-in-the-loop.

- :mod:`ipyask.integrations.langgraph`: ``await run(graph, input, config)`` (or ``stream(...)``
  over ``astream``) asks every interrupt (LangChain's ``HumanInTheLoopMiddleware`` and Agent
  Inbox requests as tool-approval cards, ``response_schema`` as forms) and resumes the graph
  until it finishes (extra ``ipyask[langgraph]``);
- :mod:`ipyask.integrations.openai_agents`: ``await run(agent, input)`` asks for every tool
  approval of an OpenAI Agents SDK run and resumes it (extra ``ipyask[openai-agents]``);
- :mod:`ipyask.integrations.pydantic_ai`: ``approvals()``, a capability that asks for
  pydantic-ai's approval-required tool calls inline, and ``resolve(requests)`` for a run that
  ended with deferred tool requests (extra ``ipyask[pydantic-ai]``);
- :mod:`ipyask.integrations.claude`: ``can_use_tool()``, the Claude Agent SDK's permission
  callback: tool prompts as tool-approval cards, ``AskUserQuestion`` as one batch
  (extra ``ipyask[claude]``);
- :mod:`ipyask.integrations.mcp`: ``elicitation_callback()`` for an MCP client session (form and
  URL-consent cards) and ``await serve()``, the notebook as an MCP server that agents in other
  processes ask (extra ``ipyask[mcp]``).

Each module imports its framework, so this package imports none of them: importing a bridge
without its framework raises an ImportError that names the extra to install.
"""

__all__: list[str] = []
