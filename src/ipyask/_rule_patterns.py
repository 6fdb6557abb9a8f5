"""The approval rules' pattern language, and what a scoped Always allow asks for.

See :mod:`ipyask._rules` for the language; this module depends on nothing of ipyask's but its
errors and field problems, so the answer checks can read a scoped Always allow without the
rules' service machinery.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ._field_problems import FieldProblem
from .errors import RulesError

__all__ = [
    "KINDS",
    "SESSION_SOURCE",
    "AlwaysScope",
    "Rule",
    "RuleKind",
    "ScopeKind",
    "parse_rule",
    "read_always_scope",
    "suggest_rule",
]

RuleKind = Literal["allow", "deny", "ask"]
KINDS: tuple[RuleKind, ...] = ("allow", "deny", "ask")

SESSION_SOURCE = "this session"
"""The source of a rule added for the session only (kept in memory until the process ends)."""

ScopeKind = Literal["session", "saved"]
"""How long an Always allow's rule lasts: this session, or saved to the rules file."""

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

    @property
    def patterns(self) -> dict[str, str]:
        """Each argument's glob, by the argument's name (``{}``: any arguments)."""
        return {key: glob for key, glob, _ in self._arguments}

    def covers_every_call(self, tool_name: str) -> bool:
        """Whether this rule is about every call of ``tool_name``, whatever its arguments (its
        name matches and it has no argument patterns)."""
        return not self._arguments and self._name.fullmatch(tool_name) is not None

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


# -- scoped Always allow ------------------------------------------------------------------------

_PATH_KEYS = frozenset(
    ("path", "file", "file_path", "filepath", "filename", "dir", "directory", "folder", "cwd")
)
_TEXT_KEYS = frozenset(("command", "cmd", "url", "query", "pattern", "glob"))
_KEY_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")


def _folder_glob(path: str) -> str:
    """``notes/a.md`` → ``notes/**``; a bare name or a path that climbs stays as it is."""
    folder = posixpath.dirname(path.rstrip("/"))
    if not folder or _climbs(path):
        return path
    return f"{folder.rstrip('/')}/**" if folder != "/" else "/**"


def suggest_rule(tool_name: str, arguments: Mapping[str, Any]) -> str | None:
    """The allow rule Always allow suggests for this call: the tool's name, with its path
    arguments' folders (``write_file(path="notes/**")``) and its command-like arguments as they
    are; ``None`` when no rule can name the tool. The person narrows it before it is added."""
    if _NAME.fullmatch(tool_name) is None:
        return None
    patterns = []
    for key, value in arguments.items():
        if not isinstance(value, str) or _KEY_NAME.fullmatch(key) is None:
            continue
        if key in _PATH_KEYS:
            patterns.append(f"{key}={json.dumps(_folder_glob(value), ensure_ascii=False)}")
        elif key in _TEXT_KEYS:
            patterns.append(f"{key}={json.dumps(value, ensure_ascii=False)}")
    text = f"{tool_name}({', '.join(patterns)})" if patterns else tool_name
    if not parse_rule("allow", text).matches(tool_name, arguments):
        return tool_name  # a value a glob cannot spell (a `..`): the name alone
    return text


@dataclass(frozen=True)
class AlwaysScope:
    """What an Always allow with a scope asks for: the allow rule, and how long it lasts."""

    scope: ScopeKind
    rule: Rule


def read_always_scope(
    tool_name: str, arguments: Mapping[str, Any], custom: str
) -> AlwaysScope | FieldProblem:
    """The scope in an Always allow's ``custom`` (JSON ``{"scope": "session" | "saved",
    "rule": "…"}``): an allow rule that matches this call; else what is wrong with it."""
    try:
        value = json.loads(custom)
    except json.JSONDecodeError:
        value = None
    if (
        not isinstance(value, dict)
        or value.get("scope") not in ("session", "saved")
        or not isinstance(value.get("rule"), str)
        or set(value) != {"scope", "rule"}
    ):
        return FieldProblem("bad-always-scope")
    scope: ScopeKind = "session" if value["scope"] == "session" else "saved"
    try:
        rule = parse_rule("allow", value["rule"], SESSION_SOURCE)
    except RulesError as error:
        detail = str(error).split(": ", 2)[-1]  # the problem, without where and which rule
        return FieldProblem("bad-rule", {"detail": detail})
    if not rule.matches(tool_name, arguments):
        return FieldProblem("rule-misses-call", {"rule": rule.text})
    return AlwaysScope(scope, rule)
