"""Agents and the live registry that decides who may ask a human."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

from ._session import Session

__all__ = ["Agent", "AgentRegistry"]


class Agent:
    """A running agent. An agent with an ``owner`` has subagent origin and may not ask a human.

    Liveness is by identity: only the exact instance the registry holds may ask.
    """

    def __init__(
        self, id: str, *, owner: Agent | None = None, session: Session | None = None
    ) -> None:
        self.id = id
        self.owner = owner
        self.session = session if session is not None else Session(id)

    @property
    def ancestors(self) -> Iterator[Agent]:
        """The owner chain, nearest first."""
        owner = self.owner
        while owner is not None:
            yield owner
            owner = owner.owner

    def __repr__(self) -> str:
        origin = f" owner={self.owner.id!r}" if self.owner is not None else ""
        return f"<Agent {self.id!r}{origin}>"


class AgentRegistry:
    """The live agents, by id. Entering an agent whose id is live replaces the old instance."""

    def __init__(self, on_enter: Callable[[Agent], None] | None = None) -> None:
        self._lock = threading.Lock()
        self._live: dict[str, Agent] = {}
        self._on_enter = on_enter

    def enter(self, agent: Agent) -> Agent:
        """Make ``agent`` the live instance for its id; returns it."""
        if not isinstance(agent, Agent):
            raise TypeError(f"only an ipyask.Agent can enter the registry, not {agent!r}")
        with self._lock:
            self._live[agent.id] = agent
        if self._on_enter is not None:
            self._on_enter(agent)
        return agent

    def leave(self, agent: Agent) -> None:
        """Remove ``agent`` if it is the live instance for its id."""
        with self._lock:
            if self._live.get(agent.id) is agent:
                del self._live[agent.id]

    def get(self, id: str) -> Agent | None:
        """The live instance for ``id``."""
        with self._lock:
            return self._live.get(id)

    def is_live(self, agent: Agent) -> bool:
        """Whether ``agent`` is the exact live instance for its id."""
        return self.get(agent.id) is agent

    def roots(self) -> list[Agent]:
        """Live agents of ordinary (not subagent) origin."""
        with self._lock:
            return [agent for agent in self._live.values() if agent.owner is None]

    def __contains__(self, agent: object) -> bool:
        return isinstance(agent, Agent) and self.is_live(agent)

    def __iter__(self) -> Iterator[Agent]:
        with self._lock:
            return iter(list(self._live.values()))

    def __len__(self) -> int:
        with self._lock:
            return len(self._live)
