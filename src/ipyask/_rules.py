"""Approval rules a person can read: allow, deny or ask for tool calls, before any card.

A rule names a tool and, optionally, patterns for its arguments, in the shapes of Claude Code's
permission rules::

    read_file                                   any call of read_file
    mcp__github__*                              any tool whose name matches the glob
    write_file(path="notes/**")                 write_file with a path under notes/
    shell(command="git status*")                shell with a command starting "git status"
    write_file(path="notes/**", overwrite="false")   every argument pattern must match

Globs: ``*`` is any run of characters except ``/``, ``**`` anything including ``/``, ``?`` one
character except ``/``; everything else stands for itself and a pattern matches the whole value.
A pattern is a double-quoted string (JSON escapes). A string argument is matched as it is; any
other value as its compact JSON text with sorted keys (``false``, ``3``, ``["a","b"]``). A call
without a named argument does not match the rule. An allow rule does not match a value with a
``..`` path segment unless its pattern has one: ``notes/**`` does not allow ``notes/../secrets``
(deny and ask rules match it as text).

Deny wins over ask and ask over allow: an ``ask`` rule sends a call to the person even when an
allow rule matches it. A call no rule matches goes on down the waterfall as if there were no
rules. :meth:`Rules.register` answers only a request whose questions are all tool approvals
that rules allow or deny; any other request (a question no rule decides, an ``ask`` rule, a
plain question) goes on down the waterfall whole, so the person sees it as one card batch.

Rules live in a TOML file of top-level arrays (``$IPYASK_RULES``, else ``.ipyask/rules.toml``)::

    allow = ['read_file', 'write_file(path="notes/**")']
    deny = ['shell(command="rm *")']
    ask = ['write_file(path="notes/secrets/**")']
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

from ._agents import Agent
from ._answered_by import answered_by
from ._decisions import tool_answer_item
from ._service import UserQuestions
from ._vocabulary import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    ToolApprovalIntent,
)
from ._waterfall import Next, _Chain
from .errors import RulesError
from .store._sqlite import DEFAULT_SQLITE_PATH

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the package's 3.10 dependency
    import tomli as tomllib

__all__ = [
    "DEFAULT_RULES_PATH",
    "ENVIRONMENT_VARIABLE",
    "AppliedRule",
    "Rule",
    "RuleDecision",
    "RuleKind",
    "Rules",
    "RulesError",
    "parse_rule",
]

RuleKind = Literal["allow", "deny", "ask"]
KINDS: tuple[RuleKind, ...] = ("allow", "deny", "ask")

DEFAULT_RULES_PATH = DEFAULT_SQLITE_PATH.parent / "rules.toml"
"""Where the default rules live: next to the default store."""
ENVIRONMENT_VARIABLE = "IPYASK_RULES"
MAX_DECISIONS = 1000
"""How many automatic decisions :attr:`Rules.decisions` keeps (the oldest go first)."""

logger = logging.getLogger("ipyask.rules")


# -- the pattern language ----------------------------------------------------------------------

_NAME = re.compile(r"[A-Za-z0-9_.:\-*?]+")
_KEY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_\-]*)\s*=\s*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_SEPARATOR = re.compile(r"\s*(,|\))")


def _glob(pattern: str) -> re.Pattern[str]:
    """The regular expression of glob ``pattern`` (see the module's docstring)."""
    parts: list[str] = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**", index):
            parts.append(".*")
            index += 2
            continue
        char = pattern[index]
        parts.append("[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char))
        index += 1
    return re.compile("".join(parts), re.DOTALL)


_PARENT_SEGMENT = re.compile(r"(?:^|[/\\\s])\.\.(?:[/\\\s]|$)")


def _climbs(text: str) -> bool:
    """Whether ``text`` has a ``..`` path segment."""
    return _PARENT_SEGMENT.search(text) is not None


def _argument_text(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True)
class Rule:
    """One rule: its ``kind``, its ``text`` as written and where it was written."""

    kind: RuleKind
    text: str
    source: str
    line: int | None
    _name: re.Pattern[str] = field(repr=False, compare=False)
    _arguments: tuple[tuple[str, str, re.Pattern[str]], ...] = field(repr=False, compare=False)
    """Each argument's name, glob and the glob's regular expression."""

    @property
    def where(self) -> str:
        """``file:line`` (just the file when the line is unknown)."""
        return f"{self.source}:{self.line}" if self.line is not None else self.source

    def matches(self, tool_name: str, arguments: Mapping[str, Any]) -> bool:
        """Whether a call of ``tool_name`` with ``arguments`` is one this rule is about."""
        if self._name.fullmatch(tool_name) is None:
            return False
        for key, glob, pattern in self._arguments:
            if key not in arguments:
                return False
            text = _argument_text(arguments[key])
            if pattern.fullmatch(text) is None:
                return False
            if self.kind == "allow" and _climbs(text) and not _climbs(glob):
                return False  # notes/** must not allow notes/../secrets
        return True

    def __str__(self) -> str:
        return f"{self.kind} {self.text} ({self.where})"


def parse_rule(
    kind: RuleKind, text: str, source: str = "<string>", line: int | None = None
) -> Rule:
    """The rule ``text`` of ``kind``; raises :class:`RulesError` naming what is wrong."""
    where = f"{source}:{line}" if line is not None else source

    def error(problem: str) -> RulesError:
        return RulesError(f"{where}: {kind} rule {text!r}: {problem}")

    stripped = text.strip()
    name = _NAME.match(stripped)
    if name is None:
        raise error(
            "a rule starts with a tool name or a glob of one (letters, digits, _ . : - * ?)"
        )
    rest = stripped[name.end() :]
    arguments: dict[str, tuple[str, re.Pattern[str]]] = {}
    if rest:
        if not rest.startswith("("):
            raise error(f"unexpected {rest[0]!r} after the tool name; arguments go in (...)")
        position = 1
        while True:
            key = _KEY.match(rest, position)
            if key is None:
                raise error(
                    f'expected an argument as name="pattern" at {rest[position:] or "the end"!r}'
                )
            value = _STRING.match(rest, key.end())
            if value is None:
                raise error(
                    f'the pattern of argument {key.group(1)} must be a "double-quoted" string'
                )
            if key.group(1) in arguments:
                raise error(f"argument {key.group(1)} is named twice")
            glob = json.loads(value.group())
            arguments[key.group(1)] = (glob, _glob(glob))
            separator = _SEPARATOR.match(rest, value.end())
            if separator is None:
                raise error(f"expected , or ) after the pattern of argument {key.group(1)}")
            position = separator.end()
            if separator.group(1) == ")":
                break
        if rest[position:].strip():
            raise error(f"unexpected {rest[position:].strip()!r} after the closing )")
    patterns = tuple((key, glob, compiled) for key, (glob, compiled) in arguments.items())
    return Rule(kind, stripped, source, line, _glob(name.group()), patterns)


@dataclass(frozen=True)
class RuleDecision:
    """What the rules decide about a call: ``allow``, ``deny`` or ``ask``, and by which rule."""

    kind: RuleKind
    rule: Rule


@dataclass(frozen=True)
class AppliedRule:
    """A tool call the rules answered without asking the person: the question and the answer
    item given for it."""

    tool_name: str
    arguments: dict[str, Any]
    decision: RuleDecision
    question: AskUserQuestionItem = field(repr=False, compare=False)
    item: AskUserQuestionAnswerItem = field(repr=False, compare=False)

    def __str__(self) -> str:
        verb = "allowed" if self.decision.kind == "allow" else "denied"
        rule = self.decision.rule
        return f"{verb} {self.tool_name} by rule {rule.text} ({rule.where})"


# -- reading a file ----------------------------------------------------------------------------

_TOML_STRING = re.compile(r"""'[^'\n]*'|"(?:[^"\\\n]|\\.)*\"""")
_TOML_ERROR_LINE = re.compile(r"\(at line (\d+), column \d+\)")


def _key_line(lines: list[str], key: str) -> int | None:
    """The 1-based line where top-level ``key`` is set, if it can be found."""
    pattern = re.compile(
        rf"""\s*(?:{re.escape(key)}|"{re.escape(key)}"|'{re.escape(key)}')\s*[=.]"""
    )
    header = re.compile(rf"\s*\[\s*{re.escape(key)}\s*[\].]")
    for number, line in enumerate(lines, 1):
        if pattern.match(line) or header.match(line):
            return number
    return None


def _decoded(token: str) -> str | None:
    try:
        value = tomllib.loads(f"v = {token}")["v"]
    except tomllib.TOMLDecodeError:
        return None
    return value if isinstance(value, str) else None


def _string_lines(lines: list[str], start: int, strings: list[str]) -> list[int]:
    """The line of each of ``strings``, found in order from line ``start`` (its key's) on;
    ``start`` for a string written in a way this does not follow (a multi-line string)."""
    found: list[int] = []
    number, column = start, 0
    for wanted in strings:
        here: int | None = None
        line_number, line_column = number, column
        while here is None and line_number <= len(lines):
            for match in _TOML_STRING.finditer(lines[line_number - 1], line_column):
                if _decoded(match.group()) == wanted:
                    here, number, column = line_number, line_number, match.end()
                    break
            else:
                line_number, line_column = line_number + 1, 0
        found.append(here if here is not None else start)
    return found


def _parse_file(text: str, source: str) -> list[Rule]:
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        line = _TOML_ERROR_LINE.search(message)
        where = f"{source}:{line.group(1)}" if line else source
        problem = _TOML_ERROR_LINE.sub("", message).strip()
        raise RulesError(f"{where}: not valid TOML: {problem}") from None
    lines = text.splitlines()
    rules: list[Rule] = []
    for key, value in document.items():
        key_line = _key_line(lines, key)
        where = f"{source}:{key_line}" if key_line is not None else source
        if key not in KINDS:
            raise RulesError(
                f"{where}: unknown key {key!r}; a rules file holds only the arrays "
                "allow = [...], deny = [...] and ask = [...]"
            )
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise RulesError(
                f'{where}: {key} must be an array of rule strings, e.g. {key} = ["read_file"]'
            )
        kind = next(known for known in KINDS if known == key)
        strings: list[str] = value
        found = _string_lines(lines, key_line or 1, strings)
        for string, string_line in zip(strings, found, strict=True):
            rules.append(parse_rule(kind, string, source, string_line))
    return rules


# -- the rules ---------------------------------------------------------------------------------


class Rules:
    """Allow, deny and ask rules over tool approvals (see :mod:`ipyask._rules`'s docstring for
    the pattern language). :meth:`load` reads the rules file; :meth:`register` puts the rules
    first in a service's waterfall."""

    def __init__(self, rules: Iterable[Rule] = ()) -> None:
        self.rules: tuple[Rule, ...] = tuple(rules)
        self._decisions: deque[AppliedRule] = deque(maxlen=MAX_DECISIONS)
        self._listeners: list[Callable[[AppliedRule], object]] = []

    @classmethod
    def parse(cls, text: str, source: str = "<string>") -> Rules:
        """The rules in TOML ``text``; raises :class:`RulesError` naming ``source:line``."""
        return cls(_parse_file(text, source))

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> Rules:
        """The rules in ``path``, else in ``$IPYASK_RULES``, else in ``.ipyask/rules.toml``.

        A missing default file is no rules; a missing file named by ``path`` or
        ``$IPYASK_RULES`` is a :class:`RulesError`, as is a malformed file or rule."""
        chosen = path if path is not None else os.environ.get(ENVIRONMENT_VARIABLE) or None
        file = Path(chosen) if chosen is not None else DEFAULT_RULES_PATH
        try:
            text = file.read_text(encoding="utf-8")
        except FileNotFoundError:
            if chosen is None:
                return cls()
            named = "$IPYASK_RULES" if path is None else "the path given"
            raise RulesError(
                f"{file}: no such rules file ({named}); create it or point {named} at one"
            ) from None
        except (OSError, UnicodeDecodeError) as error:
            raise RulesError(f"{file}: cannot read the rules file: {error}") from None
        return cls.parse(text, str(file))

    def __len__(self) -> int:
        return len(self.rules)

    def __repr__(self) -> str:
        return f"Rules({[str(rule) for rule in self.rules]})"

    @property
    def decisions(self) -> list[AppliedRule]:
        """The tool calls answered by rules without a card, oldest first (the latest
        :data:`MAX_DECISIONS`)."""
        return list(self._decisions)

    def on_decision(self, listener: Callable[[AppliedRule], object]) -> Callable[[], None]:
        """Call ``listener`` with each call the rules answer from now on (after it is logged);
        returns the function that stops it. A listener's error is logged, never the asker's."""
        self._listeners.append(listener)

        def dispose() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return dispose

    def decide(self, tool_name: str, arguments: Mapping[str, Any]) -> RuleDecision | None:
        """What the rules say about calling ``tool_name`` with ``arguments``: the first
        matching deny, else the first ask, else the first allow; ``None`` when none matches."""
        first: dict[RuleKind, Rule] = {}
        for rule in self.rules:
            if rule.kind not in first and rule.matches(tool_name, arguments):
                first[rule.kind] = rule
        for kind in ("deny", "ask", "allow"):
            if kind in first:
                return RuleDecision(kind, first[kind])
        return None

    def register(self, service: UserQuestions, *, agent: Agent | None = None) -> Callable[[], None]:
        """Put these rules first in ``service``'s waterfall (for ``agent`` and the agents it
        owns, or every request); returns the function that takes them out.

        A request whose questions are all tool approvals that rules allow (answered with the
        card's approve decision) or deny (its reject decision, with the reason "Denied by rule
        …") is answered without a card. Anything else goes on down the waterfall whole: a
        question no rule decides, an ``ask`` rule, a card that does not offer the decision."""
        return service.on_request(
            partial(self._answerer, service=service), agent=agent, prepend=True
        )

    def _applied(self, question: AskUserQuestionItem) -> AppliedRule | None:
        """The rules' answer to ``question``; ``None`` when the person is to decide."""
        intent = question.intent
        if not isinstance(intent, ToolApprovalIntent):
            return None
        decision = self.decide(intent.tool.name, intent.tool.arguments)
        if decision is None or decision.kind == "ask":
            return None
        needed = "approve" if decision.kind == "allow" else "reject"
        if needed not in intent.decision_labels():
            return None  # the person decides: a card without reject is never allowed instead
        if decision.kind == "allow":
            item = tool_answer_item(question, "approve")
        else:
            rule = decision.rule
            reason = f"Denied by rule {rule.text} ({rule.where})"
            item = tool_answer_item(question, "reject", message=reason)
        tool = intent.tool
        return AppliedRule(tool.name, dict(tool.arguments), decision, question, item)

    def _answerer(
        self, request: AskUserQuestionRequest, next: Next, *, service: UserQuestions | None = None
    ) -> AskUserQuestionAnswer | Awaitable[AskUserQuestionAnswer]:
        applied = [self._applied(question) for question in request.questions]
        decided = [done for done in applied if done is not None]
        if len(decided) < len(applied):
            # The waterfall's own next calls the next answerer now: a panel shows its card in
            # this turn of the loop, as when no rules come first.
            return next.call_next() if isinstance(next, _Chain) else next()
        for done in decided:
            self._decisions.append(done)
            logger.info("%s", done)
            for listener in list(self._listeners):
                try:
                    listener(done)
                except Exception:  # a record that fails to show must not fail the answer
                    logger.exception("a listener of the approval rules failed")
        if service is not None:  # a durable question's record says the rules answered it
            service.attribute(
                request, answered_by("rule", [q.to_wire() for q in request.questions])
            )
        return AskUserQuestionAnswer(answers=[done.item for done in decided])
