"""The one-liners on a default service and panel: ``ask``, ``approve``, ``approve_tool``,
``form`` and their ``*_blocking`` twins, ``ask_batch``, ``default_service``, ``default_panel`` and
``show_panel``.

Each cell shows its own questions. The default panel holds every card (the history, shown where
the person puts it with :func:`show_panel`); the first call in a cell shows that cell's
:class:`~ipyask._notebook.panel.CellView` in its output, and every call in the cell asks into it, so
the output holds only the cards asked from that cell, pending and then answered. A cell that
showed the panel before it asked has the panel as its view (no second one there). Which cell
asked is the kernel's parent message of the asking code: for an agent task on ipykernel ≥ 7
that is the cell that started the task (its context carries the parent), on ipykernel 6 the
cell running when it asks. JupyterLab shows such a task's view in that cell even after the cell
has finished; Voila shows only what a cell displays while it runs, so an agent task should start
in a cell that calls :func:`show_panel`.

In marimo the one-liners show the panel (``mo.ui.anywidget(panel)``, appended to the running
cell's output): an ask there never waits inside its cell, only in a task, whose questions
belong to the panel the notebook shows. Outside a Jupyter kernel or a marimo notebook no panel
exists and the default service answers only through the answerers registered on it
(``default_service().on_request(...)``), else ``NO_PROVIDER``. Every call waits through
:class:`~ipyask._notebook.cell_wait.CellWait`, which makes it work (or fail clearly) on kernels
that hold comm messages while a cell waits. This module wires the panel
(:mod:`ipyask._notebook.panel`) to the cell wait; they do not know each other.

One :class:`Notebook` holds the default service, its rules, the panel and the cells' views; each
verb is written once there (what it asks and how it reads the answer), and its ``await`` form
and its blocking form differ only in how the cell waits. The module's functions are the
methods of the one default notebook.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar, overload
from weakref import WeakKeyDictionary

from .._abort import AbortController
from .._agents import Agent
from .._decisions import DecisionKind, FormResult, ToolDecision, form_result, tool_decision
from .._errors import UserQuestionError
from .._rich_questions import form_question, tool_approval_question
from .._rules import AppliedRule, Rules
from .._service import MAX_TIMEOUT_MS, UserQuestions
from .._vocabulary import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    PendingAnswer,
    TimedUserQuestionResult,
)
from .cell_wait import (
    CellWait,
    current_kernel,
    detect_host,
    enable_colab_widget_manager,
    front_end_seen,
    marimo_cell,
    share_route,
)
from .panel import CellView, QuestionPanel

__all__ = [
    "Notebook",
    "approve",
    "approve_blocking",
    "approve_tool",
    "approve_tool_blocking",
    "ask",
    "ask_batch",
    "ask_blocking",
    "default_panel",
    "default_rules",
    "default_service",
    "form",
    "form_blocking",
    "panel_if_made",
    "show_panel",
]

T = TypeVar("T")

_Outcome = AskUserQuestionAnswer | PendingAnswer
_Asking = Callable[[], Awaitable[T]]
"""What asks a question and reads its answer, made in the asking cell's context."""
_DEFAULT_DECISIONS: tuple[DecisionKind, ...] = ("approve", "edit", "reject")


class Notebook:
    """The notebook side of the one-liners: the default service and its approval rules, the
    panel holding every card, the view of each cell that asked, and the verbs that ask on them.

    Each verb has one body (``_ask``, ``_approve``, ``_approve_tool``, ``_form``, ``_batch``):
    it makes, in the caller's context, what asks and reads the answer. The ``await`` form waits
    for it with :meth:`CellWait.await_in_cell`, the blocking form with
    :meth:`CellWait.run_blocking`.
    """

    def __init__(self) -> None:
        self._service: UserQuestions | None = None
        self._rules: Rules | None = None  # the approval rules registered on the service
        self._panel: QuestionPanel | None = None
        self._unrecord: Callable[[], None] | None = None  # stops the last panel's rule records
        self._shown_in: set[str] = set()  # the cells that showed the panel
        self._cell_views: dict[str, CellView] = {}  # each asking cell's view, by its msg_id
        self._shown_in_marimo: list[object] = []  # the latest marimo cell run that showed it
        self._marimo_shows = 0
        self._cell_agents: WeakKeyDictionary[UserQuestions, Agent] = WeakKeyDictionary()
        self._cell_wait = CellWait(self.default_panel, self._show)

    # -- the service, its rules and the panel ----------------------------------------------

    def default_service(self) -> UserQuestions:
        """The service behind :func:`ask` and :func:`approve` (created on first use).

        It answers tool approvals by the approval rules in ``$IPYASK_RULES`` or
        ``.ipyask/rules.toml`` first (:class:`~ipyask.Rules`), read when it is created; a rules
        file that cannot be read raises :class:`~ipyask.errors.RulesError` here (no service
        without them).
        """
        if self._service is None or self._service.closed:
            rules = Rules.load()
            service = UserQuestions()
            rules.register(service)  # even none: an Always allow adds to them
            self._service, self._rules = service, rules
        return self._service

    def default_rules(self) -> Rules:
        """The approval rules of the default service (empty when it has none): what they
        answered is in their :attr:`~ipyask.Rules.decisions`."""
        self.default_service()
        assert self._rules is not None  # set with the service
        return self._rules

    def default_panel(self) -> QuestionPanel:
        """The panel of the default service (created on first use)."""
        if self._panel is None or self._panel.closed:
            panel = self._panel = QuestionPanel(self.default_service())
            if self._unrecord is not None:
                self._unrecord()
            # What the rules answer shows no card: the panel's transcript records it.
            rules = self._rules
            self._unrecord = (
                # even with no rules yet: an Always allow may add some
                rules.on_decision(partial(_write_rule_record, panel)) if rules is not None else None
            )
            self._shown_in.clear()
            self._cell_views.clear()
            self._shown_in_marimo.clear()
            self._marimo_shows = 0
            front_end_seen(panel)  # record how the front end sends, from the first view message
        return self._panel

    def panel_if_made(self) -> tuple[QuestionPanel | None, int]:
        """The default panel if one was made (closed or not), and in how many cells it or a
        cell's view of its questions was shown."""
        shown = len(self._shown_in | self._cell_views.keys()) + self._marimo_shows
        return self._panel, shown

    # -- showing: the panel, and each asking cell's view -----------------------------------

    def show_panel(self) -> None:
        """Show the default panel, with every question of the one-liners, in this cell's output
        (once per cell).

        The one-liners show each cell only its own questions; the panel holds them all, its
        history folded. Call it in the cell that starts an agent task, so the task's questions
        show there (Voila shows only what a cell displays while it runs; a cell that shows the
        panel before it asks has no view of its own). In marimo it appends
        ``mo.ui.anywidget(panel)`` to the running cell's output. Outside a kernel and marimo
        there is nothing to show. Returns ``None``, so a cell ending in ``show_panel()`` shows
        the panel once (not again as the cell's value); :func:`default_panel` is the panel.
        """
        kernel = current_kernel()
        if kernel is None:
            self._show_in_marimo()
            return
        panel = self.default_panel()
        cell = _cell_id(kernel)
        if cell is not None and cell not in self._shown_in:
            self._shown_in.add(cell)
            _display(panel)

    def _show(self) -> None:
        """Show the asking cell's view in its output (once per cell), where the cell wait
        shows."""
        kernel = current_kernel()
        if kernel is None:
            self._show_in_marimo()  # plain Python: no panel would ever be answered
            return
        panel = self.default_panel()
        cell = _cell_id(kernel)
        if cell is None or (cell in self._shown_in and cell not in self._cell_views):
            return  # no cell, or the panel shown in this cell is its view
        view = self._cell_views.get(cell)
        if view is None:
            view = self._cell_views[cell] = panel.cell_view()
            _display(view)
        share_route(panel, view)  # a blocking call may have routed the panel's messages

    def _show_in_marimo(self) -> None:
        """In a running marimo cell: append the panel to the cell's output, as marimo shows
        widgets."""
        run = marimo_cell()
        if run is None or any(shown is run for shown in self._shown_in_marimo):
            return
        import marimo

        panel = self.default_panel()
        self._shown_in_marimo[:] = [run]
        self._marimo_shows += 1
        marimo.output.append(marimo.ui.anywidget(panel))

    # -- how a cell waits: the only difference between a verb and its blocking form --------

    async def _await(self, asking: _Asking[T]) -> T:
        return await self._cell_wait.await_in_cell(self._in_cell(asking))

    def _block(self, asking: _Asking[T]) -> T:
        return self._cell_wait.run_blocking(self._in_cell(asking))

    def _in_cell(self, asking: _Asking[T]) -> _Asking[T]:
        """``asking``, into the view of the cell that calls this (see :meth:`_show`).

        The cell is told here, in the caller's context; the ask may run on another thread.
        """
        cell = _running_cell()
        if cell is None:
            return asking

        async def in_view() -> T:
            view = self._cell_views.get(cell)
            if view is None or view.panel is not self._panel:
                return await asking()
            with view.collecting():
                return await asking()

        return in_view

    # -- the verbs ---------------------------------------------------------------------------

    @overload
    async def ask(
        self,
        question: str,
        options: Sequence[str] = (),
        *,
        multi_select: bool = False,
        header: str | None = None,
        detail: str | None = None,
        timeout: None = None,
        on_timeout: str = "pending",
    ) -> str | list[str] | None: ...
    @overload
    async def ask(
        self,
        question: str,
        options: Sequence[str] = (),
        *,
        multi_select: bool = False,
        header: str | None = None,
        detail: str | None = None,
        timeout: float,
        on_timeout: str = "pending",
    ) -> str | list[str] | PendingAnswer | None: ...
    async def ask(
        self,
        question: str,
        options: Sequence[str] = (),
        *,
        multi_select: bool = False,
        header: str | None = None,
        detail: str | None = None,
        timeout: float | None = None,
        on_timeout: str = "pending",
    ) -> str | list[str] | PendingAnswer | None:
        """Ask one question on the default panel and return the person's answer.

        Single-select: the chosen label, or the typed "Other" text, or ``None`` when skipped.
        Multi-select: the chosen labels, with typed text last (``[]`` when skipped). With
        ``timeout`` (seconds) the card counts down and the call returns ``PendingAnswer`` when
        the window runs out, or what ``on_timeout`` declares (see :func:`ask_blocking`).
        """
        return await self._await(
            self._ask(question, options, multi_select, header, detail, timeout, on_timeout)
        )

    def ask_blocking(
        self,
        question: str,
        options: Sequence[str] = (),
        *,
        multi_select: bool = False,
        header: str | None = None,
        detail: str | None = None,
        timeout: float | None = None,
        on_timeout: str = "pending",
    ) -> str | list[str] | PendingAnswer | None:
        """Ask one question on the default panel and block until the person answers.

        Returns what :func:`ipyask.ask` returns. With ``timeout`` (seconds, > 0) the question
        is a timed one, like ``UserQuestions.ask_timed``: a view showing the card counts down
        (and pauses while the person takes time), and when the window runs out the call
        returns ``PendingAnswer(call_id=...)`` and the card expires. ``on_timeout`` declares
        otherwise: ``"reject"`` or one of the card's decisions (an option's label here) is
        returned then, the card and the transcript say the timeout decided, and the card takes
        a late answer, recorded as late (see ``UserQuestions.ask_timed``); a value the card does
        not offer raises :class:`ValueError` naming the allowed ones. Raises
        ``UserQuestionError``: ``ASK_ABORTED`` on Ctrl-C or a kernel interrupt (the card is
        marked cancelled), ``NO_PROVIDER`` outside Jupyter with no answerer registered,
        ``BAD_TIMEOUT``, or :class:`~ipyask.errors.BlockingUnsupportedError` where the kernel
        cannot deliver the answer meanwhile.
        """
        return self._block(
            self._ask(question, options, multi_select, header, detail, timeout, on_timeout)
        )

    def _ask(
        self,
        question: str,
        options: Sequence[str],
        multi_select: bool,
        header: str | None,
        detail: str | None,
        timeout: float | None,
        on_timeout: str,
    ) -> _Asking[str | list[str] | PendingAnswer | None]:
        item = _question_item(question, options, multi_select, header, detail)
        asking = self._asking(item, timeout, on_timeout)

        async def answered() -> str | list[str] | PendingAnswer | None:
            outcome = await asking()
            if isinstance(outcome, PendingAnswer):
                return outcome
            return _value(outcome.answers[0], multi_select)

        return answered

    async def approve(
        self,
        question: str,
        *,
        detail: str = "",
        subject: str | None = None,
        icon: str | None = None,
        approve: str = "Approve",
        reject: str = "Reject",
        always: str | None = None,
        timeout: float | None = None,
        on_timeout: str = "pending",
    ) -> str:
        """Ask for a permission decision on the default panel; returns the chosen label.

        The card offers Reject, the ``approve`` button (allow once), and Always allow when
        ``always`` names a label for it; the label of the button clicked is what returns. The
        answered card says what the person did ("Rejected", the approve label, "Always
        allowed") and, beside it, the label returned when that differs. ``subject`` names who
        asks (``icon``: an https/http/data:image URL).

        ``timeout`` (seconds, on the service's clock) bounds the wait. An approval is never a
        timed question (it blocks until the person decides and takes no late answer), so when
        the time runs out the card is withdrawn, saying so, and ``on_timeout`` decides what
        returns: ``"reject"`` (the ``reject`` label) or one of the card's labels; ``"pending"``
        (the default) raises ``UserQuestionError`` ``ASK_TIMED_OUT``. A value the card does not
        offer, or ``on_timeout`` without ``timeout``, raises :class:`ValueError`.
        """
        return await self._await(
            self._approve(
                question, detail, subject, icon, approve, reject, always, timeout, on_timeout
            )
        )

    def approve_blocking(
        self,
        question: str,
        *,
        detail: str = "",
        subject: str | None = None,
        icon: str | None = None,
        approve: str = "Approve",
        reject: str = "Reject",
        always: str | None = None,
        timeout: float | None = None,
        on_timeout: str = "pending",
    ) -> str:
        """:func:`ipyask.approve`, blocking: returns the chosen label (``timeout`` and
        ``on_timeout`` as there; see :func:`ask_blocking`)."""
        return self._block(
            self._approve(
                question, detail, subject, icon, approve, reject, always, timeout, on_timeout
            )
        )

    def _approve(
        self,
        question: str,
        detail: str,
        subject: str | None,
        icon: str | None,
        approve: str,
        reject: str,
        always: str | None,
        timeout: float | None,
        on_timeout: str,
    ) -> _Asking[str]:
        item = _approval_item(question, detail, subject, icon, approve, reject, always)
        request = AskUserQuestionRequest.model_validate({"questions": [item]})
        labels = [reject, approve, *([always] if always is not None else [])]
        timeout_ms = _timeout_ms(timeout)
        decided = _approval_timeout_label(on_timeout, labels, timeout_ms is not None)
        service = self.default_service()
        if timeout_ms is None:

            async def chosen() -> str:
                answer = await service.ask(request)
                return answer.answers[0].selected[0]

            return chosen
        return partial(_approve_within, service, request, timeout_ms, decided)

    @overload
    async def approve_tool(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        schema: Mapping[str, Any] | None = None,
        decisions: Sequence[DecisionKind] = _DEFAULT_DECISIONS,
        description: str | None = None,
        timeout: None = None,
        on_timeout: str = "pending",
    ) -> ToolDecision: ...
    @overload
    async def approve_tool(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        schema: Mapping[str, Any] | None = None,
        decisions: Sequence[DecisionKind] = _DEFAULT_DECISIONS,
        description: str | None = None,
        timeout: float,
        on_timeout: str = "pending",
    ) -> ToolDecision | PendingAnswer: ...
    async def approve_tool(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        schema: Mapping[str, Any] | None = None,
        decisions: Sequence[DecisionKind] = _DEFAULT_DECISIONS,
        description: str | None = None,
        timeout: float | None = None,
        on_timeout: str = "pending",
    ) -> ToolDecision | PendingAnswer:
        """Ask the person to approve a call of tool ``name`` with ``arguments``.

        ``decisions`` are the ones the card offers: ``approve``, ``always`` (your persistent
        grant), ``edit`` (the arguments become editable: a form from ``schema`` when it is a
        flat object of simple fields, else a JSON editor; edited arguments are checked against
        ``schema``), ``reject`` (with an optional reason), ``respond`` (text returned instead of
        running the tool), ``never`` (always reject: your persistent refusal) and ``stop``
        (reject and stop the agent), both with an optional reason. ``description`` (Markdown)
        says what the tool does. Returns a :class:`~ipyask.ToolDecision`; with ``timeout``
        (seconds) the card counts down and the call returns :class:`~ipyask.PendingAnswer` when
        the window runs out — pending, never a denial, unless ``on_timeout`` declares a
        decision: ``"reject"`` (a reject whose reason says the timeout decided) or a decision's
        label, e.g. ``"Approve"`` (see :func:`ask_blocking`).
        """
        return await self._await(
            self._approve_tool(name, arguments, schema, decisions, description, timeout, on_timeout)
        )

    @overload
    def approve_tool_blocking(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        schema: Mapping[str, Any] | None = None,
        decisions: Sequence[DecisionKind] = _DEFAULT_DECISIONS,
        description: str | None = None,
        timeout: None = None,
        on_timeout: str = "pending",
    ) -> ToolDecision: ...
    @overload
    def approve_tool_blocking(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        schema: Mapping[str, Any] | None = None,
        decisions: Sequence[DecisionKind] = _DEFAULT_DECISIONS,
        description: str | None = None,
        timeout: float,
        on_timeout: str = "pending",
    ) -> ToolDecision | PendingAnswer: ...
    def approve_tool_blocking(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        schema: Mapping[str, Any] | None = None,
        decisions: Sequence[DecisionKind] = _DEFAULT_DECISIONS,
        description: str | None = None,
        timeout: float | None = None,
        on_timeout: str = "pending",
    ) -> ToolDecision | PendingAnswer:
        """:func:`ipyask.approve_tool`, blocking (see :func:`ask_blocking`)."""
        return self._block(
            self._approve_tool(name, arguments, schema, decisions, description, timeout, on_timeout)
        )

    def _approve_tool(
        self,
        name: str,
        arguments: Mapping[str, Any],
        schema: Mapping[str, Any] | None,
        decisions: Sequence[DecisionKind],
        description: str | None,
        timeout: float | None,
        on_timeout: str,
    ) -> _Asking[ToolDecision | PendingAnswer]:
        item = tool_approval_question(
            name, arguments, schema=schema, decisions=decisions, description=description
        )
        asking = self._asking(item, timeout, on_timeout)

        async def decided() -> ToolDecision | PendingAnswer:
            outcome = await asking()
            if isinstance(outcome, PendingAnswer):
                return outcome
            return tool_decision(item, outcome.answers[0])

        return decided

    @overload
    async def form(
        self,
        message: str,
        schema: Mapping[str, Any],
        *,
        detail: str | None = None,
        timeout: None = None,
        on_timeout: str = "pending",
    ) -> FormResult: ...
    @overload
    async def form(
        self,
        message: str,
        schema: Mapping[str, Any],
        *,
        detail: str | None = None,
        timeout: float,
        on_timeout: str = "pending",
    ) -> FormResult | PendingAnswer: ...
    async def form(
        self,
        message: str,
        schema: Mapping[str, Any],
        *,
        detail: str | None = None,
        timeout: float | None = None,
        on_timeout: str = "pending",
    ) -> FormResult | PendingAnswer:
        """Ask the person to fill in a form of typed fields and return the outcome.

        ``schema`` is a flat object schema in the MCP elicitation subset (strings with length,
        pattern and email / uri / date / date-time formats, numbers, integers, booleans, single-
        and multi-select enums; ``required``, ``default``, ``title``, ``description``); anything
        else is refused with ``BAD_INTENT``. Returns a :class:`~ipyask.FormResult`: ``accept``
        with values valid against the schema, ``decline`` or ``cancel`` (the Cancel button, and
        closing the card with ×); with ``timeout``, possibly :class:`~ipyask.PendingAnswer`
        (``on_timeout="reject"``: a ``decline`` instead, or ``cancel`` when the form has none).
        """
        return await self._await(self._form(message, schema, detail, timeout, on_timeout))

    @overload
    def form_blocking(
        self,
        message: str,
        schema: Mapping[str, Any],
        *,
        detail: str | None = None,
        timeout: None = None,
        on_timeout: str = "pending",
    ) -> FormResult: ...
    @overload
    def form_blocking(
        self,
        message: str,
        schema: Mapping[str, Any],
        *,
        detail: str | None = None,
        timeout: float,
        on_timeout: str = "pending",
    ) -> FormResult | PendingAnswer: ...
    def form_blocking(
        self,
        message: str,
        schema: Mapping[str, Any],
        *,
        detail: str | None = None,
        timeout: float | None = None,
        on_timeout: str = "pending",
    ) -> FormResult | PendingAnswer:
        """:func:`ipyask.form`, blocking (see :func:`ask_blocking`)."""
        return self._block(self._form(message, schema, detail, timeout, on_timeout))

    def _form(
        self,
        message: str,
        schema: Mapping[str, Any],
        detail: str | None,
        timeout: float | None,
        on_timeout: str,
    ) -> _Asking[FormResult | PendingAnswer]:
        """Every way the person ends a form without answering is one result: closing the card
        (``ASK_CANCELLED``) is the form's ``cancel``, as its Cancel button is."""
        item = form_question(message, schema, detail=detail)
        asking = self._asking(item, timeout, on_timeout)

        async def filled() -> FormResult | PendingAnswer:
            try:
                outcome = await asking()
            except UserQuestionError as error:
                if error.code != "ASK_CANCELLED":
                    raise
                return FormResult(action="cancel")
            if isinstance(outcome, PendingAnswer):
                return outcome
            return form_result(item, outcome.answers[0])

        return filled

    async def ask_batch(
        self, request: AskUserQuestionRequest | Mapping[str, Any]
    ) -> AskUserQuestionAnswer:
        """Ask a whole request (any questions and intents, in wire form or as a model) on the
        default panel and return its answer batch, as ``default_service().ask`` does.

        What :func:`ask` and :func:`approve` do for one question; the framework bridges of
        :mod:`ipyask.integrations` ask through it when given no service.
        """
        asked = (
            request
            if isinstance(request, AskUserQuestionRequest)
            else AskUserQuestionRequest.model_validate(dict(request))
        )
        return await self._await(lambda: self.default_service().ask(asked))

    async def ask_timed_in_cell(
        self, request: AskUserQuestionRequest, call_id: str, timeout_ms: int, on_timeout: str
    ) -> TimedUserQuestionResult:
        """``ask_timed`` of ``request`` on the default service, as the cell's agent, its wait
        helped as :meth:`ask_batch`'s (the bridges' ``timeout=`` with no service given)."""
        service = self.default_service()
        timed = request.model_copy(update={"agent": self._cell_agent(service)})
        return await self._await(
            lambda: service.ask_timed(timed, call_id, timeout_ms, on_timeout=on_timeout)
        )

    def _asking(
        self, item: AskUserQuestionItem, timeout: float | None, on_timeout: str = "pending"
    ) -> _Asking[_Outcome]:
        """What asks ``item`` on the default service: timed (as :func:`ask_blocking`) with
        ``timeout`` seconds, else until the person answers."""
        timeout_ms = _timeout_ms(timeout)
        service = self.default_service()
        if timeout_ms is None:
            if on_timeout != "pending":
                raise ValueError(f"on_timeout={on_timeout!r} needs a timeout (seconds) to act on")
            request = AskUserQuestionRequest(questions=[item])
            return lambda: service.ask(request)
        timed = AskUserQuestionRequest(questions=[item], agent=self._cell_agent(service))
        call_id = f"cell-{uuid.uuid4().hex[:12]}"
        return lambda: service.ask_timed(timed, call_id, timeout_ms, on_timeout=on_timeout)

    def _cell_agent(self, service: UserQuestions) -> Agent:
        """The live agent that timed questions asked from cells belong to (one per service)."""
        agent = self._cell_agents.get(service)
        if agent is None or not service.agents.is_live(agent):
            agent = self._cell_agents[service] = service.agents.enter(Agent("notebook-cell"))
        return agent


def _write_rule_record(panel: QuestionPanel, applied: AppliedRule) -> None:
    rule = applied.decision.rule
    answer = AskUserQuestionAnswer(answers=[applied.item])
    denied = applied.decision.kind == "deny"
    where = None if denied else f"{rule.text} ({rule.where})"  # a denial's reason names it
    panel.write_rule_record(applied.question, answer, denied=denied, rule=where)


def _cell_id(kernel: Any) -> str | None:
    try:
        parent = kernel.get_parent("shell")
    except TypeError:  # ipykernel 6 takes no channel
        parent = kernel.get_parent()
    header = parent.get("header", {}) if isinstance(parent, dict) else {}
    msg_id = header.get("msg_id")
    return msg_id if isinstance(msg_id, str) else None


def _running_cell() -> str | None:
    kernel = current_kernel()
    return _cell_id(kernel) if kernel is not None else None


def _display(widget: QuestionPanel | CellView) -> None:
    from IPython.display import display

    if detect_host().name == "colab":
        enable_colab_widget_manager()  # else Colab shows no widget outside ipywidgets
    display(widget)  # type: ignore[no-untyped-call]


def _value(item: AskUserQuestionAnswerItem, multi_select: bool) -> str | list[str] | None:
    custom = item.custom if item.custom is not None and item.custom.strip() else None
    if multi_select:
        return [*item.selected, *([custom] if custom is not None else [])]
    if custom is not None:
        return custom
    return item.selected[0] if item.selected else None


def _question_item(
    question: str,
    options: Sequence[str],
    multi_select: bool,
    header: str | None,
    detail: str | None,
) -> AskUserQuestionItem:
    item: dict[str, Any] = {"id": "answer", "question": question, "multiSelect": multi_select}
    if options:
        item["options"] = [{"label": label} for label in options]
    if header is not None:
        item["header"] = header
    if detail is not None:
        item["detail"] = detail
    return AskUserQuestionItem.model_validate(item)


def _approval_item(
    question: str,
    detail: str,
    subject: str | None,
    icon: str | None,
    approve: str,
    reject: str,
    always: str | None,
) -> dict[str, Any]:
    labels = [reject, approve, *([always] if always is not None else [])]
    intent: dict[str, Any] = {"kind": "approval", "approve": approve, "reject": reject}
    if always is not None:
        intent["always"] = always
    if subject is not None:
        intent["subject"] = {"name": subject, **({"icon": icon} if icon else {})}
    # The card words Reject and Always allow itself; its approve button says ``approve``.
    intent["display"] = {"question": {"en": question}, "approve": {"en": approve}}
    return {
        "id": "approval",
        "question": question,
        "detail": detail,
        "options": [{"label": label} for label in labels],
        "intent": intent,
    }


def _approval_timeout_label(on_timeout: str, labels: list[str], timed: bool) -> str | None:
    """The label ``on_timeout`` returns when an approval's time runs out (``None``: it raises
    ``ASK_TIMED_OUT``); raises :class:`ValueError` naming the allowed values."""
    if not timed:
        if on_timeout != "pending":
            raise ValueError(f"on_timeout={on_timeout!r} needs a timeout (seconds) to act on")
        return None
    if on_timeout == "pending":
        return None
    if on_timeout == "reject":
        return labels[0]
    if on_timeout in labels:
        return on_timeout
    allowed = ", ".join(repr(value) for value in ["pending", "reject", *labels])
    raise ValueError(
        f"on_timeout must be one of {allowed} for this approval, not {on_timeout!r} ('pending' "
        "raises ASK_TIMED_OUT: an approval cannot be answered late; 'reject' and a label are "
        "returned when its time runs out)"
    )


async def _approve_within(
    service: UserQuestions, request: AskUserQuestionRequest, timeout_ms: int, decided: str | None
) -> str:
    """Ask the approval until the person decides or ``timeout_ms`` run out on the service's
    clock. An approval is never a timed question (it blocks until the person decides, and
    takes no late answer), so the deadline withdraws it: the card says the time ran out, and
    ``decided`` is returned (``None``: ``ASK_TIMED_OUT`` is raised)."""
    controller = AbortController()
    timer = service.clock.call_later(
        timeout_ms, partial(controller.abort, UserQuestionError.of("ASK_TIMED_OUT"))
    )
    try:
        answer = await service.ask(request.model_copy(update={"signal": controller.signal}))
    except UserQuestionError as error:
        if error.code == "NO_PROVIDER" and decided is not None:
            await controller.signal.wait()  # nobody to ask: the declared decision, in time
        elif not controller.signal.aborted or error.code not in ("ASK_TIMED_OUT", "ASK_ABORTED"):
            raise
        if decided is None:
            raise UserQuestionError(
                f"no one decided within {timeout_ms / 1000:g} s; an approval cannot be answered "
                "late, so it was withdrawn (give on_timeout='reject' or one of its labels to go "
                "on with that instead)",
                "ASK_TIMED_OUT",
            ) from error
        return decided
    finally:
        timer.cancel()
    return answer.answers[0].selected[0]


def _timeout_ms(timeout: object) -> int | None:
    if timeout is None:
        return None
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or timeout <= 0
        or math.ceil(timeout * 1000) > MAX_TIMEOUT_MS
    ):
        raise UserQuestionError.of("BAD_TIMEOUT")
    return math.ceil(timeout * 1000)


_default_notebook = Notebook()
"""The default notebook: every one-liner asks on it."""

default_service = _default_notebook.default_service
default_rules = _default_notebook.default_rules
default_panel = _default_notebook.default_panel
panel_if_made = _default_notebook.panel_if_made
show_panel = _default_notebook.show_panel
ask = _default_notebook.ask
ask_blocking = _default_notebook.ask_blocking
approve = _default_notebook.approve
approve_blocking = _default_notebook.approve_blocking
approve_tool = _default_notebook.approve_tool
approve_tool_blocking = _default_notebook.approve_tool_blocking
form = _default_notebook.form
form_blocking = _default_notebook.form_blocking
ask_batch = _default_notebook.ask_batch
