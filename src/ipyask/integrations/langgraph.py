"""LangGraph and LangChain: run a graph, asking every interrupt in the notebook.

``result = await run(graph, input, config)`` is ``await graph.ainvoke(input, config)`` for a
graph compiled with a checkpointer, except that whenever the graph stops at interrupts they are
asked (all pending ones in one batch) and the graph is resumed with ``Command(resume={interrupt
id: value})`` until it finishes. ``async for chunk in stream(graph, input, config,
**stream_kwargs)`` does the same over ``graph.astream``: it yields every chunk, answering the
interrupts whenever a run stops at them. What an interrupt becomes:

- a LangChain ``HumanInTheLoopMiddleware`` request: batched (``action_requests`` and
  ``review_configs``) gives one tool-approval card per action offering that action's
  ``allowed_decisions``, resumed with ``{"decisions": [...]}``; per call (``type:
  "tool_approval"``) gives one card, its decisions and edit schema read from the interrupt's
  ``response_schema``, resumed with that one decision. Decisions come in LangChain's shapes. An
  edit is checked against the tool's argument schema (from the request, else from the graph's
  tool node);
- an interrupt with a ``response_schema`` (``interrupt(value, response_schema=Model)``): a form
  from the schema (a JSON answer checked against it when the schema is beyond a form's flat
  fields; an answer outside it is asked again, saying why), the question read from the value as
  below; resumed with the values, which LangGraph validates into the model;
- the Agent Inbox format (a list of ``HumanInterrupt``): one tool-approval card per item offering
  exactly the actions its ``config`` allows (*Accept*, *Edit* the ``args``, *Respond*,
  *Ignore*), resumed with the list of ``HumanResponse`` (``{"type": "accept" | "edit" |
  "response" | "ignore", "args": …}``; ``args`` is ``None`` for accept and for ignore without a
  typed reason, the text for response, the edited ``{"action", "args"}`` for edit);
- an ipyask request (a dict with ``questions``, wire form): asked as is; resumed with the answer
  batch in wire form (``{"answers": [...]}``);
- any other value: a card whose question is the value (a string) or its ``question``,
  ``message``, ``description``, ``query``, ``instruction`` or ``prompt`` field, the rest shown as
  details; *Yes* resumes with ``True``, *No* with ``False``, a typed reply with the text (typed
  "yes" / "no" count as *Yes* / *No*), a skip with ``None``. A refusal is never truthy.

``resume=`` adapts the resume value to the graph's own shape: ``resume(value, answer)`` gets
the interrupt's value and what the bridge would resume with, and returns (or awaits to) the
resume value, e.g. ``resume=lambda value, answer: {"data": answer}`` for the LangGraph
tutorial's ``human_assistance`` tool. It is called for every interrupt.

Needs ``pip install 'ipyask[langgraph]'``.
"""

from ._langgraph import ResumeHook, run, stream

__all__ = ["ResumeHook", "run", "stream"]
