"""The user-questions vocabulary: options, intents, questions, requests and answers.

Python attributes are snake_case; the wire form (JSON and dict input) is the specification's
camelCase (``multiSelect``, ``callId``, ``remainingMs``). ``model_dump(by_alias=True,
exclude_none=True)`` — or :func:`to_wire` — gives the wire form; ``model_validate`` accepts it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, NoReturn

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
)
from pydantic.alias_generators import to_camel

from ._abort import AbortSignal
from ._agents import Agent

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "ApprovalDisplay",
    "ApprovalIntent",
    "ApprovalSubject",
    "AskUserQuestionAnswer",
    "AskUserQuestionAnswerItem",
    "AskUserQuestionIntent",
    "AskUserQuestionItem",
    "AskUserQuestionOption",
    "AskUserQuestionRequest",
    "FormIntent",
    "LocalizedText",
    "PendingAnswer",
    "PlanReviewIntent",
    "QuestionWait",
    "TimedUserQuestionResult",
    "ToolApprovalIntent",
    "ToolCall",
    "UnknownIntent",
    "WaitFrame",
    "WireModel",
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
        _share_field_names(self)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        copied = super().model_copy(update=update, deep=deep)
        _share_field_names(copied)
        return copied

    def to_wire(self) -> dict[str, Any]:
        """The JSON-native wire form (camelCase keys, absent fields left out)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


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


_FIELD_NAMES: dict[frozenset[str], _FieldNames] = {}
_MAX_FIELD_NAME_SETS = 4096
"""A bound for models whose names come from their input (``extra="allow"``)."""


def _share_field_names(model: BaseModel) -> None:
    names = model.__pydantic_fields_set__
    if isinstance(names, _FieldNames):
        return
    key = frozenset(names)
    shared = _FIELD_NAMES.get(key)
    if shared is None:
        if len(_FIELD_NAMES) >= _MAX_FIELD_NAME_SETS:
            return
        shared = _FIELD_NAMES.setdefault(key, _FieldNames(names))
    object.__setattr__(model, "__pydantic_fields_set__", shared)


def to_wire(model: WireModel) -> dict[str, Any]:
    """The JSON-native wire form of any vocabulary model."""
    return model.to_wire()


class AskUserQuestionOption(WireModel):
    """One selectable answer offered to the user."""

    label: str
    """User-facing text, and the value the model receives when chosen."""
    description: str | None = None
    """Optional help text for capable UIs."""


class PlanReviewIntent(WireModel):
    """A plan submitted for review: ``detail`` is the plan Markdown."""

    kind: Literal["plan-review"] = "plan-review"
    approve: str
    """The option label that approves the plan; every other option declines it."""
    call_id: str | None = None
    """The logged tool call whose arguments hold the reviewed plan."""


def _require_english(value: dict[str, str] | None) -> dict[str, str] | None:
    if value is not None and "en" not in value:
        raise ValueError("a localized text needs an 'en' entry")
    return value


LocalizedText = dict[str, str]
"""A localized map ``{en, [locale]: text}``; ``en`` is required."""


class ApprovalDisplay(WireModel):
    """Localized question, detail and limited-grant label of an approval card."""

    question: LocalizedText
    detail: LocalizedText | None = None
    approve: LocalizedText | None = None

    _check_question = field_validator("question")(_require_english)
    _check_detail = field_validator("detail", "approve")(_require_english)


class ApprovalSubject(WireModel):
    """Metadata for human recognition of what asks. Never an authorization identity."""

    name: str
    icon: str | None = None
    """An icon URL the UI may load (only ``https:``, ``http:`` and ``data:image/`` are loaded)."""


class ApprovalIntent(WireModel):
    """A blocking permission decision with fixed actions and no free-text answer."""

    kind: Literal["approval"] = "approval"
    approve: str
    """Option label granting the scope the caller describes."""
    reject: str
    """Option label refusing the requested access."""
    always: str | None = None
    """Optional persistent grant, offered only when the caller supports it."""
    subject: ApprovalSubject | None = None
    display: ApprovalDisplay | None = None


class ToolCall(WireModel):
    """The tool call a ``tool-approval`` card shows: what would run, with which arguments."""

    name: str = Field(min_length=1)
    """The tool's name, as the model called it."""
    arguments: dict[str, Any]
    """The arguments the model proposed (a JSON object)."""
    input_schema: dict[str, Any] | None = None
    """The tool's JSON Schema for its arguments (``inputSchema``, as MCP names it): edited
    arguments are checked against it, and the card builds its edit form from it when it is a
    flat object of simple fields."""
    call_id: str | None = None
    """The framework's id of this tool call, for the caller's bookkeeping."""


class ToolApprovalIntent(WireModel):
    """ipyask extension: approve, always allow, edit, reject or respond to one tool call (and,
    where the caller's framework has them, always reject or reject and stop).

    Each decision the caller allows is named by an option label (the options are exactly these
    labels). The chosen label is the answer; ``custom`` carries its text: the edited arguments
    as JSON text (``edit``), the optional reason (``reject``, ``never``, ``stop``) or the reply
    (``respond``).
    ``detail`` is the tool's description (Markdown).
    """

    kind: Literal["tool-approval"] = "tool-approval"
    tool: ToolCall
    approve: str | None = None
    """Run the call once, as proposed."""
    always: str | None = None
    """Run it, and the caller's persistent grant for this tool."""
    edit: str | None = None
    """Run it with the arguments in ``custom`` (JSON text of an object)."""
    reject: str | None = None
    """Do not run it; ``custom`` may give the reason, for the model."""
    respond: str | None = None
    """Do not run it; ``custom`` is returned to the model in place of the tool's result."""
    never: str | None = None
    """Do not run it, and the caller's persistent refusal of this tool; ``custom`` may give the
    reason."""
    stop: str | None = None
    """Do not run it, and stop the agent; ``custom`` may give the reason."""

    def decision_labels(self) -> dict[str, str]:
        """The allowed decisions, ``{kind: label}``, in the order approve, always, edit,
        reject, respond, never, stop."""
        decisions = {
            "approve": self.approve,
            "always": self.always,
            "edit": self.edit,
            "reject": self.reject,
            "respond": self.respond,
            "never": self.never,
            "stop": self.stop,
        }
        return {kind: label for kind, label in decisions.items() if label is not None}


class FormIntent(WireModel):
    """ipyask extension: a form of typed fields, answered, declined or cancelled.

    ``requested_schema`` (``requestedSchema``, as MCP names it) is a flat object schema in the
    MCP elicitation subset. The options are exactly the ``accept``, ``decline`` and ``cancel``
    labels; an accepted form carries its values as the JSON text of an object in ``custom``.
    """

    kind: Literal["form"] = "form"
    requested_schema: dict[str, Any]
    accept: str
    """Submit the values."""
    decline: str | None = None
    """An explicit no: the person will not give these values."""
    cancel: str | None = None
    """Dismissed without a decision."""

    def action_labels(self) -> dict[str, str]:
        """The offered actions, ``{action: label}``, in the order accept, decline, cancel."""
        actions = {"accept": self.accept, "decline": self.decline, "cancel": self.cancel}
        return {action: label for action, label in actions.items() if label is not None}


class UnknownIntent(WireModel):
    """An intent kind this version does not know: kept verbatim, presented as the generic flow."""

    model_config = ConfigDict(extra="allow")

    kind: str


def _intent_tag(value: Any) -> str:
    kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
    return kind if kind in _KNOWN_KINDS else "unknown"


_KNOWN_KINDS = ("plan-review", "approval", "tool-approval", "form")

AskUserQuestionIntent = Annotated[
    Annotated[PlanReviewIntent, Tag("plan-review")]
    | Annotated[ApprovalIntent, Tag("approval")]
    | Annotated[ToolApprovalIntent, Tag("tool-approval")]
    | Annotated[FormIntent, Tag("form")]
    | Annotated[UnknownIntent, Tag("unknown")],
    Discriminator(_intent_tag),
]
"""A presentation intent, discriminated by ``kind``; unknown kinds are kept, never rejected."""


class AskUserQuestionItem(WireModel):
    """One question in a request."""

    id: str
    """Stable caller-provided id, echoed in the answer."""
    question: str
    detail: str | None = None
    """Supporting Markdown rendered with the question, never inside option labels."""
    header: str | None = None
    """A short heading or group label."""
    options: list[AskUserQuestionOption] | None = None
    multi_select: bool | None = None
    """Whether more than one option may be chosen; absent means single-select."""
    intent: AskUserQuestionIntent | None = None


class QuestionWait(WireModel):
    """How a request waits: keyed by ``call_id``; ``timed`` for a bounded foreground wait."""

    call_id: str = Field(min_length=1)
    timed: bool | None = None


class AskUserQuestionRequest(WireModel):
    """A request to the answerer waterfall.

    ``agent`` and ``signal`` are live objects, never part of the wire form. A request with an
    agent and a ``callId`` (:attr:`durable_call_id`) but no ``wait`` is a durable ask: it is
    recorded in the agent's session, and asking again with the same ``callId`` reuses the record.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    questions: list[AskUserQuestionItem]
    wait: QuestionWait | None = None
    durable_call_id: str | None = Field(default=None, alias="callId", min_length=1)
    """The tool call a durable ask belongs to (wire ``callId``)."""
    request_id: str | None = None
    """The durable record's id, set on the request the waterfall receives for a durable ask."""
    assignee: str | None = Field(default=None, min_length=1)
    """ipyask extension: the one person (a Jupyter user's name, or an OS user's) who may answer
    a durable ask through a claim; everyone sees the question."""
    agent: Agent | None = Field(default=None, exclude=True)
    signal: AbortSignal | None = Field(default=None, exclude=True)

    @property
    def call_id(self) -> str | None:
        """The card key, when the request has one: the wait's call id, else the durable one."""
        return self.wait.call_id if self.wait is not None else self.durable_call_id

    @property
    def durable(self) -> bool:
        """Whether this is a durable ask (an agent, a ``callId``, no ``wait``)."""
        return self.agent is not None and self.durable_call_id is not None and self.wait is None

    @property
    def timed(self) -> bool:
        """Whether this is a timed foreground wait."""
        return bool(self.wait is not None and self.wait.timed)


class AskUserQuestionAnswerItem(WireModel):
    """The answer to one question: chosen option labels and optional free text."""

    id: str
    selected: list[str]
    custom: str | None = None


class AskUserQuestionAnswer(WireModel):
    """One answer item per question id."""

    answers: list[AskUserQuestionAnswerItem]


class PendingAnswer(WireModel):
    """A timed question that got no answer batch in its window. It can still be answered.

    Pending is not an empty answer, a refusal, a confirmation or an authorization.
    """

    pending: Literal[True] = True
    call_id: str


TimedUserQuestionResult = AskUserQuestionAnswer | PendingAnswer


class WaitFrame(WireModel):
    """One frame of :meth:`UserQuestions.attach_wait`: the host-computed remaining time."""

    remaining_ms: int
