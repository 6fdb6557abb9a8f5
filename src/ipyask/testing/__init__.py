"""Tools for testing agent code that asks a human: scripted answers and a manual clock."""

from .._clock import ManualClock
from ._scripted import SKIP, TIME_OUT, Other, Reply, ScriptedAnswerer

__all__ = ["SKIP", "TIME_OUT", "ManualClock", "Other", "Reply", "ScriptedAnswerer"]
