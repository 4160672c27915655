"""File primitives of the memory tree, relative to open directory descriptors.

Every name below a starting descriptor is opened with ``O_NOFOLLOW``, so a component
swapped for a symlink between a check and a use can never lead outside the tree, and a
record file's size is checked on the open handle before a byte is read.

Of the memory domain it knows only the suffix of a record file. A function either
succeeds, raises ``OSError`` (sharpened where a caller needs to tell cases apart:
``FileNotFoundError`` for a missing name, :class:`SymlinkRefused` for a symlink,
``NotADirectoryError`` for another non-directory), or, for a record file that cannot be
used, raises :class:`EntrySkipped` with the skip reason that is logged. The store decides
what each failure means.
"""

from __future__ import annotations

import errno
import operator
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from mymcp.plugins.mnemosyne.memory.model.records import RECORD_SUFFIX

MAX_RECORD_BYTES = 65_536  # a larger record file is skipped without being read
MAX_CANDIDATES = 1000  # the most record files one scan may find (memory/storage/scan.py counts)
DIRECTORY_MODE = 0o700
FILE_MODE = 0o600

# Why a record file was skipped, as logged.
SYMLINK = "symlink"
UNREADABLE = "unreadable"
OVERSIZED = "oversized"

# (st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns, st_nlink): what makes a cached read
# reusable. The link count tells whether the file can also be written through another path.
Identity = tuple[int, int, int, int, int, int]
SIZE = 2  # index of st_size in an Identity
LINKS = 5  # index of st_nlink in an Identity

_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_TEMP_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
# Temp files are only ever written for canonical IDs; nothing else is cleaned up.
_TEMP_NAME_RE = re.compile(r"\.mem_[0-9a-f]{32}\.[a-z0-9]{8}\.tmp")
_BY_NAME = operator.attrgetter("name")


class SymlinkRefused(OSError):
    """A symlink stood where a real directory (or file) was required."""

    def __init__(self) -> None:
        super().__init__(errno.ELOOP, "symlink refused")


class EntrySkipped(Exception):
    """A record file that cannot be used; ``identity`` is set when the skip is cacheable."""

    def __init__(self, reason: str, identity: Identity | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.identity = identity


@dataclass(frozen=True, slots=True)
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


# --- looking names up and opening directories ------------------------------------------------


def lstat_at(dir_fd: int | None, name: str) -> os.stat_result | None:
    """``lstat`` of ``name`` in ``dir_fd`` (a plain path when None); None when it is missing.

    A path with a parent that is not a directory counts as missing too.
    """
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None


@contextmanager
def closing_fd(fd: int) -> Iterator[int]:
    try:
        yield fd
    finally:
        os.close(fd)


def open_directory(path: str | os.PathLike[str], *, follow: bool = False) -> int:
    """Open a directory by path; the last component must not be a symlink unless ``follow``."""
    flags = _DIRECTORY_FLAGS if follow else _DIRECTORY_FLAGS | os.O_NOFOLLOW
    return os.open(path, flags)


def open_subdirectory(parent_fd: int, name: str) -> int:
    """Open the real directory ``parent/name``; a symlink raises :class:`SymlinkRefused`."""
    try:
        return os.open(name, _DIRECTORY_FLAGS | os.O_NOFOLLOW, dir_fd=parent_fd)
    except OSError as exc:
        # Linux reports a symlink opened this way as "not a directory"; look to tell.
        if exc.errno in (errno.ENOTDIR, errno.ELOOP) and is_symlink(lstat_at(parent_fd, name)):
            raise SymlinkRefused() from exc
        raise


def open_beneath(start_fd: int, names: tuple[str, ...], *, make: bool = False) -> int:
    """Open the directory ``start/names...``, refusing a symlink at every component.

    The one descent of the tree. With ``make``, missing components are created (mode
    0700, each made durable) on the way down.
    """
    if not names:
        return os.dup(start_fd)
    open_child = open_or_make_subdirectory if make else open_subdirectory
    fd = open_child(start_fd, names[0])
    try:
        for name in names[1:]:
            child = open_child(fd, name)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def list_directory(fd: int) -> list[os.DirEntry[str]]:
    """The entries of an open directory, sorted by name (code point order)."""
    with os.scandir(fd) as entries:
        return sorted(entries, key=_BY_NAME)


def is_symlink(status: os.stat_result | None) -> bool:
    """Whether an ``lstat`` result (None: nothing there) is a symlink."""
    return status is not None and stat.S_ISLNK(status.st_mode)


# --- making directories --------------------------------------------------------------------


def make_directory_chain(path: str) -> None:
    """Create ``path`` and any missing ancestors (mode 0700), each made durable.

    Only the missing ancestors and ``path`` itself are checked: a symlink or non-directory
    among them raises ``OSError``. Existing directories are left untouched.
    """
    missing: list[str] = []
    current = os.path.abspath(path)
    while not os.path.exists(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            raise FileNotFoundError(errno.ENOENT, "no existing ancestor")
        current = parent
    for directory in reversed(missing):
        _make_directory_at(None, directory)
    _make_directory_at(None, os.path.abspath(path))


def missing_depth(start_fd: int, names: tuple[str, ...]) -> int:
    """How many of the directories ``start/names...``, the last ones, do not exist yet.

    Anything else in the way (a symlink, a file, a failure) counts as nothing missing.
    """
    try:
        os.close(open_beneath(start_fd, names))
        return 0
    except FileNotFoundError:
        pass
    except OSError:
        return 0
    for index in range(len(names)):
        try:
            os.close(open_beneath(start_fd, names[: index + 1]))
        except FileNotFoundError:
            return len(names) - index
        except OSError:
            return 0
    return 0


def remove_empty_directories(start_fd: int, names: tuple[str, ...], count: int) -> None:
    """Best effort: remove the last ``count`` directories of ``start/names...`` while empty.

    Undoes the directories a write made before it failed, deepest first (one it never got
    to make is passed over); a directory that holds anything, or any other failure, stops it.
    """
    for depth in range(len(names), len(names) - count, -1):
        try:
            with closing_fd(open_beneath(start_fd, names[: depth - 1])) as parent_fd:
                os.rmdir(names[depth - 1], dir_fd=parent_fd)
        except FileNotFoundError:
            continue
        except OSError:
            return


def open_or_make_subdirectory(parent_fd: int, name: str) -> int:
    """Open ``parent/name`` as a real directory, creating it (mode 0700) when missing."""
    _make_directory_at(parent_fd, name)
    return open_subdirectory(parent_fd, name)


def _make_directory_at(parent_fd: int | None, name: str) -> None:
    status = lstat_at(parent_fd, name)
    if status is None:
        try:
            os.mkdir(name, DIRECTORY_MODE, dir_fd=parent_fd)
        except FileExistsError:
            status = lstat_at(parent_fd, name)  # made meanwhile: accepted if a directory
        else:
            _sync_parent(parent_fd, name)
            return
    if status is None:
        raise FileNotFoundError(errno.ENOENT, "directory vanished")
    if stat.S_ISLNK(status.st_mode):
        raise SymlinkRefused()
    if not stat.S_ISDIR(status.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, "not a directory")


def _sync_parent(parent_fd: int | None, name: str) -> None:
    if parent_fd is not None:
        sync_directory(parent_fd)
        return
    with closing_fd(open_directory(os.path.dirname(name), follow=True)) as fd:
        sync_directory(fd)


def _fsync_directory(fd: int) -> None:
    os.fsync(fd)


def sync_directory(fd: int) -> None:
    """Make the entries of an open directory durable."""
    _fsync_directory(fd)


# --- bounded reads -------------------------------------------------------------------------


def read_candidate(start_fd: int, parts: tuple[str, ...]) -> FileContent:
    """Read the record file ``start/parts...``; raises :class:`EntrySkipped`."""
    if len(parts) == 1:
        return read_file_at(start_fd, parts[0])
    try:
        dir_fd = open_beneath(start_fd, parts[:-1])
    except OSError as exc:
        raise EntrySkipped(open_failure_reason(exc)) from exc
    with closing_fd(dir_fd):
        return read_file_at(dir_fd, parts[-1])


def read_file_at(dir_fd: int, name: str) -> FileContent:
    """Open ``name`` without following links and read at most one byte over the limit."""
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        raise EntrySkipped(open_failure_reason(exc)) from exc
    try:  # not ``closing_fd``: this runs for every file a scan reads
        return _read_open_file(fd)
    except OSError as exc:
        raise EntrySkipped(UNREADABLE) from exc
    finally:
        os.close(fd)


def open_failure_reason(exc: OSError) -> str:
    """The skip reason of a record file whose directory or file could not be opened."""
    return SYMLINK if exc.errno in (errno.ELOOP, errno.ENOTDIR) else UNREADABLE


def _read_open_file(fd: int) -> FileContent:
    status = os.fstat(fd)
    identity = identity_of(status)
    if not stat.S_ISREG(status.st_mode):
        raise EntrySkipped(UNREADABLE)
    if status.st_size > MAX_RECORD_BYTES:
        raise EntrySkipped(OVERSIZED, identity)
    # One read of the size the file had takes a regular file whole; one that grew since is
    # read on to the end (or past the limit).
    expected = status.st_size + 1
    data = os.read(fd, expected)
    if len(data) == expected:
        data += read_at_most(fd, MAX_RECORD_BYTES + 1 - len(data))
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


# --- writing -------------------------------------------------------------------------------


def write_temp(dir_fd: int, memory_id: str, payload: bytes) -> str:
    """Write ``payload`` durably to a new hidden temp file (mode 0600); return its name.

    On failure the temp file is removed and the ``OSError`` propagates.
    """
    import secrets  # here: importing it (hmac, hashlib) costs every start 4 ms

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


def is_temp_name(name: str) -> bool:
    """Whether ``name`` is that of a temp file a write makes (and a later one cleans up)."""
    return _TEMP_NAME_RE.fullmatch(name) is not None


def remove_leftover_temps(dir_fd: int) -> None:
    """Remove temp files of earlier writes that never finished (regular files only)."""
    try:
        with os.scandir(dir_fd) as entries:
            names = [
                entry.name
                for entry in entries
                if is_temp_name(entry.name) and entry.is_file(follow_symlinks=False)
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
