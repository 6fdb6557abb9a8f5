"""The card model: one pending or settled request as the widget's synced state holds it.

A :class:`Card` holds only inputs (the request's questions, wait kind, status, answer, last
countdown frame, notice). Its wire form (:meth:`Card.to_wire`) adds a derived ``view``
(:class:`CardView`): the chosen presentation and the sanitized Markdown HTML of every ``detail``.
The view is always recomputed from the questions, never read back from input, so HTML in the
synced state can only come from :func:`~ipyask.widget._markdown.render_markdown`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

from pydantic import Field, model_validator

from .._markdown import render_markdown
from .._vocabulary import AskUserQuestionAnswer, AskUserQuestionItem, WireModel
from ..kinds import kind_of
from ..kinds.approval import ApprovalPresentation
from ..kinds.form import FormPresentation
from ..kinds.generic import GenericPresentation
from ..kinds.plan_review import PlanReviewPresentation
from ..kinds.tool_approval import ToolApprovalPresentation, ToolDecisionOption

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "SETTLED_FIELDS",
    "WIRE_NAMES",
    "AlwaysRuleOffer",
    "ApprovalPresentation",
    "Card",
    "CardSettlement",
    "CardSource",
    "CardStatus",
    "CardView",
    "CountdownFrame",
    "FormPresentation",
    "GenericPresentation",
    "NoticeCode",
    "PlanReviewPresentation",
    "Presentation",
    "SettledStatus",
    "ToolApprovalPresentation",
    "ToolDecisionOption",
    "WaitKind",
    "WireCard",
    "present",
]

WaitKind = Literal["none", "indefinite", "timed"]
"""``none``: blocking, un-keyed; ``indefinite``: keyed, no deadline; ``timed``: counted down."""

CardStatus = Literal["pending", "continued", "answered", "cancelled", "expired"]
"""``pending`` and ``continued`` cards are answerable; the others are read-only."""

SettledStatus = Literal["answered", "cancelled", "expired"]
"""The final statuses of a card."""

NoticeCode = Literal[
    "you-cancelled",
    "agent-stopped",
    "time-ran-out",
    "closed-unanswered",
    "cancelled",
    "reply-queued",
    "reply-unread",
    "reply-kept",
    "reply-awaits-reask",
    "late-reply-impossible",
    "decided-by-timeout",
    "answered-after-timeout",
    "no-longer-answerable",
    "asked-earlier",
    "settled-elsewhere",
    "not-in-store",
    "nobody-could-answer",
    "store-unreachable",
    "store-locked",
    "store-read-only",
    "store-full",
    "store-closed",
    "rule-removed",
    "rule-removed-from-file",
    "rule-file-changed",
    "rule-not-removed",
]
"""The notices the kernel sets on cards (and the panel's rules section, on removing a rule); a
view shows each in its own language."""


class CountdownFrame(WireModel):
    """The last remaining-time frame of a timed card; the view anchors it to its own clock."""

    remaining_ms: int = Field(ge=0)
    seq: int = Field(ge=0)
    """Monotonic per widget; a view anchors a frame only once (the highest ``seq`` wins)."""


Presentation = Annotated[
    GenericPresentation
    | PlanReviewPresentation
    | ApprovalPresentation
    | ToolApprovalPresentation
    | FormPresentation,
    Field(discriminator="kind"),
]
"""A card's presentation: one per kind of :mod:`ipyask.kinds`, by ``kind``."""


class CardView(WireModel):
    """Derived, wire-only part of a card: how to present it and the sanitized detail HTML."""

    presentation: Presentation
    detail_html: list[str | None]
    """Rendered ``detail`` per question (request order); ``None`` where a question has none."""


class CardSource(WireModel):
    """Who asked an inbox card's question (a store's open question): the view groups and filters
    the inbox by it."""

    agent: str | None = None
    """The asking agent's id."""
    session: str = Field(min_length=1)
    """The id of the agent's session log in the store."""
    process: str | None = None
    """``host:pid`` of the process that asked."""
    asked_at: float | None = None
    """Wall-clock seconds (Unix time) when it was asked; the view shows the newest first."""
    earlier: bool = False
    """Asked by a process that has ended (before a restart): the answer waits in the store."""
    assignee: str | None = None
    """The one person who may answer it (an ipyask extension); the view says it on the card."""


def _outcome_problem(
    status: CardStatus,
    answer: AskUserQuestionAnswer | None,
    notice: str | None,
    notice_code: NoticeCode | None,
    notice_params: dict[str, str] | None,
    late: bool | None,
) -> str | None:
    """What is wrong with a card's status, answer and notice together (``None``: nothing).

    No other field of a card is tied to these by a rule: :class:`CardSettlement` relies on it.
    """
    if answer is not None and status != "answered":
        return "only an 'answered' card carries an answer"
    if notice_code is not None and notice is None:
        return "a card with a notice code carries its notice text too"
    if notice_params is not None and notice_code is None:
        return "only a card with a notice code has notice params"
    if late and status != "answered":
        return "only an 'answered' card is answered late"
    return None


class CardSettlement(WireModel):
    """What settling a card sets: its final status, its answer (only ``answered``) and its
    notice; an absent one is cleared. The card's other fields stay as they were."""

    status: SettledStatus
    answer: AskUserQuestionAnswer | None = None
    notice: str | None = None
    notice_code: NoticeCode | None = None
    notice_params: dict[str, str] | None = None
    late: Literal[True] | None = None

    @model_validator(mode="after")
    def _check_outcome(self) -> Self:
        problem = _outcome_problem(
            self.status, self.answer, self.notice, self.notice_code, self.notice_params, self.late
        )
        if problem is not None:
            raise ValueError(problem)
        return self

    def wire_fields(self) -> dict[str, Any]:
        """The card's wire fields this sets, ``None`` for each it clears."""
        return {**_CLEARED, **self.to_wire()}


class AlwaysRuleOffer(WireModel):
    """ipyask extension: a tool approval's Always allow can add an allow rule to the service's
    approval rules; the card shows ``suggested`` for the person to narrow, for this session or
    saved to ``file`` (``None``: the rules have no file, only this session)."""

    suggested: str = Field(min_length=1)
    file: str | None = None


class Card(WireModel):
    """One request shown as a card."""

    key: str = Field(min_length=1)
    """Unique within the widget; the panel's handle for the request."""
    call_id: str | None = Field(default=None, min_length=1)
    """Set for keyed cards (a request with ``wait``); ``None`` for un-keyed blocking ones."""
    wait: WaitKind = "none"
    questions: list[AskUserQuestionItem] = Field(min_length=1)
    status: CardStatus = "pending"
    answer: AskUserQuestionAnswer | None = None
    """The settled batch; only on ``answered`` cards (may be absent or empty there)."""
    frame: CountdownFrame | None = None
    """The last countdown frame; only on ``timed`` cards."""
    timeout_ms: int | None = Field(default=None, ge=1)
    """The timed question's whole window, the full length of the view's countdown bar (so a view
    opened late shows the part already gone). Only on ``timed`` cards; without it the bar's
    length is the longest time left the view has seen."""
    notice: str | None = None
    """Optional plain text shown on the card, e.g. why it expired (English when coded)."""
    notice_code: NoticeCode | None = None
    """What ``notice`` says, as a code a view shows in its own language (``notice`` is the
    text for a view that does not know the code)."""
    notice_params: dict[str, str] | None = None
    """The values a coded notice's text names (``process`` for ``asked-earlier``)."""
    held: Literal[True] | None = None
    """The person holds this timed card (Take time, or started answering in some view): every
    view waits for them instead of counting down. Only on ``timed`` cards."""
    source: CardSource | None = None
    """Set on the cards of a shared inbox: who asked (see :class:`CardSource`)."""
    late: Literal[True] | None = None
    """Answered after the agent went on without the answer (a continued card): the view says
    "Answered late", as the transcript does. Only on ``answered`` cards."""
    always_rule: AlwaysRuleOffer | None = None
    """Set on a tool approval whose Always allow adds a rule (see :class:`AlwaysRuleOffer`)."""

    @model_validator(mode="before")
    @classmethod
    def _drop_derived(cls, data: Any) -> Any:
        if isinstance(data, dict) and "view" in data:
            return {name: value for name, value in data.items() if name != "view"}
        return data

    @model_validator(mode="after")
    def _check_consistency(self) -> Self:
        if (self.call_id is None) != (self.wait == "none"):
            raise ValueError(
                "a card has a call_id exactly when its wait is 'indefinite' or 'timed'"
            )
        ids = [question.id for question in self.questions]
        if len(set(ids)) != len(ids):
            raise ValueError("question ids must be unique within a card")
        if self.frame is not None and self.wait != "timed":
            raise ValueError("only a 'timed' card carries a countdown frame")
        if self.held and self.wait != "timed":
            raise ValueError("only a 'timed' card can be held")
        if self.timeout_ms is not None and self.wait != "timed":
            raise ValueError("only a 'timed' card has a timeout")
        problem = _outcome_problem(
            self.status, self.answer, self.notice, self.notice_code, self.notice_params, self.late
        )
        if problem is not None:
            raise ValueError(problem)
        return self

    @property
    def keyed(self) -> bool:
        """Whether the card has a call id (closing it hides it instead of cancelling)."""
        return self.call_id is not None

    def view(self) -> CardView:
        """The derived presentation and rendered detail HTML."""
        return CardView.model_validate(self._view_wire())

    def to_wire(self, *, view: dict[str, Any] | None = None) -> dict[str, Any]:
        """The synced JSON form: the card's fields, its derived ``view``, and last the fields a
        settlement sets (:data:`SETTLED_FIELDS`), so that settling a card rewrites only the end
        of its stored text.

        ``view`` is the wire ``view`` of a card with the very same questions and wait, to reuse
        instead of rendering it again (its Markdown does not change with the status).
        """
        fields = super().to_wire()
        wire = {name: value for name, value in fields.items() if name not in _SETTLED}
        wire["view"] = self._view_wire() if view is None else view
        for name in SETTLED_FIELDS:
            if name in fields:
                wire[name] = fields[name]
        return wire

    def _view_wire(self) -> dict[str, Any]:
        presentation = present(self.questions, self.wait)
        details = [None if q.detail is None else render_markdown(q.detail) for q in self.questions]
        if isinstance(presentation, GenericPresentation):  # most cards: no model to build
            return {"presentation": {"kind": "generic"}, "detailHtml": details}
        return CardView(presentation=presentation, detail_html=details).to_wire()


def present(questions: list[AskUserQuestionItem], wait: WaitKind) -> Presentation:
    """Choose the presentation: plan review or approval when eligible, else the generic flow.

    ipyask's ``tool-approval`` and ``form`` get their own cards when alone on a card, with their
    labels exactly the options (a form also needs a schema inside the subset). An intent never
    costs the user a reachable answer: anything not eligible (several questions, missing
    ``detail``, labels that do not match the options, multi-select, an approval with a timed
    wait, an unknown intent kind) falls back to the generic flow.
    """
    if len(questions) == 1 and questions[0].intent is not None:  # each needs an intent
        question = questions[0]
        kind = kind_of(question.intent)
        found = None if kind is None else kind.present(question, question.intent, wait == "timed")
        if found is not None:  # a kind presents with its own member of the union (tested)
            return cast("Presentation", found)
    return _GENERIC


_GENERIC = GenericPresentation()
"""The generic presentation (a frozen model: one serves every card)."""


WireCard = dict[str, Any]
"""A card's wire dict (:meth:`Card.to_wire`): camelCase fields, absent ones left out, ``view``."""

WIRE_NAMES = {name: field.alias or name for name, field in Card.model_fields.items()}
"""Each card field's name in the wire dict."""

SETTLED_FIELDS = tuple(WIRE_NAMES[name] for name in CardSettlement.model_fields)
"""The wire names of the fields a settlement sets, in the order that ends a card's wire dict."""

_SETTLED = frozenset(SETTLED_FIELDS)

_CLEARED = dict.fromkeys(SETTLED_FIELDS)
