"""Change notification for scanned directories (Linux inotify), so unchanged scans are free.

A scan of a scope walks every directory and stats every file. When the kernel can tell us
that nothing in those directories changed since the last scan, the last scan's result is
still exact and the walk can be skipped. :class:`ChangeFeed` watches each directory a
walk visits (the watch is added before the directory is listed, so a change after that
moment is always reported) and answers whether any of a set of watches saw an event since
a given point.

Where inotify is unavailable (another OS, no free watches, a forked child that inherited
the descriptor) the feed reports "unknown" and callers fall back to the full walk.
Nothing here touches the watched files; watches live only in this process.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct
import sys
import threading

__all__ = ["LOCAL_FILESYSTEMS", "MAX_EVENTFUL_WATCHES", "ChangeFeed", "shared_feed"]

_IN_MODIFY = 0x00000002
_IN_ATTRIB = 0x00000004
_IN_CLOSE_WRITE = 0x00000008
_IN_MOVED_FROM = 0x00000040
_IN_MOVED_TO = 0x00000080
_IN_CREATE = 0x00000100
_IN_DELETE = 0x00000200
_IN_DELETE_SELF = 0x00000400
_IN_MOVE_SELF = 0x00000800
_IN_Q_OVERFLOW = 0x00004000
_IN_ONLYDIR = 0x01000000
_IN_NONBLOCK = 0o4000
_IN_CLOEXEC = 0o2000000

_MASK = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
    | _IN_ONLYDIR
)
# Filesystem magic numbers (statfs f_type) of local filesystems, where every change goes
# through this kernel and so raises an event. Network and FUSE filesystems (NFS, SMB,
# sshfs, 9p, ...) do not report changes made elsewhere; their scans always walk.
LOCAL_FILESYSTEMS = frozenset(
    {
        0xEF53,  # ext2, ext3, ext4
        0x58465342,  # xfs
        0x9123683E,  # btrfs
        0x01021994,  # tmpfs
        0x858458F6,  # ramfs
        0xF2F52010,  # f2fs
        0x2FC12FC1,  # zfs
        0xCA451A4E,  # bcachefs
        0x3153464A,  # jfs
        0x52654973,  # reiserfs
        0x794C7630,  # overlayfs
    }
)
_STATFS_BUFFER = 512  # larger than struct statfs on every Linux ABI; f_type comes first
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, name length; the name follows
_READ_SIZE = 64 * 1024
# Watches whose last event is remembered. Past this many the feed starts a new epoch, so
# every earlier mark counts as changed once, and forgets them all.
MAX_EVENTFUL_WATCHES = 16_384


def _load_libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        libc.fstatfs.argtypes = [ctypes.c_int, ctypes.c_void_p]
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _load_libc()


class ChangeFeed:
    """Which watched directories saw a change, as a sequence of event numbers."""

    def __init__(self, *, enabled: bool = True) -> None:
        self._enabled = enabled
        self._mutex = threading.Lock()
        self._pid = -1
        self._fd: int | None = None
        self._sequence = 0  # grows with every event read
        self._epoch = 0  # grows when everything must be considered changed
        # Watch descriptor -> sequence of its last event; at most MAX_EVENTFUL_WATCHES.
        self._last_event: dict[int, int] = {}

    def mark(self) -> tuple[int, int] | None:
        """A point to compare later changes against, or None when no feed is available."""
        with self._mutex:
            if not self._ready():
                return None
            self._drain()
            return (self._epoch, self._sequence)

    def watch(self, directory_fd: int) -> int | None:
        """Watch the directory open at ``directory_fd``; its watch descriptor, or None."""
        with self._mutex:
            if self._fd is None or _LIBC is None or self._pid != os.getpid():
                return None
            if not _on_local_filesystem(_LIBC, directory_fd):
                return None
            path = f"/proc/self/fd/{directory_fd}".encode()
            wd = int(_LIBC.inotify_add_watch(self._fd, path, _MASK))
            return wd if wd >= 0 else None

    def unchanged(self, watches: tuple[int, ...], since: tuple[int, int]) -> bool:
        """True only if the feed is sure none of ``watches`` saw an event after ``since``."""
        with self._mutex:
            if not self._ready():
                return False
            self._drain()
            epoch, sequence = since
            if epoch != self._epoch:
                return False
            last = self._last_event
            return all(last.get(wd, 0) <= sequence for wd in watches)

    def _ready(self) -> bool:
        if self._pid == os.getpid() and self._fd is not None:
            return True
        # First use, or a forked child: never read the parent's queue.
        self._pid = os.getpid()
        self._fd = None
        self._epoch += 1
        self._last_event.clear()
        if _LIBC is None or not self._enabled:
            return False
        fd = int(_LIBC.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC))
        if fd < 0:
            return False
        self._fd = fd
        return True

    def _drain(self) -> None:
        assert self._fd is not None
        while True:
            try:
                data = os.read(self._fd, _READ_SIZE)
            except BlockingIOError:
                return
            except OSError:
                self._epoch += 1
                return
            self._record(data)

    def _record(self, data: bytes) -> None:
        offset = 0
        while offset + _EVENT.size <= len(data):
            wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
            offset += _EVENT.size + length
            self._sequence += 1
            if mask & _IN_Q_OVERFLOW:
                self._epoch += 1
            else:
                self._last_event[wd] = self._sequence
        if len(self._last_event) > MAX_EVENTFUL_WATCHES:
            self._epoch += 1
            self._last_event.clear()


def _on_local_filesystem(libc: ctypes.CDLL, directory_fd: int) -> bool:
    buffer = ctypes.create_string_buffer(_STATFS_BUFFER)
    if int(libc.fstatfs(directory_fd, buffer)) != 0:
        return False
    magic = ctypes.c_long.from_buffer(buffer).value & 0xFFFFFFFF
    return magic in LOCAL_FILESYSTEMS


_SHARED: ChangeFeed | None = None
_SHARED_MUTEX = threading.Lock()


def shared_feed() -> ChangeFeed:
    """The process's one feed (inotify instances are a scarce per-user resource)."""
    global _SHARED
    with _SHARED_MUTEX:
        if _SHARED is None:
            _SHARED = ChangeFeed()
        return _SHARED
