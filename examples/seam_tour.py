"""A tour of the user-questions seam, runnable anywhere (no notebook needed).

1. an agentless ask answered by a scripted answerer;
2. a timed ask through the model-facing tool that goes pending;
3. a late reply that settles the question in the session projection.
"""

from __future__ import annotations

import asyncio
import json

import ipyask
from ipyask.testing import TIME_OUT, ScriptedAnswerer


async def main() -> None:
    svc = ipyask.UserQuestions()
    ScriptedAnswerer({"db": "SQLite", "deploy": TIME_OUT}).register(svc)

    print("1. An agentless ask, answered by a scripted answerer")
    answer = await svc.ask(
        {
            "questions": [
                {
                    "id": "db",
                    "question": "Which database?",
                    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
                }
            ]
        }
    )
    print("   answer:", json.dumps(answer.to_wire()))

    print("2. A timed ask from the agent's ask_user_question tool (the window runs out)")
    agent = svc.agents.enter(ipyask.Agent("main"))
    tool = ipyask.AskUserQuestionTool(svc, mode="timed", timeout=1)
    result = await tool.execute(
        {
            "questions": [
                {
                    "id": "deploy",
                    "question": "Deploy to production now?",
                    "options": [{"label": "Deploy"}, {"label": "Wait"}],
                }
            ]
        },
        call_id="call_deploy",
        agent=agent,
    )
    print("   tool result:", result.content[:60] + "…")
    print("   projection:", json.dumps(svc.projection(agent).to_wire()))

    print("3. The person answers later: a late reply, admitted as a user message")
    accepted = svc.answer(
        agent, "call_deploy", {"answers": [{"id": "deploy", "selected": ["Deploy"]}]}
    )
    print("   accepted:", accepted, "| queued for the agent:", len(agent.session.next_step))
    agent.session.admit()
    print("   projection:", json.dumps(svc.projection(agent).to_wire()))
    await svc.aclose()


if __name__ == "__main__":
    asyncio.run(main())
