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
import weakref
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ._agents import Agent
from ._answered_by import answered_by
from ._decisions import tool_answer_item
from ._rule_patterns import (
    KINDS,
    SESSION_SOURCE,
    AlwaysScope,
    Rule,
    RuleKind,
    ScopeKind,
    parse_rule,
    read_always_scope,
    suggest_rule,
)
from ._service import UserQuestions
from ._vocabulary import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    ToolApprovalIntent,
)
from ._waterfall import Next, _Chain
from .errors import RulesError, RulesFileChangedError
from .store._sqlite import DEFAULT_SQLITE_PATH

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the package's 3.10 dependency
    import tomli as tomllib

__all__ = [
    "DEFAULT_RULES_PATH",
    "ENVIRONMENT_VARIABLE",
    "SESSION_SOURCE",
    "AlwaysScope",
    "AppliedRule",
    "Rule",
    "RuleDecision",
    "RuleKind",
    "Rules",
    "RulesError",
    "RulesFileChangedError",
    "ScopeKind",
    "parse_rule",
    "read_always_scope",
    "rules_of",
    "suggest_rule",
]


DEFAULT_RULES_PATH = DEFAULT_SQLITE_PATH.parent / "rules.toml"
"""Where the default rules live: next to the default store."""
ENVIRONMENT_VARIABLE = "IPYASK_RULES"
MAX_DECISIONS = 1000
"""How many automatic decisions :attr:`Rules.decisions` keeps (the oldest go first)."""


logger = logging.getLogger("ipyask.rules")


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


def _toml_string(text: str) -> str:
    """``text`` as a TOML string: literal (single quotes keep double quotes readable) when it
    can be, else basic (JSON's escapes are TOML's)."""
    if "'" not in text and not any(ord(char) < 32 or ord(char) == 127 for char in text):
        return f"'{text}'"
    return json.dumps(text, ensure_ascii=False)


def _skip_string(text: str, index: int) -> int:
    """The index just after the TOML string that starts at ``index``."""
    for quotes in ('"""', "'''"):
        if text.startswith(quotes, index):
            end = text.find(quotes, index + 3)
            return len(text) if end < 0 else end + 3
    quote = text[index]
    position = index + 1
    while position < len(text) and text[position] != quote:
        position += 2 if quote == '"' and text[position] == "\\" else 1
    return position + 1


def _array_insertion(text: str, opening: int) -> tuple[int, bool]:
    """Where to insert an item in the TOML array opened at ``opening``: just after its last
    item (or the ``[`` of an empty one), and whether a comma is needed first."""
    depth, last, position = 0, opening, opening
    while position < len(text):
        char = text[position]
        if char == "#":
            newline = text.find("\n", position)
            position = len(text) if newline < 0 else newline
            continue
        if char in "'\"":
            position = _skip_string(text, position)
            last = position - 1
            continue
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return last + 1, text[last] not in "[,"
        if not char.isspace():
            last = position
        position += 1
    raise RulesError("the allow array is not closed")


def _with_allow(text: str, rule: str, source: str) -> str:
    """The rules file ``text`` with ``rule`` added at the end of its ``allow`` array (made
    when there is none); comments and layout are kept."""
    string = _toml_string(rule)
    document = tomllib.loads(text)
    if "allow" not in document:
        lead = "" if not text or text.endswith("\n") else "\n"
        return f"{text}{lead}allow = [{string}]\n"
    lines = text.splitlines(keepends=True)
    line = _key_line([line.rstrip("\r\n") for line in lines], "allow")
    if line is None:
        raise RulesError(f"{source}: cannot find where the allow array is written")
    start = sum(len(before) for before in lines[: line - 1])
    opening = text.index("[", text.index("=", start))
    at, comma = _array_insertion(text, opening)
    lead = ", " if comma else " " if text[at - 1] == "," else ""
    return f"{text[:at]}{lead}{string}{text[at:]}"


def _without_rule(text: str, rule: Rule) -> str | None:
    """The rules file ``text`` without ``rule``'s string on its line (with its comma); the line
    goes too when nothing but the string (and a comment) was on it. ``None`` when the string is
    not found on that line."""
    assert rule.line is not None
    lines = text.splitlines(keepends=True)
    if rule.line > len(lines):
        return None
    line = lines[rule.line - 1]
    token = next((m for m in _TOML_STRING.finditer(line) if _decoded(m.group()) == rule.text), None)
    if token is None:
        return None
    start, end = token.span()
    after = re.compile(r"[ \t]*,[ \t]*").match(line, end)
    if after is not None:
        end = after.end()
    else:
        before = re.search(r",[ \t]*$", line[:start])
        if before is not None and line[: before.start()].strip():
            start = before.start()
    rest = line[:start] + line[end:]
    code = rest.split("#", 1)[0] if "'" not in rest and '"' not in rest else rest
    if not code.strip():
        del lines[rule.line - 1]  # the rule's own line: it goes, with its comment
    else:
        lines[rule.line - 1] = rest
    return "".join(lines)


_REGISTERED: weakref.WeakKeyDictionary[UserQuestions, Rules] = weakref.WeakKeyDictionary()


def rules_of(service: UserQuestions) -> Rules | None:
    """The rules registered on ``service`` for every request (the ones an Always allow adds
    to), if any."""
    return _REGISTERED.get(service)


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

    def __init__(
        self, rules: Iterable[Rule] = (), *, path: str | os.PathLike[str] | None = None
    ) -> None:
        self.rules: tuple[Rule, ...] = tuple(rules)
        self.path = Path(path) if path is not None else None
        """The rules file: where :meth:`add` saves a rule (``None``: rules not from a file)."""
        self._file_text: str | None = None
        """The rules file as this object last read or wrote it (``None``: not read)."""
        self._decisions: deque[AppliedRule] = deque(maxlen=MAX_DECISIONS)
        self._listeners: list[Callable[[AppliedRule], object]] = []
        self._watchers: list[Callable[[], object]] = []

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
                return cls(path=file)  # a rule saved later creates it
            named = "$IPYASK_RULES" if path is None else "the path given"
            raise RulesError(
                f"{file}: no such rules file ({named}); create it or point {named} at one"
            ) from None
        except (OSError, UnicodeDecodeError) as error:
            raise RulesError(f"{file}: cannot read the rules file: {error}") from None
        loaded = cls(_parse_file(text, str(file)), path=file)
        loaded._file_text = text
        return loaded

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

    def on_change(self, watcher: Callable[[], object]) -> Callable[[], None]:
        """Call ``watcher`` after each rule :meth:`add` adds or :meth:`remove` removes (a panel
        keeps its list of the rules in force with it); returns the function that stops it."""
        self._watchers.append(watcher)

        def dispose() -> None:
            if watcher in self._watchers:
                self._watchers.remove(watcher)

        return dispose

    def _changed(self) -> None:
        for watcher in list(self._watchers):
            try:
                watcher()
            except Exception:  # a list that fails to show must not fail the change
                logger.exception("a watcher of the approval rules failed")

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
        off = service.on_request(
            partial(self._answerer, service=service), agent=agent, prepend=True
        )
        if agent is not None:
            return off
        _REGISTERED[service] = self

        def unregister() -> None:
            off()
            if _REGISTERED.get(service) is self:
                del _REGISTERED[service]

        return unregister

    def add(self, text: str, scope: ScopeKind = "session") -> Rule:
        """Add the allow rule ``text``: for this session (in memory, until the process ends) or
        ``"saved"``: appended to the ``allow`` array of :attr:`path` (created when missing),
        the file checked as :meth:`load` checks it before it is written. Raises
        :class:`RulesError` naming what is wrong (nothing is added then)."""
        if scope == "session":
            rule = parse_rule("allow", text, SESSION_SOURCE)
        elif scope == "saved":
            rule = self._save(text)
        else:
            raise ValueError(f"scope must be 'session' or 'saved', not {scope!r}")
        self.rules = (*self.rules, rule)
        logger.info("added %s", rule)
        self._changed()
        return rule

    def _save(self, text: str) -> Rule:
        path = self.path
        if path is None:
            raise RulesError(
                "these rules were not loaded from a file, so a rule cannot be saved: load them "
                "with Rules.load(path), or add it for this session"
            )
        rule = parse_rule("allow", text, str(path))
        try:
            before = path.read_text(encoding="utf-8") if path.exists() else ""
        except (OSError, UnicodeDecodeError) as error:
            raise RulesError(f"{path}: cannot read the rules file: {error}") from None
        _parse_file(before, str(path))  # a file broken since it was loaded is not written over
        after = _with_allow(before, rule.text, str(path))
        saved = [known for known in _parse_file(after, str(path)) if known.kind == "allow"]
        if not saved or saved[-1].text != rule.text:
            raise RulesError(f"{path}: the rule {rule.text} could not be added to allow")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            saving = path.with_name(f".{path.name}.saving")
            saving.write_text(after, encoding="utf-8")
            os.replace(saving, path)
        except OSError as error:
            raise RulesError(f"{path}: cannot write the rules file: {error}") from None
        self._file_text = after
        return saved[-1]

    def remove(self, rule: Rule, *, from_file: bool = False) -> bool:
        """Take ``rule`` out of the rules in force; returns whether it was in force.

        A rule of the rules file stays in the file (read again when the process starts) unless
        ``from_file``: then it is deleted there too, every other line, comment and the order
        kept. A file that changed on disk since these rules read or wrote it is not written
        over (:class:`RulesFileChangedError`), nor one the rule cannot be taken out of safely
        (:class:`RulesError`); the rule then stays in force too."""
        if rule not in self.rules:
            return False
        if from_file and self.in_file(rule):
            self._delete_from_file(rule)
        else:
            index = self.rules.index(rule)
            self.rules = self.rules[:index] + self.rules[index + 1 :]
        logger.info("removed %s", rule)
        self._changed()
        return True

    def in_file(self, rule: Rule) -> bool:
        """Whether ``rule`` is written in :attr:`path` (loaded from it, or saved there)."""
        return self.path is not None and rule.source == str(self.path)

    def _delete_from_file(self, rule: Rule) -> None:
        path = self.path
        assert path is not None and rule.line is not None  # a rule of the file has its line
        try:
            now = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise RulesError(f"{path}: cannot read the rules file: {error}") from None
        if now != self._file_text:
            raise RulesFileChangedError(
                f"{path} changed on disk since this kernel read it: the rule {rule.text} was "
                "not removed (nothing was changed); delete it there, or restart the kernel to "
                "read the file again"
            )
        kept = _parse_file(now, str(path))
        after_text = _without_rule(now, rule) if rule in kept else None
        try:
            after = _parse_file(after_text, str(path)) if after_text is not None else None
        except RulesError:  # what is left would not load: the file is not touched
            after = None
        if after is not None:
            kept.remove(rule)
        if (
            after is None
            or after_text is None
            or [(k.kind, k.text) for k in after] != [(k.kind, k.text) for k in kept]
        ):
            raise RulesError(
                f"{path}:{rule.line}: the rule {rule.text} cannot be taken out of the file "
                "safely (nothing was changed); delete it there"
            )
        try:
            saving = path.with_name(f".{path.name}.saving")
            saving.write_text(after_text, encoding="utf-8")
            os.replace(saving, path)
        except OSError as error:
            raise RulesError(f"{path}: cannot write the rules file: {error}") from None
        self._file_text = after_text
        # The file's other rules may have moved up a line: they are its rules as read now.
        moved = dict(zip(kept, after, strict=True))
        self.rules = tuple(moved.get(known, known) for known in self.rules if known != rule)

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
