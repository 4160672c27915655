"""The memory store: the records below a memory root, the root's lock and the writes.

:class:`MemoryStore` is what the services use. It reads the records of a scope, of a
listing selection or at one canonical path through the scanner (``memory/storage/scan.py``, which
keeps the caches), checks the candidate bound, and creates, replaces and deletes record
files (``memory/storage/writes.py``) under :meth:`MemoryStore.lock`, an exclusive ``flock`` on
the root directory that serializes every writer of that root, in this process and others.

The root is opened in one place (:func:`_open_root`), and an ``OSError`` from anywhere
below becomes :class:`SourceUnavailable` in one place (:class:`_Unavailable`), which also
gives that error, and an uncertain outcome, the :class:`~faults.Fault` the Tool logs: the
cause, the errno's name and the directory below the root that the operation worked in.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal, TypeVar

from mymcp.plugins.mnemosyne.memory.model import faults
from mymcp.plugins.mnemosyne.memory.model.errors import (
    CandidateLimitExceeded,
    Conflict,
    MnemosyneError,
    NotFound,
    OutcomeUncertain,
    SourceUnavailable,
    StorageError,
)
from mymcp.plugins.mnemosyne.memory.model.records import (
    CanonicalRecord,
    LegacyRecord,
    Record,
    canonical_relative_parts,
)
from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.storage import files, scan, writes
from mymcp.plugins.mnemosyne.memory.storage.scan import StoredRecord
from mymcp.plugins.mnemosyne.memory.storage.watch import ChangeFeed, shared_feed
from mymcp.plugins.mnemosyne.memory.storage.writes import encode_record

__all__ = ["CollectionMode", "MemoryStore", "StoredRecord", "encode_record"]

CollectionMode = Literal["all", "none", "exact"]
F = TypeVar("F", bound=scan.Follower)


class MemoryStore:
    """Reads and writes memory records below a root; one instance per process.

    Thread-safe. Scans return valid records only, in discovery order, and log every
    skipped entry on ``mymcp.memory.store``. ``candidate_limit`` is the most record files a
    scan may find (the operator's setting; the contract's 1,000 by default).
    """

    def __init__(
        self,
        *,
        clock: Callable[[], int] = time.time_ns,
        watch_changes: bool = True,
        candidate_limit: int = files.MAX_CANDIDATES,
        on_shared_out: Callable[[], None] | None = None,
    ) -> None:
        """``on_shared_out`` is called each time a first scan has handed its first runs of
        files to worker processes (from then on they do most of its work)."""
        feed = shared_feed() if watch_changes else ChangeFeed(enabled=False)
        self.candidate_limit = candidate_limit
        self._scanner = scan.Scanner(
            clock, feed, candidate_limit, guard=_Unavailable, on_shared_out=on_shared_out
        )

    # --- reads ---------------------------------------------------------------------------

    def recall_scan(self, root: Path, scope: Scope) -> list[StoredRecord]:
        """Every valid record of the scope (recall's discovery and container rules)."""
        return self._scope_scan(root, scope)

    def followed_scope(self, root: Path, scope: Scope, make: Callable[[], F]) -> F | None:
        """The follower of the scope's records (made by ``make`` when the scope has none),
        brought up to date by a scan with recall's discovery and container rules; None when
        there is no scope directory to read (no records).

        The follower hears of every record the store's cache of the scope gains or loses,
        when it happens, whichever read caused it (see ``scan.Follower``).
        """
        base = os.path.abspath(root)
        with _Unavailable((str(scope),)):
            start_fd = self._open_scope(root, scope)
            if start_fd is None:
                return None
            with files.closing_fd(start_fd):
                return self._scanner.follow(base, start_fd, str(scope), make)

    def inspect_legacy_scan(self, root: Path, scope: Scope) -> list[StoredRecord]:
        """Every valid record of the scope, for a version 1 lookup (same rules as recall)."""
        return self._scope_scan(root, scope)

    def load_canonical(
        self,
        root: Path,
        scope: Scope,
        namespace_id: str,
        collection_id: str | None,
        memory_id: str,
    ) -> StoredRecord | None:
        """The valid version 2 record at exactly its canonical path, or None.

        A symlink at the scope directory or below raises :class:`SourceUnavailable`.
        """
        parts = canonical_relative_parts(scope, namespace_id, collection_id, memory_id)
        stored = self.load_file(root, parts)
        if stored is None or not isinstance(stored.record, CanonicalRecord):
            return None
        return stored

    def load_file(self, root: Path, parts: tuple[str, ...]) -> StoredRecord | None:
        """The valid record (either version) in the file at root-relative ``parts``, or None.

        None too when the file is missing or skipped. A symlink at the scope directory or
        below raises :class:`SourceUnavailable`.
        """
        parts = _checked(parts)
        base = os.path.abspath(root)
        with _Unavailable(parts[:-1]):
            dir_fd = _open_below(os.fspath(root), parts[:-1], follow=True, strict=False)
            if dir_fd is None:
                return None
            with files.closing_fd(dir_fd):
                return self._scanner.load(base, dir_fd, parts, fresh=False)

    def list_scan(
        self,
        root: Path,
        scope: Scope,
        namespace_id: str | None,
        collection_mode: CollectionMode,
        collection_id: str | None,
    ) -> list[StoredRecord]:
        """The valid records under the list selector's start directory.

        ``collection_mode`` is ``"all"`` (every collection, or the whole scope when no
        namespace is given), ``"none"`` (namespace level only) or ``"exact"``. The root must
        be a real directory, and a symlink on the way down raises :class:`SourceUnavailable`.
        """
        names, depth = _selection(scope, namespace_id, collection_mode, collection_id)
        base = os.path.abspath(root)
        with _Unavailable(names):
            start_fd = _open_below(os.fspath(root), names, follow=False, strict=True)
            if start_fd is None:
                return []
            with files.closing_fd(start_fd):
                return self._scanner.scan(base, start_fd, names, depth)

    def check_candidate_bound(self, root: Path, scope: Scope) -> None:
        """Raise :class:`CandidateLimitExceeded` if the scope holds too many candidates.

        Counts as discovery would (same depth, symlinks skipped) but reads and stats
        nothing; a missing or symlinked scope directory counts as empty.
        """
        if self.candidate_count(root, scope) > self.candidate_limit:
            raise CandidateLimitExceeded(limit=self.candidate_limit)

    def candidate_count(self, root: Path, scope: Scope) -> int:
        """The candidates of the scope as :meth:`check_candidate_bound` counts them.

        Counting stops past the bound: a scope over it answers the limit plus one.
        """
        with _Unavailable((str(scope),)):
            try:
                start_fd = _open_below(os.fspath(root), (str(scope),), follow=True, strict=True)
            except files.SymlinkRefused:
                return 0
            if start_fd is None:
                return 0
            with files.closing_fd(start_fd):
                try:
                    return self._scanner.count(start_fd, scan.SCOPE_DEPTH)
                except CandidateLimitExceeded:
                    return self.candidate_limit + 1

    def large_scopes(self, root: Path) -> list[Scope]:
        """The scopes whose first scan shares their files out among worker processes (they
        hold so many), counted from directory listings no further than that (a scope over
        the candidate limit is among them: its scan says so); nothing is read, and nothing
        at all is done when the limit or the machine allows no workers."""
        if not scan.may_share_out(self.candidate_limit):
            return []
        return [scope for scope in Scope if self._holds_at_least(root, scope, scan.BULK_FROM)]

    def _holds_at_least(self, root: Path, scope: Scope, files_: int) -> bool:
        with _Unavailable((str(scope),)):
            try:
                start_fd = _open_below(os.fspath(root), (str(scope),), follow=True, strict=True)
            except files.SymlinkRefused:
                return False
            if start_fd is None:
                return False
            with files.closing_fd(start_fd):
                return self._scanner.holds_at_least(start_fd, scan.SCOPE_DEPTH, files_)

    # --- the lock ------------------------------------------------------------------------

    @contextmanager
    def lock(self, root: Path, *, create: bool = True) -> Iterator[None]:
        """Hold the write lock of ``root``; reentrant.

        With ``create`` a missing root is created first and a symlinked root is refused
        (remember); without it a missing root raises :class:`NotFound`, so changing an
        absent record creates nothing, and a symlinked root is followed.
        """
        with self._locked(root, create=create):
            yield

    @contextmanager
    def _locked(self, root: Path, *, create: bool = True) -> Iterator[int]:
        """The lock, yielding the locked root's descriptor (its holder's, when reentered)."""
        with _unavailable:
            fd = _open_root_to_lock(os.path.abspath(root), create=create)
            try:
                status = os.fstat(fd)
            except BaseException:
                os.close(fd)
                raise
        held = _held.roots
        # The pid keeps a forked child from inheriting its parent's hold.
        key = (os.getpid(), status.st_dev, status.st_ino)
        if key in held:
            os.close(fd)
            yield held[key]
            return
        with files.closing_fd(fd):
            with _unavailable:
                fcntl.flock(fd, fcntl.LOCK_EX)
            held[key] = fd
            try:
                yield fd
            finally:
                del held[key]
                fcntl.flock(fd, fcntl.LOCK_UN)

    # --- writes --------------------------------------------------------------------------

    def create(self, root: Path, record: CanonicalRecord) -> StoredRecord:
        """Publish a new record file without ever replacing an existing one.

        The folders made on the way are removed again when the record could not be written.
        """
        return self._publish(root, scan.record_parts(record), record)

    def create_legacy(
        self, root: Path, parts: tuple[str, ...], record: LegacyRecord
    ) -> StoredRecord:
        """Publish a version 1 record at root-relative ``parts``, never replacing a file.

        The Tools never write version 1; ``mymcp import`` puts one back where it was.
        """
        return self._publish(root, parts, record)

    def _publish(self, root: Path, parts: tuple[str, ...], record: Record) -> StoredRecord:
        payload = encode_record(record)
        parts = _checked(parts)
        # The temporary file is named like a canonical record's, so that one an interrupted
        # write leaves behind is cleaned up like theirs.
        temp_id = record.id if isinstance(record, CanonicalRecord) else _temp_id()
        with self._locked(root) as root_fd, _Unavailable(parts[:-1]):
            with _undone_on_failure(root_fd, parts[:-1]):
                dir_fd = files.open_beneath(root_fd, parts[:-1], make=True)
                with files.closing_fd(dir_fd):
                    writes.publish(dir_fd, temp_id, parts[-1], payload)
                    stored = self._scanner.load(os.path.abspath(root), dir_fd, parts, fresh=True)
        if stored is None:
            raise MnemosyneError()
        return stored

    def replace(self, root: Path, current: StoredRecord, new: CanonicalRecord) -> StoredRecord:
        """Atomically replace ``current`` by ``new`` (revision must be current + 1).

        Raises :class:`Conflict` when the file changed since ``current`` was read.
        """
        if not isinstance(current.record, CanonicalRecord):
            raise NotFound()
        payload = encode_record(new)
        parts = _checked(current.parts)
        base = os.path.abspath(root)
        with self._locked(root, create=False) as root_fd, _Unavailable(parts[:-1]):
            dir_fd = _descend(root_fd, parts[:-1], strict=False)
            if dir_fd is None:
                raise NotFound()
            with files.closing_fd(dir_fd):
                on_disk = self._scanner.load(base, dir_fd, parts, fresh=True)
                if on_disk is None or not isinstance(on_disk.record, CanonicalRecord):
                    raise NotFound()
                writes.check_replacement(current.record, on_disk.record, new)
                writes.swap(dir_fd, new.id, parts[-1], payload, current.digest)
                stored = self._scanner.load(base, dir_fd, parts, fresh=True)
        if stored is None:
            raise NotFound()
        return stored

    def delete(self, root: Path, current: StoredRecord) -> None:
        """Remove the file of ``current`` if its bytes are still the ones that were read."""
        parts = _checked(current.parts)
        with self._locked(root, create=False) as root_fd, _Unavailable(parts[:-1]):
            dir_fd = _descend(root_fd, parts[:-1], strict=False)
            if dir_fd is None:
                raise Conflict("write_conflict")
            with files.closing_fd(dir_fd):
                writes.remove(dir_fd, parts[-1], current.digest)
            self._scanner.forget(os.path.abspath(root), parts)

    # --- internals -----------------------------------------------------------------------

    def _scope_scan(self, root: Path, scope: Scope) -> list[StoredRecord]:
        base = os.path.abspath(root)
        with _Unavailable((str(scope),)):
            start_fd = self._open_scope(root, scope)
            if start_fd is None:
                return []
            with files.closing_fd(start_fd):
                return self._scanner.scan(base, start_fd, (str(scope),), scan.SCOPE_DEPTH)

    @staticmethod
    def _open_scope(root: Path, scope: Scope) -> int | None:
        """The scope directory as recall reads it: a followed root, no symlinked scope
        directory (logged as skipped), None when there is none."""
        try:
            return _open_below(os.fspath(root), (str(scope),), follow=True, strict=True)
        except files.SymlinkRefused:
            scan.log_skip(scope, files.SYMLINK)
            return None


# --- opening the root and descending -------------------------------------------------------


class _Unavailable:
    """The one place where a filesystem failure becomes :class:`SourceUnavailable`.

    Used as ``with _Unavailable(directory):`` around everything that touches the
    filesystem, ``directory`` being the parts below the root the operation works in. The
    storage failure or uncertain outcome leaving the block carries its fault; one that
    already has a fault (from a nested block, nearer to the failure) keeps it.
    """

    __slots__ = ("directory",)

    def __init__(self, directory: tuple[str, ...]) -> None:
        self.directory = directory

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, trace: object
    ) -> None:
        if isinstance(exc, OSError):
            error = SourceUnavailable()
            error.fault = faults.fault_of(exc, self.directory)
            raise error from exc
        # The candidate bound is no filesystem failure: its code says all there is to say.
        if (
            isinstance(exc, StorageError | OutcomeUncertain)
            and not isinstance(exc, CandidateLimitExceeded)
            and exc.fault is None
        ):
            exc.fault = faults.fault_of(exc, self.directory)


# The block of an operation on the root itself (its creation, opening and lock).
_unavailable = _Unavailable(())


@contextmanager
def _undone_on_failure(root_fd: int, names: tuple[str, ...]) -> Iterator[None]:
    """Remove the folders of ``names`` that the block made if it fails (while empty)."""
    missing = files.missing_depth(root_fd, names)
    try:
        yield
    except BaseException:
        files.remove_empty_directories(root_fd, names, missing)
        raise


def _open_root(root: str, *, follow: bool) -> int | None:
    """The one way the root is opened: its descriptor, or None when there is no root.

    Followed, the root may be a symlink to a directory, and a path that leads to no
    directory means no root. Not followed, the root must itself be a real directory: a
    symlink or another file there raises ``OSError``.
    """
    try:
        return files.open_directory(root, follow=follow)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        if follow or files.lstat_at(None, root) is None:
            return None
        raise


def _open_root_to_lock(path: str, *, create: bool) -> int:
    """The root to lock; when creating, it is made first and must be a real directory."""
    if create:
        files.make_directory_chain(path)
    fd = _open_root(path, follow=not create)
    if fd is None:
        raise SourceUnavailable() if create else NotFound()
    return fd


def _open_below(root: str, names: tuple[str, ...], *, follow: bool, strict: bool) -> int | None:
    """The directory ``root/names...``, or None when it is missing (see the two above)."""
    root_fd = _open_root(root, follow=follow)
    if root_fd is None:
        return None
    try:
        return _descend(root_fd, names, strict=strict)
    finally:
        os.close(root_fd)


def _descend(fd: int, names: tuple[str, ...], *, strict: bool) -> int | None:
    """``fd/names...`` as a new descriptor; None when a component is missing.

    A symlinked component raises ``OSError``, and so does one that is not a directory when
    ``strict``; otherwise that counts as missing.
    """
    try:
        return files.open_beneath(fd, names)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        if strict:
            raise
        return None


def _selection(
    scope: Scope, namespace_id: str | None, mode: CollectionMode, collection_id: str | None
) -> tuple[tuple[str, ...], int]:
    """The start directory and depth of a list selector (depth 0 reports nothing too deep)."""
    if namespace_id is None:
        if mode != "all":
            raise ValueError("a collection selector needs a namespace")
        return _checked((str(scope),)), scan.SCOPE_DEPTH
    if mode != "exact":
        return _checked((str(scope), namespace_id)), 1 if mode == "all" else 0
    if collection_id is None:
        raise ValueError("an exact collection selector needs a collection id")
    return _checked((str(scope), namespace_id, collection_id)), 0


def _temp_id() -> str:
    return "mem_" + uuid.uuid4().hex


def _checked(parts: tuple[str, ...]) -> tuple[str, ...]:
    """Refuse anything but plain names (the edges validate; this keeps paths contained)."""
    for name in parts:
        if name in ("", ".", "..") or "/" in name or "\0" in name:
            raise ValueError("path parts must be single names")
    return parts


class _Held(threading.local):
    def __init__(self) -> None:
        # Roots this thread has locked: (pid, st_dev, st_ino) -> the locked descriptor.
        self.roots: dict[tuple[int, int, int], int] = {}


_held = _Held()
