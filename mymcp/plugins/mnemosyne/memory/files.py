"""Filesystem primitives of the memory store.

Everything here works relative to open directory descriptors and opens every component
below the starting point with ``O_NOFOLLOW``, so a path swapped for a symlink between a
check and a use can never lead outside the memory tree. Record files are size-checked on
the open handle before a byte is read.

Errors: the walk raises :class:`SourceUnavailable` (a directory could not be listed) and
:class:`CandidateLimitExceeded`; reading a candidate raises :class:`EntrySkipped` with the
skip reason; the write helpers let ``OSError`` through for the store to classify.
"""

from __future__ import annotations

import errno
import functools
import operator
import os
import re
import secrets
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple

from mymcp.plugins.mnemosyne.memory.errors import CandidateLimitExceeded, SourceUnavailable

MAX_RECORD_BYTES = 65_536
MAX_CANDIDATES = 1000
RECORD_SUFFIX = ".json"
DIRECTORY_MODE = 0o700
FILE_MODE = 0o600

# Skip reasons, as logged.
SYMLINK = "symlink"
TOO_DEEP = "too_deep"
UNREADABLE = "unreadable"
OVERSIZED = "oversized"

# (st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns, st_nlink): what makes a cached read
# reusable. The link count tells whether the file can also be written through another path.
Identity = tuple[int, int, int, int, int, int]
LINKS = 5  # index of st_nlink in an Identity

_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_TEMP_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
# Temp files are only ever written for canonical IDs; nothing else is cleaned up.
_TEMP_NAME_RE = re.compile(r"\.mem_[0-9a-f]{32}\.[a-z0-9]{8}\.tmp")


class EntrySkipped(Exception):
    """A candidate that cannot be used; ``identity`` is set when the skip is cacheable."""

    def __init__(self, reason: str, identity: Identity | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.identity = identity


class Candidate(NamedTuple):
    """A record file found by a walk (a named tuple: walks create one per file)."""

    parts: tuple[str, ...]  # relative to the walk's start directory
    identity: Identity | None  # taken without following links; None if that failed


# Builds a Candidate from (parts, identity) without the Python-level __new__.
_new_candidate = functools.partial(tuple.__new__, Candidate)


@dataclass(frozen=True)
class FileContent:
    data: bytes
    identity: Identity  # of the handle the bytes came from


def identity_of(status: os.stat_result) -> Identity:
    return (
        status.st_dev,
        status.st_ino,
        status.st_size,
        status.st_mtime_ns,
        status.st_ctime_ns,
        status.st_nlink,
    )


def is_candidate_name(name: str) -> bool:
    """True when the name's last suffix is exactly ``.json`` (a bare ``.json`` has none)."""
    dot = name.rfind(".")
    return dot > 0 and name[dot:] == RECORD_SUFFIX


def lstat_or_none(path: str | os.PathLike[str]) -> os.stat_result | None:
    """``lstat`` of a path; None when it or a parent is missing or not a directory."""
    try:
        return os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


# --- directories -------------------------------------------------------------------------


def open_directory(path: str | os.PathLike[str], *, follow: bool = False) -> int:
    """Open a directory by path; the last component must not be a symlink unless ``follow``."""
    flags = _DIRECTORY_FLAGS if follow else _DIRECTORY_FLAGS | os.O_NOFOLLOW
    return os.open(path, flags)


def open_subdirectory(parent_fd: int, name: str) -> int:
    return os.open(name, _DIRECTORY_FLAGS | os.O_NOFOLLOW, dir_fd=parent_fd)


@contextmanager
def closing_fd(fd: int) -> Iterator[int]:
    try:
        yield fd
    finally:
        os.close(fd)


def open_beneath(start_fd: int, names: tuple[str, ...], *, make: bool = False) -> int:
    """Open the directory ``start/names...`` refusing a symlink at every component.

    With ``make``, missing components are created (mode 0700) on the way down.
    """
    open_child = open_or_make_subdirectory if make else open_subdirectory
    fd = os.dup(start_fd)
    try:
        for name in names:
            child = open_child(fd, name)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_directory_chain(path: str) -> None:
    """Create ``path`` and any missing ancestors (mode 0700), each made durable.

    Only the missing ancestors and ``path`` itself are checked: a symlink or non-directory
    among them raises :class:`SourceUnavailable`. Existing directories are left untouched.
    """
    missing: list[str] = []
    current = os.path.abspath(path)
    while not os.path.exists(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            raise SourceUnavailable()
        current = parent
    for directory in reversed(missing):
        _make_directory_at(None, directory)
    _make_directory_at(None, os.path.abspath(path))


def open_or_make_subdirectory(parent_fd: int, name: str) -> int:
    """Open ``parent/name`` as a real directory, creating it (mode 0700) when missing."""
    _make_directory_at(parent_fd, name)
    try:
        return open_subdirectory(parent_fd, name)
    except OSError as exc:
        raise SourceUnavailable() from exc


def _make_directory_at(parent_fd: int | None, name: str) -> None:
    status = _lstat_at(parent_fd, name)
    if status is None:
        try:
            os.mkdir(name, DIRECTORY_MODE, dir_fd=parent_fd)
        except FileExistsError:
            status = _lstat_at(parent_fd, name)
        except OSError as exc:
            raise SourceUnavailable() from exc
        else:
            _sync_parent(parent_fd, name)
            return
    if status is None or not stat.S_ISDIR(status.st_mode):
        raise SourceUnavailable()


def _lstat_at(dir_fd: int | None, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SourceUnavailable() from exc


def _sync_parent(parent_fd: int | None, name: str) -> None:
    try:
        if parent_fd is not None:
            sync_directory(parent_fd)
            return
        with closing_fd(open_directory(os.path.dirname(name), follow=True)) as fd:
            sync_directory(fd)
    except OSError as exc:
        raise SourceUnavailable() from exc


def _fsync_directory(fd: int) -> None:
    os.fsync(fd)


def sync_directory(fd: int) -> None:
    """Make the entries of an open directory durable; raises ``OSError`` on failure."""
    _fsync_directory(fd)


# --- discovery ---------------------------------------------------------------------------


def walk(
    start_fd: int,
    max_depth: int,
    *,
    report_too_deep: bool,
    on_skip: Callable[[str], None],
    limit: int = MAX_CANDIDATES,
    listings: Listings | None = None,
    racy_window_ns: int = 0,
    on_directory: Callable[[int], None] | None = None,
) -> list[Candidate]:
    """All candidates below ``start_fd`` in discovery order (depth first, names by code point).

    Symlinks and directories beyond ``max_depth`` are reported through ``on_skip`` as they
    are met; nothing is read. Every candidate is stat-ed; with ``listings`` the names of a
    directory that has not changed are taken from the previous walk instead of listed again.
    ``on_directory`` is called with each visited directory's descriptor before it is listed.
    """
    walker = _Walker(max_depth, report_too_deep, on_skip, limit, listings, racy_window_ns)
    walker.on_directory = on_directory
    walker.visit(start_fd, (), 0)
    return walker.candidates


_CANDIDATE = "candidate"
_DIRECTORY = "directory"

# The relevant entries of one directory in name order: (name, kind), where kind is
# _CANDIDATE, _DIRECTORY or a skip reason.
Entries = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class _Listing:
    change: tuple[int, int]  # the directory's (st_mtime_ns, st_ctime_ns) before listing
    listed_ns: int
    entries: Entries


class Listings:
    """Directory listings remembered between walks, in process memory only.

    A directory is listed again unless its device, inode, mtime and ctime are those of the
    remembered listing and its last change came at least the racy window before that
    listing was taken (so a change within the same timestamp tick cannot hide). Adding,
    removing or renaming an entry changes the directory; editing a file does not, which is
    why files are stat-ed on every walk regardless.
    """

    def __init__(self, clock: Callable[[], int], limit: int = 4 * MAX_CANDIDATES) -> None:
        self._clock = clock
        self._limit = limit
        self._known: dict[tuple[int, int], _Listing] = {}
        self._mutex = threading.Lock()

    def entries(self, fd: int, racy_window_ns: int) -> Entries:
        try:
            status = os.fstat(fd)
        except OSError as exc:
            raise SourceUnavailable() from exc
        key = (status.st_dev, status.st_ino)
        change = (status.st_mtime_ns, status.st_ctime_ns)
        with self._mutex:
            known = self._known.get(key)
        if (
            known is not None
            and known.change == change
            and max(change) < known.listed_ns - racy_window_ns
        ):
            return known.entries
        listed_ns = self._clock()
        entries = _classified(fd)
        if all(kind is not UNREADABLE for _, kind in entries):
            with self._mutex:
                if key not in self._known and len(self._known) >= self._limit:
                    self._known.clear()
                self._known[key] = _Listing(change, listed_ns, entries)
        return entries


class _Walker:
    def __init__(
        self,
        max_depth: int,
        report_too_deep: bool,
        on_skip: Callable[[str], None],
        limit: int,
        listings: Listings | None,
        racy_window_ns: int,
    ) -> None:
        self.max_depth = max_depth
        self.report_too_deep = report_too_deep
        self.on_skip = on_skip
        self.limit = limit
        self.listings = listings
        self.racy_window_ns = racy_window_ns
        self.candidates: list[Candidate] = []
        self.on_directory: Callable[[int], None] | None = None

    def visit(self, fd: int, prefix: tuple[str, ...], depth: int) -> None:
        if self.on_directory is not None:
            self.on_directory(fd)
        if self.listings is None:
            entries = _classified(fd)
        else:
            entries = self.listings.entries(fd, self.racy_window_ns)
        for name, kind in entries:
            if kind is _CANDIDATE:
                self._add(fd, name, prefix)
            elif kind is _DIRECTORY:
                self._enter(fd, name, prefix, depth)
            else:
                self.on_skip(kind)

    def _enter(self, fd: int, name: str, prefix: tuple[str, ...], depth: int) -> None:
        if depth >= self.max_depth:
            if self.report_too_deep:
                self.on_skip(TOO_DEEP)
            return
        try:
            child = open_subdirectory(fd, name)
        except OSError as exc:
            if _is_symlink_at(fd, name):
                self.on_skip(SYMLINK)
                return
            raise SourceUnavailable() from exc
        with closing_fd(child):
            self.visit(child, (*prefix, name), depth + 1)

    def _add(self, fd: int, name: str, prefix: tuple[str, ...]) -> None:
        # Runs once per file on every walk.
        candidates = self.candidates
        if len(candidates) >= self.limit:
            raise CandidateLimitExceeded()
        try:
            identity: Identity | None = identity_of(os.stat(name, dir_fd=fd, follow_symlinks=False))
        except OSError:
            identity = None
        candidates.append(_new_candidate(((*prefix, name), identity)))


def _classified(fd: int) -> Entries:
    """List a directory: its candidates, subdirectories and skipped entries, by name."""
    return tuple(
        (entry.name, kind)
        for entry in _list_directory(fd)
        if (kind := _classify(entry)) is not None
    )


def _classify(entry: os.DirEntry[str]) -> str | None:
    # Without following links, a symlink is neither a file nor a directory; the common
    # case (a regular file) is decided by the first test.
    try:
        if entry.is_file(follow_symlinks=False):
            return _CANDIDATE if is_candidate_name(entry.name) else None
        if entry.is_dir(follow_symlinks=False):
            return _DIRECTORY
        if entry.is_symlink():
            return SYMLINK
    except OSError:
        return UNREADABLE
    return None


_BY_NAME = operator.attrgetter("name")


def _list_directory(fd: int) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(fd) as entries:
            return sorted(entries, key=_BY_NAME)
    except OSError as exc:
        raise SourceUnavailable() from exc


def _is_symlink_at(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def count_candidates(fd: int, max_depth: int, limit: int = MAX_CANDIDATES) -> int:
    """Candidates below ``fd`` as a walk would find them, without stat-ing or reading any.

    Symlinks are never followed; raises :class:`CandidateLimitExceeded` once over ``limit``.
    """
    return _count_candidates(fd, 0, max_depth, limit)


def _count_candidates(fd: int, depth: int, max_depth: int, budget: int) -> int:
    count = 0
    for entry in _list_directory(fd):
        try:
            if entry.is_symlink():
                continue
            if entry.is_dir(follow_symlinks=False):
                if depth < max_depth:
                    count += _count_subdirectory(
                        fd, entry.name, depth + 1, max_depth, budget - count
                    )
            elif entry.is_file(follow_symlinks=False) and is_candidate_name(entry.name):
                count += 1
        except OSError:
            continue  # an entry that cannot be classified is not a candidate
        if count > budget:
            raise CandidateLimitExceeded()
    return count


def _count_subdirectory(parent_fd: int, name: str, depth: int, max_depth: int, budget: int) -> int:
    try:
        child = open_subdirectory(parent_fd, name)
    except OSError as exc:
        if _is_symlink_at(parent_fd, name):
            return 0  # replaced by a symlink since it was listed: skipped like any symlink
        raise SourceUnavailable() from exc
    with closing_fd(child):
        return _count_candidates(child, depth, max_depth, budget)


# --- reading -----------------------------------------------------------------------------


def read_candidate(start_fd: int, parts: tuple[str, ...]) -> FileContent:
    """Read the record file ``start/parts...`` safely; raises :class:`EntrySkipped`."""
    try:
        dir_fd = open_beneath(start_fd, parts[:-1])
    except OSError as exc:
        raise EntrySkipped(_open_failure_reason(exc)) from exc
    with closing_fd(dir_fd):
        return read_file_at(dir_fd, parts[-1])


def read_file_at(dir_fd: int, name: str) -> FileContent:
    """Open ``name`` without following links and read at most one byte over the limit."""
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        raise EntrySkipped(_open_failure_reason(exc)) from exc
    with closing_fd(fd):
        try:
            return _read_open_file(fd)
        except OSError as exc:
            raise EntrySkipped(UNREADABLE) from exc


def _open_failure_reason(exc: OSError) -> str:
    return SYMLINK if exc.errno in (errno.ELOOP, errno.ENOTDIR) else UNREADABLE


def _read_open_file(fd: int) -> FileContent:
    status = os.fstat(fd)
    identity = identity_of(status)
    if not stat.S_ISREG(status.st_mode):
        raise EntrySkipped(UNREADABLE)
    if status.st_size > MAX_RECORD_BYTES:
        raise EntrySkipped(OVERSIZED, identity)
    data = read_at_most(fd, MAX_RECORD_BYTES + 1)
    if len(data) > MAX_RECORD_BYTES:
        raise EntrySkipped(OVERSIZED, identity)
    return FileContent(data, identity)


def read_at_most(fd: int, limit: int) -> bytes:
    """Read from ``fd`` until end of file or ``limit`` bytes, whichever comes first."""
    chunks: list[bytes] = []
    remaining = limit
    while remaining > 0:
        chunk = os.read(fd, remaining)
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


# --- writing -----------------------------------------------------------------------------


def write_temp(dir_fd: int, memory_id: str, payload: bytes) -> str:
    """Write ``payload`` durably to a new hidden temp file (mode 0600); return its name.

    On failure the temp file is removed and the ``OSError`` propagates.
    """
    name = f".{memory_id}.{''.join(secrets.choice(_TEMP_ALPHABET) for _ in range(8))}.tmp"
    fd = os.open(name, _TEMP_FLAGS, FILE_MODE, dir_fd=dir_fd)
    try:
        with closing_fd(fd):
            os.fchmod(fd, FILE_MODE)
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
    except BaseException:
        remove_quietly(dir_fd, name)
        raise
    return name


def remove_quietly(dir_fd: int, name: str) -> None:
    """Best-effort unlink; a missing entry is fine and nothing is raised."""
    try:
        os.unlink(name, dir_fd=dir_fd)
    except OSError:
        pass


def remove_leftover_temps(dir_fd: int) -> None:
    """Remove temp files of earlier writes that never finished (regular files only)."""
    try:
        with os.scandir(dir_fd) as entries:
            names = [
                entry.name
                for entry in entries
                if _TEMP_NAME_RE.fullmatch(entry.name) and entry.is_file(follow_symlinks=False)
            ]
    except OSError:
        return
    for name in names:
        remove_quietly(dir_fd, name)


def link_no_clobber(dir_fd: int, source: str, target: str) -> None:
    """Publish ``source`` as ``target``; ``FileExistsError`` if the target exists."""
    os.link(source, target, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)


def rename_over(dir_fd: int, source: str, target: str) -> None:
    os.replace(source, target, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)


def unlink(dir_fd: int, name: str) -> None:
    os.unlink(name, dir_fd=dir_fd)
