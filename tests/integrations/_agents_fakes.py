"""What an OpenAI Agents SDK ``ScriptedModel`` read back, shared by the Agents SDK tests."""

from __future__ import annotations

from agents.testing import ScriptedModel


def tool_outputs(model: ScriptedModel) -> dict[str, str]:
    """What the model read back for each call, on its last call."""
    last = model.last_call
    assert last is not None
    return {
        item["call_id"]: item["output"]
        for item in last.input
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }
