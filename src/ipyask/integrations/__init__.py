"""Bridges from agent frameworks to ipyask: each module needs its framework (an extra)."""

__all__: list[str] = []
