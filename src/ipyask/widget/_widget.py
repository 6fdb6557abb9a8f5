"""The anywidget class: kernel-owned synced card state plus a validated custom-message channel."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import anywidget
import traitlets
from pydantic import ValidationError

from .._clock import Clock, LoopClock
from .._vocabulary import AskUserQuestionAnswer
from ._card_changes import CardChanges
from ._card_store import LIVE_STATUSES, CardStore
from ._cards import (
    WIRE_NAMES,
    Card,
    CardSettlement,
    CardStatus,
    CountdownFrame,
    NoticeCode,
    SettledStatus,
    WireCard,
)
from ._kernel_state import KernelOwnedLayout, custom_content, refuse_view_state
from ._protocol import (
    KERNEL_MESSAGE,
    PROTOCOL_VERSION,
    VIEW_MESSAGE,
    ErrorMessage,
    FrameMessage,
    KernelMessage,
    ViewErrorCode,
    ViewMessage,
    is_sendable,
    sendable,
    view_error_code,
)
from ._sync import HeldSync

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from ipywidgets import Widget

__all__ = ["QuestionWidget"]

_STATIC = Path(__file__).parent / "static"


def _asset(name: str) -> str | Path:
    """A shipped front-end file, as its text.

    Given a path, anywidget connects every instance to the file's hot-reload signal with a
    closure over the instance, which keeps every widget ever made alive
    (manzt/anywidget#929); only for hot reload (``ANYWIDGET_HMR=1``) is the path worth that.
    """
    path = _STATIC / name
    if os.environ.get("ANYWIDGET_HMR") == "1":
        return path
    return path.read_text(encoding="utf-8")


def _run_settle(settle: Callable[[], object], widget: QuestionWidget) -> None:
    try:
        settle()
    except Exception:
        widget.log.exception("ipyask: settling a card failed")


_LANGUAGE = re.compile(r"^(?:[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*)?$")
_HOST = re.compile(r"^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$")


class _Unset:
    def __repr__(self) -> str:
        return "<unset>"


_UNSET: Any = _Unset()


class QuestionWidget(anywidget.AnyWidget):
    """Shows every request as a card and reports what the person does.

    Views read the synced state and never write it: a state update from a front end is refused
    and answered with the kernel's values (every synced trait, its own ``layout`` included).

    Parameters
    ----------
    cards:
        Initial cards, as :class:`Card` models or their wire dicts.
    language:
        ``""`` picks English or Chinese from the page; any language tag overrides it.
    image_hosts:
        Hosts whose images the cards load at once (``"*"``: every host). Agent text can name any
        image URL and loading one tells its host the card was shown, so by default only
        same-origin and ``data:`` images load; an image from another host shows a "Show images
        from <host>" button instead (and an approval's icon from another host is left out).
    clock:
        Times the held state sync (the running event loop's clock by default).
    """

    _esm = _asset("widget.js")
    _css = _asset("widget.css")

    language = traitlets.Unicode("").tag(sync=True)
    """Language tag for the card texts; ``""`` means "from the page" (``zh*`` → Chinese)."""
    image_hosts: traitlets.List[str] = traitlets.List(traitlets.Unicode()).tag(sync=True)
    """Hosts (``host`` or ``host:port``) whose images load at once; ``"*"`` for every host."""
    protocol_version = traitlets.Int(PROTOCOL_VERSION, read_only=True).tag(sync=True)
    """The message protocol version, a read-only constant."""
    answerer = traitlets.Unicode("").tag(sync=True)
    """Who answers through this widget (``""``: not known): the inbox offers "Only mine", the
    questions assigned to them, when some question is assigned."""

    def __init__(
        self,
        *,
        cards: Iterable[Card | Mapping[str, Any]] = (),
        language: str = "",
        image_hosts: Iterable[str] = (),
        clock: Clock | None = None,
        **unknown: object,
    ) -> None:
        if unknown:
            names = ", ".join(sorted(unknown))
            raise TypeError(f"QuestionWidget() got unexpected keyword argument(s): {names}")
        self._lock = threading.RLock()
        clock = clock if clock is not None else LoopClock()
        # Settlements that wait for the held burst's message (:meth:`_settle_with_burst`).
        self._settling: list[Callable[[], object]] = []
        self._changes = CardChanges(
            self._send_cards, clock, self._lock, before_flush=self._run_waiting
        )
        self._sync = HeldSync(self, clock, before_release=self._changes.flush)
        self._store = CardStore(cards)  # before the comm opens with the state
        self._view_callbacks: list[Callable[[ViewMessage], object]] = []
        self._frame_seq = 0
        layout = KernelOwnedLayout()
        try:
            super().__init__(language=language, image_hosts=list(image_hosts), layout=layout)
        except BaseException:
            layout.close()
            raise
        # A Layout widget of its own, which ``close`` would leave open (and registered) unless
        # the widget closes it too.
        self._own_layout: Widget | None = layout
        self.on_msg(self._handle_custom_msg_content)

    # -- the synced state -----------------------------------------------------------------

    @property
    def store(self) -> CardStore:
        """The kernel's record of the cards (read it; change cards through this widget)."""
        self._settle_waiting()
        return self._store

    _keys_made = False
    """Whether ``keys`` was made (:meth:`_default_keys`): then a change reads it only to add an
    entry."""

    @traitlets.default("keys")
    def _default_keys(self) -> list[str]:
        # The traits, plus the card entries the store serializes (no traits: see get_state).
        self._store.created_names()  # every entry is in the list below
        self._keys_made = True
        return [*super()._default_keys(), *self._store.state_names()]

    def get_state(
        self, key: str | Iterable[str] | None = None, drop_defaults: bool = False
    ) -> dict[str, Any]:
        """The synced state (or the entries ``key`` names): the traits, and the cards as the
        store's JSON texts (``cards``, the live and the history pages; see docs/protocol.md)."""
        self._settle_waiting()
        names = self.keys if key is None else [key] if isinstance(key, str) else list(key)
        traits = [name for name in names if not CardStore.owns(name)]
        state: dict[str, Any] = super().get_state(traits, drop_defaults) if traits else {}
        with self._lock:
            for name in names:
                if CardStore.owns(name):
                    state[name] = self._store.state_text(name)
        return state

    @property
    def cards(self) -> list[dict[str, Any]]:
        """Every card as its JSON-native wire dict (see :meth:`Card.to_wire`), in the kernel's
        order. Assigning a list of cards (models or wire dicts) replaces them all and syncs the
        state at once (:class:`traitlets.TraitError` if invalid)."""
        self._settle_waiting()
        with self._lock:
            return self._store.wire_cards()

    @cards.setter
    def cards(self, value: Iterable[Card | Mapping[str, Any]]) -> None:
        self._settle_waiting()
        with self._lock:
            self._sync.release()  # what was held goes out first
            if self._store.replace(value):
                self._track_entries()
                self.send_state(self._store.state_names())

    @traitlets.validate("language")
    def _validate_language(self, proposal: dict[str, Any]) -> str:
        value = proposal["value"]
        if not isinstance(value, str) or not _LANGUAGE.match(value):
            raise traitlets.TraitError(f"language must be '' or a language tag, not {value!r}")
        return value

    @traitlets.validate("image_hosts")
    def _validate_image_hosts(self, proposal: dict[str, Any]) -> list[str]:
        hosts = []
        for host in proposal["value"]:
            if not isinstance(host, str) or not (host == "*" or _HOST.match(host)):
                raise traitlets.TraitError(
                    f"image_hosts takes host names such as 'example.com' or 'example.com:8080' "
                    f"(or '*' for every host), not {host!r}"
                )
            hosts.append(host.lower())
        return hosts

    # -- cards ----------------------------------------------------------------------------

    def get_cards(self) -> list[Card]:
        """All cards as models, in the kernel's order."""
        self._settle_waiting()
        return self._store.cards()

    def get_card(self, key: str) -> Card:
        """The card with ``key``; :class:`KeyError` if there is none."""
        self._settle_waiting()
        return self._store.card(key)

    def set_card(self, card: Card | Mapping[str, Any]) -> Card:
        """Add ``card``, or replace the card with the same key in place."""
        model = card if isinstance(card, Card) else Card.model_validate(card)
        self._settle_waiting()
        with self._lock:
            wire, entries = self._store.put(model)
            self._changed(entries, upsert=[wire], settled=model.status not in LIVE_STATUSES)
        return model

    def remove_card(self, key: str) -> Card:
        """Remove the card with ``key`` and return it; :class:`KeyError` if there is none."""
        self._settle_waiting()
        with self._lock:
            removed, entries = self._store.drop(key)
            self._changed(entries, remove=[key])
        return removed

    def _settle_with_burst(self, settle: Callable[[], object]) -> None:
        """Run ``settle`` (a card's settlement: :meth:`settle_card` and what goes with it) now;
        or, while a burst of settled cards is held for one ``cards`` message, just before that
        message goes, with the burst's other settlements.

        The views see no difference (the burst's cards go in that message either way). The
        kernel settles the burst in one pass instead of one between each two of its messages,
        where the rest of the kernel's work has evicted this code from the CPU's caches. Every
        read and change of the cards through this widget (its store, state, cards) runs the
        waiting settlements first, so none sees a card before its settlement. An exception
        ``settle`` raises is logged.
        """
        if self._changes.bursting:  # (settling now is right too: checked again under the lock)
            with self._lock:
                if self._changes.bursting:
                    self._settling.append(settle)
                    return
        _run_settle(settle, self)

    def _settle_waiting(self) -> None:
        """Run the settlements waiting for the burst's message before a read or change of the
        cards (a widget that shows another's cards runs that one's first).

        Called before taking the lock: a cell view's settlements are its panel's, made under
        the panel's lock, which is never taken while holding a cell view's."""
        self._run_waiting()

    def _run_waiting(self) -> None:
        """Run this widget's waiting settlements, in the order they came."""
        if not self._settling:  # (nearly every read: nothing waits)
            return
        with self._lock:
            while self._settling:
                waiting, self._settling = self._settling, []
                for settle in waiting:
                    _run_settle(settle, self)

    def _changed(
        self,
        entries: list[str],
        *,
        upsert: list[dict[str, Any]] | None = None,
        remove: list[str] | None = None,
        settled: bool = False,
    ) -> None:
        """Views get the change as a ``cards`` message (now, or with the next one when it
        settles a card), and the state entries it touched with the next sync (held for a
        burst), or at once when syncs cannot be held."""
        self._track_entries()
        if self._sync.hold():
            rev = self._store.rev
            if not (settled and upsert and len(upsert) == 1 and self._changes.hold(upsert[0], rev)):
                self._changes.send(upsert or [], remove or [], rev)
            self._sync.add(entries)
        else:
            self.send_state(entries)

    def _track_entries(self) -> None:
        # A new page is a new state entry, synced from now on (entries never go away).
        if not self._keys_made:
            self.keys  # noqa: B018 (made first, with every current entry, on first use)
        created = self._store.created_names()
        if created:
            self.keys.extend(created)

    def _send_cards(self, message: dict[str, Any]) -> None:
        try:
            self.send(message)
        except Exception:
            self.log.exception("ipyask: could not send a card change to the views")

    def update_card(
        self,
        key: str,
        *,
        status: CardStatus = _UNSET,
        answer: AskUserQuestionAnswer | Mapping[str, Any] | None = _UNSET,
        frame: CountdownFrame | Mapping[str, Any] | None = _UNSET,
        notice: str | None = _UNSET,
        notice_code: NoticeCode | None = _UNSET,
        notice_params: Mapping[str, str] | None = _UNSET,
        held: bool | None = _UNSET,
    ) -> Card:
        """Change some fields of the card with ``key`` (validated); returns the new card.

        A new ``notice`` without a ``notice_code``, or a new code without ``notice_params``,
        clears what described the old notice.
        """
        if notice is not _UNSET and notice_code is _UNSET:
            notice_code = None
        if notice_code is not _UNSET and notice_params is _UNSET:
            notice_params = None
        changes = {
            name: value
            for name, value in (
                ("status", status),
                ("answer", answer),
                ("frame", frame),
                ("notice", notice),
                ("notice_code", notice_code),
                ("notice_params", notice_params),
                ("held", _UNSET if held is _UNSET else (held or None)),
            )
            if value is not _UNSET
        }
        self._settle_waiting()
        with self._lock:
            # The current card as its wire dict (a validated model would be parsed twice), the
            # changes under their wire names, validated together with the card's rules.
            data = self._store.wire_card(key)
            data.update({WIRE_NAMES[name]: value for name, value in changes.items()})
            updated = Card.model_validate(data)
            self.set_card(updated)
        return updated

    def settle_card(
        self,
        key: str,
        status: SettledStatus,
        *,
        answer: AskUserQuestionAnswer | Mapping[str, Any] | None = None,
        notice: str | None = None,
        notice_code: NoticeCode | None = None,
        notice_params: Mapping[str, str] | None = None,
        late: bool = False,
    ) -> WireCard:
        """Give the card with ``key`` its final ``status``, with its answer and notice (an old
        notice goes); its other fields stay; ``late``: answered after the agent went on. Returns
        its new wire dict; :class:`KeyError` if there is none.

        What changes is validated on its own (:class:`CardSettlement`), as no rule of a card ties
        it to the other fields: every settled question makes this change, so the card is changed
        in its stored form rather than parsed and validated whole, as ``update_card`` does. An
        ``answered`` settlement with an :class:`AskUserQuestionAnswer` model and no notice is
        valid as given.
        """
        fields: dict[str, Any]
        if (
            status == "answered"
            and isinstance(answer, AskUserQuestionAnswer)
            and notice is None
            and notice_code is None
            and notice_params is None
            and not late
        ):
            # How every answered question settles: the settlement's rules concern notices and
            # the other statuses, and the answer was validated as it was made.
            fields = {"status": status, "answer": answer.to_wire()}
        else:
            fields = CardSettlement.model_validate(
                {
                    "status": status,
                    "answer": answer,
                    "notice": notice,
                    "notice_code": notice_code,
                    "notice_params": notice_params,
                    "late": True if late else None,
                }
            ).wire_fields()
        self._settle_waiting()
        with self._lock:
            wire, entries = self._store.settle(key, fields)
            self._changed(entries, upsert=[wire], settled=True)
        return wire

    # -- messages -------------------------------------------------------------------------

    def on_view_message(
        self, callback: Callable[[ViewMessage], object], *, remove: bool = False
    ) -> None:
        """Register (or remove) a callback for every validated view → kernel message.

        Invalid messages never reach callbacks: the view gets an ``error`` message instead.
        An exception raised by a callback is logged and reported to the view as an ``error``
        (its ``code`` attribute when that is a :data:`ViewErrorCode`, else ``INTERNAL_ERROR``).
        """
        if remove:
            self._view_callbacks = [cb for cb in self._view_callbacks if cb != callback]
        else:
            self._view_callbacks = [*self._view_callbacks, callback]

    def send_message(self, message: KernelMessage | Mapping[str, Any]) -> None:
        """Send a kernel → view message (validated); lost if no view is open."""
        model = KERNEL_MESSAGE.validate_python(message)
        self._changes.flush()  # the card changes made before it go first
        self.send(model.to_wire())

    def send_frame(self, key: str, remaining_ms: int) -> FrameMessage:
        """Store a new countdown frame on the timed card ``key`` and send it to the views."""
        with self._lock:
            self._frame_seq += 1
            frame = CountdownFrame(remaining_ms=remaining_ms, seq=self._frame_seq)
            self.update_card(key, frame=frame)
        message = FrameMessage(key=key, remaining_ms=remaining_ms, seq=frame.seq)
        self.send_message(message)
        return message

    def send_error(
        self,
        code: ViewErrorCode,
        message: str,
        *,
        key: str | None = None,
        view_id: str | None = None,
        question_id: str | None = None,
        fields: Mapping[str, str] | None = None,
        field_texts: Mapping[Literal["en", "zh"], Mapping[str, str]] | None = None,
    ) -> None:
        """Tell the views (or one view) that something failed; the card re-arms its controls
        and shows ``fields`` (per-field errors of question ``question_id``) beside the fields,
        from ``field_texts`` in the view's language when given."""
        self.send_message(
            ErrorMessage(
                code=code,
                message=message,
                key=key,
                view_id=view_id,
                question_id=question_id,
                fields=dict(fields) if fields else None,
                field_texts=(
                    {language: dict(texts) for language, texts in field_texts.items()}
                    if field_texts
                    else None
                ),
            )
        )

    def _handle_msg(self, msg: object) -> None:
        # Every synced trait is the kernel's: a state update from a view is refused. What is
        # held goes out before the reply: ``cards`` alone would count pages, at a revision,
        # that the views do not have yet.
        custom = custom_content(msg)
        if custom is not None:  # what ipywidgets does with it, without its two frames per answer
            self._handle_custom_msg(*custom)
            return
        if not refuse_view_state(self, msg, lock=self._lock, before_reply=self._sync.release):
            super()._handle_msg(msg)

    def _handle_custom_msg_content(
        self, _widget: object, content: object, _buffers: object
    ) -> None:
        try:
            message = VIEW_MESSAGE.validate_python(content)
        except ValidationError as exc:
            self._reply_invalid(content, exc)
            return
        self.deliver_view_message(message)

    def deliver_view_message(
        self, message: ViewMessage, *, replies: QuestionWidget | None = None
    ) -> None:
        """Hand a validated view message to the callbacks, as if a view of this widget sent it.

        Another widget showing some of these cards (a cell's view of a panel) forwards what
        its views send through here; a callback's failure is reported to the views of
        ``replies``, the widget whose view sent the message (this one by default).
        """
        for callback in self._view_callbacks:
            try:
                callback(message)
            except Exception as exc:
                self.log.exception("ipyask: a view message callback failed")
                (replies or self)._send_quietly(
                    ErrorMessage(
                        code=view_error_code(getattr(exc, "code", None)),
                        message=sendable(str(exc) or type(exc).__name__),
                        key=getattr(message, "key", None),
                        view_id=message.view_id,
                    )
                )

    def _reply_invalid(self, content: object, exc: ValidationError) -> None:
        # Only text that can be sent is echoed: a lone surrogate cannot be encoded as UTF-8.
        fields = content if isinstance(content, dict) else {}
        key, view_id = fields.get("key"), fields.get("viewId")
        first = exc.errors(include_input=False, include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "message"
        self._send_quietly(
            ErrorMessage(
                code="BAD_MESSAGE",
                message=sendable(f"invalid view message ({where}: {first['msg']})"),
                key=key if isinstance(key, str) and is_sendable(key) else None,
                view_id=view_id if isinstance(view_id, str) and is_sendable(view_id) else None,
            )
        )

    @traitlets.observe("language")
    def _language_changed(self, _change: object) -> None:
        self._sync.release()  # a held state sync would hold the language too

    def close(self) -> None:
        """Close the widget (its views go away), after sending any held state."""
        sync: HeldSync | None = getattr(self, "_sync", None)  # None if __init__ failed early
        if sync is not None:
            sync.release()
        super().close()
        own: Widget | None = getattr(self, "_own_layout", None)
        if own is not None and self.layout is own:  # not a layout assigned later, maybe shared
            own.close()

    def _send_quietly(self, message: ErrorMessage) -> None:
        try:
            self._changes.flush()
            self.send(message.to_wire())
        except Exception:
            self.log.exception("ipyask: could not send an error message to the view")
