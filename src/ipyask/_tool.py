"""The model-facing ``ask_user_question`` tool: schemas for LLM tool calling and an executor.

``legacy`` mode blocks until the user answers. ``timed`` mode adds a ``timeout`` parameter
(seconds): with no answer in the window the result is pending and the user can still answer as a
late reply. The executor records each call and result in the agent's session so the projection
sees them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ._abort import AbortSignal
from ._agents import Agent
from ._errors import HarnessError, UserQuestionError
from ._events import RequestHeaderEvent, ToolCallEvent, ToolErrorInfo, ToolResultEvent
from ._projection import ASK_USER_QUESTION_TOOL, is_timed_ask_user_question_schema
from ._service import UserQuestions
from ._vocabulary import (
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    PendingAnswer,
    QuestionWait,
)
from .errors import ToolArgumentError

__all__ = [
    "LEGACY_DESCRIPTION",
    "MAX_TIMEOUT_SECONDS",
    "PENDING_NOTICE",
    "TIMED_DESCRIPTION",
    "AskUserQuestionTool",
    "ToolArgumentError",
    "ToolDefinition",
    "ToolResult",
    "ask_user_question_definition",
]

ToolMode = Literal["legacy", "timed"]
MAX_TIMEOUT_SECONDS = 2_147_483

LEGACY_DESCRIPTION = (
    "Ask the user a concise question when you need confirmation, a choice, or missing "
    "information before proceeding."
)
TIMED_DESCRIPTION = (
    "Ask brief, direct, self-contained questions about missing information, preferences, or "
    "decisions. Use user-facing terms; assume no knowledge of background work or internal names. "
    "Use distinct stable question IDs. A submitted skipped question is an answer item with empty "
    "selected and no custom; pending instead means no answer batch arrived before the timeout "
    "and the user can still answer."
)
PENDING_NOTICE = (
    "No answer batch arrived before the timeout. This is pending, not a skipped answer. Continue "
    "useful independent work. The user can still answer; their reply will be a user message "
    "identified as answer_to_pending_question with this callId and the original questions. Do "
    "not treat this as permission."
)
_OPTIONS_HINT = (
    "Optional choices to show the user. If you recommend one, put it first and append "
    '"(Recommended)" to that label.'
)
_TIMEOUT_ERROR = "timeout must be -1 or a positive integer up to 2147483 seconds"


class ToolDefinition(BaseModel):
    """A tool schema: name, description and JSON-schema parameters."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    parameters: dict[str, Any]

    def to_wire(self) -> dict[str, Any]:
        """``{name, description, parameters}``, as recorded in a ``request/header``."""
        return self.model_dump()

    def openai(self) -> dict[str, Any]:
        """The OpenAI chat-completions ``tools`` entry."""
        return {"type": "function", "function": self.model_dump()}

    def anthropic(self) -> dict[str, Any]:
        """The Anthropic messages ``tools`` entry."""
        return {"name": self.name, "description": self.description, "input_schema": self.parameters}


def ask_user_question_definition(
    mode: ToolMode = "legacy", default_timeout: int = 120
) -> ToolDefinition:
    """The ``ask_user_question`` schema the model sees, in ``legacy`` or ``timed`` mode."""
    _check_seconds(default_timeout)
    option = {
        "type": "object",
        "properties": {"label": {"type": "string"}, "description": {"type": "string"}},
        "required": ["label"],
    }
    question = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "question": {"type": "string"},
            "header": {"type": "string"},
            "options": {"type": "array", "description": _OPTIONS_HINT, "items": option},
            "multi_select": {"type": "boolean"},
        },
        "required": ["id", "question"],
        "additionalProperties": True,
    }
    properties: dict[str, Any] = {
        "questions": {
            "type": "array",
            "description": "Questions to ask the user before continuing.",
            "items": question,
        }
    }
    if mode == "timed":
        properties["timeout"] = {
            "type": "integer",
            "description": (
                f"Wait seconds for the entire batch (default {default_timeout}); omit unless the "
                "user specifies a duration. Use -1 only when an answer is required before "
                "proceeding."
            ),
        }
    elif mode != "legacy":
        raise ValueError(f"mode must be 'legacy' or 'timed', not {mode!r}")
    return ToolDefinition(
        name=ASK_USER_QUESTION_TOOL,
        description=TIMED_DESCRIPTION if mode == "timed" else LEGACY_DESCRIPTION,
        parameters={"type": "object", "properties": properties, "required": ["questions"]},
    )


class ToolResult(BaseModel):
    """What the tool returns to the model: ``content`` text, plus the structured value."""

    model_config = ConfigDict(frozen=True)

    content: str
    is_error: bool = False
    error: ToolErrorInfo | None = None
    value: dict[str, Any] | None = None


def _check_seconds(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ToolArgumentError(_TIMEOUT_ERROR)
    if isinstance(value, float) and not value.is_integer():
        raise ToolArgumentError(_TIMEOUT_ERROR)
    seconds = int(value)
    if seconds != -1 and not 1 <= seconds <= MAX_TIMEOUT_SECONDS:
        raise ToolArgumentError(_TIMEOUT_ERROR)
    return seconds


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise ToolArgumentError(message)


def _parse_questions(arguments: Mapping[str, Any]) -> list[AskUserQuestionItem]:
    raw = arguments.get("questions")
    if not isinstance(raw, list):
        raise ToolArgumentError("questions must be an array of question objects")
    questions: list[AskUserQuestionItem] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        where = f"questions[{index}]"
        _expect(isinstance(item, dict), f"{where} must be an object")
        qid, text = item.get("id"), item.get("question")
        _expect(isinstance(qid, str), f"{where}.id must be a string")
        _expect(isinstance(text, str), f"{where}.question must be a string")
        _expect(qid not in seen, f"question id {json.dumps(qid)} must be unique within this call")
        seen.add(qid)
        header, multi, options = item.get("header"), item.get("multi_select"), item.get("options")
        _expect(header is None or isinstance(header, str), f"{where}.header must be a string")
        _expect(multi is None or isinstance(multi, bool), f"{where}.multi_select must be a boolean")
        parsed: list[AskUserQuestionOption] | None = None
        if options is not None:
            _expect(isinstance(options, list), f"{where}.options must be an array")
            parsed = []
            for position, option in enumerate(options):
                at = f"{where}.options[{position}]"
                _expect(isinstance(option, dict), f"{at} must be an object")
                label, description = option.get("label"), option.get("description")
                _expect(isinstance(label, str), f"{at}.label must be a string")
                _expect(
                    description is None or isinstance(description, str),
                    f"{at}.description must be a string",
                )
                parsed.append(AskUserQuestionOption(label=label, description=description))
        questions.append(
            AskUserQuestionItem(
                id=qid, question=text, header=header, options=parsed, multi_select=multi
            )
        )
    return questions


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class AskUserQuestionTool:
    """Executes ``ask_user_question`` calls against a :class:`UserQuestions` service.

    Use :attr:`definition` (``.openai()`` / ``.anthropic()``) in the model request and call
    :meth:`execute` with each tool call's arguments.
    """

    def __init__(
        self, service: UserQuestions, *, mode: ToolMode = "legacy", timeout: int = 120
    ) -> None:
        self.service = service
        self.mode: ToolMode = mode
        self.default_timeout = _check_seconds(timeout)
        self.definition = ask_user_question_definition(mode, self.default_timeout)

    async def execute(
        self,
        arguments: str | Mapping[str, Any],
        *,
        call_id: str,
        agent: Agent | None = None,
        signal: AbortSignal | None = None,
        record: bool = True,
    ) -> ToolResult:
        """Run one call. Failures come back as an ``Error: …`` result with ``is_error``.

        With ``record`` and an agent, the call and its result are appended to the agent's
        session (after a ``request/header`` declaring this tool when the log lacks one).
        """
        text = arguments if isinstance(arguments, str) else _compact(dict(arguments))
        session = agent.session if (record and agent is not None) else None
        if session is not None:
            self._declare(agent)
            call = ToolCallEvent(call_id=call_id, name=self.definition.name, arguments=text)
            session.append(call)
        try:
            result = await self._run(text, call_id, agent, signal)
        except asyncio.CancelledError as cancelled:
            if session is not None:
                aborted = UserQuestionError.of("ASK_ABORTED", cause=cancelled)
                session.append(self._record(call_id, _failure(aborted)))
            raise
        except Exception as error:
            result = _failure(error)
        if session is not None:
            session.append(self._record(call_id, result))
        return result

    def _declare(self, agent: Agent | None) -> None:
        if agent is None:
            return
        headers = [e for e in agent.session.events if isinstance(e, RequestHeaderEvent)]
        tools = headers[-1].tools if headers else None
        declared = isinstance(tools, list) and any(
            isinstance(tool, dict)
            and tool.get("name") == self.definition.name
            and is_timed_ask_user_question_schema(tool) == (self.mode == "timed")
            for tool in tools
        )
        if not declared:
            agent.session.append(RequestHeaderEvent(tools=[self.definition.to_wire()]))

    @staticmethod
    def _record(call_id: str, result: ToolResult) -> ToolResultEvent:
        return ToolResultEvent(
            call_id=call_id,
            content=[{"type": "text", "text": result.content}],
            is_error=result.is_error,
            error=result.error,
        )

    async def _run(
        self, text: str, call_id: str, agent: Agent | None, signal: AbortSignal | None
    ) -> ToolResult:
        try:
            arguments = json.loads(text)
        except ValueError as error:
            raise ToolArgumentError(f"arguments must be JSON: {error}") from error
        _expect(isinstance(arguments, dict), "arguments must be a JSON object")
        questions = _parse_questions(arguments)
        request = AskUserQuestionRequest(questions=questions, agent=agent, signal=signal)
        if self.mode == "legacy":
            return _answered(await self.service.ask(request))
        timeout = _check_seconds(arguments.get("timeout", self.default_timeout))
        if timeout == -1:
            keyed = request.model_copy(update={"wait": QuestionWait(call_id=call_id)})
            return _answered(await self.service.ask(keyed))
        if agent is None:
            raise ToolArgumentError("timed questions require a live agent")
        outcome = await self.service.ask_timed(request, call_id, timeout * 1000)
        if isinstance(outcome, PendingAnswer):
            value = {"pending": True, "callId": outcome.call_id, "message": PENDING_NOTICE}
            return ToolResult(content=_compact(value), value=value)
        return _answered(outcome)


def _answered(answer: AskUserQuestionAnswer) -> ToolResult:
    value = answer.to_wire()
    return ToolResult(content=_compact(value), value=value)


def _failure(error: BaseException) -> ToolResult:
    name = error.name if isinstance(error, HarnessError) else "Error"
    code = error.code if isinstance(error, HarnessError) else None
    return ToolResult(
        content=f"Error: {error}",
        is_error=True,
        error=ToolErrorInfo(name=name, code=code, message=str(error)),
    )
