"""``restore_error``, and the seam's error taxonomy re-exported for its modules.

``HarnessError``, ``UserQuestionError``, ``AskCancelledError``, their codes and messages are
defined in :mod:`ipyask.errors`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import _MESSAGES as MESSAGES
from .errors import AskCancelledError, ErrorCode, HarnessError, UserQuestionError

__all__ = [
    "MESSAGES",
    "AskCancelledError",
    "ErrorCode",
    "HarnessError",
    "UserQuestionError",
    "restore_error",
]


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
