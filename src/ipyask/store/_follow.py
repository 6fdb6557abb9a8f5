"""``StoreFollower``: one follower of a store's changes per store object and process.

The durable asks waiting on a store and the inbox showing it both need to hear of every commit.
Each used to open its own change feed (on SQLite, its own connection) and its own thread; now
both subscribe to the store's one follower (:func:`follower_of`), whose thread waits on one feed
and calls every subscriber when it wakes. A subscriber's call runs on that thread: it must not
block for long (hand the work to an event loop, or read the store and return).
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass

from .._backoff import Backoff, Pause
from .._clock import ThreadClock
from ._protocol import ChangeFeed, Store
from ._records import ChangeNote

__all__ = ["EverySession", "StoreFollower", "Subscription", "follower_of"]

log = logging.getLogger("ipyask")


class EverySession(Collection[str]):
    """The sessions of a subscriber that follows them all (it contains every session id)."""

    def __contains__(self, item: object) -> bool:
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


@dataclass(eq=False)
class Subscription:
    """One subscriber: ``on_change`` is called on the follower's thread when the feed wakes
    for one of ``sessions()`` (every session when ``None``), and after each quiet
    :attr:`StoreFollower.IDLE_WAIT` as well when ``also_when_idle``.

    With ``on_notes``, a wake whose changes the feed's notifications told whole (PostgreSQL's
    asks and claims: :class:`~ipyask.store._records.ChangeNote`) calls it with their notes
    instead of ``on_change``: the subscriber takes what was written from them and reads the
    store only where they leave a gap. The notes are of every session the feed heard of, not
    only the subscriber's.

    With ``on_sessions``, a wake whose changes were not all told but whose sessions the feed
    knows (PostgreSQL's) calls it with those session ids instead of ``on_change``: the
    subscriber reads only those sessions.

    ``on_end`` is called (on the follower's thread) when the store was closed under the
    subscriber: it hears of no more changes, and its reads of the store fail from then on."""

    on_change: Callable[[], None]
    sessions: Callable[[], Collection[str]] | None = None
    also_when_idle: bool = False
    on_notes: Callable[[Sequence[ChangeNote]], None] | None = None
    on_sessions: Callable[[Collection[str]], None] | None = None
    on_end: Callable[[], None] | None = None


class StoreFollower:
    """A thread waiting on one change feed of ``store`` while anyone subscribes.

    The feed is opened by the first :meth:`subscribe` (before it returns: a subscriber that
    reads the store after subscribing misses no later change) and kept for a moment after the
    last subscriber leaves: an agent asking one question after another subscribes again at
    once, and finds the feed (on SQLite its connection) and the thread still there. It is
    closed, and the thread ends, at the first wake with nobody subscribed that follows a wait
    begun with nobody subscribed either (at most two :attr:`IDLE_WAIT` after the last one left;
    sooner while the store changes). A feed that fails is opened again after a backed-off
    pause, and every subscriber is called then (what changed meanwhile is not known). A feed
    that ended with its store (closed) ends the thread, with a warning if anyone subscribes.
    """

    IDLE_WAIT = 1.0
    """Longest single wait on the feed; between waits the thread checks whether to stop."""

    def __init__(self, store: Store) -> None:
        self._store = weakref.ref(store)  # the registry of followers must not keep stores alive
        self.location = store.location
        self._lock = threading.Lock()
        self._opening = threading.Lock()
        self._subscriptions: list[Subscription] = []
        self._feed: ChangeFeed | None = None
        """The feed of the running thread (``None``: no thread runs)."""
        self._left = False
        """Whether nobody subscribed when the thread's current wait began."""
        self._pause = Pause(ThreadClock())

    def subscribe(self, subscription: Subscription) -> Callable[[], None]:
        """Start calling ``subscription``; returns what stops it (idempotent)."""
        store = self._store()
        assert store is not None  # the caller holds it
        # Opening a feed may read the subscribers' sessions (a PostgreSQL feed listens for
        # them): it runs outside ``_lock``, one opening at a time.
        with self._opening:
            with self._lock:
                self._subscriptions.append(subscription)
                opening = self._feed is None
            if opening:
                try:
                    feed = store.changes(self._sessions)
                except BaseException:
                    with self._lock:
                        self._subscriptions.remove(subscription)
                    raise
                with self._lock:
                    self._feed = feed
                thread = threading.Thread(
                    target=self._run, args=(feed,), name="ipyask-store-follow", daemon=True
                )
                thread.start()
        if not opening:
            self.sessions_changed()

        def unsubscribe() -> None:
            with self._lock:
                if subscription in self._subscriptions:
                    self._subscriptions.remove(subscription)
            # The feed stays a moment for the next subscriber (the thread retires it).

        return unsubscribe

    def sessions_changed(self) -> None:
        """A subscriber follows sessions it did not follow before: a feed that listens per
        session (PostgreSQL) listens for them before this returns."""
        with self._lock:
            feed = self._feed
        listen = getattr(feed, "sessions_changed", None)
        if listen is not None:
            listen()

    @property
    def running(self) -> bool:
        """Whether a feed is open and its thread runs (it outlives the last subscriber a
        moment)."""
        with self._lock:
            return self._feed is not None

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subscriptions)

    def _sessions(self) -> Collection[str]:
        """The sessions some subscriber follows (every session if one follows them all)."""
        with self._lock:
            subscriptions = list(self._subscriptions)
        followed: set[str] = set()
        for subscription in subscriptions:
            if subscription.sessions is None:
                return EverySession()
            followed.update(subscription.sessions())
        return followed

    def _current(self, feed: ChangeFeed) -> list[Subscription] | None:
        """The subscribers now, or ``None`` when ``feed`` was retired (its thread ends)."""
        with self._lock:
            if self._feed is not feed:
                return None
            return list(self._subscriptions)

    def _keep(self, feed: ChangeFeed) -> bool:
        """Whether to wait on ``feed`` again: it is not retired, and somebody subscribes now
        or did when the last wait began (else it is retired here)."""
        with self._lock:
            if self._feed is not feed:
                return False
            if self._subscriptions:
                self._left = False
            elif self._left:
                self._feed = None  # the next subscriber starts a new thread and feed
                return False
            else:
                self._left = True
            return True

    def _run(self, feed: ChangeFeed) -> None:
        backoff = Backoff()
        try:
            while self._keep(feed):
                try:
                    changed = feed.wait(self.IDLE_WAIT)
                except Exception as error:  # the feed failed: a new one, after a pause
                    log.warning(
                        "ipyask: following the store %s failed (%s); retrying", self.location, error
                    )
                    feed.close()
                    replaced = self._replace(feed, backoff)
                    if replaced is None:
                        return
                    feed = replaced
                    changed, notes, sessions = True, None, None  # what changed is not known
                else:
                    backoff.reset()
                    if not changed and self._ended(feed):
                        return
                    # What the feed's notifications told of the changes (PostgreSQL), if whole.
                    notes = getattr(feed, "notes", None) if changed else None
                    # ... and else in which sessions they were, if it knows.
                    sessions = getattr(feed, "sessions", None) if changed else None
                subscriptions = self._current(feed)  # those who subscribed during the wait too
                if subscriptions is None:
                    return
                self._call(subscriptions, changed, notes, sessions)
        finally:
            feed.close()

    def _ended(self, feed: ChangeFeed) -> bool:
        """Whether ``feed`` ended with its store (a closed PostgreSQL store's feed returns from
        every wait at once): the follower retires it and stops instead of spinning, and says
        so when someone still subscribes (they hear of no more changes)."""
        if not getattr(feed, "ended", False):
            return False
        with self._lock:
            if self._feed is feed:
                self._feed = None
            left = list(self._subscriptions)
        if left:
            log.warning(
                "ipyask: the store %s was closed while %d subscriber%s followed its changes;"
                " they hear of no more (the asks waiting on it end with ASK_ABORTED; close the"
                " inbox panels on a store before closing it)",
                self.location,
                len(left),
                "" if len(left) == 1 else "s",
            )
        for subscription in left:
            if subscription.on_end is not None:
                try:
                    subscription.on_end()
                except Exception:
                    log.exception("ipyask: telling a subscriber %s closed failed", self.location)
        return True

    def _replace(self, failed: ChangeFeed, backoff: Backoff) -> ChangeFeed | None:
        """A new feed in place of ``failed``, tried at backed-off delays; ``None`` once the
        follower retired ``failed`` (nobody subscribes) or the store is gone."""
        while True:
            self._pause.sleep(backoff.next_ms())
            store = self._store()
            with self._lock:
                if store is None or self._feed is not failed:
                    return None
                if not self._subscriptions:  # nobody to follow it for: retired
                    self._feed = None
                    return None
            try:
                feed = store.changes(self._sessions)
            except Exception as error:
                log.debug("ipyask: the store %s gives no change feed yet: %s", self.location, error)
                continue
            with self._lock:
                if self._feed is failed:
                    self._feed = feed
                    return feed
            feed.close()  # retired meanwhile
            return None

    def _call(
        self,
        subscriptions: list[Subscription],
        changed: bool,
        notes: Sequence[ChangeNote] | None,
        sessions: Collection[str] | None,
    ) -> None:
        for subscription in subscriptions:
            if not (changed or subscription.also_when_idle):
                continue
            try:
                if notes is not None and subscription.on_notes is not None:
                    subscription.on_notes(notes)
                elif sessions is not None and subscription.on_sessions is not None:
                    subscription.on_sessions(sessions)
                else:
                    subscription.on_change()
            except Exception:  # one subscriber's failure is not another's
                log.exception("ipyask: handling a change of the store %s failed", self.location)


_FOLLOWERS: weakref.WeakKeyDictionary[Store, StoreFollower] = weakref.WeakKeyDictionary()
_FOLLOWERS_LOCK = threading.Lock()


def follower_of(store: Store) -> StoreFollower:
    """The one :class:`StoreFollower` of ``store`` in this process."""
    with _FOLLOWERS_LOCK:
        follower = _FOLLOWERS.get(store)
        if follower is None:
            follower = _FOLLOWERS[store] = StoreFollower(store)
        return follower
