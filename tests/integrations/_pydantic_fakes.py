"""A pydantic-ai FunctionModel that calls ``delete_file``, shared by the pydantic-ai tests."""

from __future__ import annotations

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo


class DeletingModel:
    """A FunctionModel that calls ``delete_file`` once per path, then answers ``done``; it keeps
    the tool returns it read."""

    def __init__(self, *paths: str) -> None:
        self.paths = paths
        self.returns: list[ToolReturnPart] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(
                parts=[
                    ToolCallPart("delete_file", {"path": p}, tool_call_id=f"call-{i}")
                    for i, p in enumerate(self.paths)
                ]
            )
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        self.returns = [part for part in last.parts if isinstance(part, ToolReturnPart)]
        return ModelResponse(parts=[TextPart("done")])
