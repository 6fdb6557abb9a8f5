"""Every exception ipyask raises for you to meet or catch, defined here.

The tree::

    Exception
    ├── HarnessError                  a stable ``code``; ``to_wire()`` is {name, code, message}
    │   └── UserQuestionError         a failed question; ``code`` is an ErrorCode (table below)
    │       ├── AskCancelledError     ASK_ABORTED: the task awaiting the ask was cancelled
    │       │                         (also an asyncio.CancelledError)
    │       ├── InterruptedAskError   ASK_ABORTED: Ctrl-C or a kernel interrupt ended ask_blocking
    │       ├── BlockingUnsupportedError
    │       │                         BLOCKING_UNSUPPORTED: this kernel cannot answer a waiting cell
    │       ├── BadAnswerError        BAD_ANSWER for one answer item, with ``field_errors``
    │       └── NotAssigneeError      NOT_ASSIGNEE: only the question's assignee may answer it
    ├── AbortError                    the default reason of AbortController.abort()
    ├── StoreUnavailableError         the store cannot be read or written now; ``fault`` says why
    ├── RuntimeError
    │   ├── StoreClosedError          a store used after its close()
    │   └── StoreOpenError            a store that cannot be opened as it is (left untouched)
    │       └── StoreVersionError     a store written by a newer ipyask
    └── ValueError
        ├── FormSchemaError           a form schema outside the MCP elicitation subset
        ├── RulesError                an approval rules file or rule that cannot be read
        │   └── RulesFileChangedError the rules file changed on disk: not written over
        └── ToolArgumentError         a model's tool arguments that do not fit ask_user_question

Catch ``UserQuestionError`` (or ``HarnessError``) and read ``code`` where no class of its own
exists; catch the class where one does. ``restore_error`` (:mod:`ipyask.host`) rebuilds a
transported ``{name: "UserQuestionError", code, message}`` as a real error.

What raises which code (:data:`ErrorCode`):

====================  ==========================  ==================================================
code                  class                       raised when
====================  ==========================  ==================================================
ASK_ABORTED           UserQuestionError,          the request's abort signal fired; the awaiting
                      AskCancelledError,          task was cancelled (an interrupted ``await`` in a
                      InterruptedAskError         cell too); Ctrl-C or a kernel interrupt ended
                                                  ask_blocking & co. (InterruptedAskError); the
                                                  store a durable ask waited on was closed
ASK_CANCELLED         UserQuestionError           the person cancelled the card (or the host did)
ASK_TIMED_OUT         UserQuestionError           a wait for a reply or a card's countdown ran out
BAD_ANSWER            BadAnswerError,             an answer item (BadAnswerError, per field) or an
                      UserQuestionError           answer batch does not fit what the card offered
BAD_INTENT            UserQuestionError           an intent's labels name no option, or its schema
                                                  is outside the subset (message names the field)
BAD_TIMEOUT           UserQuestionError           a timeout that is not a positive platform timer
BLOCKING_UNSUPPORTED  BlockingUnsupportedError    a cell waits for an answer (ask_blocking, await)
                                                  where the kernel cannot deliver it; the message
                                                  says to start the agent as a task
CALLER_NOT_LIVE       UserQuestionError           the agent supplied is not the live calling agent
DELEGATED_CALLER      UserQuestionError           the calling agent is owned by another live agent
DUPLICATE_WAIT        UserQuestionError           the question call already has a foreground wait
EMPTY_QUESTIONS       UserQuestionError           a request with no questions
NO_PROVIDER           UserQuestionError           no answerer accepted the request
NOT_ASSIGNEE          NotAssigneeError            a claim on a durable question assigned to
                                                  someone else (the question stays open)
OUTSIDE_TURN          UserQuestionError           a durable ask while the session has no open turn
PROVIDER_ERROR        UserQuestionError           an answerer failed with something that is not a
                                                  HarnessError (its message is kept, its cause
                                                  chained)
REPLY_QUEUED          UserQuestionError           a reply is already queued for this question
====================  ==========================  ==================================================

The exceptions without a code:

- ``AbortError``: ``AbortController().abort()`` with no reason gives its signal this reason.
- ``StoreUnavailableError``: a store in place of a driver's error when the fault is the store's
  state (``fault``, a ``StoreFault``: ``unreachable``, ``locked``, ``read-only``, ``full``);
  waiting parts of ipyask retry by themselves. Also in :mod:`ipyask.store`.
- ``StoreClosedError``: a store read or written after its ``close()`` (the message names it and
  says to open it again); nothing is retried. Also in :mod:`ipyask.store`.
- ``StoreOpenError`` / ``StoreVersionError``: ``open_store`` and the stores refuse a file or
  database before writing to it, naming its location and what to do. Also in :mod:`ipyask.store`.
- ``FormSchemaError``: ``parse_form_schema`` (:mod:`ipyask.host`); ``path`` names the field. An ask
  with such a schema fails with ``BAD_INTENT`` instead.
- ``RulesError``: ``Rules.load`` / ``Rules.parse`` (and the default service, which loads the
  default rules file); the message names ``file:line`` and what is wrong. Rules that cannot be
  read decide nothing: never an allow. ``Rules.add(…, "saved")`` and ``Rules.remove(…,
  from_file=True)`` raise it for a file they cannot write safely, ``RulesFileChangedError`` for
  one changed on disk since it was read (nothing is changed then).
- ``ToolArgumentError``: ``AskUserQuestionTool`` turns it into an error tool result (``isError``,
  name ``Error``) for the model; it does not reach the caller of ``execute``.

Elsewhere:

- ``ipyask.testing``: ``FrontendError`` and its subclasses ``KernelError``, ``CellAborted``,
  ``FrontendTimeout`` (also a ``TimeoutError``) and ``KernelDied``, raised by the headless front end
  of the testing tools only.
- ``ViewErrorCode`` (:mod:`ipyask.widget`): the codes the panel sends back to a card's view when it
  refuses a view message; never raised in Python (table in ``docs/protocol.md``).
- Internal, never raised to you: the panel's ``Refused`` (a refused view message, answered with a
  ``ViewErrorCode``) and the LangGraph bridge's ``AskAgain`` (a card asked again).

This module imports nothing of ipyask, so every other module (the store and the notebook side
included) can take its exceptions from here without an import cycle.
"""

from __future__ import annotations

import asyncio
import json
from typing import Final, Literal

__all__ = [
    "AbortError",
    "AskCancelledError",
    "BadAnswerError",
    "BlockingUnsupportedError",
    "ErrorCode",
    "FormSchemaError",
    "HarnessError",
    "InterruptedAskError",
    "NotAssigneeError",
    "RulesError",
    "RulesFileChangedError",
    "StoreClosedError",
    "StoreFault",
    "StoreOpenError",
    "StoreUnavailableError",
    "StoreVersionError",
    "ToolArgumentError",
    "UserQuestionError",
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
    "NOT_ASSIGNEE",
    "OUTSIDE_TURN",
    "PROVIDER_ERROR",
    "REPLY_QUEUED",
]
"""The codes of :class:`UserQuestionError` (see the table above)."""

_MESSAGES: Final[dict[str, str]] = {
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
    # ipyask's extension: a durable question assigned to one person (NotAssigneeError names
    # the assignee and the one refused).
    "NOT_ASSIGNEE": "only the question's assignee may answer it",
    "REPLY_QUEUED": "a reply is already queued for this question",
    # ipyask's extension (the specification has no durable asks): the durable variant of the
    # same seam refuses a durable ask made while the agent's session has no open turn.
    "OUTSIDE_TURN": "ask_user_question durable request requires an open turn",
}

_INTERRUPTED = "Interrupted: the question was cancelled and the agent was told (ASK_ABORTED)."

StoreFault = Literal["unreachable", "locked", "read-only", "full"]
"""What keeps a store from being read or written (:attr:`StoreUnavailableError.fault`)."""

_WHAT_TO_DO: Final[dict[StoreFault, str]] = {
    "unreachable": (
        "the store {location} is unreachable ({detail}). Check that the database server is "
        "running and reachable; waiting questions and inboxes reconnect by themselves"
    ),
    "locked": (
        "the store {location} stayed locked by another process beyond its busy timeout "
        "({detail}). Finish or close the process holding a write on it (another kernel, a "
        "script, a database browser), then try again"
    ),
    "read-only": (
        "the store {location} is read-only ({detail}). Make the file and its folder writable "
        "for this process, or use a store where it can write (IPYASK_STORE, open_store(path))"
    ),
    "full": (
        "the disk holding the store {location} is full ({detail}). Free some space there, or "
        "move the store to a disk with room, then try again"
    ),
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
        error = cls(_MESSAGES[code], code)
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


class InterruptedAskError(UserQuestionError):
    """``ASK_ABORTED`` after Ctrl-C or a kernel interrupt; the interrupt stays its ``__cause__``.

    Raised by the blocking one-liners (``ask_blocking`` & co.) when the person interrupts their
    wait; an interrupted ``await`` in a cell raises :class:`AskCancelledError`. IPython shows it
    as one short line (its ``_render_traceback_`` hook), not a traceback through ipyask's waiting
    code chained to the interrupt's.
    """

    def _render_traceback_(self) -> list[str]:
        return [_INTERRUPTED]


class BlockingUnsupportedError(UserQuestionError):
    """``BLOCKING_UNSUPPORTED``: this kernel cannot deliver the answer while the cell waits.

    The message says why and what to do instead (start the agent as a task).
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, "BLOCKING_UNSUPPORTED")


class BadAnswerError(UserQuestionError):
    """``BAD_ANSWER`` for one item: ``field_errors`` maps a field (or argument path; ``""`` for
    the whole answer) to what is wrong with it.

    Raised by ``tool_decision`` and ``form_result`` for an item outside what the card offered.
    """

    def __init__(self, question_id: str, field_errors: dict[str, str]) -> None:
        problems = "; ".join(
            f"{field}: {message}" if field else message for field, message in field_errors.items()
        )
        super().__init__(
            f"the answer to question {question_id} is refused: {problems}", "BAD_ANSWER"
        )
        self.question_id = question_id
        self.field_errors = field_errors


class NotAssigneeError(UserQuestionError):
    """``NOT_ASSIGNEE``: the durable question ``request_id`` is assigned to ``assignee``, and
    ``who`` tried to answer it (an ipyask extension). The question stays open."""

    def __init__(self, request_id: str, assignee: str, who: str) -> None:
        super().__init__(
            f"question {request_id} is assigned to {assignee}: only {assignee} may answer it, "
            f"not {who}. Ask {assignee} to answer it (or answer as {assignee}).",
            "NOT_ASSIGNEE",
        )
        self.request_id = request_id
        self.assignee = assignee
        self.who = who


class AbortError(Exception):
    """The default abort reason (``AbortController().abort()`` with no reason)."""

    def __init__(self, message: str = "This operation was aborted") -> None:
        super().__init__(message)


class StoreUnavailableError(Exception):
    """The store at ``location`` cannot be read or written now, because of ``fault``.

    Raised by a store in place of a driver's error when the fault is the store's state, not the
    request: a database that cannot be reached (restarting, a dropped network), a SQLite file
    locked by another process beyond the busy timeout, a read-only file, a full disk. The
    message names the store and what to do; the waiting parts of ipyask retry by themselves.
    """

    def __init__(self, location: str, fault: StoreFault, detail: str) -> None:
        super().__init__(_WHAT_TO_DO[fault].format(location=location, detail=detail.strip()))
        self.location = location
        self.fault: StoreFault = fault


class StoreClosedError(RuntimeError):
    """The store at ``location`` was closed (:meth:`~ipyask.store.Store.close`): nothing reads or
    writes it through that object any more. Open it again (``open_store(location)``)."""

    def __init__(self, location: str) -> None:
        super().__init__(
            f"the store {location} was closed: open it again (ipyask.store.open_store) to read "
            "or write it"
        )
        self.location = location


class StoreOpenError(RuntimeError):
    """A store that cannot be opened as it is; the message names where it is and what to do.

    Raised before anything is written to the store: a file or database refused is left as it was.
    """


class StoreVersionError(StoreOpenError):
    """The store was written by a newer ipyask: upgrade ipyask to open it."""


class FormSchemaError(ValueError):
    """A schema outside the subset; ``path`` names the offending place (``""`` for the root)."""

    def __init__(self, path: str, problem: str) -> None:
        where = f"field {path!r}" if path else "the schema"
        super().__init__(f"{where} {problem}")
        self.path = path


class RulesError(ValueError):
    """A rules file or rule that cannot be read; the message names ``file:line`` and what is
    wrong. Rules that cannot be read decide nothing (never an allow)."""


class RulesFileChangedError(RulesError):
    """The rules file changed on disk since the rules read or wrote it: it is not written over
    (nothing is changed)."""


class ToolArgumentError(ValueError):
    """The model's arguments do not fit the ``ask_user_question`` tool's schema.

    ``AskUserQuestionTool`` turns it into an error tool result for the model.
    """
