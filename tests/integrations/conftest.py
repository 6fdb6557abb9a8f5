"""The frameworks' own switches for offline tests."""

from __future__ import annotations

from agents import set_tracing_disabled

# The OpenAI Agents SDK exports traces to OpenAI by default (and says so when no key is set);
# these tests run offline.
set_tracing_disabled(True)
