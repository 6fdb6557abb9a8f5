"""``FileWatch``: the kernel's notice that a SQLite store's files were written.

A commit, by any process, writes the store's write-ahead log. On Linux the kernel tells of that
write at once (inotify, reached through libc with :mod:`ctypes`): a thread blocks on the notice and
on a socket that :meth:`FileWatch.close` wakes, so a watch that sees no write costs no CPU and no
wake-ups. The notice only says "look now": a change feed still checks ``PRAGMA data_version``,
which stays the one test of a committed change.

Where no such notice exists (not Linux, or inotify's per-user limits reached),
:func:`open_file_watch` returns ``None`` and the feeds check ``data_version`` at backed-off
intervals instead.

(``watchfiles`` was weighed for this: its Python interface sleeps a fixed step between looks at
what its Rust thread collected, so an idle watch wakes 1000/step times a second, and a change is
reported after two steps at the earliest.)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import selectors
import socket
import struct
import sys
import threading
from collections.abc import Callable
from pathlib import Path

__all__ = ["FileWatch", "open_file_watch"]

log = logging.getLogger("ipyask")

_IN_MODIFY = 0x002
_IN_MOVED_TO = 0x080
_IN_CREATE = 0x100
_IN_DELETE_SELF = 0x400
_IN_MOVE_SELF = 0x800
_IN_IGNORED = 0x8000
_IN_NONBLOCK = 0o4000
_IN_CLOEXEC = 0o2000000
_MASK = _IN_MODIFY | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE_SELF | _IN_MOVE_SELF
_GONE = _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_IGNORED
_EVENT = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len (then the name)


def _inotify() -> ctypes.CDLL:
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    libc.inotify_init1.argtypes = [ctypes.c_int]
    libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    return libc


def _names(data: bytes) -> tuple[set[str], bool]:
    """The file names a read of inotify events names, and whether the folder's watch ended."""
    names: set[str] = set()
    gone = False
    offset = 0
    while offset + _EVENT.size <= len(data):
        _, mask, _, length = _EVENT.unpack_from(data, offset)
        start = offset + _EVENT.size
        names.add(os.fsdecode(data[start : start + length].rstrip(b"\0")))
        gone = gone or bool(mask & _GONE)
        offset = start + length
    return names, gone


class FileWatch:
    """Calls ``on_write`` (on its own thread) when the SQLite file at ``path`` or its journal
    is written; raises :class:`OSError` where the kernel cannot watch the folder.

    After telling of a write the watch reads no notice until :meth:`arm` is called (by a feed
    about to wait for one): during a burst of commits, which the feeds follow on their timer,
    its thread sleeps instead of waking at every write of every process.

    :attr:`alive` turns ``False`` if the folder's watch ends (the folder removed or moved):
    ``on_write`` is called once more, and the store's feeds go back to checking on a timer.
    """

    def __init__(self, path: Path, on_write: Callable[[], None]) -> None:
        if not sys.platform.startswith("linux"):
            raise OSError("file-change notices are read through Linux inotify only")
        libc = _inotify()
        self._files = {path.name, path.name + "-wal", path.name + "-journal"}
        self._on_write = on_write
        self._fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        folder = os.fsencode(path.parent.resolve())
        if libc.inotify_add_watch(self._fd, folder, _MASK) < 0:
            error = ctypes.get_errno()
            os.close(self._fd)
            raise OSError(error, f"inotify cannot watch {path.parent}")
        self.alive = True
        self.notices = 0
        """How many reads of notices named the store's files (each woke the feeds once)."""
        self.armed = True
        """Whether the thread reads notices (else it sleeps until :meth:`arm`)."""
        self._arming = threading.Condition()
        self._stopping = False
        self._wake_read, self._wake_write = socket.socketpair()
        self._thread = threading.Thread(target=self._run, name="ipyask-store-files", daemon=True)
        self._thread.start()

    def arm(self) -> None:
        """Read notices again after telling of one. Those queued meanwhile are dropped: they
        tell of writes made before this call, which the caller checks for after it."""
        with self._arming:
            if self.armed or self._stopping or not self.alive:
                return
            try:
                while self._read_queued(tell=False):
                    pass
            except OSError as error:
                self._failed(error)
            self.armed = self.alive
            self._arming.notify_all()  # the thread reads again, or ends
            ended = not self.alive
        if ended:
            self._on_write()

    def _run(self) -> None:
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(self._fd, selectors.EVENT_READ)
                selector.register(self._wake_read, selectors.EVENT_READ)
                while self.alive:
                    with self._arming:
                        self._arming.wait_for(
                            lambda: self.armed or self._stopping or not self.alive
                        )
                        if self._stopping or not self.alive:
                            return
                    ready = selector.select()
                    if any(key.fileobj is self._wake_read for key, _ in ready):
                        return
                    with self._arming:
                        told = self._read_queued(tell=True)
                    if told:
                        self._on_write()
        except OSError as error:  # the feeds check on a timer from now on
            with self._arming:
                self._failed(error)
            self._on_write()
        finally:
            with self._arming:
                self._stopping = True  # arm() reads the descriptor no more
                os.close(self._fd)

    def _failed(self, error: OSError) -> None:
        log.warning("ipyask: watching the store's files failed (%s); checking on a timer", error)
        self.alive = False

    def _read_queued(self, *, tell: bool) -> bool:
        """Read the notices waiting (under ``_arming``); whether any named the store, or the
        folder's watch ended. With ``tell``, such a notice disarms the watch and counts."""
        try:
            data = os.read(self._fd, 64 * 1024)
        except BlockingIOError:
            return False
        names, gone = _names(data)
        if gone:
            self.alive = False
        named = gone or bool(names & self._files)
        if named and tell:
            self.notices += 1
            self.armed = False  # until a feed waits for the next notice
        return named or (not tell and bool(data))

    def close(self) -> None:
        """Stop watching (idempotent, from any thread but the watch's own)."""
        if self._wake_write.fileno() == -1:
            return
        with self._arming:
            self._stopping = True
            self._arming.notify_all()
        self._wake_write.send(b"x")
        self._thread.join()
        self._wake_read.close()
        self._wake_write.close()


def open_file_watch(path: Path, on_write: Callable[[], None]) -> FileWatch | None:
    """A :class:`FileWatch` of ``path``, or ``None`` where the kernel offers no notices."""
    try:
        return FileWatch(path, on_write)
    except OSError as error:
        log.debug("ipyask: no file-change notices for %s (%s); checking on a timer", path, error)
        return None
