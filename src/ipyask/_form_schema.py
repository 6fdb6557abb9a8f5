"""Form schemas: the MCP elicitation subset of JSON Schema, parsed into typed fields.

A ``form`` intent carries its schema as raw JSON (it round-trips exactly); :func:`parse_form_schema`
checks it against the subset and returns a :class:`FormSchema` of typed fields, which is also what
the card's view sends to the front end (so the front end never interprets JSON Schema itself).
:func:`form_value_errors` checks submitted values against it, one message per field.

The subset: a flat object (``properties``, ``required``, ``title``, ``description``) whose
properties are strings (``minLength``, ``maxLength``, ``pattern``, ``format`` email / uri / date /
date-time), numbers and integers (``minimum``, ``maximum``), booleans, single-select enums
(``enum``, optionally ``enumNames``, or ``oneOf`` of ``{const, title}``) and multi-select enums
(``type: array`` with ``items`` of ``enum`` or ``anyOf`` of ``{const, title}``, ``minItems``,
``maxItems``), each with ``title``, ``description`` and ``default``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from ._field_problems import FieldProblem, FieldProblemCode, problem_texts
from ._wire import WireModel
from .errors import FormSchemaError

__all__ = [
    "BooleanField",
    "EnumOption",
    "FormField",
    "FormSchema",
    "FormSchemaError",
    "MultiSelectField",
    "NumberField",
    "SelectField",
    "StringField",
    "check_format",
    "form_value_errors",
    "form_value_problems",
    "min_length_problem",
    "parse_form_schema",
]

StringFormat = Literal["email", "uri", "date", "date-time"]

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:[^\s]+$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


class EnumOption(WireModel):
    """One choice of an enum field: the value submitted and the title shown."""

    value: str
    title: str | None = None


class _BaseField(WireModel):
    name: str
    required: bool = False
    title: str | None = None
    description: str | None = None


class StringField(_BaseField):
    """A text input (a date, date-time, email or URL input for those formats)."""

    kind: Literal["string"] = "string"
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    format: StringFormat | None = None
    default: str | None = None


class NumberField(_BaseField):
    """A number input; ``integer`` accepts whole numbers only."""

    kind: Literal["number", "integer"] = "number"
    minimum: int | float | None = None
    maximum: int | float | None = None
    default: int | float | None = None


class BooleanField(_BaseField):
    """A checkbox."""

    kind: Literal["boolean"] = "boolean"
    default: bool | None = None


class SelectField(_BaseField):
    """One choice among ``options`` (a select)."""

    kind: Literal["select"] = "select"
    options: list[EnumOption]
    default: str | None = None


class MultiSelectField(_BaseField):
    """Any number of choices among ``options`` (checkboxes), within ``min_items``..``max_items``."""

    kind: Literal["multi-select"] = "multi-select"
    options: list[EnumOption]
    min_items: int | None = None
    max_items: int | None = None
    default: list[str] | None = None


FormField = Annotated[
    StringField | NumberField | BooleanField | SelectField | MultiSelectField,
    Field(discriminator="kind"),
]


class FormSchema(WireModel):
    """A parsed form: its title, description and typed fields in schema order."""

    title: str | None = None
    description: str | None = None
    fields: list[FormField]

    def field(self, name: str) -> FormField | None:
        """The field called ``name``, if any."""
        return next((field for field in self.fields if field.name == name), None)


_COMMON = {"type", "title", "description", "default"}
_ROOT_KEYS = {"type", "title", "description", "properties", "required", "$schema"}
_FIELD_KEYS = {
    "string": _COMMON | {"minLength", "maxLength", "pattern", "format"},
    "enum": _COMMON | {"enum", "enumNames"},
    "oneOf": _COMMON | {"oneOf"},
    "number": _COMMON | {"minimum", "maximum"},
    "boolean": _COMMON,
    "array": _COMMON | {"items", "minItems", "maxItems"},
}


def parse_form_schema(raw: object) -> FormSchema:
    """The typed form of ``raw``; raises :class:`FormSchemaError` naming the first problem."""
    if not isinstance(raw, Mapping):
        raise FormSchemaError("", "must be a JSON object")
    if raw.get("type") != "object":
        raise FormSchemaError("", 'must have "type": "object"')
    _only(raw, _ROOT_KEYS | {"additionalProperties"}, "")
    if raw.get("additionalProperties", False) is not False:
        raise FormSchemaError("", "may not allow additionalProperties (a form has fixed fields)")
    properties = raw.get("properties", {})
    if not isinstance(properties, Mapping):
        raise FormSchemaError("", 'has "properties" that is not an object')
    required = raw.get("required", [])
    if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
        raise FormSchemaError("", 'has "required" that is not a list of field names')
    for name in required:
        if name not in properties:
            raise FormSchemaError("", f"requires {name!r}, which is not one of its properties")
    if len(set(required)) != len(required):
        raise FormSchemaError("", 'names a field twice in "required"')
    fields = [
        _parse_field(str(name), spec, str(name) in required) for name, spec in properties.items()
    ]
    return FormSchema(
        title=_text(raw, "title", ""),
        description=_text(raw, "description", ""),
        fields=fields,
    )


def _only(spec: Mapping[str, Any], allowed: set[str], path: str) -> None:
    extra = sorted(set(spec) - allowed)
    if extra:
        raise FormSchemaError(
            path, f"uses {', '.join(map(repr, extra))}, outside the MCP elicitation subset"
        )


def _text(spec: Mapping[str, Any], key: str, path: str) -> str | None:
    value = spec.get(key)
    if value is not None and not isinstance(value, str):
        raise FormSchemaError(path, f'has a "{key}" that is not a string')
    return value


def _count(spec: Mapping[str, Any], key: str, path: str) -> int | None:
    value = spec.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise FormSchemaError(path, f'has a "{key}" that is not a non-negative integer')
    return value


def _number(spec: Mapping[str, Any], key: str, path: str) -> float | None:
    value = spec.get(key)
    if value is not None and not _is_number(value):
        raise FormSchemaError(path, f'has a "{key}" that is not a number')
    return value


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _ordered(low: float | None, high: float | None, what: str, path: str) -> None:
    if low is not None and high is not None and low > high:
        raise FormSchemaError(path, f"has a {what} minimum above its maximum")


def _parse_field(name: str, spec: object, required: bool) -> FormField:
    if not isinstance(spec, Mapping):
        raise FormSchemaError(name, "must be a JSON object")
    kind = spec.get("type")
    base: dict[str, Any] = {
        "name": name,
        "required": required,
        "title": _text(spec, "title", name),
        "description": _text(spec, "description", name),
    }
    if kind == "string" and "enum" in spec:
        _only(spec, _FIELD_KEYS["enum"], name)
        return _parse_enum(name, spec, base)
    if kind == "string" and "oneOf" in spec:
        _only(spec, _FIELD_KEYS["oneOf"], name)
        options = _titled_options(name, spec["oneOf"], "oneOf")
        return SelectField(**base, options=options, default=_choice_default(name, spec, options))
    if kind == "string":
        return _parse_string(name, spec, base)
    if kind in ("number", "integer"):
        _only(spec, _FIELD_KEYS["number"], name)
        low, high = _number(spec, "minimum", name), _number(spec, "maximum", name)
        _ordered(low, high, "value", name)
        default = _number(spec, "default", name)
        if kind == "integer" and default is not None and not float(default).is_integer():
            raise FormSchemaError(name, "has a default that is not a whole number")
        return NumberField(**base, kind=kind, minimum=low, maximum=high, default=default)
    if kind == "boolean":
        _only(spec, _FIELD_KEYS["boolean"], name)
        default = spec.get("default")
        if default is not None and not isinstance(default, bool):
            raise FormSchemaError(name, "has a default that is not true or false")
        return BooleanField(**base, default=default)
    if kind == "array":
        _only(spec, _FIELD_KEYS["array"], name)
        return _parse_multi(name, spec, base)
    raise FormSchemaError(
        name,
        f"has type {kind!r}; a form field is a string, number, integer, boolean or an array of "
        "enum strings (no nested objects)",
    )


def _parse_string(name: str, spec: Mapping[str, Any], base: dict[str, Any]) -> StringField:
    _only(spec, _FIELD_KEYS["string"], name)
    low, high = _count(spec, "minLength", name), _count(spec, "maxLength", name)
    _ordered(low, high, "length", name)
    pattern = _text(spec, "pattern", name)
    if pattern is not None:
        try:
            re.compile(pattern)
        except re.error as error:
            raise FormSchemaError(name, f"has a pattern that does not compile ({error})") from None
    fmt = spec.get("format")
    if fmt is not None and fmt not in ("email", "uri", "date", "date-time"):
        raise FormSchemaError(
            name, f"has format {fmt!r}; only email, uri, date and date-time are supported"
        )
    default = _text(spec, "default", name)
    return StringField(
        **base, min_length=low, max_length=high, pattern=pattern, format=fmt, default=default
    )


def _parse_enum(name: str, spec: Mapping[str, Any], base: dict[str, Any]) -> SelectField:
    values = _enum_values(name, spec["enum"])
    titles = spec.get("enumNames")
    if titles is not None and (
        not isinstance(titles, list)
        or len(titles) != len(values)
        or not all(isinstance(title, str) for title in titles)
    ):
        raise FormSchemaError(name, 'has "enumNames" that is not one string per enum value')
    options = [
        EnumOption(value=value, title=titles[index] if titles else None)
        for index, value in enumerate(values)
    ]
    return SelectField(**base, options=options, default=_choice_default(name, spec, options))


def _enum_values(name: str, values: object) -> list[str]:
    if not isinstance(values, list) or not values:
        raise FormSchemaError(name, 'has an "enum" that is not a non-empty list')
    if not all(isinstance(value, str) for value in values):
        raise FormSchemaError(name, "has enum values that are not all strings")
    if len(set(values)) != len(values):
        raise FormSchemaError(name, "has an enum value twice")
    return values


def _titled_options(name: str, entries: object, keyword: str) -> list[EnumOption]:
    if not isinstance(entries, list) or not entries:
        raise FormSchemaError(name, f'has a "{keyword}" that is not a non-empty list')
    options = []
    for entry in entries:
        if (
            not isinstance(entry, Mapping)
            or set(entry) - {"const", "title"}
            or not isinstance(entry.get("const"), str)
            or not isinstance(entry.get("title", ""), str)
        ):
            raise FormSchemaError(
                name, f'has a "{keyword}" entry that is not {{"const": text, "title": text}}'
            )
        options.append(EnumOption(value=entry["const"], title=entry.get("title")))
    if len({option.value for option in options}) != len(options):
        raise FormSchemaError(name, "has an option value twice")
    return options


def _choice_default(name: str, spec: Mapping[str, Any], options: list[EnumOption]) -> str | None:
    default = spec.get("default")
    if default is not None and default not in [option.value for option in options]:
        raise FormSchemaError(name, "has a default that is none of its options")
    return default


def _parse_multi(name: str, spec: Mapping[str, Any], base: dict[str, Any]) -> MultiSelectField:
    items = spec.get("items")
    if not isinstance(items, Mapping):
        raise FormSchemaError(name, 'is an array without an "items" object of enum strings')
    if "anyOf" in items:
        _only(items, {"anyOf"}, name)
        options = _titled_options(name, items["anyOf"], "items.anyOf")
    else:
        _only(items, {"type", "enum"}, name)
        if items.get("type") != "string" or "enum" not in items:
            raise FormSchemaError(
                name, 'is an array whose items are not {"type": "string", "enum"}'
            )
        options = [EnumOption(value=value) for value in _enum_values(name, items["enum"])]
    low, high = _count(spec, "minItems", name), _count(spec, "maxItems", name)
    _ordered(low, high, "item count", name)
    default = spec.get("default")
    offered = {option.value for option in options}
    if default is not None and (
        not isinstance(default, list) or not all(value in offered for value in default)
    ):
        raise FormSchemaError(name, "has a default that is not a list of its options")
    return MultiSelectField(**base, options=options, min_items=low, max_items=high, default=default)


def check_format(fmt: str, value: str) -> bool:
    """Whether ``value`` is a valid ``email``, ``uri``, ``date`` or ``date-time`` (RFC 3339)."""
    if fmt == "email":
        return _EMAIL.match(value) is not None
    if fmt == "uri":
        return _URI.match(value) is not None
    try:
        if fmt == "date":
            return _DATE.match(value) is not None and bool(date.fromisoformat(value))
        if fmt == "date-time":
            text = value.replace("z", "Z").replace("Z", "+00:00")
            return _DATE_TIME.match(value) is not None and bool(datetime.fromisoformat(text))
    except ValueError:
        return False
    return True


_FORMAT_PROBLEMS: dict[str, FieldProblemCode] = {
    "email": "not-email",
    "uri": "not-uri",
    "date": "not-date",
    "date-time": "not-date-time",
}


def form_value_errors(schema: FormSchema, values: object) -> dict[str, str]:
    """What is wrong with ``values``, per field name (``""`` for the whole); empty when valid."""
    return problem_texts(form_value_problems(schema, values))


def form_value_problems(schema: FormSchema, values: object) -> dict[str, FieldProblem]:
    """:func:`form_value_errors` as codes, for a text in another language."""
    if not isinstance(values, Mapping):
        return {"": FieldProblem("values-not-object")}
    errors: dict[str, FieldProblem] = {}
    for name in values:
        if schema.field(str(name)) is None:
            errors[str(name)] = FieldProblem("not-a-field")
    for field in schema.fields:
        if field.name not in values:
            if field.required:
                errors[field.name] = FieldProblem("required")
            continue
        problem = _field_problem(field, values[field.name])
        if problem is not None:
            errors[field.name] = problem
    return errors


def min_length_problem(count: int) -> FieldProblem:
    """A text shorter than ``count`` characters (one character is not "characters")."""
    if count == 1:
        return FieldProblem("min-length-one")
    return FieldProblem("min-length", {"count": str(count)})


def _field_problem(field: FormField, value: object) -> FieldProblem | None:
    if isinstance(field, StringField):
        return _string_problem(field, value)
    if isinstance(field, NumberField):
        if not _is_number(value):
            return FieldProblem("not-a-number")
        assert isinstance(value, (int, float))
        if field.kind == "integer" and not float(value).is_integer():
            return FieldProblem("not-whole")
        if field.minimum is not None and value < field.minimum:
            return FieldProblem("minimum", {"bound": _plain(field.minimum)})
        if field.maximum is not None and value > field.maximum:
            return FieldProblem("maximum", {"bound": _plain(field.maximum)})
        return None
    if isinstance(field, BooleanField):
        return None if isinstance(value, bool) else FieldProblem("not-true-or-false")
    offered = [option.value for option in field.options]
    if isinstance(field, SelectField):
        return None if value in offered else FieldProblem("not-its-option")
    if not isinstance(value, list) or not all(item in offered for item in value):
        return FieldProblem("not-its-options")
    if len(set(value)) != len(value):
        return FieldProblem("option-twice")
    if field.min_items is not None and len(value) < field.min_items:
        return FieldProblem("min-choices", {"count": str(field.min_items)})
    if field.max_items is not None and len(value) > field.max_items:
        return FieldProblem("max-choices", {"count": str(field.max_items)})
    return None


def _string_problem(field: StringField, value: object) -> FieldProblem | None:
    if not isinstance(value, str):
        return FieldProblem("not-text")
    if field.min_length is not None and len(value) < field.min_length:
        return min_length_problem(field.min_length)
    if field.max_length is not None and len(value) > field.max_length:
        return FieldProblem("max-length", {"count": str(field.max_length)})
    if field.pattern is not None and re.search(field.pattern, value) is None:
        return FieldProblem("pattern", {"pattern": field.pattern})
    if field.format is not None and not check_format(field.format, value):
        return FieldProblem(_FORMAT_PROBLEMS[field.format])
    return None


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)
