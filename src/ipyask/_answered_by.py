"""``AnsweredBy``: the record of who settled a question, when, through which door, and what card
they were shown.

Every settlement can carry one: the store keeps it with a durable question's record and in its
``user-questions/answered`` event, the transcript says it in plain words, and
``python -m ipyask audit`` exports it. The digest ties a decision to the card as it was presented
(its questions, with their options and arguments, in wire form): an approval of ``rm -rf /tmp/x``
cannot later be read as an approval of other arguments.

This module imports nothing of ipyask, so the store (below the vocabulary) and the notebook side
can both use it.
"""

from __future__ import annotations

import functools
import getpass
import hashlib
import json
import os
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from ._json_text import one_pass

__all__ = [
    "DIGEST_PREFIX",
    "DOORS",
    "JUPYTER_USER_VARIABLE",
    "USER_VARIABLE",
    "AnsweredBy",
    "Answerer",
    "Attribution",
    "Door",
    "answered_by",
    "card_digest",
    "environment_identity",
]

Door = Literal[
    "cell-view",
    "panel",
    "inbox-widget",
    "inbox-page",
    "mcp-client",
    "api",
    "store-claim",
    "rule",
    "timeout",
]
"""Through which door a question was settled: a card in the cell that asked (``cell-view``), the
notebook's question panel (``panel``), the inbox widget of a store (``inbox-widget``), the inbox
page Jupyter Server serves (``inbox-page``), an MCP client's elicitation (``mcp-client``), a call
of :meth:`UserQuestions.respond` / ``cancel`` / ``answer`` in code or an answerer function that
does not say who answered (``api``), a claim through
:func:`ipyask.connect`'s ``answer`` / ``cancel`` (``store-claim``), an approval rule (``rule``) or a
countdown that ran out (``timeout``)."""

DOORS: tuple[Door, ...] = get_args(Door)
"""Every door, in the order :data:`Door` lists them."""

USER_VARIABLE = "IPYASK_USER"
"""The environment variable that names who answers from this process, when set (a shared
machine's service account, a test): it wins over the Jupyter and the OS user."""

JUPYTER_USER_VARIABLE = "JUPYTERHUB_USER"
"""The environment variable that names the Jupyter user of a kernel JupyterHub started."""

DIGEST_PREFIX = "sha256:"


def _name(who: str, host: str | None) -> str:
    return f"{who}@{host}" if host else who


class AnsweredBy(BaseModel):
    """Who settled a question (``who``, and ``host`` when the name is an OS user's), when
    (``at``, Unix seconds), through which ``door``, and the ``digest`` of the card they saw."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )

    who: str = Field(min_length=1)
    """The Jupyter user's name when a Jupyter identity is known, else the OS user's."""
    host: str | None = None
    """The machine of an OS user (``None`` for a Jupyter identity)."""
    at: float
    """Wall-clock seconds (Unix time) of the settlement."""
    door: Door
    digest: str | None = None
    """``sha256:`` and the hex digest of the presented card's canonical JSON
    (:func:`card_digest`); ``None`` when no card was shown."""

    @property
    def name(self) -> str:
        """``who``, with ``@host`` for an OS user: how a person reads the answerer."""
        return _name(self.who, self.host)

    def to_wire(self) -> dict[str, Any]:
        """The JSON-native wire form (camelCase keys, absent fields left out)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


def environment_identity() -> tuple[str, str | None]:
    """``(who, host)`` of this process: ``$IPYASK_USER`` when set, else the JupyterHub user when
    the kernel runs under one (``host`` ``None`` for both), else the OS user and this machine's
    name."""
    for variable in (USER_VARIABLE, JUPYTER_USER_VARIABLE):
        named = os.environ.get(variable, "").strip()
        if named:
            return named, None
    try:
        user = _os_user()
    except (KeyError, OSError):  # no name for this uid (a bare container): say the uid
        user = f"uid-{os.getuid()}" if hasattr(os, "getuid") else "unknown"
    return user, socket.gethostname()


_LOGIN_VARIABLES = ("LOGNAME", "USER", "LNAME", "USERNAME")
"""Where :func:`getpass.getuser` looks first, in its order."""


def _os_user() -> str:
    """:func:`getpass.getuser`, with the account database read once per uid: it is asked at
    every answer, and a look-up there (``getpwuid``) can cost a millisecond."""
    for variable in _LOGIN_VARIABLES:
        named = os.environ.get(variable)
        if named:
            return named
    if not hasattr(os, "getuid"):
        return getpass.getuser()  # raises OSError: no variable names the user
    return _account_of(os.getuid())


@functools.cache
def _account_of(uid: int) -> str:
    import pwd  # POSIX only (os.getuid is too)

    return pwd.getpwuid(uid).pw_name


_CANONICAL = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False, check_circular=False
)
"""Made once: ``json.dumps`` with options makes an encoder at every call (every answer). Wire
questions (JSON) hold no cycles to check for."""

_CANONICAL_CHUNKS = one_pass(_CANONICAL)


def card_digest(questions: Sequence[Mapping[str, Any]]) -> str:
    """The digest of a card's questions (wire form): SHA-256 of their canonical JSON (keys
    sorted, no spaces, UTF-8), as ``sha256:<hex>``. The same questions give the same digest in
    any process and any version of Python."""
    canonical = "".join(_CANONICAL_CHUNKS([dict(question) for question in questions], 0))
    return DIGEST_PREFIX + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def answered_by(
    door: Door,
    questions: Sequence[Mapping[str, Any]] | None = None,
    *,
    who: str | None = None,
    at: float | None = None,
    identity: tuple[str, str | None] | None = None,
) -> AnsweredBy:
    """The record of a settlement through ``door`` now (or at ``at``) of the card of
    ``questions``. ``who`` names a known identity (a Jupyter user's); else ``identity``, the
    ``(who, host)`` of :func:`environment_identity` read earlier; by default the environment's
    now."""
    if who is not None:
        if not isinstance(who, str) or not who.strip():
            raise ValueError(f"who must name the answerer (a non-empty string), not {who!r}")
        name, host = who, None
    else:
        name, host = identity if identity is not None else environment_identity()
    return AnsweredBy(
        who=name,
        host=host,
        at=time.time() if at is None else at,
        door=door,
        digest=None if questions is None else card_digest(questions),
    )


class Attribution:
    """Who settles a question (``who``, ``host``), when (``at``) and through which ``door``, with
    the card they saw: an :class:`AnsweredBy` not made yet.

    :meth:`record` makes it, once, when something keeps it (a durable question's record, a
    settlement's :attr:`~ipyask.host.Settlement.answered_by` when read). The card's digest is
    most of its cost, and a question that is not durable keeps no record: its transcript line
    needs only who answered and the door. ``questions`` gives the card's questions in wire
    form when the record is made (``None``: no card was shown).
    """

    __slots__ = ("_questions", "_record", "at", "door", "host", "who")

    def __init__(
        self,
        door: Door,
        questions: Callable[[], Sequence[Mapping[str, Any]]] | None,
        *,
        identity: tuple[str, str | None],
    ) -> None:
        self.who, self.host = identity
        self.door = door
        self.at = time.time()
        self._questions = questions
        self._record: AnsweredBy | None = None

    @property
    def name(self) -> str:
        """As :attr:`AnsweredBy.name`."""
        return _name(self.who, self.host)

    def record(self) -> AnsweredBy:
        """The :class:`AnsweredBy` (made at the first call, with the card's digest)."""
        made = self._record
        if made is None:
            questions = self._questions
            made = self._record = answered_by(
                self.door,
                None if questions is None else questions(),
                at=self.at,
                identity=(self.who, self.host),
            )
        return made


Answerer = AnsweredBy | Attribution
"""Who settled a question and through which door (``who``, ``host``, ``name``, ``door``): its
record, or what the record is made from."""
