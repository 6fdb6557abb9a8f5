"""A small JSON Schema checker for a tool's arguments (no dependency, a documented subset).

A tool's ``inputSchema`` may be any JSON Schema. Edited arguments are checked against these
keywords: ``type`` (one or a list), ``enum``, ``const``, ``properties``, ``required``,
``additionalProperties``, ``items``, ``minItems``, ``maxItems``, ``uniqueItems``, ``minLength``,
``maxLength``, ``pattern``, ``format`` (email, uri, date, date-time), ``minimum``, ``maximum``,
``exclusiveMinimum``, ``exclusiveMaximum``, ``allOf``, ``anyOf``, ``oneOf``, ``not`` and local
``$ref`` (``#/$defs/…``, ``#/definitions/…``). Other keywords are not checked; the tool itself
still validates what it receives.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from ._field_problems import FieldProblem, FieldProblemCode
from ._form_schema import check_format, min_length_problem

__all__ = ["json_schema_errors", "json_schema_problems"]

_TYPES: dict[str, Callable[[object], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and math.isfinite(v) and v.is_integer())
    ),
}


def json_schema_errors(schema: object, value: object) -> list[tuple[str, str]]:
    """``(path, message)`` for each problem of ``value`` against ``schema``; empty when valid.

    ``path`` is slash-separated from the root (``""``, ``"paths/0"``).
    """
    return [(path, problem.text()) for path, problem in json_schema_problems(schema, value)]


def json_schema_problems(schema: object, value: object) -> list[tuple[str, FieldProblem]]:
    """:func:`json_schema_errors` as codes, for a text in another language."""
    return _Checker(schema).errors(schema, value, "")


def _join(path: str, key: object) -> str:
    return f"{path}/{key}" if path else str(key)


def _same(a: object, b: object) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


class _Checker:
    def __init__(self, root: object) -> None:
        self.root = root

    def resolve(self, ref: str) -> object:
        node: object = self.root
        if not ref.startswith("#"):
            return True  # a remote reference is not followed (not checked)
        for part in ref.lstrip("#").split("/"):
            if not part:
                continue
            key = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, Mapping) or key not in node:
                return True
            node = node[key]
        return node

    def errors(self, schema: object, value: object, path: str) -> list[tuple[str, FieldProblem]]:
        if schema is True or schema is None:
            return []
        if schema is False:
            return [(path, FieldProblem("not-allowed"))]
        if not isinstance(schema, Mapping):
            return []
        if isinstance(schema.get("$ref"), str):
            found = self.errors(self.resolve(schema["$ref"]), value, path)
            if found:
                return found
        problem = self._scalar_problem(schema, value)
        if problem is not None:
            return [(path, problem)]
        found = self._combinator_errors(schema, value, path)
        if isinstance(value, dict):
            found += self._object_errors(schema, value, path)
        elif isinstance(value, list):
            found += self._array_errors(schema, value, path)
        return found

    def _scalar_problem(self, schema: Mapping[str, Any], value: object) -> FieldProblem | None:
        kinds = schema.get("type")
        if isinstance(kinds, str):
            kinds = [kinds]
        if isinstance(kinds, list) and not any(
            kind in _TYPES and _TYPES[kind](value) for kind in kinds
        ):
            return FieldProblem("wrong-type", {"types": tuple(map(str, kinds))})
        options = schema.get("enum")
        if isinstance(options, list) and not any(_same(value, option) for option in options):
            shown = ", ".join(json.dumps(option) for option in options)
            return FieldProblem("not-an-option", {"options": shown})
        if "const" in schema and not _same(value, schema["const"]):
            return FieldProblem("not-the-constant", {"value": json.dumps(schema["const"])})
        if isinstance(value, str):
            return _string_problem(schema, value)
        if _TYPES["number"](value):
            assert isinstance(value, (int, float))
            return _number_problem(schema, value)
        return None

    def _combinator_errors(
        self, schema: Mapping[str, Any], value: object, path: str
    ) -> list[tuple[str, FieldProblem]]:
        found: list[tuple[str, FieldProblem]] = []
        for branch in schema.get("allOf") or []:
            found += self.errors(branch, value, path)
        branches = schema.get("anyOf")
        if (
            isinstance(branches, list)
            and branches
            and all(self.errors(branch, value, path) for branch in branches)
        ):
            found.append((path, FieldProblem("matches-no-shape")))
        branches = schema.get("oneOf")
        if isinstance(branches, list) and branches:
            matching = sum(not self.errors(branch, value, path) for branch in branches)
            if matching != 1:
                found.append((path, FieldProblem("matches-not-one-shape")))
        if "not" in schema and not self.errors(schema["not"], value, path):
            found.append((path, FieldProblem("forbidden-shape")))
        return found

    def _object_errors(
        self, schema: Mapping[str, Any], value: dict[str, Any], path: str
    ) -> list[tuple[str, FieldProblem]]:
        found: list[tuple[str, FieldProblem]] = []
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        for name in schema.get("required") or []:
            if name not in value:
                found.append((_join(path, name), FieldProblem("required")))
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                found += self.errors(properties[name], item, _join(path, name))
            elif extra is False:
                found.append((_join(path, name), FieldProblem("not-an-argument")))
            else:
                found += self.errors(extra, item, _join(path, name))
        return found

    def _array_errors(
        self, schema: Mapping[str, Any], value: list[Any], path: str
    ) -> list[tuple[str, FieldProblem]]:
        found: list[tuple[str, FieldProblem]] = []
        low, high = schema.get("minItems"), schema.get("maxItems")
        if isinstance(low, int) and len(value) < low:
            found.append((path, FieldProblem("min-items", {"count": str(low)})))
        if isinstance(high, int) and len(value) > high:
            found.append((path, FieldProblem("max-items", {"count": str(high)})))
        if schema.get("uniqueItems") is True:
            texts = [json.dumps(item, sort_keys=True) for item in value]
            if len(set(texts)) != len(texts):
                found.append((path, FieldProblem("item-twice")))
        items = schema.get("items")
        if isinstance(items, (Mapping, bool)):
            for index, item in enumerate(value):
                found += self.errors(items, item, _join(path, index))
        return found


def _string_problem(schema: Mapping[str, Any], value: str) -> FieldProblem | None:
    low, high = schema.get("minLength"), schema.get("maxLength")
    if isinstance(low, int) and len(value) < low:
        return min_length_problem(low)
    if isinstance(high, int) and len(value) > high:
        return FieldProblem("max-length", {"count": str(high)})
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        try:
            if re.search(pattern, value) is None:
                return FieldProblem("pattern", {"pattern": pattern})
        except re.error:
            pass  # a pattern Python cannot compile is not checked
    fmt = schema.get("format")
    if fmt in ("email", "uri", "date", "date-time") and not check_format(fmt, value):
        return FieldProblem("schema-format", {"format": fmt})
    return None


def _number_problem(schema: Mapping[str, Any], value: float) -> FieldProblem | None:
    for keyword, code in _BOUNDS:
        bound = schema.get(keyword)
        if not _TYPES["number"](bound):
            continue
        assert isinstance(bound, (int, float))
        below, above = value < bound, value > bound
        broken = {
            "minimum": below,
            "maximum": above,
            "exclusiveMinimum": not above,
            "exclusiveMaximum": not below,
        }[keyword]
        if broken:
            return FieldProblem(code, {"bound": str(bound)})
    return None


_BOUNDS: tuple[tuple[str, FieldProblemCode], ...] = (
    ("minimum", "minimum"),
    ("maximum", "maximum"),
    ("exclusiveMinimum", "exclusive-minimum"),
    ("exclusiveMaximum", "exclusive-maximum"),
)
