"""``HeadlessFrontend``: a person at a question panel, played by code against a real kernel.

It sees the panel's cards exactly as a browser view does (the synced ``cards`` state and the
newer ``cards`` messages) and speaks the panel's messages (``docs/protocol.md``) over the real
widget comm: choose options by label, type "Other" text, skip, submit, claim, release, let a
countdown run out, cancel; decide on a tool-approval card (approve, always allow, edit, reject,
respond) and fill in, decline or cancel a form card. Drafts and the answer encoding follow the
card's rules, so what it submits is what a person's click submits.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..widget import PROTOCOL_VERSION
from ._card_mirror import LIVE_STATUSES, CardMirror
from ._kernel_client import FrontendError, KernelFrontend

__all__ = ["HeadlessFrontend"]

Card = dict[str, Any]


@dataclass
class _Draft:
    selected: list[str] = field(default_factory=list)
    custom: str = ""
    skipped: bool = False

    @property
    def answered(self) -> bool:
        return bool(self.selected) or bool(self.custom.strip())


class HeadlessFrontend:
    """One view of the question panels in a kernel.

    Pass a running :class:`KernelFrontend`, or let it start one (keyword arguments go to
    ``KernelFrontend``) and use it as a context manager. ``subshell=True`` sends every panel
    message over a kernel subshell, as JupyterLab ≥ 4.4 does.
    """

    def __init__(
        self,
        kernel: KernelFrontend | None = None,
        *,
        view_id: str | None = None,
        subshell: bool = False,
        timeout: float = 10.0,
        **kernel_options: Any,
    ) -> None:
        self._owns_kernel = kernel is None
        self.kernel = kernel if kernel is not None else KernelFrontend(**kernel_options)
        self.view_id = view_id or f"headless-{uuid.uuid4().hex[:8]}"
        self.timeout = timeout
        self._subshell = subshell
        self.subshell_id: str | None = None
        self._drafts: dict[tuple[str, str], _Draft] = {}
        self._held: set[str] = set()
        self._mirrors: dict[str, CardMirror] = {}

    def __enter__(self) -> HeadlessFrontend:
        if self._owns_kernel:
            self.kernel.__enter__()
        if self._subshell and self.subshell_id is None:
            self.subshell_id = self.kernel.create_subshell()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._owns_kernel:
            self.kernel.__exit__(None, None, None)

    def execute(self, code: str, **options: Any) -> Any:
        """Run a cell in the kernel (see ``KernelFrontend.execute``)."""
        return self.kernel.execute(code, **options)

    # -- what the view sees -------------------------------------------------------------------
    def panels(self) -> list[str]:
        """Model ids of the question panels (and widgets) the kernel has open."""
        return [
            model.model_id
            for model in self.kernel.models()
            if "cards" in model.state and "protocol_version" in model.state
        ]

    def panel(self, panel: str | None = None) -> str:
        """``panel``, or the most recently opened question panel."""
        if panel is not None:
            return panel
        found = self.panels()
        if not found:
            raise FrontendError("the kernel has no question panel open")
        return found[-1]

    def cards(self, panel: str | None = None) -> list[Card]:
        """The panel's cards as a view has them: its synced state and newer ``cards`` messages;
        the live cards (pending or continued) first, then the settled ones, oldest first."""
        model = self.kernel.widget(self.panel(panel))
        return self._mirror(model.model_id).cards(model.state, model.custom)

    def live_cards(self, panel: str | None = None) -> list[Card]:
        """Only the panel's live cards (pending or continued), however long its history is."""
        model = self.kernel.widget(self.panel(panel))
        return self._mirror(model.model_id).live(model.state, model.custom)

    def _mirror(self, model_id: str) -> CardMirror:
        mirror = self._mirrors.get(model_id)
        if mirror is None:
            mirror = self._mirrors[model_id] = CardMirror()
        return mirror

    def panel_of(self, key: str) -> str:
        """The most recently opened question widget that holds card ``key`` (a card may show in
        several: the panel and a cell's view of its questions), else :meth:`panel`."""
        for model_id in reversed(self.panels()):
            try:
                if any(card["key"] == key for card in self.cards(model_id)):
                    return model_id
            except FrontendError:  # closed while messages were read
                continue
        return self.panel()

    def card(self, key: str, panel: str | None = None) -> Card:
        """The card with ``key`` (in ``panel``, else in the newest widget that holds it)."""
        panel = panel if panel is not None else self.panel_of(key)
        for card in self.cards(panel):
            if card["key"] == key:
                return card
        raise FrontendError(f"no card {key!r}; cards: {[c['key'] for c in self.cards(panel)]}")

    def wait_for_card(
        self,
        match: str | Callable[[Card], object] | None = None,
        *,
        status: str | None = "pending",
        panel: str | None = None,
        timeout: float | None = None,
    ) -> Card:
        """The first card with ``status`` whose first question contains ``match`` (or that
        ``match(card)`` accepts); waits for it."""
        found: list[Card] = []

        def check() -> bool:
            try:
                cards = self.live_cards(panel) if status in LIVE_STATUSES else self.cards(panel)
            except FrontendError:  # no panel yet, or it closed while messages were read
                return False
            for card in cards:
                if status is not None and card.get("status") != status:
                    continue
                if match is None or (
                    match(card) if callable(match) else match in card["questions"][0]["question"]
                ):
                    found.append(card)
                    return True
            return False

        what = f"a {status or ''} card matching {match!r}"
        self.kernel.wait_for(check, timeout=timeout or self.timeout, what=what)
        return found[0]

    def wait_for_status(self, key: str, status: str, *, timeout: float | None = None) -> Card:
        """Wait until card ``key`` has ``status`` (in the newest widget that holds it)."""
        return self.wait_for_card(
            lambda c: c["key"] == key, status=status, panel=self.panel_of(key), timeout=timeout
        )

    def errors(self, panel: str | None = None) -> list[dict[str, Any]]:
        """``error`` messages the kernel sent to this view (or to every view)."""
        return [
            message.content
            for message in self.kernel.custom_messages(self.panel(panel))
            if isinstance(message.content, dict)
            and message.content.get("kind") == "error"
            and message.content.get("viewId") in (None, self.view_id)
        ]

    def wait_for_error(self, *, since: int = 0, timeout: float | None = None) -> dict[str, Any]:
        """The first error to this view at index ≥ ``since`` of :meth:`errors`."""
        self.kernel.wait_for(
            lambda: len(self.errors()) > since, timeout=timeout or self.timeout, what="an error"
        )
        return self.errors()[since]

    def frames(self, key: str, panel: str | None = None) -> list[int]:
        """Remaining-time frames the kernel sent for card ``key``."""
        panel = panel if panel is not None else self.panel_of(key)
        return [
            int(message.content["remainingMs"])
            for message in self.kernel.custom_messages(panel)
            if isinstance(message.content, dict)
            and message.content.get("kind") == "frame"
            and message.content.get("key") == key
        ]

    # -- what the person does ------------------------------------------------------------------
    def send(self, kind: str, panel: str | None = None, **fields: Any) -> None:
        """Send one panel message from this view (to ``panel``; else to the newest widget that
        holds the card the message names, or to the newest widget)."""
        key = fields.get("key")
        if panel is None and isinstance(key, str):
            panel = self.panel_of(key)
        content = {"kind": kind, "viewId": self.view_id, "protocolVersion": PROTOCOL_VERSION}
        content.update(fields)
        self.kernel.send_custom(self.panel(panel), content, subshell_id=self.subshell_id)

    def _question(self, key: str, question: str | None) -> dict[str, Any]:
        questions = self.card(key)["questions"]
        if question is None:
            return dict(questions[0])
        for item in questions:
            if question in (item["id"], item["question"]):
                return dict(item)
        raise FrontendError(f"card {key!r} has no question {question!r}")

    def _draft(self, key: str, question: dict[str, Any]) -> _Draft:
        return self._drafts.setdefault((key, question["id"]), _Draft())

    def choose(self, key: str, *labels: str, question: str | None = None) -> None:
        """Click options by label (a multi-select click toggles; single-select replaces)."""
        item = self._question(key, question)
        offered = [option["label"] for option in item.get("options", [])]
        draft = self._draft(key, item)
        for label in labels:
            if label not in offered:
                raise FrontendError(f"question {item['id']} offers no option {label!r}: {offered}")
            if item.get("multiSelect"):
                if label in draft.selected:
                    draft.selected.remove(label)
                else:
                    draft.selected.append(label)
            else:
                draft.selected = [label]
                draft.custom = ""
            draft.skipped = False

    def type_other(self, key: str, text: str, *, question: str | None = None) -> None:
        """Type free text (single-select: it replaces the chosen option)."""
        item = self._question(key, question)
        draft = self._draft(key, item)
        draft.custom = text
        draft.skipped = False
        if not item.get("multiSelect"):
            draft.selected = []
        self._held.add(key)  # a first edit holds the countdown

    def skip(self, key: str, *, question: str | None = None) -> None:
        """Skip a question."""
        item = self._question(key, question)
        self._drafts[(key, item["id"])] = _Draft(skipped=True)

    def batch(self, key: str) -> dict[str, Any]:
        """The answer batch a Submit would send now (the card's encoding)."""
        answers = []
        for item in self.card(key)["questions"]:
            draft = self._drafts.get((key, item["id"]), _Draft())
            if draft.skipped:
                answers.append({"id": item["id"], "selected": []})
                continue
            if not draft.answered:
                raise FrontendError(f"Please complete this question first: {item['id']}")
            text = draft.custom.strip()
            keep = text == "" or bool(item.get("multiSelect"))
            entry: dict[str, Any] = {"id": item["id"], "selected": draft.selected if keep else []}
            if text:
                entry["custom"] = text
            answers.append(entry)
        return {"answers": answers}

    def submit(self, key: str) -> dict[str, Any]:
        """Submit the card: sends its whole batch; returns it."""
        batch = self.batch(key)
        self.send("answer", key=key, answer=batch)
        return batch

    def answer(self, key: str, script: Mapping[str, str | Sequence[str] | None]) -> dict[str, Any]:
        """Choose by question id or text: a label, labels, or ``None`` to skip; then submit."""
        for question, reply in script.items():
            if reply is None:
                self.skip(key, question=question)
            elif isinstance(reply, str):
                self.choose(key, reply, question=question)
            else:
                self.choose(key, *reply, question=question)
        return self.submit(key)

    # -- tool-approval and form cards ------------------------------------------------------------
    def _presentation(self, key: str, kind: str) -> dict[str, Any]:
        card = self.card(key)
        presentation = dict(card.get("view", {}).get("presentation", {}))
        if presentation.get("kind") != kind:
            raise FrontendError(f"card {key!r} is not a {kind} card: {presentation.get('kind')}")
        return presentation

    def _decide(self, key: str, kind: str, custom: str | None) -> dict[str, Any]:
        presentation = self._presentation(key, "tool-approval")
        labels = {d["kind"]: d["label"] for d in presentation["decisions"]}
        if kind not in labels:
            raise FrontendError(f"card {key!r} offers no {kind} decision: {list(labels)}")
        return self._send_one(key, labels[kind], custom)

    def _send_one(self, key: str, label: str, custom: str | None) -> dict[str, Any]:
        (question,) = self.card(key)["questions"]
        item: dict[str, Any] = {"id": question["id"], "selected": [label]}
        if custom is not None:
            item["custom"] = custom
        batch = {"answers": [item]}
        self.send("answer", key=key, answer=batch)
        return batch

    def approve_tool(self, key: str, *, always: bool = False) -> dict[str, Any]:
        """Click Approve (or Always allow) on a tool-approval card; returns the batch sent."""
        return self._decide(key, "always" if always else "approve", None)

    def edit(self, key: str, arguments: Mapping[str, Any] | str) -> dict[str, Any]:
        """Edit the arguments and click Approve with them (a dict, or raw JSON-editor text)."""
        text = arguments if isinstance(arguments, str) else json.dumps(dict(arguments))
        return self._decide(key, "edit", text)

    def reject(
        self, key: str, message: str | None = None, *, always: bool = False, stop: bool = False
    ) -> dict[str, Any]:
        """Reject the tool call, with an optional reason for the model; ``always`` clicks Always
        reject, ``stop`` Reject and stop."""
        if always and stop:
            raise ValueError("a tool call is rejected always or with a stop, not both")
        kind = "never" if always else "stop" if stop else "reject"
        return self._decide(key, kind, message.strip() or None if message else None)

    def respond(self, key: str, text: str) -> dict[str, Any]:
        """Respond to the model instead of running the tool."""
        return self._decide(key, "respond", text)

    def fill(self, key: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """Fill in a form card with ``values`` (field name → value) and submit it."""
        presentation = self._presentation(key, "form")
        return self._send_one(key, presentation["accept"], json.dumps(dict(values)))

    def decline(self, key: str) -> dict[str, Any]:
        """Click Decline on a form card (an explicit no)."""
        presentation = self._presentation(key, "form")
        if presentation.get("decline") is None:
            raise FrontendError(f"form card {key!r} offers no Decline")
        return self._send_one(key, presentation["decline"], None)

    def cancel(self, key: str) -> dict[str, Any]:
        """Click Cancel on a form card (dismissed without a decision; an answer, unlike ×)."""
        presentation = self._presentation(key, "form")
        if presentation.get("cancel") is None:
            raise FrontendError(f"form card {key!r} offers no Cancel")
        return self._send_one(key, presentation["cancel"], None)

    def close_card(self, key: str) -> None:
        """Click ×: an un-keyed card is cancelled (a keyed one is only hidden, nothing sent)."""
        if self.card(key).get("callId") is None:
            self.send("cancel", key=key)
        else:
            self.release(key)

    def claim(self, key: str) -> None:
        """Show a timed card: claim its wait (the kernel answers with a frame)."""
        self.send("claim", key=key)

    def release(self, key: str) -> None:
        """Stop showing a timed card: release the claim at once."""
        self.send("release", key=key)

    def heartbeat(self, *keys: str) -> None:
        """Say this view is alive and still claims ``keys``."""
        self.send("heartbeat", keys=list(keys))

    def take_time(self, key: str) -> None:
        """ "Take time": the view holds the card, so its countdown never reports a timeout."""
        self._held.add(key)

    def time_out(self, key: str) -> None:
        """The countdown reached zero: report ``ASK_TIMED_OUT`` (refused for a held card)."""
        if key in self._held:
            raise FrontendError(f"card {key!r} is held (edited or Take time): no timeout is sent")
        self.send("timed_out", key=key)
