"""``AskGroup``: the durable asks of one store object, written a group per transaction.

An agent that asks many questions at once (``asyncio.gather`` of its asks, or asks from several
threads) used to write each in its own transaction, one after another; with many processes
asking at once, each of those transactions waited its turn for the store's write lock. Now the
asks of one store object are written together: the first ask of a burst leads, lets the asks
started with it join, and writes them all in one transaction; asks that arrive while that write
is in flight are written together in the next one, by the same leader. Each ask is still its
own record with its own result: a call the session has a record of already gets that record,
and an ask whose write fails the transaction for reasons of its own does not fail the others
(the group is then written again one ask per transaction, so each gets its own result or
error). A fault of the store itself (:class:`StoreUnavailableError`) reaches every ask of the
group, as it would have reached each alone.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from ._faults import StoreUnavailableError
from ._protocol import Store
from ._records import QuestionRecord
from ._rows import origin
from ._sql import OUTSIDE_TURN, SQLStore

__all__ = ["AskGroup", "TurnCheck", "Written", "group_of", "new_record"]

Written = tuple[QuestionRecord, int | None]
"""An ask's record and the position of the ``asked`` event it wrote (``None``: the session had
a record of the call already, which this is; nothing was written)."""

TurnCheck = Callable[[bool], int]
"""An ask's turn check: ``check(read)`` raises if the ask may not be written, as its session's
log says (``read``: brought up to date from the store first), and returns the position of the
log's last event it judged by. A store that checks the turn as it writes (an SQL store) writes
the ask only if no ``turn/end`` came after that position, so an asker whose log is current
reads nothing first; any other store gets asks checked with a read."""


def new_record(
    session_id: str,
    call_id: str,
    questions: list[dict[str, Any]],
    *,
    request_id: str,
    agent_id: str | None,
    assignee: str | None,
) -> QuestionRecord:
    """The record an ask writes (as :meth:`Store.open_question_at` builds it)."""
    return QuestionRecord(
        id=request_id,
        call_id=call_id,
        questions=questions,
        session_id=session_id,
        agent_id=agent_id,
        asked_at=time.time(),
        origin=origin(),
        assignee=assignee,
    )


@dataclass(eq=False)
class _Ask:
    record: QuestionRecord
    check: TurnCheck | None = None
    done: Future[Written] = field(default_factory=Future)
    turn: int | None = None
    """The position its check judged by (``None``: not checked)."""


class AskGroup:
    """The asks waiting to be written to one store object, and whether a leader writes them."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._queue: list[_Ask] = []
        self._writing = False

    def submit(
        self, record: QuestionRecord, check: TurnCheck | None = None
    ) -> tuple[Future[Written], bool]:
        """Queue ``record``'s ask; its result to come, and whether the caller leads: it must
        call :meth:`drain` (soon: the asks queued meanwhile wait for it).

        ``check`` (a :data:`TurnCheck`: a durable ask needs an open turn) runs just before the
        group is written; a check that passes covers the group's other asks of the same
        session, whose own checks are then skipped: it ran after each of them was asked."""
        ask = _Ask(record, check)
        with self._lock:
            self._queue.append(ask)
            lead = not self._writing
            self._writing = True
        return ask.done, lead

    def drain(self) -> None:
        """Write the queued asks, a group per transaction, until none is left (the leader's
        part; every ask's result is set, whatever happens)."""
        while True:
            with self._lock:
                group, self._queue = self._queue, []
                if not group:
                    self._writing = False
                    return
            try:
                self._write(group)
            except BaseException as error:  # an interrupt: no ask waits forever
                with self._lock:
                    rest, self._queue = self._queue, []
                    self._writing = False
                for ask in group + rest:
                    _set(ask, error=error)
                raise

    def _write(self, group: list[_Ask]) -> None:
        store = self._store
        if not isinstance(store, SQLStore):
            for ask in _checked(group, read=True):
                self._write_alone(ask)
            return
        group = _checked(group, read=False)
        while group:
            group = self._write_together(store, group)

    def _write_together(self, store: SQLStore, group: list[_Ask]) -> list[_Ask]:
        """Write ``group`` in one transaction; the asks the store refused as outside their turn
        whose check, with a read now, passes again (a turn began meanwhile: written again)."""
        try:
            positions = store.open_questions_at(
                [ask.record for ask in group], [ask.turn for ask in group]
            )
        except StoreUnavailableError as error:  # the store's state, not one ask's
            for ask in group:
                _set(ask, error=error)
            return []
        except Exception as error:
            # One ask's write failed the transaction: each alone, with its own result or error.
            if len(group) == 1:
                _set(group[0], error=error)
                return []
            again: list[_Ask] = []
            for ask in group:
                again += self._write_together(store, [ask])
            return again
        refused = [ask for ask, seq in zip(group, positions, strict=True) if seq == OUTSIDE_TURN]
        for ask, seq in zip(group, positions, strict=True):
            if seq == OUTSIDE_TURN:
                continue
            try:
                written = (ask.record, seq) if seq is not None else (self._first(ask.record), None)
            except Exception as error:
                _set(ask, error=error)
            else:
                _set(ask, written)
        return _checked(refused, read=True)

    def _first(self, record: QuestionRecord) -> QuestionRecord:
        """The record an earlier ask of ``record``'s call committed (records are never
        deleted)."""
        found = self._store.question_for_call(record.session_id, record.call_id)
        if found is None:
            raise RuntimeError(
                f"the store refused the question of call {record.call_id!r} of "
                f"session {record.session_id!r} but holds no record of it"
            )
        return found

    def _write_alone(self, ask: _Ask) -> None:
        record = ask.record
        try:
            written = self._store.open_question_at(
                record.session_id,
                record.call_id,
                record.questions,
                request_id=record.id,
                agent_id=record.agent_id,
                assignee=record.assignee,
            )
        except Exception as error:
            _set(ask, error=error)
        else:
            _set(ask, written)


def _checked(group: list[_Ask], *, read: bool) -> list[_Ask]:
    """The asks of ``group`` whose check passed (the others get its error), each with the
    position its check judged by (``read``: the log read from the store first); one check that
    passes a session serves its other asks."""
    passed: dict[str, int] = {}
    kept: list[_Ask] = []
    for ask in group:
        session_id = ask.record.session_id
        if ask.check is not None:
            if session_id not in passed:
                try:
                    passed[session_id] = ask.check(read)
                except Exception as error:  # the next ask of the session checks for itself
                    _set(ask, error=error)
                    continue
            ask.turn = passed[session_id]
        kept.append(ask)
    return kept


def _set(ask: _Ask, written: Written | None = None, error: BaseException | None = None) -> None:
    if ask.done.done():  # an interrupt set it already
        return
    if error is not None:
        ask.done.set_exception(error)
    else:
        assert written is not None
        ask.done.set_result(written)


_GROUPS: weakref.WeakKeyDictionary[Store, AskGroup] = weakref.WeakKeyDictionary()
_GROUPS_LOCK = threading.Lock()


def group_of(store: Store) -> AskGroup:
    """The one :class:`AskGroup` of ``store`` in this process."""
    with _GROUPS_LOCK:
        group = _GROUPS.get(store)
        if group is None:
            group = _GROUPS[store] = AskGroup(store)
        return group
