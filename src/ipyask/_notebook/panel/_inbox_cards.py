"""``InboxCards``: a store's open questions as cards, whichever process asked them.

A panel on a store is its shared inbox: every open question in the store (of this kernel, of an
earlier run of it, of a worker, a script or another kernel) is a card. The store is the one
record: answering a card is a claim on the store, and the first claim of any view or process
wins; a card settles when the store says its question settled, whoever settled it. The store's
one follower in this process (:func:`~ipyask.store._follow.follower_of`, shared with the durable
asks waiting on the store) wakes on each commit, without busy polling, and the inbox hands the
change to the panel's event loop. Where the commits' notifications tell what was written
(PostgreSQL's asks and claims), the cards follow them with no read of the store.

A store that cannot be reached or written (:class:`~ipyask.store.StoreUnavailableError`) loses
nothing: reading it is retried at backed-off delays, and an answer that could not be saved stays
on its card, marked as not saved yet, and is saved again on the service's clock until the store
takes it; then the card settles as any other.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import os
import socket
import threading
from collections.abc import Awaitable, Callable, Collection, Sequence

from ..._answered_by import Door
from ..._backoff import Backoff
from ..._clock import ThreadClock, TimerHandle
from ..._service import UserQuestions
from ..._settlement import Settlement
from ..._vocabulary import AskUserQuestionAnswer, AskUserQuestionItem, AskUserQuestionRequest
from ..._waterfall import Next
from ...store import (
    ANSWERED,
    ASKED,
    ClaimResult,
    Fault,
    QuestionRecord,
    Store,
    StoreUnavailableError,
    Terminal,
)
from ...store._follow import Subscription, follower_of
from ...store._records import ChangeNote
from ...widget import Card, CardSource, NoticeCode, QuestionWidget
from ._answer_loop import call_on
from ._card_outcomes import CardOutcomes
from ._held_request import PassOn
from ._texts import NO_NOTICE, NOTICES, Notice, cancelled_notice

__all__ = [
    "ANSWERING_AS",
    "ASKED_EARLIER",
    "SETTLED_ELSEWHERE",
    "InboxCards",
    "not_saved_notice",
    "process_ended",
]

log = logging.getLogger("ipyask")

ANSWERING_AS: contextvars.ContextVar[tuple[str | None, Door]] = contextvars.ContextVar(
    "ipyask_answering_as", default=(None, "inbox-widget")
)
"""Who answers through the inbox now, and through which door: the inbox widget in a kernel
by default (the environment's identity); the inbox page sets the Jupyter user and its door
while it hands a page's message to the panel."""

ASKED_EARLIER = NOTICES["en"]["asked-earlier"]
"""What the card of a question asked by a process that has ended says (in English)."""
SETTLED_ELSEWHERE = NOTICES["en"]["settled-elsewhere"]
"""What a card answered in another view or process says (in English)."""


_NOT_SAVED: dict[Fault, NoticeCode] = {
    "unreachable": "store-unreachable",
    "locked": "store-locked",
    "read-only": "store-read-only",
    "full": "store-full",
}
"""The notice of a card whose answer the store could not take yet, by what kept it."""


SCOPED_READS = 16
"""Most sessions a refresh reads one by one; a change in more reads every session at once."""


def not_saved_notice(error: StoreUnavailableError) -> Notice:
    """What a card says while its answer waits for the store (``error``) to take it."""
    return Notice(_NOT_SAVED[error.fault], {"location": error.location})


def process_ended(origin: str | None) -> bool:
    """Whether ``origin`` (``host:pid``) names a process of this machine that no longer runs.

    Another machine's process, or an origin that cannot be read, counts as running.
    """
    if origin is None or os.name != "posix":
        return False
    host, _, pid_text = origin.rpartition(":")
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return True
    except OSError:  # it exists, but belongs to someone else
        return False
    return False


def _source(record: QuestionRecord) -> CardSource:
    return CardSource(
        agent=record.agent_id,
        session=record.session_id,
        process=record.origin,
        asked_at=record.asked_at,
        earlier=process_ended(record.origin),
        assignee=record.assignee,
    )


def _card(record: QuestionRecord) -> Card:
    source = _source(record)
    earlier = Notice("asked-earlier", {"process": record.origin or ""})
    return Card(
        key=record.id,
        call_id=record.call_id,
        wait="indefinite",
        questions=[AskUserQuestionItem.model_validate(q) for q in record.questions],
        source=source,
        **(earlier.card_fields() if source.earlier else NO_NOTICE),
    )


class InboxCards:
    """The cards of ``store``'s open questions on one panel (``widget``), keyed by record id.

    ``session_id`` limits them to one session's questions (a panel scoped to an agent).
    ``outcomes`` marks settled cards. Changes seen on the feed are handled on the event loop
    running when the inbox starts (at once, on the feed's thread, when there is none).
    """

    def __init__(
        self,
        service: UserQuestions,
        widget: QuestionWidget,
        outcomes: CardOutcomes,
        store: Store,
        session_id: str | None = None,
    ) -> None:
        self.service = service
        self.store = store
        self._widget = widget
        self._outcomes = outcomes
        self._session_id = session_id
        self._lock = threading.Lock()
        self._open: dict[str, QuestionRecord] = {}
        self._settled: set[str] = set()
        self._holds: dict[str, Settlement[PassOn]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._refresh_due = False
        self._scope: set[str] | None = set()
        """The sessions the due refresh reads (``None``: every session the panel shows)."""
        self._told: list[ChangeNote] = []
        """Notes of the store's changes not yet taken in (on the event loop)."""
        self._stopped = False
        self.store_closed = False
        """Whether the store was closed under the inbox: its cards take no more answers."""
        # each answer waiting for the store, with who gave it and through which door
        self._unsaved: dict[str, tuple[AskUserQuestionAnswer, tuple[str | None, Door]]] = {}
        """Answers clicked that the store could not take yet (the latest click per card)."""
        self._retries: dict[str, tuple[Backoff, TimerHandle | None]] = {}
        self._refresh_backoff = Backoff()
        self._refresh_timer: TimerHandle | None = None

    # -- lifetime -----------------------------------------------------------------------------
    def start(self) -> None:
        """Show the store's open questions now, then follow its changes (through the store's
        one follower in this process, shared with the durable asks waiting on it)."""
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None
        # Subscribed first: the follower's feed is open, so no change after the read is missed.
        subscription = Subscription(
            self._changed,
            on_notes=self._noted,
            on_sessions=self._sessions_changed,
            on_end=lambda: call_on(self._loop, self._store_ended),
        )
        self._unsubscribe = follower_of(self.store).subscribe(subscription)
        self.refresh()

    def _changed(self) -> None:
        if not self._stopped:
            self._schedule_refresh()

    def _store_ended(self) -> None:
        """The store was closed under the inbox: each open question's card says so and takes
        no more answers (the questions stay open in the store); answers waiting to be saved
        are not retried."""
        with self._lock:
            self.store_closed = True
            keys = list(self._open)
        self._drop_unsaved()
        fields = Notice("store-closed", {"location": self.store.location}).card_fields()
        for key in keys:
            with contextlib.suppress(KeyError):  # the card is gone
                self._widget.update_card(key, **fields)

    def _sessions_changed(self, sessions: Collection[str]) -> None:
        """The store changed in ``sessions`` only (what changed there was not told): their
        open questions are read, not every session's."""
        if self._stopped:
            return
        if self._session_id is not None:  # a scoped panel reads its one session, or nothing
            if self._session_id in sessions:
                self._schedule_refresh()
        elif len(sessions) > SCOPED_READS:
            self._schedule_refresh()
        else:
            self._schedule_refresh(sessions)

    def _noted(self, notes: Sequence[ChangeNote]) -> None:
        """The store's notes tell what changed: the cards follow them, with no read."""
        if self._stopped:
            return
        with self._lock:
            # Notes that change no card (the claims this panel made itself, the asks of
            # sessions it does not show) do not wake the event loop.
            wanted = [note for note in notes if self._concerns(note)]
            due = bool(self._told)  # else taking them in is scheduled already
            self._told += wanted
        if wanted and not due:
            call_on(self._loop, self._take_notes)

    def _shows(self, note: ChangeNote) -> bool:
        """Whether the panel shows ``note``'s session (a scoped panel shows one)."""
        return self._session_id is None or note.session_id == self._session_id

    def _concerns(self, note: ChangeNote) -> bool:
        """Whether ``note`` may change a card, judged from its event's type and id before it
        is parsed (hold ``_lock``). A key once seen stays in ``_open`` or ``_settled``, and one
        settled stays settled: an ask of a question with a card, or a claim of one whose card
        settled, changes nothing, now or when the loop takes the note in. A claim of a
        question with no card yet is taken in (its ask may be in a note or a read not yet
        taken in)."""
        if not self._shows(note):
            return False
        kind, key = note.event.get("type"), note.event.get("id")
        if kind not in (ASKED, ANSWERED):
            return False  # only asks and claims send notes; any other changes no card
        if not isinstance(key, str):
            return True  # not understood: reported, and the store read, on the loop
        return key not in self._settled and (kind == ANSWERED or key not in self._open)

    def _take_notes(self) -> None:
        """A card for each question a note says was asked, and each card a note says was
        settled marked as it was (the notes were sifted as they came: see :meth:`_concerns`)."""
        with self._lock:
            notes, self._told = self._told, []
        if self._stopped:
            return
        try:
            told = [(note.record(), note.settled()) for note in notes]
        except (KeyError, TypeError, ValueError):  # a note this version cannot take: read
            log.warning(
                "ipyask: a change note of the store %s is not understood", self.store.location
            )
            self._schedule_refresh()
            return
        new: list[QuestionRecord] = []
        settled: list[tuple[str, Terminal]] = []
        with self._lock:
            for record, done in told:
                if record is not None:
                    if record.id not in self._open and record.id not in self._settled:
                        self._open[record.id] = record
                        new.append(record)
                elif done is not None and done[0] in self._open:
                    del self._open[done[0]]
                    self._settled.add(done[0])
                    settled.append(done)
        for record in new:
            self._widget.set_card(_card(record))
        for key, terminal in settled:
            self._mark(key, terminal)

    def _schedule_refresh(self, sessions: Collection[str] | None = None) -> None:
        """Read the store soon: the open questions of ``sessions``, or of every session the
        panel shows (``None``)."""
        with self._lock:
            if sessions is None:
                self._scope = None
            elif self._scope is not None:
                self._scope.update(sessions)
            if self._refresh_due:  # one refresh reads every change made before it runs
                return
            self._refresh_due = True
        call_on(self._loop, self._refresh)

    def close(self) -> None:
        """Stop following the store; local asks held here go on down the waterfall."""
        self._stopped = True
        unsubscribe, self._unsubscribe = self._unsubscribe, None
        if unsubscribe is not None:
            unsubscribe()
        with self._lock:
            holds = list(self._holds.values())
            self._holds.clear()
            refresh = self._refresh_timer
        self._drop_unsaved()
        if refresh is not None:
            refresh.cancel()
        for hold in holds:
            hold.resolve(PassOn())

    def _drop_unsaved(self) -> None:
        """Forget the answers waiting for the store, and stop their retries."""
        with self._lock:
            timers = [timer for _, timer in self._retries.values()]
            self._retries.clear()
            self._unsaved.clear()
        for timer in timers:
            if timer is not None:
                timer.cancel()

    # -- the cards ----------------------------------------------------------------------------
    def holds(self, key: str) -> bool:
        """Whether ``key`` is the card of an open question of the store."""
        with self._lock:
            return key in self._open

    def refresh(self) -> None:
        """Bring the cards in step with the store: new open questions get a card, settled
        ones are marked with how they were settled."""
        self._refresh(whole=True)

    def _refresh(self, *, whole: bool = False) -> None:
        """:meth:`refresh`, of the sessions a scheduled refresh is due for unless ``whole``."""
        with self._lock:
            self._refresh_due = False
            self._refresh_timer = None
            scope, self._scope = (None if whole else self._scope), set()
        if self._stopped or scope == set():
            return
        try:
            if scope is None:
                records = self.store.pending_questions(self._session_id)
            else:  # oldest first, as a read of every session gives them
                records = sorted(
                    (record for s in scope for record in self.store.pending_questions(s)),
                    key=lambda record: record.asked_at or 0.0,
                )
            current = {record.id for record in records}
            with self._lock:
                gone = [
                    key
                    for key, record in self._open.items()
                    if key not in current and (scope is None or record.session_id in scope)
                ]
            # Read before any card changes: a fault here leaves the cards as they were.
            settled = {key: self.store.question(key) for key in gone}
        except StoreUnavailableError as error:
            self._refresh_later(error)
            return
        except Exception:
            log.exception("ipyask: reading the store %s failed", self.store.location)
            return
        self._refresh_backoff.reset()
        with self._lock:
            new = [r for r in records if r.id not in self._open and r.id not in self._settled]
            self._open.update((record.id, record) for record in new)
            gone = [key for key in gone if key in self._open]
            self._settled.update(gone)
            for key in gone:
                del self._open[key]
        for record in new:
            self._widget.set_card(_card(record))
        for key in gone:
            found = settled[key]
            self._mark(key, found.terminal if found is not None else None)

    def relabel_ended(self) -> None:
        """Say so on the cards whose asking process has ended since their card was made.

        Whether a process runs is read when its question's card is made; a view opened later
        (a new inbox page on a long-running server's panel) calls this, so a question whose agent
        died meanwhile is shown as asked by a process that ended, not as if someone waited.
        """
        with self._lock:
            records = list(self._open.values())
        for record in records:
            try:
                card = self._widget.get_card(record.id)
            except KeyError:  # settled and removed meanwhile
                continue
            source = card.source
            if source is None or source.earlier or not process_ended(record.origin):
                continue
            fields = card.model_dump()
            fields["source"] = {**source.model_dump(), "earlier": True}
            if card.notice is None and card.status == "pending":  # no "not saved yet" to keep
                notice = Notice("asked-earlier", {"process": record.origin or ""})
                fields.update(notice.card_fields())
            self._widget.set_card(Card.model_validate(fields))

    def _refresh_later(self, error: StoreUnavailableError) -> None:
        delay = self._refresh_backoff.next_ms()
        level = logging.WARNING if delay == self._refresh_backoff.first_ms else logging.DEBUG
        log.log(level, "ipyask: reading the inbox's store failed: %s (retrying)", error)
        timer = self._later(delay, self._schedule_refresh)
        with self._lock:
            self._refresh_timer = timer

    def _later(self, delay_ms: float, callback: Callable[[], object]) -> TimerHandle:
        """Run ``callback`` on the panel's loop ``delay_ms`` from now, timed by the service's
        clock (a thread's timer when no event loop runs)."""
        try:
            return self.service.clock.call_later(delay_ms, callback)
        except RuntimeError:  # no running loop for the loop's clock
            return ThreadClock().call_later(delay_ms, lambda: call_on(self._loop, callback))

    def _mark(self, key: str, terminal: Terminal | None) -> None:
        if terminal is None:
            self._outcomes.mark(key, "expired", Notice("not-in-store"))
        elif terminal.outcome == "answered" and terminal.answer is not None:
            answer = AskUserQuestionAnswer.model_validate(terminal.answer)
            self._outcomes.mark(
                key, "answered", Notice("settled-elsewhere"), answer, by=terminal.answered_by
            )
        elif terminal.outcome == "cancelled":
            # The store keeps what the agent was told; the card says it in the person's words.
            error = terminal.error
            notice = Notice("cancelled") if error is None else cancelled_notice(error.code)
            self._outcomes.mark(key, "cancelled", notice)
        else:
            self._outcomes.mark(key, "expired", Notice("nobody-could-answer"))

    def unsaved(self, key: str) -> bool:
        """Whether an answer to card ``key`` waits for the store to take it."""
        with self._lock:
            return key in self._unsaved

    def answer(self, key: str, answer: AskUserQuestionAnswer) -> ClaimResult | None:
        """Claim card ``key``'s question with ``answer``; the first claim anywhere wins.

        ``accepted``: the card is answered. ``already-resolved``: the card shows how the
        question was settled. ``None``: the store cannot take it now; the card says the answer
        is not saved yet, and it is saved at backed-off delays (a later click's answer replaces
        it). The seam may raise (e.g. ``BAD_ANSWER``).
        """
        with self._lock:
            retrying = key in self._unsaved
            self._unsaved[key] = (answer, ANSWERING_AS.get())
        if retrying:
            return None  # the retry under way saves this answer
        return self._save(key)

    def _save(self, key: str) -> ClaimResult | None:
        with self._lock:
            unsaved = self._unsaved.get(key)
        if unsaved is None or self._stopped:
            return None
        answer, (who, door) = unsaved
        with self._lock:
            record = self._open.get(key)
        try:
            # The card's record, as the store gave it: the claim is the one write, no read.
            result = (
                self.service.respond(self.store, key, answer, who=who, door=door)
                if record is None
                else self.service.respond_to(self.store, record, answer, who=who, door=door)
            )
        except StoreUnavailableError as error:
            self._not_saved(key, error)
            return None
        except Exception:
            self._forget_unsaved(key)
            raise
        retried = self._forget_unsaved(key)
        if result.status == "not-pending":
            if retried:  # no view waits for a reply: the card says it
                with self._lock:
                    self._open.pop(key, None)
                    self._settled.add(key)
                self._mark(key, None)
            return result
        with self._lock:
            mine = self._open.pop(key, None) is not None
            self._settled.add(key)
        if mine:
            if result.status == "accepted":
                self._outcomes.mark(key, "answered", answer=answer, by=result.answered_by)
            else:
                terminal = Terminal(
                    outcome=result.outcome or "answered",
                    answer=result.answer,
                    answered_by=result.answered_by,
                )
                self._mark(key, terminal)
        return result

    def _forget_unsaved(self, key: str) -> bool:
        """Stop retrying card ``key``'s answer; whether it was being retried."""
        with self._lock:
            self._unsaved.pop(key, None)
            retry = self._retries.pop(key, None)
        if retry is not None and retry[1] is not None:
            retry[1].cancel()
        return retry is not None

    def _not_saved(self, key: str, error: StoreUnavailableError) -> None:
        with self._lock:
            backoff, _ = self._retries.get(key, (Backoff(), None))
        delay = backoff.next_ms()
        level = logging.WARNING if delay == backoff.first_ms else logging.DEBUG  # once a fault
        log.log(level, "ipyask: an answer is not saved yet: %s (retrying in %.0f ms)", error, delay)
        try:
            self._widget.update_card(key, **not_saved_notice(error).card_fields())
        except KeyError:  # the card is gone: nobody to save the answer for
            self._forget_unsaved(key)
            return
        timer = self._later(delay, lambda: self._retry(key))
        with self._lock:
            self._retries[key] = (backoff, timer)

    def _retry(self, key: str) -> None:
        try:
            self._save(key)
        except Exception:  # not the store's fault: the card takes answers again
            log.exception("ipyask: saving the answer to card %s failed", key)
            with contextlib.suppress(KeyError):  # the card is gone
                self._widget.update_card(key, **NO_NOTICE)

    # -- asks of this process -----------------------------------------------------------------
    def takes(self, request: AskUserQuestionRequest) -> bool:
        """Whether ``request`` is a durable ask on this inbox's store (its card is the
        question's inbox card)."""
        agent = request.agent
        return (
            not self._stopped
            and request.request_id is not None
            and agent is not None
            and agent.session.store is self.store
            and (self._session_id is None or agent.session.id == self._session_id)
        )

    def hold(self, request: AskUserQuestionRequest, next: Next) -> Awaitable[AskUserQuestionAnswer]:
        """Answer a durable ask of this process through its inbox card.

        The card is shown at once; the ask then waits for the store (the seam ends this wait
        when the question settles, whoever claimed it), or goes on down the waterfall when the
        panel closes.
        """
        request_id = request.request_id
        assert request_id is not None
        try:
            record = self.store.question(request_id)
        except StoreUnavailableError:  # the card comes with the refresh once the store is back
            record = None
        if record is not None and record.terminal is None:
            with self._lock:
                new = request_id not in self._open and request_id not in self._settled
                if new:
                    self._open[request_id] = record
            if new:
                self._widget.set_card(_card(record))
        release: Settlement[PassOn] = Settlement()
        with self._lock:
            self._holds[request_id] = release
        return self._wait(request_id, release, next)

    async def _wait(
        self, request_id: str, release: Settlement[PassOn], next: Next
    ) -> AskUserQuestionAnswer:
        try:
            await release
        finally:
            with self._lock:
                if self._holds.get(request_id) is release:
                    del self._holds[request_id]
        return await next()
