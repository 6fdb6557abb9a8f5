"""The base of every wire shape, and the two shapes every question kind reads.

Python attributes are snake_case; the wire form (JSON and dict input) is the specification's
camelCase. The question kinds (:mod:`ipyask.kinds`) and the vocabulary build on this module, so it
imports nothing of theirs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NoReturn

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "FIELD_NAME_SETS",
    "MAX_FIELD_NAME_SETS",
    "AskUserQuestionAnswerItem",
    "AskUserQuestionOption",
    "WireModel",
    "share_field_names",
    "to_wire",
]


class WireModel(BaseModel):
    """Base of every wire shape: camelCase aliases, snake_case attributes, exact round-trips."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        frozen=True,
    )

    def model_post_init(self, context: Any, /) -> None:
        # The common case inline (every model made, a view message's three at each answer): a
        # set already shared for these names.
        shared = FIELD_NAME_SETS.get(frozenset(self.__pydantic_fields_set__))
        if shared is not None:
            object.__setattr__(self, "__pydantic_fields_set__", shared)
        else:
            share_field_names(self)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        copied = super().model_copy(update=update, deep=deep)
        share_field_names(copied)
        return copied

    def to_wire(self) -> dict[str, Any]:
        """The JSON-native wire form (camelCase keys, absent fields left out)."""
        # ``model_dump``'s own call of the serializer, without its frame: every answer dumps a
        # few models (no wire model overrides ``model_dump``).
        wire: dict[str, Any] = self.__pydantic_serializer__.to_python(
            self, mode="json", by_alias=True, exclude_none=True
        )
        return wire


class _FieldNames(set[str]):
    """The names of the fields a model was given, one object for every model given the same.

    pydantic keeps a set of them per model (216 bytes, 728 from six names on): most of a small
    model's memory. A set (pydantic requires one) that cannot change: a frozen model never adds
    a name. A copy is a plain set, because ``model_copy(update=...)`` adds to its copy.
    """

    __slots__ = ()

    def __copy__(self) -> set[str]:
        return set(self)

    def _unchangeable(self, *args: object) -> NoReturn:
        raise TypeError("the set of a model's given field names is shared and cannot change")

    add = discard = remove = pop = clear = _unchangeable
    update = difference_update = intersection_update = symmetric_difference_update = _unchangeable
    __ior__ = __iand__ = __isub__ = __ixor__ = _unchangeable


FIELD_NAME_SETS: dict[frozenset[str], set[str]] = {}
MAX_FIELD_NAME_SETS = 4096
"""A bound for models whose names come from their input (``extra="allow"``)."""


def share_field_names(
    model: BaseModel,
    table: dict[frozenset[str], set[str]] | None = None,
    bound: int | None = None,
) -> None:
    """Give ``model`` the shared set of its field names (from ``table``, at most ``bound`` sets;
    this module's by default)."""
    names = model.__pydantic_fields_set__
    if isinstance(names, _FieldNames):
        return
    table = FIELD_NAME_SETS if table is None else table
    bound = MAX_FIELD_NAME_SETS if bound is None else bound
    key = frozenset(names)
    shared = table.get(key)
    if shared is None:
        if len(table) >= bound:
            return
        shared = table.setdefault(key, _FieldNames(names))
    object.__setattr__(model, "__pydantic_fields_set__", shared)


def to_wire(model: WireModel) -> dict[str, Any]:
    """The JSON-native wire form of any wire model."""
    return model.to_wire()


class AskUserQuestionOption(WireModel):
    """One selectable answer offered to the user."""

    label: str
    """User-facing text, and the value the model receives when chosen."""
    description: str | None = None
    """Optional help text for capable UIs."""


class AskUserQuestionAnswerItem(WireModel):
    """The answer to one question: chosen option labels and optional free text."""

    id: str
    selected: list[str]
    custom: str | None = None
