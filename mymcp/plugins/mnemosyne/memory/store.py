"""The memory store: discovery, a validated read cache, the per-root lock and atomic writes.

Reads walk the tree on every call, but a file is only opened when its ``lstat`` identity
(device, inode, size, mtime, ctime) differs from the cached one, or when the cached read
was too close to the file's last change to trust coarse timestamps. The cache lives in
the process only; nothing is ever written by a read.

Writes (create, replace, delete) run under :meth:`MemoryStore.lock`, an exclusive
``flock`` on the memory root directory that serializes every writer of that root, in
this process and in others.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeAlias

from mymcp.plugins.mnemosyne.memory import files
from mymcp.plugins.mnemosyne.memory.errors import (
    Conflict,
    InvalidRequest,
    MnemosyneError,
    NotFound,
    OutcomeUncertain,
    SourceUnavailable,
)
from mymcp.plugins.mnemosyne.memory.records import (
    CanonicalRecord,
    Record,
    RecordInvalid,
    canonical_relative_parts,
    parse_record_bytes,
    serialize_canonical,
)
from mymcp.plugins.mnemosyne.memory.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.watch import ChangeFeed, shared_feed

__all__ = ["CollectionMode", "MemoryStore", "StoredRecord", "encode_record"]

logger = logging.getLogger("mymcp.memory.store")

CollectionMode = Literal["all", "none", "exact"]

PATH_MISMATCH = "path_mismatch"
SCOPE_DEPTH = 4
# A cached read is trusted by its stat identity only once the file's last change is this
# much older than the moment the read began (filesystem timestamps are coarse).
RACY_WINDOW_NS = 2_000_000_000
_MAX_CACHED_SCOPES = 64
_MAX_ENTRIES_PER_SCOPE = 4 * files.MAX_CANDIDATES


@dataclass(eq=False)
class StoredRecord:
    """A valid record together with where it lives and what its bytes hash to."""

    record: Record
    parts: tuple[str, ...]  # root-relative, e.g. ("project", "mnemosyne", "mem_….json")
    digest: str  # SHA-256 hex of the file bytes
    # Memo for consumers (e.g. token sets); dropped with the entry when the file changes.
    derived: dict[str, object] = field(default_factory=dict)

    @property
    def scope_path(self) -> str:
        """The path below the scope directory, POSIX style."""
        return "/".join(self.parts[1:])


# A record, or the reason its file was skipped.
Outcome: TypeAlias = StoredRecord | str


@dataclass
class _Entry:
    identity: files.Identity
    read_ns: int
    digest: str | None
    outcome: Outcome

    def trusted(self, identity: files.Identity | None) -> bool:
        if identity is None or identity != self.identity:
            return False
        last_change = max(identity[3], identity[4])
        return last_change < self.read_ns - RACY_WINDOW_NS


# Entries of one scope, keyed by root-relative path parts.
_ScopeCache = dict[tuple[str, ...], _Entry]


@dataclass(frozen=True)
class _Snapshot:
    """The result of one scan, replayed while nothing it depends on has changed.

    Without change notification it is replayed while a new walk finds the same paths with
    the same stat identities. With it (``since`` set), it is replayed without walking while
    no watched directory saw an event since the walk began and the path from the root to
    the start directory still leads to the same directories.
    """

    candidates: list[files.Candidate]
    found: tuple[StoredRecord, ...]
    skipped: tuple[str, ...]
    walk_skipped: tuple[str, ...] = ()  # warnings of the walk itself (symlink, too_deep)
    since: tuple[int, int] | None = None
    watches: tuple[int, ...] = ()
    chain: tuple[tuple[int, int, int], ...] = ()


# (absolute root, start directory parts, depth): one snapshot per kind of scan.
_SnapshotKey = tuple[str, tuple[str, ...], int]


def encode_record(record: CanonicalRecord, *, field: str = "memory") -> bytes:
    """The file bytes of ``record``, checked to parse back unchanged and to fit the limit.

    Raises :class:`InvalidRequest` (``invalid_record`` with the given field) otherwise.
    """
    try:
        payload = serialize_canonical(record)
        if len(payload) <= files.MAX_RECORD_BYTES and parse_record_bytes(payload) == record:
            return payload
    except RecordInvalid:
        pass
    raise InvalidRequest("invalid_record", field=field)


class MemoryStore:
    """Reads and writes memory records below a root; one instance per process.

    Thread-safe. Scans return valid records only, in discovery order, and log every
    skipped entry on ``mymcp.memory.store``.
    """

    def __init__(
        self, *, clock: Callable[[], int] = time.time_ns, watch_changes: bool = True
    ) -> None:
        self._clock = clock
        self._mutex = threading.Lock()
        self._scopes: dict[str, _ScopeCache] = {}
        self._snapshots: dict[_SnapshotKey, _Snapshot] = {}
        self._listings = files.Listings(clock)
        self._feed = shared_feed() if watch_changes else ChangeFeed(enabled=False)

    # --- reads ---------------------------------------------------------------------------

    def recall_scan(self, root: Path, scope: Scope) -> list[StoredRecord]:
        """Every valid record of the scope (recall's discovery and container rules)."""
        return self._scope_scan(root, scope)

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
        parts = _checked(canonical_relative_parts(scope, namespace_id, collection_id, memory_id))
        try:
            root_fd = files.open_directory(root, follow=True)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise SourceUnavailable() from exc
        with files.closing_fd(root_fd):
            stored = self._load_exact(root_fd, root, parts, fresh=False)
        if stored is None or not isinstance(stored.record, CanonicalRecord):
            return None
        return stored

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
        namespace is given), ``"none"`` (namespace level only) or ``"exact"``.
        """
        names = [str(scope)]
        if namespace_id is not None:
            names.append(namespace_id)
        elif collection_mode != "all":
            raise ValueError("a collection selector needs a namespace")
        if collection_mode == "exact":
            if collection_id is None:
                raise ValueError("an exact collection selector needs a collection id")
            names.append(collection_id)
        start_fd = self._open_list_start(root, list(_checked(tuple(names))))
        if start_fd is None:
            return []
        if namespace_id is None:
            depth, report = SCOPE_DEPTH, True
        elif collection_mode == "all":
            depth, report = 1, True
        else:
            depth, report = 0, False
        with files.closing_fd(start_fd):
            return self._scan(root, scope, start_fd, tuple(names), depth, report)

    def check_candidate_bound(self, root: Path, scope: Scope) -> None:
        """Raise :class:`CandidateLimitExceeded` if the scope holds too many candidates.

        Counts as discovery would (same depth, symlinks skipped) but reads and stats
        nothing; a missing or symlinked scope directory counts as empty.
        """
        scope_dir = os.path.join(root, scope)
        try:
            status = files.lstat_or_none(scope_dir)
            if status is None or stat.S_ISLNK(status.st_mode):
                return
            _require_directory(status)
            start_fd = files.open_directory(scope_dir)
        except OSError as exc:
            raise SourceUnavailable() from exc
        with files.closing_fd(start_fd):
            files.count_candidates(start_fd, SCOPE_DEPTH)

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
        path = os.path.abspath(root)
        if create:
            files.make_directory_chain(path)
        try:
            # Changing an existing record works through a symlinked root, as reads do;
            # creating (remember) refuses one.
            fd = files.open_directory(path, follow=not create)
            status = os.fstat(fd)
        except FileNotFoundError as exc:
            if create:
                raise SourceUnavailable() from exc
            raise NotFound() from exc
        except OSError as exc:
            raise SourceUnavailable() from exc
        held = _held_roots()
        # The pid keeps a forked child from inheriting its parent's hold.
        key = (os.getpid(), status.st_dev, status.st_ino)
        if key in held:
            os.close(fd)
            yield held[key]
            return
        with files.closing_fd(fd):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError as exc:
                raise SourceUnavailable() from exc
            held[key] = fd
            try:
                yield fd
            finally:
                del held[key]
                fcntl.flock(fd, fcntl.LOCK_UN)

    # --- writes --------------------------------------------------------------------------

    def create(self, root: Path, record: CanonicalRecord) -> StoredRecord:
        """Publish a new record file without ever replacing an existing one."""
        payload = encode_record(record)
        parts = _checked(_canonical_parts(record))
        with self._locked(root) as root_fd:
            with files.closing_fd(files.open_beneath(root_fd, parts[:-1], make=True)) as dir_fd:
                files.remove_leftover_temps(dir_fd)
                _publish(dir_fd, record.id, parts[-1], payload)
            stored = self._load_exact(root_fd, root, parts, fresh=True)
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
        with self._locked(root, create=False) as root_fd:
            on_disk = self._load_exact(root_fd, root, parts, fresh=True)
            if on_disk is None or not isinstance(on_disk.record, CanonicalRecord):
                raise NotFound()
            _check_replacement(current.record, on_disk.record, new)
            dir_fd = _open_parent(root_fd, parts)
            if dir_fd is None:
                raise NotFound()
            with files.closing_fd(dir_fd):
                files.remove_leftover_temps(dir_fd)
                _swap(dir_fd, new.id, parts[-1], payload, current.digest)
            stored = self._load_exact(root_fd, root, parts, fresh=True)
        if stored is None:
            raise NotFound()
        return stored

    def delete(self, root: Path, current: StoredRecord) -> None:
        """Remove the file of ``current`` if its bytes are still the ones that were read."""
        parts = _checked(current.parts)
        with self._locked(root, create=False) as root_fd:
            dir_fd = _open_parent(root_fd, parts)
            if dir_fd is None:
                raise Conflict("write_conflict")
            with files.closing_fd(dir_fd):
                files.remove_leftover_temps(dir_fd)
                _remove(dir_fd, parts[-1], current.digest)
            self._drop(root, parts)

    # --- scanning internals --------------------------------------------------------------

    def _scope_scan(self, root: Path, scope: Scope) -> list[StoredRecord]:
        scope_dir = os.path.join(root, scope)
        try:
            status = files.lstat_or_none(scope_dir)
        except OSError as exc:
            raise SourceUnavailable() from exc
        if status is None:
            return []
        if stat.S_ISLNK(status.st_mode):
            _log_skip(scope, files.SYMLINK)
            return []
        if not stat.S_ISDIR(status.st_mode):
            raise SourceUnavailable()
        try:
            start_fd = files.open_directory(scope_dir)
        except OSError as exc:
            raise SourceUnavailable() from exc
        with files.closing_fd(start_fd):
            return self._scan(root, scope, start_fd, (str(scope),), SCOPE_DEPTH, True)

    def _open_list_start(self, root: Path, names: list[str]) -> int | None:
        try:
            status = files.lstat_or_none(root)
            if status is None:
                return None
            _require_directory(status)
            fd = files.open_directory(root)
        except OSError as exc:
            raise SourceUnavailable() from exc
        return _descend(fd, tuple(names), strict=True)

    def _scan(
        self,
        root: Path,
        scope: Scope,
        start_fd: int,
        start_parts: tuple[str, ...],
        max_depth: int,
        report_too_deep: bool,
    ) -> list[StoredRecord]:
        base = os.path.abspath(root)
        snapshot_key = (base, start_parts, max_depth)
        chain = _chain(base, start_parts)
        replay = self._unchanged_snapshot(snapshot_key, chain)
        if replay is not None:
            return _replayed(scope, replay, walked=False)
        since = self._feed.mark() if chain else None
        walk = _Walk(scope, self._feed if since is not None else None)
        candidates = files.walk(
            start_fd,
            max_depth,
            report_too_deep=report_too_deep,
            on_skip=walk.skip,
            listings=self._listings,
            racy_window_ns=RACY_WINDOW_NS,
            on_directory=walk.directory if since is not None else None,
        )
        snapshot = self._snapshot(snapshot_key, candidates)
        if snapshot is not None and since is None:
            return _replayed(scope, snapshot, walked=True)
        cache = self._scope_cache(base, str(scope))
        found, skipped, settled = self._load_all(cache, scope, start_fd, start_parts, candidates)
        kept = _Snapshot(candidates, tuple(found), tuple(skipped), tuple(walk.skipped))
        # A file with a second hard link can be written through a directory nobody watches.
        if since is not None and walk.all_watched and not _shares_inodes(candidates):
            kept = dataclasses.replace(kept, since=since, watches=walk.watches, chain=chain)
            self._keep_snapshot(snapshot_key, kept)
        elif settled:
            self._keep_snapshot(snapshot_key, kept)
        if max_depth == SCOPE_DEPTH and len(start_parts) == 1:
            self._retain(cache, {start_parts + candidate.parts for candidate in candidates})
        return found

    def _load_all(
        self,
        cache: _ScopeCache,
        scope: Scope,
        start_fd: int,
        start_parts: tuple[str, ...],
        candidates: list[files.Candidate],
    ) -> tuple[list[StoredRecord], list[str], bool]:
        """Every candidate's outcome (cached when trusted); whether all of them were trusted."""
        found: list[StoredRecord] = []
        skipped: list[str] = []
        settled = True
        for candidate in candidates:
            parts = start_parts + candidate.parts
            outcome = _trusted_outcome(cache, candidate, parts)
            if outcome is None:
                settled = False
                outcome = self._load(cache, start_fd, candidate, parts, fresh=True)
            if isinstance(outcome, StoredRecord):
                found.append(outcome)
            else:
                skipped.append(outcome)
                _log_skip(scope, outcome)
        return found, skipped, settled

    def _unchanged_snapshot(
        self, key: _SnapshotKey, chain: tuple[tuple[int, int, int], ...]
    ) -> _Snapshot | None:
        """The last snapshot of ``key`` if change notification vouches for it."""
        with self._mutex:
            snapshot = self._snapshots.get(key)
        if snapshot is None or snapshot.since is None or not chain or snapshot.chain != chain:
            return None
        if not self._feed.unchanged(snapshot.watches, snapshot.since):
            return None
        return snapshot

    def _load_exact(
        self, root_fd: int, root: Path, parts: tuple[str, ...], *, fresh: bool
    ) -> StoredRecord | None:
        """Load one file by root-relative parts; symlinks from the scope down are refused."""
        dir_fd = _open_parent(root_fd, parts)
        if dir_fd is None:
            return None
        with files.closing_fd(dir_fd):
            try:
                status = os.stat(parts[-1], dir_fd=dir_fd, follow_symlinks=False)
            except (FileNotFoundError, NotADirectoryError):
                return None
            except OSError:
                _log_skip(parts[0], files.UNREADABLE)
                return None
            if stat.S_ISLNK(status.st_mode):
                raise SourceUnavailable()
            if not stat.S_ISREG(status.st_mode):
                return None
            candidate = files.Candidate((parts[-1],), files.identity_of(status))
            base = os.path.abspath(root)
            cache = self._scope_cache(base, parts[0])
            outcome = self._load(cache, dir_fd, candidate, parts, fresh=fresh)
        if isinstance(outcome, str):
            _log_skip(parts[0], outcome)
            return None
        return outcome

    def _load(
        self,
        cache: _ScopeCache,
        dir_fd: int,
        candidate: files.Candidate,
        parts: tuple[str, ...],
        *,
        fresh: bool,
    ) -> Outcome:
        if not fresh:
            cached = _trusted_outcome(cache, candidate, parts)
            if cached is not None:
                return cached
        entry = cache.get(parts)
        read_ns = self._clock()
        try:
            content = files.read_candidate(dir_fd, candidate.parts)
        except files.EntrySkipped as skipped:
            # Only skips tied to the file's identity (its size) can be reused.
            kept = None
            if skipped.identity is not None:
                kept = _Entry(skipped.identity, read_ns, None, skipped.reason)
            self._store(cache, parts, kept)
            return skipped.reason
        digest = hashlib.sha256(content.data).hexdigest()
        if entry is not None and entry.digest == digest:
            outcome = entry.outcome
        else:
            outcome = _parse(content.data, parts, digest)
        self._store(cache, parts, _Entry(content.identity, read_ns, digest, outcome))
        return outcome

    # --- cache bookkeeping ---------------------------------------------------------------

    def _scope_cache(self, base: str, scope: str) -> _ScopeCache:
        key = os.path.join(base, scope)
        with self._mutex:
            cache = self._scopes.pop(key, None)
            if cache is None:
                cache = {}
            self._scopes[key] = cache
            while len(self._scopes) > _MAX_CACHED_SCOPES:
                del self._scopes[next(iter(self._scopes))]
            return cache

    def _snapshot(self, key: _SnapshotKey, candidates: list[files.Candidate]) -> _Snapshot | None:
        """The snapshot of an identical earlier walk (same paths, same stat identities)."""
        with self._mutex:
            snapshot = self._snapshots.get(key)
        if snapshot is not None and snapshot.candidates == candidates:
            return snapshot
        return None

    def _keep_snapshot(self, key: _SnapshotKey, snapshot: _Snapshot) -> None:
        with self._mutex:
            self._snapshots.pop(key, None)
            self._snapshots[key] = snapshot
            while len(self._snapshots) > _MAX_CACHED_SCOPES:
                del self._snapshots[next(iter(self._snapshots))]

    def _store(self, cache: _ScopeCache, key: tuple[str, ...], entry: _Entry | None) -> None:
        with self._mutex:
            if entry is None:
                cache.pop(key, None)
                return
            if key not in cache and len(cache) >= _MAX_ENTRIES_PER_SCOPE:
                cache.clear()
            cache[key] = entry

    def _retain(self, cache: _ScopeCache, keys: set[tuple[str, ...]]) -> None:
        """After a whole-scope walk, forget the files that walk no longer found."""
        with self._mutex:
            for key in [key for key in cache if key not in keys]:
                del cache[key]

    def _drop(self, root: Path, parts: tuple[str, ...]) -> None:
        base = os.path.abspath(root)
        self._store(self._scope_cache(base, parts[0]), parts, None)


# --- helpers -----------------------------------------------------------------------------

_held = threading.local()


def _held_roots() -> dict[tuple[int, int, int], int]:
    """Roots this thread has locked: (pid, st_dev, st_ino) -> the locked descriptor."""
    roots: dict[tuple[int, int, int], int] | None = getattr(_held, "roots", None)
    if roots is None:
        roots = {}
        _held.roots = roots
    return roots


class _Walk:
    """What one walk reports besides its candidates: warnings and directory watches."""

    def __init__(self, scope: Scope, feed: ChangeFeed | None) -> None:
        self._scope = scope
        self._feed = feed
        self.skipped: list[str] = []
        self._watches: list[int | None] = []

    def skip(self, reason: str) -> None:
        self.skipped.append(reason)
        _log_skip(self._scope, reason)

    def directory(self, fd: int) -> None:
        if self._feed is not None:
            self._watches.append(self._feed.watch(fd))

    @property
    def all_watched(self) -> bool:
        return self._feed is not None and None not in self._watches

    @property
    def watches(self) -> tuple[int, ...]:
        return tuple(wd for wd in self._watches if wd is not None)


def _replayed(scope: Scope, snapshot: _Snapshot, *, walked: bool) -> list[StoredRecord]:
    """The snapshot's records, logging the warnings this scan would have logged."""
    reasons = snapshot.skipped if walked else snapshot.walk_skipped + snapshot.skipped
    for reason in reasons:
        _log_skip(scope, reason)
    return list(snapshot.found)


def _chain(base: str, start_parts: tuple[str, ...]) -> tuple[tuple[int, int, int], ...]:
    """(device, inode, mode) of the root and each directory down to the start, by lstat.

    Empty when any of them is not a plain directory (a symlinked root included), which
    keeps such scans on the full walk.
    """
    chain = []
    path = base
    for name in ("", *start_parts):
        path = os.path.join(path, name) if name else path
        try:
            status = os.lstat(path)
        except OSError:
            return ()
        if not stat.S_ISDIR(status.st_mode):
            return ()
        chain.append((status.st_dev, status.st_ino, status.st_mode))
    return tuple(chain)


def _shares_inodes(candidates: list[files.Candidate]) -> bool:
    links = files.LINKS
    return any(c.identity is not None and c.identity[links] > 1 for c in candidates)


def _trusted_outcome(
    cache: _ScopeCache, candidate: files.Candidate, parts: tuple[str, ...]
) -> Outcome | None:
    """The cached outcome for ``parts`` if its entry is trusted for the walk's identity."""
    entry = cache.get(parts)
    if entry is not None and entry.trusted(candidate.identity):
        return entry.outcome
    return None


def _log_skip(scope: str, reason: str) -> None:
    logger.warning("skipped scope=%r reason=%r", str(scope), reason)


def _checked(parts: tuple[str, ...]) -> tuple[str, ...]:
    """Refuse anything but plain names (the edges validate; this keeps paths contained)."""
    for name in parts:
        if name in ("", ".", "..") or "/" in name or "\0" in name:
            raise ValueError("path parts must be single names")
    return parts


def _canonical_parts(record: CanonicalRecord) -> tuple[str, ...]:
    collection_id = None if record.collection is None else record.collection.id
    return canonical_relative_parts(record.scope, record.namespace.id, collection_id, record.id)


def _parse(data: bytes, parts: tuple[str, ...], digest: str) -> Outcome:
    try:
        record = parse_record_bytes(data)
    except RecordInvalid as invalid:
        return invalid.reason
    if isinstance(record, CanonicalRecord) and _canonical_parts(record) != parts:
        return PATH_MISMATCH
    return StoredRecord(record, parts, digest)


def _require_directory(status: os.stat_result) -> None:
    if not stat.S_ISDIR(status.st_mode):  # symlinks included: lstat never follows
        raise SourceUnavailable()


def _descend(fd: int, names: tuple[str, ...], *, strict: bool) -> int | None:
    """Open ``fd/names...`` (taking ownership of ``fd``); None when a component is missing.

    A symlinked component raises :class:`SourceUnavailable`; a component that is not a
    directory does too when ``strict``, and otherwise counts as missing.
    """
    try:
        for name in names:
            child = _open_component(fd, name, strict=strict)
            os.close(fd)
            if child is None:
                return None
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_component(fd: int, name: str, *, strict: bool) -> int | None:
    try:
        status = _lstat_at(fd, name)
        if status is None:
            return None
        if stat.S_ISLNK(status.st_mode) or (strict and not stat.S_ISDIR(status.st_mode)):
            raise SourceUnavailable()
        if not stat.S_ISDIR(status.st_mode):
            return None
        return files.open_subdirectory(fd, name)
    except OSError as exc:
        raise SourceUnavailable() from exc


def _lstat_at(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _open_parent(root_fd: int, parts: tuple[str, ...]) -> int | None:
    return _descend(os.dup(root_fd), parts[:-1], strict=False)


def _immutable(record: CanonicalRecord) -> tuple[object, ...]:
    return (
        record.id,
        record.scope,
        record.namespace.kind,
        record.namespace.id,
        None if record.collection is None else record.collection.id,
        record.kind,
        record.language,
        record.origin,
        record.recorded_via,
        record.created_at,
        record.occurred_at,
    )


def _check_replacement(
    expected: CanonicalRecord, on_disk: CanonicalRecord, new: CanonicalRecord
) -> None:
    if on_disk.revision != expected.revision or new.revision != expected.revision + 1:
        raise Conflict("revision_conflict")
    if _immutable(on_disk) != _immutable(new):
        raise Conflict("write_conflict")


def _publish(dir_fd: int, memory_id: str, name: str, payload: bytes) -> None:
    temp = _write_temp(dir_fd, memory_id, payload)
    try:
        try:
            files.link_no_clobber(dir_fd, temp, name)
        except FileExistsError as exc:
            raise Conflict("write_conflict") from exc
        except OSError as exc:
            raise SourceUnavailable() from exc
        try:
            files.sync_directory(dir_fd)
        except OSError as exc:
            # The record is already visible; remember has no "uncertain" outcome.
            raise SourceUnavailable() from exc
    finally:
        files.remove_quietly(dir_fd, temp)


def _swap(dir_fd: int, memory_id: str, name: str, payload: bytes, digest: str) -> None:
    temp = _write_temp(dir_fd, memory_id, payload)
    try:
        try:
            on_disk = files.read_file_at(dir_fd, name)
        except files.EntrySkipped as exc:
            raise SourceUnavailable() from exc
        if hashlib.sha256(on_disk.data).hexdigest() != digest:
            raise Conflict("write_conflict")
        try:
            files.rename_over(dir_fd, temp, name)
        except OSError as exc:
            raise SourceUnavailable() from exc
        try:
            files.sync_directory(dir_fd)
        except OSError as exc:
            raise OutcomeUncertain("replacement_outcome_uncertain") from exc
    finally:
        files.remove_quietly(dir_fd, temp)


def _remove(dir_fd: int, name: str, digest: str) -> None:
    status = _lstat_at(dir_fd, name)
    if status is not None and stat.S_ISLNK(status.st_mode):
        raise SourceUnavailable()
    try:
        on_disk = files.read_file_at(dir_fd, name)
    except files.EntrySkipped as exc:
        raise Conflict("write_conflict") from exc
    if hashlib.sha256(on_disk.data).hexdigest() != digest:
        raise Conflict("write_conflict")
    try:
        files.unlink(dir_fd, name)
    except FileNotFoundError as exc:
        raise Conflict("write_conflict") from exc
    except OSError as exc:
        raise SourceUnavailable() from exc
    try:
        files.sync_directory(dir_fd)
    except OSError as exc:
        raise OutcomeUncertain("deletion_outcome_uncertain") from exc


def _write_temp(dir_fd: int, memory_id: str, payload: bytes) -> str:
    try:
        return files.write_temp(dir_fd, memory_id, payload)
    except OSError as exc:
        raise SourceUnavailable() from exc
