"""``NotebookRunner``: run a notebook in a real kernel while a scripted person answers its cards.

Cells run in order, as in a notebook; while a cell runs (or waits for an answer), every pending or
continued card is answered from the script through :class:`HeadlessFrontend` — the real widget
comm, not an edited notebook. Any cell error fails the run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._headless import Card, HeadlessFrontend
from ._kernel_client import FrontendError
from ._scripted import (
    SKIP,
    TIME_OUT,
    AlwaysAllow,
    Approve,
    Cancel,
    Decline,
    Edit,
    Other,
    Reject,
    Respond,
)

__all__ = ["LEAVE_PENDING", "RESTART_TAG", "NotebookEvent", "NotebookRunner", "Step"]


class _LeavePending:
    def __repr__(self) -> str:
        return "LEAVE_PENDING"


LEAVE_PENDING = _LeavePending()
"""A step that leaves the card pending this time (say, across a kernel restart); the next step
answers it when it comes up again (on a new panel)."""

RESTART_TAG = "restart-kernel-after"
"""A code cell tagged so is followed by a kernel restart through the kernel manager, as a
person choosing *Restart kernel* would do; the run goes on with the next cell."""

Step = Any
"""A label; labels (multi-select); typed text (a question without options); :class:`Other`;
:data:`SKIP`; :data:`TIME_OUT` (claim the card and let its countdown run out); for a batch, a
mapping of question id to one of those; for a tool-approval card :class:`Approve`,
:class:`AlwaysAllow`, :class:`Edit`, :class:`Reject` or :class:`Respond`; for a form card a
mapping of field values, :class:`Decline` or :class:`Cancel`; :data:`LEAVE_PENDING`."""


@dataclass(frozen=True)
class NotebookEvent:
    """One line of the run's transcript."""

    kind: str
    """``cell``, ``asked``, ``answered``, ``timed out``, ``late reply``, ``left pending``,
    ``restart`` or ``output``."""
    text: str

    def __str__(self) -> str:
        return f"{self.kind:>10} │ {self.text}"


def _describe(batch: Mapping[str, Any]) -> str:
    parts = []
    for item in batch["answers"]:
        values = [*item["selected"], *([f"“{item['custom']}”"] if item.get("custom") else [])]
        parts.append(f"{item['id']}: {', '.join(values) if values else 'skipped'}")
    return "; ".join(parts)


class NotebookRunner:
    """Runs ``path`` cell by cell; ``script`` maps text of a card's first question to its steps.

    A card comes up once pending and, for a timed question that went pending, once more as
    continued: give a list of steps to script both (e.g. ``[TIME_OUT, "Yes"]``).
    """

    def __init__(
        self,
        path: str | Path,
        script: Mapping[str, Step | Sequence[Step]],
        *,
        frontend: HeadlessFrontend,
        on_event: Callable[[NotebookEvent], object] | None = None,
        cell_timeout: float = 120.0,
        then_await: str | None = None,
    ) -> None:
        import nbformat

        self.path = Path(path)
        self.notebook = nbformat.read(self.path, as_version=4)  # type: ignore[no-untyped-call]
        self.frontend = frontend
        self.cell_timeout = cell_timeout
        self.then_await = then_await
        self._steps = {
            text: list(steps) if isinstance(steps, list) else [steps]
            for text, steps in script.items()
        }
        # (card key, status) handled in the running kernel: a card shown by several widgets
        # (the panel and a cell's view of its questions) is answered once.
        self._handled: set[tuple[str, str]] = set()
        self._asked: set[str] = set()
        self._timing_out: set[str] = set()
        self.events: list[NotebookEvent] = []
        self.asked_in: dict[str, tuple[str, str]] = {}
        """Per question text of each card: the cell that ran when it came up, and its key."""
        self.executions: dict[str, Any] = {}
        """Each code cell's execution (its outputs: ``stdout``, ``stderr``, …), by index."""
        self._cell = ""
        self._on_event = on_event

    def _emit(self, kind: str, text: str) -> None:
        event = NotebookEvent(kind, text)
        self.events.append(event)
        if self._on_event is not None:
            self._on_event(event)

    def run(self) -> list[NotebookEvent]:
        """Execute every code cell; raises ``KernelError`` on the first failing cell.

        With ``then_await`` (e.g. ``"task"`` for a notebook that starts its agent as a task), a
        last cell ``await <then_await>`` keeps answering cards until that finishes.
        """
        kernel = self.frontend.kernel
        sources = [
            (str(index), cell.source, RESTART_TAG in cell.metadata.get("tags", []))
            for index, cell in enumerate(self.notebook.cells)
            if cell.cell_type == "code" and cell.source.strip()
        ]
        if self.then_await is not None:
            sources.append(("then", f"await {self.then_await}", False))
        for index, source, restart_after in sources:
            self._emit("cell", f"[{index}] {source.splitlines()[0][:70]}")
            execution = kernel.execute_nowait(source)
            self._cell, self.executions[index] = index, execution

            def settled(execution: Any = execution) -> bool:
                self._answer_cards()
                return bool(execution.done)

            kernel.wait_for(settled, timeout=self.cell_timeout, what=f"cell {index} to finish")
            execution.wait(raise_on_error=True)
            for text in (execution.stdout, execution.text):
                if text and text.strip():
                    self._emit("output", text.strip().splitlines()[0][:100])
            if restart_after:
                kernel.restart()
                self._handled.clear()  # the new kernel's panel shows its cards anew
                self._emit("restart", "the kernel was restarted")
        return self.events

    def cells_showing(self, question: str) -> list[str]:
        """The cells (their indexes) whose output shows a widget holding the card of
        ``question`` (a panel, or a cell's view of its questions)."""
        _, key = self.asked_in[question]
        panels = set(self.frontend.panels())
        return [
            index
            for index, execution in self.executions.items()
            if any(
                key in {card["key"] for card in self.frontend.cards(model)}
                for model in execution.displayed_models
                if model in panels
            )
        ]

    def _answer_cards(self) -> None:
        for panel in self.frontend.panels():
            for card in self.frontend.cards(panel):
                status = card.get("status")
                if (
                    status in ("pending", "continued")
                    and (card["key"], status) not in self._handled
                ):
                    self._answer(panel, card)
                if card["key"] in self._timing_out and self.frontend.frames(card["key"], panel):
                    self._timing_out.discard(card["key"])
                    self.frontend.time_out(card["key"])

    def _answer(self, panel: str, card: Card) -> None:
        question = card["questions"][0]["question"]
        steps = next((s for text, s in self._steps.items() if text in question), None)
        if not steps:
            raise FrontendError(f"the script has no step for the card {question!r}")
        step = steps.pop(0)
        key, status = card["key"], card["status"]
        self._handled.add((key, status))
        if status == "pending" and key not in self._asked:  # not again on a restarted kernel
            self._asked.add(key)
            self.asked_in.setdefault(question, (self._cell, key))
            self._emit("asked", question)
        if step is LEAVE_PENDING:
            self._emit("left pending", question)
            return
        if card.get("wait") == "timed" and status == "pending":
            self.frontend.claim(key)  # a view that shows a timed card claims its wait
        if step is TIME_OUT:
            self._timing_out.add(key)  # sent once the kernel's frame arrives
            self._emit("timed out", f"{question} → pending; the agent goes on")
            return
        batch = self._decide(card, step)
        if batch is None:
            for item in card["questions"]:
                reply = step.get(item["id"]) if isinstance(step, Mapping) else step
                self._apply(key, item, reply)
            batch = self.frontend.submit(key)
        kind = "late reply" if status == "continued" else "answered"
        self._emit(kind, _describe(batch))

    def _decide(self, card: Card, step: Step) -> dict[str, Any] | None:
        """Answer a tool-approval or form card; ``None`` for any other card."""
        key = card["key"]
        kind = card.get("view", {}).get("presentation", {}).get("kind")
        front = self.frontend
        if kind == "tool-approval":
            if isinstance(step, (Approve, AlwaysAllow)):
                return front.approve_tool(key, always=isinstance(step, AlwaysAllow))
            if isinstance(step, Edit):
                return front.edit(key, step.arguments)
            if isinstance(step, Reject):
                return front.reject(key, step.message)
            if isinstance(step, Respond):
                return front.respond(key, step.text)
        if kind == "form":
            if isinstance(step, Decline):
                return front.decline(key)
            if isinstance(step, Cancel):
                return front.cancel(key)
            if isinstance(step, Mapping):
                return front.fill(key, step)
        return None

    def _apply(self, key: str, item: Mapping[str, Any], reply: Step) -> None:
        qid = item["id"]
        if reply is SKIP or reply is None:
            self.frontend.skip(key, question=qid)
        elif isinstance(reply, Other):
            if reply.selected:
                self.frontend.choose(key, *reply.selected, question=qid)
            self.frontend.type_other(key, reply.text, question=qid)
        elif isinstance(reply, str) and not item.get("options"):
            self.frontend.type_other(key, reply, question=qid)
        elif isinstance(reply, str):
            self.frontend.choose(key, reply, question=qid)
        else:
            self.frontend.choose(key, *reply, question=qid)
