"""The error taxonomy: ``HarnessError`` and ``UserQuestionError`` with their codes and messages."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any, Final, Literal

__all__ = [
    "ErrorCode",
    "HarnessError",
    "UserQuestionError",
    "restore_error",
]

ErrorCode = Literal[
    "ASK_ABORTED",
    "ASK_CANCELLED",
    "ASK_TIMED_OUT",
    "BAD_ANSWER",
    "BAD_INTENT",
    "BAD_TIMEOUT",
    "BLOCKING_UNSUPPORTED",
    "CALLER_NOT_LIVE",
    "DELEGATED_CALLER",
    "DUPLICATE_WAIT",
    "EMPTY_QUESTIONS",
    "NO_PROVIDER",
    "OUTSIDE_TURN",
    "PROVIDER_ERROR",
    "REPLY_QUEUED",
]

MESSAGES: Final[dict[str, str]] = {
    "ASK_ABORTED": "ask_user_question was aborted before the user answered",
    "ASK_CANCELLED": "the user cancelled ask_user_question",
    "ASK_TIMED_OUT": "ask_user_question timed out before the user answered",
    "BAD_TIMEOUT": "timeout must fit a positive platform timer",
    "CALLER_NOT_LIVE": (
        "human interaction requires the exact live calling agent when an agent is supplied"
    ),
    "DELEGATED_CALLER": (
        "human interaction is unavailable while the calling agent is owned by another live "
        "agent; include the unresolved question or decision in the child agent's final result"
    ),
    "DUPLICATE_WAIT": "the question call already has a foreground wait",
    "EMPTY_QUESTIONS": "ask_user_question requires at least one question",
    "NO_PROVIDER": "no user-questions answerer accepted the request",
    "REPLY_QUEUED": "a reply is already queued for this question",
    # ipyask's extension (the specification has no durable asks): the durable variant of the
    # same seam refuses a durable ask made while the agent's session has no open turn.
    "OUTSIDE_TURN": "ask_user_question durable request requires an open turn",
}


class HarnessError(Exception):
    """An error with a stable machine-readable ``code``; ``name`` is the class name."""

    code: str

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code

    @property
    def name(self) -> str:
        """The error's name as carried on the wire (the class name)."""
        return type(self).__name__

    @property
    def message(self) -> str:
        """The human-readable message."""
        return str(self.args[0]) if self.args else ""

    def to_wire(self) -> dict[str, str]:
        """``{name, code, message}``, the shape that crosses a transport."""
        return {"name": self.name, "code": self.code, "message": self.message}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code!r})"


class UserQuestionError(HarnessError):
    """A user-questions failure. ``code`` is one of :data:`ErrorCode`."""

    @classmethod
    def of(cls, code: ErrorCode, *, cause: BaseException | None = None) -> UserQuestionError:
        """The error for ``code`` with its reference message."""
        error = cls(MESSAGES[code], code)
        if cause is not None:
            error.__cause__ = cause
        return error

    @classmethod
    def bad_intent_label(
        cls, question_id: str, kind: str, role: str, label: str
    ) -> UserQuestionError:
        """``BAD_INTENT``: a label of the intent names none of the question's options."""
        text = json.dumps(label, ensure_ascii=False)
        return cls(
            f"question {question_id} declares intent {kind} whose {role} label {text} "
            "names none of its options",
            "BAD_INTENT",
        )

    @classmethod
    def bad_intent(cls, question_id: str, kind: str, problem: str) -> UserQuestionError:
        """``BAD_INTENT`` with a specific problem."""
        return cls(f"question {question_id} declares intent {kind} {problem}", "BAD_INTENT")

    @classmethod
    def bad_answer(cls, call_id: str, count: int) -> UserQuestionError:
        """``BAD_ANSWER``: the batch does not name each question exactly once."""
        return cls(
            f"the answer batch for {call_id} must name each of its {count} questions exactly once",
            "BAD_ANSWER",
        )


class AskCancelledError(UserQuestionError, asyncio.CancelledError):
    """``ASK_ABORTED`` raised because the task awaiting the question was cancelled.

    It is both a :class:`UserQuestionError` (the caller sees ``ASK_ABORTED``, as for an aborted
    signal) and an :class:`asyncio.CancelledError`, so asyncio still treats the task as cancelled.
    """


def restore_error(reason: object) -> object:
    """Rebuild a transported ``{name: 'UserQuestionError', code, message}`` as a real error.

    ``reason`` may be a mapping (a wire payload) or an object with ``name``, ``code`` and
    ``message`` attributes. A real ``UserQuestionError`` is returned as is; anything else is
    returned unchanged. The transported value becomes the rebuilt error's cause when it is an
    exception.
    """
    if isinstance(reason, UserQuestionError):
        return reason
    fields: Mapping[str, Any]
    if isinstance(reason, Mapping):
        fields = reason
    else:
        fields = {key: getattr(reason, key, None) for key in ("name", "code", "message")}
    name, code, message = fields.get("name"), fields.get("code"), fields.get("message")
    if name != "UserQuestionError" or not isinstance(code, str) or not isinstance(message, str):
        return reason
    restored = UserQuestionError(message, code)
    if isinstance(reason, BaseException):
        restored.__cause__ = reason
    return restored
