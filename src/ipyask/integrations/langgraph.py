"""LangGraph and LangChain: run a graph, asking every interrupt in the notebook.

``result = await run(graph, input, config)`` is ``await graph.ainvoke(input, config)`` for a
graph compiled with a checkpointer, except that whenever the graph stops at interrupts they are
asked (all pending ones in one batch) and the graph is resumed with ``Command(resume={interrupt
id: value})`` until it finishes. What an interrupt's value becomes:

- an ipyask request (a dict with ``questions``, wire form): asked as is; resumed with the
  answer batch in wire form (``{"answers": [...]}``);
- a LangChain ``HumanInTheLoopMiddleware`` request: batched (``action_requests`` and
  ``review_configs``) gives one tool-approval card per action offering that action's
  ``allowed_decisions``, resumed with ``{"decisions": [...]}``; per call (``type:
  "tool_approval"``) gives one card, its decisions and edit schema read from the interrupt's
  ``response_schema``, resumed with that one decision. Decisions come in LangChain's shapes;
- any other value: a card showing it (a string as the question, anything else as JSON) with a
  free-text answer; resumed with the text (``""`` when skipped).

Needs ``pip install 'ipyask[langgraph]'``.
"""

from ._langgraph import run

__all__ = ["run"]
