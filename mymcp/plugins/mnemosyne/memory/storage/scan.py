"""The scanner: the valid records below a directory, reading as few files as possible.

A scan walks its start directory (depth first, names in code point order), takes the
``lstat`` identity of every record file it finds, and reads, hashes and parses only the
files whose identity differs from the cached read, or whose cached read began too soon
after the file's last change for coarse timestamps to tell a later write apart. Nothing
is ever written.

What it keeps of a valid file is a :class:`StoredRecord`: where the file lives, what its
bytes hash to and the few facts that a listing and the duplicate rule look at. The whole
record (its content above all) is kept only in a bounded cache of recently read records;
when that no longer holds it, ``StoredRecord.record`` reads the file again. So a scope of
a hundred thousand memories costs a few hundred bytes each, not their text.

Caches, all in process memory, make repeated scans cheap. Each has a bound, written below
next to it, and each lets go of what it describes once that is superseded:

- the *read cache* of a scope (a root and one scope directory): the outcome of each file,
  a :class:`StoredRecord` or a skip reason. A changed file gets a new outcome; a file the
  walk of its directory no longer finds is forgotten by that walk. A scope may have one
  *follower* (recall's search index) that is told of every record the cache gains and
  loses, at the moment its file is parsed, so it never has to read the file itself.
- the *snapshots* of a scope: per kind of scan (start directory and depth), the walk's
  results. A scan whose walk finds the same candidates with the same identities replays
  its snapshot. With change notification (``memory/storage/watch.py``) it does not even walk while
  no watched directory has reported an event and the path from the root down still leads
  to the same directories. A snapshot goes when its scan runs again or when a file it
  covers gets a new outcome.
- *directory listings*, by device and inode, reused while the directory is unchanged.
- the *whole records* last read, by count and by bytes.

Failures of the filesystem propagate as ``OSError`` for the store to map; the walk also
raises :class:`CandidateLimitExceeded`.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import logging
import os
import stat
import struct
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from contextlib import AbstractContextManager
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from typing import Any, Final, NamedTuple, Protocol, TypeAlias, TypeVar, cast

from mymcp.plugins.mnemosyne.memory.model import faults
from mymcp.plugins.mnemosyne.memory.model.errors import CandidateLimitExceeded, RecordChanged
from mymcp.plugins.mnemosyne.memory.model.records import (
    RECORD_SUFFIX,
    CanonicalRecord,
    Record,
    RecordInvalid,
    canonical_relative_parts,
    duplicate_hash,
    parse_record_bytes,
)
from mymcp.plugins.mnemosyne.memory.model.vocabulary import LifecycleState, MemoryKind, Scope
from mymcp.plugins.mnemosyne.memory.storage import discovery, files
from mymcp.plugins.mnemosyne.memory.storage.watch import ChangeFeed
from mymcp.plugins.mnemosyne.memory.storage.workers import Workers, usable_cpus

__all__ = [
    "BULK_FROM",
    "PATH_MISMATCH",
    "Facts",
    "FailedRead",
    "Follower",
    "RACY_WINDOW_NS",
    "SCOPE_DEPTH",
    "Scanner",
    "StoredRecord",
    "facts_of",
    "log_skip",
    "may_share_out",
    "record_parts",
]

# Skipped files are logged under the store's name, the logger the contract names.
logger = logging.getLogger("mymcp.memory.store")

SCOPE_DEPTH = 4  # directory levels below the scope directory that a scope-wide scan enters
PATH_MISMATCH = "path_mismatch"  # skip reason of a version 2 record off its canonical path
# A cached read is trusted by its stat identity only once the file's last change is this
# much older than the moment the read began (filesystem timestamps are coarse).
RACY_WINDOW_NS = 2_000_000_000

# --- the bounds of the caches ------------------------------------------------------------
# Those that count files are written for the default candidate limit (MAX_CANDIDATES) and
# grow in proportion with the limit a scanner is given (see _scaled).
# Scopes with a read cache and snapshots: the six scopes of four memory roots.
MAX_SCOPES = 4 * len(Scope)
# Read outcomes of one scope. A scan finds at most the limit's number of files; the
# selections of a scope too large to scan as a whole may together hold more.
MAX_ENTRIES_PER_SCOPE = 4 * files.MAX_CANDIDATES
# Snapshots of one scope, each of at most the limit's number of files.
MAX_SNAPSHOTS_PER_SCOPE = 16
# Directory listings kept, and the names in all of them together.
MAX_LISTINGS = 4 * files.MAX_CANDIDATES
MAX_LISTED_NAMES = 16 * files.MAX_CANDIDATES
# Whole records kept, and the bytes of their files together (whatever the limit): every
# record of a few default-sized scopes, so that below a thousand memories a record is
# read once, as before.
MAX_WHOLE_RECORDS = 4096
MAX_WHOLE_RECORD_BYTES = 32 * 2**20


# Records read by one scan after which what the process holds is frozen (``gc.freeze``).
FREEZE_EVERY = 4096


def _settle_after(read: int) -> None:
    """Every FREEZE_EVERY files a scan reads, freeze what the process holds.

    What a large scan keeps lives as long as the cache: out of the cyclic collector's way,
    a full collection does not walk it again and again while the scan grows (at 100,000
    records that was a third of the scan's time).
    """
    if read % FREEZE_EVERY == 0:
        gc.freeze()


def _scaled(bound: int, limit: int) -> int:
    """A bound written for the default candidate limit, for a scanner of ``limit``."""
    return bound * limit // files.MAX_CANDIDATES


# A file's stat identity, packed: (st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns,
# st_nlink) in 48 bytes instead of a tuple of six integers.
_IDENTITY = struct.Struct("<QQqqqQ")
_IDENTITY_LINKS = struct.Struct("<Q")  # its last field


def _packed(identity: files.Identity) -> bytes:
    return _IDENTITY.pack(*identity)


class _Origin:
    """Where the records of one root come from again: the root and its scanner."""

    __slots__ = ("_scanner", "base")

    def __init__(self, scanner: Scanner, base: str) -> None:
        self._scanner = scanner
        self.base = base

    def whole(self, stored: StoredRecord) -> Record:
        return self._scanner.whole(self.base, stored)


class StoredRecord:
    """A valid record file: where it lives, what its bytes hash to, and its record.

    The facts a listing and the duplicate rule need are kept here (``title``, ``kind``,
    ``state``, a legacy record's ``legacy_id``, the hash of a canonical record's
    duplicate identity); :attr:`record`, the whole record, comes from the scanner's bounded
    cache or, when that has let it go, from the file again. One object stands for one
    version of one file: the scanner hands out the same object while the file is unchanged.
    """

    __slots__ = (
        "__weakref__",
        "_derived",
        "_digest",
        "_origin",
        "_pinned",
        "duplicate",
        "index_number",
        "kind",
        "legacy_id",
        "parts",
        "state",
        "title",
    )

    def __init__(
        self,
        record: Record,
        parts: tuple[str, ...],
        digest: bytes,
        origin: _Origin | None = None,
    ) -> None:
        self._fill(facts_of(record), parts, digest, origin)
        # Without an origin to read it from again, the record is kept here.
        self._pinned = record if origin is None else None

    @classmethod
    def of(
        cls,
        facts: FactFields,
        parts: tuple[str, ...],
        digest: bytes,
        origin: _Origin | None,
        record: Record | None = None,
    ) -> StoredRecord:
        """A record known by its facts (read by a worker process), with the whole record
        that ``origin`` reads again, or that it keeps when there is no origin."""
        stored = cls.__new__(cls)
        stored._fill(facts, parts, digest, origin)
        stored._pinned = record if origin is None else None
        return stored

    def _fill(
        self, facts: FactFields, parts: tuple[str, ...], digest: bytes, origin: _Origin | None
    ) -> None:
        title, kind, state, legacy_id, duplicate = facts  # a Facts, or its fields
        self.parts = parts  # root-relative, e.g. ("project", "mnemosyne", "mem_….json")
        self._digest = digest  # SHA-256 of the file bytes
        self.title = title
        self.kind = None if kind is None else _KINDS[kind]
        self.state = None if state is None else _STATES[state]
        self.legacy_id = legacy_id
        self.duplicate = duplicate
        # The number a search index gave this record (recall's index; -1: none).
        self.index_number = -1
        self._derived: dict[str, object] | None = None
        self._origin = origin

    @property
    def record(self) -> Record:
        """The whole record; may read the file again (raises the store's storage errors)."""
        if self._pinned is not None:
            return self._pinned
        assert self._origin is not None
        return self._origin.whole(self)

    @property
    def digest(self) -> str:
        """SHA-256 hex of the file bytes."""
        return self._digest.hex()

    @property
    def is_canonical(self) -> bool:
        return self.legacy_id is None

    @property
    def id(self) -> str:
        """The memory ID (for a canonical record, its file's name less ``.json``)."""
        if self.legacy_id is not None:
            return self.legacy_id
        return self.parts[-1][: -len(RECORD_SUFFIX)]

    @property
    def scope_path(self) -> str:
        """The path below the scope directory, POSIX style."""
        return "/".join(self.parts[1:])

    @property
    def namespace_id(self) -> str | None:
        """A canonical record's namespace (its first folder below the scope)."""
        return None if self.legacy_id is not None else self.parts[1]

    @property
    def collection_id(self) -> str | None:
        """A canonical record's collection (its second folder below the scope), if any."""
        return self.parts[2] if self.legacy_id is None and len(self.parts) == 4 else None

    @property
    def derived(self) -> dict[str, object]:
        """Memo for consumers, one value per consumer's key; it goes with this object."""
        if self._derived is None:
            self._derived = {}
        return self._derived


# Facts' fields as a plain tuple (as they travel from worker processes).
FactFields: TypeAlias = tuple[str | None, str | None, str | None, str | None, int | None]


class Facts(NamedTuple):
    """What a :class:`StoredRecord` keeps of its record, in plain values (they travel from
    worker processes): the title, a canonical record's kind and state (their values), its
    duplicate hash, or a legacy record's ID."""

    title: str | None
    kind: str | None
    state: str | None
    legacy_id: str | None
    duplicate: int | None


_KINDS: dict[str, MemoryKind] = {kind.value: kind for kind in MemoryKind}
_STATES: dict[str, LifecycleState] = {state.value: state for state in LifecycleState}


def facts_of(record: Record) -> Facts:
    if isinstance(record, CanonicalRecord):
        kind, state = record.kind.value, record.state.value
        return Facts(record.title, kind, state, None, duplicate_hash(record))
    return Facts(record.title, None, None, record.id, None)


class Follower(Protocol):
    """What follows the records of one scope (recall's search index).

    Called under the scanner's lock: ``added`` when the read cache gains a record, with
    the whole record just parsed; ``removed`` when it loses one (a record it was never
    told of may come: ignore it); ``cleared`` when it forgets everything at once.

    Records read by worker processes come in runs: ``part_maker`` gives what the workers
    call (it must pickle) on the records of a run, each with its whole record, and
    ``added_part`` takes what that made, with the records here that the ones given stand
    for, item for item.
    """

    def added(self, stored: StoredRecord, record: Record) -> None: ...

    def part_maker(self) -> Callable[[Sequence[tuple[StoredRecord, Record]]], Any]: ...

    def added_part(self, stored: Sequence[StoredRecord], part: Any) -> None: ...

    def removed(self, stored: StoredRecord) -> None: ...

    def cleared(self) -> None: ...


_F = TypeVar("_F", bound=Follower)


@dataclass(frozen=True, slots=True)
class FailedRead:
    """A file skipped as ``unreadable`` because the filesystem failed to give its bytes."""

    fault: faults.Fault


# Why a file was skipped: the reason, or a failed read (logged with its fault).
Skip: TypeAlias = str | FailedRead
# A record, or why its file was skipped.
Outcome: TypeAlias = StoredRecord | Skip


def record_parts(record: CanonicalRecord) -> tuple[str, ...]:
    """The root-relative path parts where a version 2 record belongs."""
    collection_id = record.collection_id
    return canonical_relative_parts(record.scope, record.namespace.id, collection_id, record.id)


def log_skip(scope: str, skip: Skip) -> None:
    """The warning of one skipped entry; a failed read adds its cause, errno and directory."""
    if isinstance(skip, FailedRead):
        shown = "".join(f" {key}={value!r}" for key, value in skip.fault.log_fields().items())
        logger.warning("skipped scope=%r reason=%r%s", str(scope), files.UNREADABLE, shown)
    else:
        logger.warning("skipped scope=%r reason=%r", str(scope), skip)


# --- the read cache and the snapshots of one scope ---------------------------------------


class _Entry:
    """The cached read of one file: its packed identity, whether that identity can be
    trusted (the read began the racy window after the file's last change), its digest and
    its outcome."""

    __slots__ = ("digest", "identity", "outcome", "settled")

    def __init__(self, identity: bytes, settled: bool, digest: bytes | None, outcome: Outcome):
        self.identity = identity
        self.settled = settled
        self.digest = digest
        self.outcome = outcome

    def trusted(self, identity: files.Identity | None) -> bool:
        return self.settled and identity is not None and _packed(identity) == self.identity


def _entry(
    identity: files.Identity, read_ns: int, digest: bytes | None, outcome: Outcome
) -> _Entry:
    return _Entry(_packed(identity), _settled(identity, read_ns), digest, outcome)


def _settled(identity: files.Identity, read_ns: int) -> bool:
    """Whether a read that began at ``read_ns`` began the racy window after the file's last
    change (so a later change gives it another identity)."""
    return max(identity[3], identity[4]) < read_ns - RACY_WINDOW_NS


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """The result of one scan, replayed while nothing it depends on has changed."""

    # The walk's candidates, kept only when change notification cannot vouch for the
    # snapshot (then the next walk is compared with them).
    candidates: list[discovery.Candidate] | None
    found: tuple[StoredRecord, ...]
    skipped: tuple[Skip, ...]
    walk_skipped: tuple[str, ...] = ()  # warnings of the walk itself (symlink, too_deep)
    since: tuple[int, int] | None = None  # the change feed's mark taken before the walk
    watches: tuple[int, ...] = ()
    chain: tuple[tuple[int, int, int], ...] = ()
    # What each directory held, by its parts below the start, when change notification
    # vouches for the snapshot: a later scan reuses the directories whose watch stayed quiet.
    folders: Mapping[tuple[str, ...], _Folder] | None = None
    # False once a file it covers got a new outcome: then only its folders can be reused.
    replayable: bool = True


@dataclass(frozen=True, slots=True)
class _Run:
    """Record files next to each other in one directory, by name, as a scan found them."""

    names: tuple[str, ...]
    found: tuple[StoredRecord, ...]
    skipped: tuple[Skip, ...]


@dataclass(frozen=True, slots=True)
class _Fresh:
    """Record files next to each other in a directory listed again, not read yet."""

    names: tuple[str, ...]
    identities: tuple[files.Identity | None, ...]


@dataclass(frozen=True, slots=True)
class _Enter:
    """A subdirectory the scan enters."""

    name: str


# One entry of a directory, in name order: files, a subdirectory, or what the walk reports.
_Item: TypeAlias = _Run | _Fresh | _Enter | str


@dataclass(frozen=True, slots=True)
class _Folder:
    """One directory a scan went through: which it was, its watch, and what it held."""

    key: tuple[int, int]  # st_dev, st_ino
    watch: int
    items: tuple[_Item, ...]


# A kind of scan within a scope: (start directory parts, depth).
_ScanKey = tuple[tuple[str, ...], int]
_NOTHING: frozenset[tuple[str, ...]] = frozenset()
_DIRECTORY = itemgetter(slice(0, -1))  # the parts of a file's directory


class _ScopeCache:
    """What the scans of one scope have learned; used under the scanner's mutex."""

    __slots__ = (
        "cleared",
        "directories",
        "entries",
        "first",
        "follower",
        "limit",
        "snapshots",
        "whole",
    )

    def __init__(self, limit: int, whole: _WholeRecords) -> None:
        self.limit = limit
        self.whole = whole
        # Read outcome per root-relative path; at most MAX_ENTRIES_PER_SCOPE (scaled).
        self.entries: dict[tuple[str, ...], _Entry] = {}
        # The same paths by directory, so a walk looks only at the directories it reached.
        self.directories: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
        # Snapshot per kind of scan, least recently kept first; at most MAX_SNAPSHOTS_PER_SCOPE.
        self.snapshots: dict[_ScanKey, _Snapshot] = {}
        self.follower: Follower | None = None
        # Set while a scan that may read every file of the scope on workers is under way
        # (the first one, or the first since the cache let go): the other scans of the
        # scope wait for it, then find its outcomes, instead of reading the files again.
        self.first: threading.Event | None = None
        self.cleared = 0  # how many times the cache let go of everything (it was full)

    def put(
        self, parts: tuple[str, ...], entry: _Entry | None, record: Record | None = None
    ) -> None:
        """Record (or, with None, forget) the outcome of one file.

        ``record`` is the whole record of a new outcome that was just parsed.
        """
        old = self.entries.pop(parts, None)
        if entry is not None:
            if len(self.entries) >= _scaled(MAX_ENTRIES_PER_SCOPE, self.limit):
                self._clear()
            self.entries[parts] = entry
            self.directories.setdefault(parts[:-1], set()).add(parts)
        elif old is not None:
            self._unlist(parts)
        if old is not None and (entry is None or entry.outcome is not old.outcome):
            self._release(parts)
            self._lost(old.outcome)
        if entry is not None and record is not None and isinstance(entry.outcome, StoredRecord):
            if old is None or entry.outcome is not old.outcome:
                self._gained(entry.outcome, record)

    def put_run(self, taken: Sequence[tuple[tuple[str, ...], _Entry | None]]) -> None:
        """Record the outcomes of a run of files, in order, as :meth:`put` records each (no
        whole record: none was parsed here).

        When the cache holds none of them and has room for them all (the first scan of a
        scope, as a rule), they go in at once; otherwise one by one."""
        paths = [parts for parts, _ in taken]
        kept = [(parts, entry) for parts, entry in taken if entry is not None]
        bound = _scaled(MAX_ENTRIES_PER_SCOPE, self.limit)
        if len(self.entries) + len(kept) > bound or not self.entries.keys().isdisjoint(paths):
            for parts, entry in taken:
                self.put(parts, entry)
            return
        self.entries.update(kept)
        directories = self.directories
        for directory, files_ in groupby(map(itemgetter(0), kept), _DIRECTORY):
            listed = directories.get(directory)
            if listed is None:
                directories[directory] = set(files_)
            else:
                listed.update(files_)

    def retain(
        self,
        key: _ScanKey,
        found: set[tuple[str, ...]],
        unchanged: Set[tuple[str, ...]] = _NOTHING,
    ) -> None:
        """Forget the files within reach of ``key``'s scan that its walk no longer found,
        but in the ``unchanged`` directories, which it did not list again."""
        start, depth = key
        size = len(start)
        reached = [
            d
            for d in self.directories
            if len(d) <= size + depth and d[:size] == start and d not in unchanged
        ]
        for directory in reached:
            for parts in [parts for parts in self.directories[directory] if parts not in found]:
                old = self.entries.pop(parts)
                self._unlist(parts)
                self._release(parts)
                self._lost(old.outcome)

    def keep(self, key: _ScanKey, snapshot: _Snapshot) -> None:
        self.snapshots.pop(key, None)
        self.snapshots[key] = snapshot
        while len(self.snapshots) > MAX_SNAPSHOTS_PER_SCOPE:
            del self.snapshots[next(iter(self.snapshots))]

    def reaches(self, start: tuple[str, ...]) -> bool:
        """Whether the cache holds a file below the directory ``start``."""
        size = len(start)
        return any(directory[:size] == start for directory in self.directories)

    def records(self) -> list[StoredRecord]:
        """Every record the cache holds."""
        return [e.outcome for e in self.entries.values() if isinstance(e.outcome, StoredRecord)]

    def _clear(self) -> None:
        self.cleared += 1
        self.entries.clear()
        self.directories.clear()
        self.snapshots.clear()
        if self.follower is not None:
            self.follower.cleared()

    def _gained(self, stored: StoredRecord, record: Record) -> None:
        if self.follower is not None:
            self.follower.added(stored, record)

    def _lost(self, outcome: Outcome) -> None:
        if isinstance(outcome, StoredRecord):
            # Whoever still holds the superseded version can still read its record (when
            # the cache had it); the cache lets go of it.
            outcome._pinned = self.whole.take(outcome)
            if self.follower is not None:
                self.follower.removed(outcome)

    def _unlist(self, parts: tuple[str, ...]) -> None:
        siblings = self.directories[parts[:-1]]
        siblings.discard(parts)
        if not siblings:
            del self.directories[parts[:-1]]

    def _release(self, parts: tuple[str, ...]) -> None:
        """Let go of the snapshots covering ``parts``: they hold its superseded outcome.

        One kept by folder keeps the other folders, for the next scan to reuse.
        """
        for key in [key for key in self.snapshots if _covers(key, parts)]:
            snapshot = self.snapshots[key]
            if snapshot.folders is None:
                del self.snapshots[key]
                continue
            folder = parts[len(key[0]) : -1]
            folders = {rel: kept for rel, kept in snapshot.folders.items() if rel != folder}
            self.snapshots[key] = dataclasses.replace(
                snapshot, found=(), skipped=(), folders=folders, replayable=False
            )


def _covers(key: _ScanKey, parts: tuple[str, ...]) -> bool:
    """Whether the scan ``key`` reaches the file at root-relative ``parts``."""
    start, depth = key
    size = len(start)
    return size < len(parts) <= size + depth + 1 and parts[:size] == start


# --- the scanner ---------------------------------------------------------------------------

# What the store wraps around every filesystem access that it does not make itself (a
# whole record read again): a context manager for the directory below the root.
Guard: TypeAlias = Callable[[tuple[str, ...]], AbstractContextManager[None]]


class Scanner:
    """Scans and single-file loads over the caches; thread-safe, one per store."""

    def __init__(
        self,
        clock: Callable[[], int],
        feed: ChangeFeed,
        limit: int = files.MAX_CANDIDATES,
        guard: Guard | None = None,
        on_shared_out: Callable[[], None] | None = None,
    ) -> None:
        self._clock = clock
        self._feed = feed
        self._limit = limit
        # The guard of reads, and whom to tell each time a first scan has handed its first
        # runs to worker processes.
        self._guard, self._on_shared_out = guard, on_shared_out
        self._mutex = threading.Lock()
        # Read caches and snapshots by (root, scope), least recently used first; at most
        # MAX_SCOPES.
        self._scopes: dict[tuple[str, str], _ScopeCache] = {}
        self._origins: dict[str, _Origin] = {}
        self._listings = _Listings(clock, limit)
        self._whole = _WholeRecords()
        # Start directories last counted over the limit, by device and inode (at most
        # MAX_SCOPES): see _planned_workers.
        self._over_limit: set[tuple[int, int]] = set()

    def scan(
        self, base: str, start_fd: int, start_parts: tuple[str, ...], depth: int
    ) -> list[StoredRecord]:
        """Every valid record below ``start_fd`` in discovery order; each skip is logged.

        ``base`` is the absolute root and ``start_parts`` the start directory below it, in
        its scope's directory. Directories beyond ``depth`` are skipped; a scan of depth 0
        takes one directory's files and says nothing of its subdirectories.
        """
        cache = self._scope(base, start_parts[0])
        return list(self._scan(cache, base, start_fd, start_parts, depth))

    def follow(self, base: str, start_fd: int, scope: str, make: Callable[[], _F]) -> _F:
        """The scope's follower (made by ``make`` if it has none), brought up to date by a
        scope-wide scan, which logs its skips as :meth:`scan` does."""
        cache = self._scope(base, scope)
        follower = self._follower(cache, base, make)
        self._scan(cache, base, start_fd, (scope,), SCOPE_DEPTH)
        return cast(_F, follower)

    def load(
        self, base: str, dir_fd: int, parts: tuple[str, ...], *, fresh: bool
    ) -> StoredRecord | None:
        """The valid record in the file at root-relative ``parts``; ``dir_fd`` is its directory.

        None when no regular file is there or it is skipped (the reason is logged). With
        ``fresh`` the file is read even if the cached read is trusted. A symlink raises
        :class:`files.SymlinkRefused`.
        """
        try:
            status = files.lstat_at(dir_fd, parts[-1])
        except OSError as exc:
            log_skip(parts[0], FailedRead(faults.fault_of(exc, parts[:-1])))
            return None
        if status is None:
            return None
        if stat.S_ISLNK(status.st_mode):
            raise files.SymlinkRefused()
        if not stat.S_ISREG(status.st_mode):
            return None
        identity = files.identity_of(status)
        cache = self._scope(base, parts[0])
        outcome = None if fresh else _trusted_outcome(cache, identity, parts)
        if outcome is None:
            outcome = self._read(cache, base, dir_fd, parts[-1], parts)
        if not isinstance(outcome, StoredRecord):
            log_skip(parts[0], outcome)
            return None
        return outcome

    def count(self, start_fd: int, depth: int) -> int:
        """The candidates below ``start_fd`` as a walk finds them, from the directory
        listings kept (a directory changed since is listed again); stats and reads nothing.

        Raises :class:`CandidateLimitExceeded` past the limit.
        """
        return discovery.count_candidates(start_fd, depth, self._limit, self._listings.summary)

    def holds_at_least(self, start_fd: int, depth: int, files_: int) -> bool:
        """Whether counting as :meth:`count` does finds ``files_`` candidates or more below
        ``start_fd`` (it stops there)."""
        try:
            discovery.count_candidates(start_fd, depth, files_ - 1, self._listings.summary)
        except CandidateLimitExceeded:
            return True
        return False

    def forget(self, base: str, parts: tuple[str, ...]) -> None:
        """Drop the cached outcome of a file that was just removed."""
        cache = self._scope(base, parts[0])
        with self._mutex:
            cache.put(parts, None)

    def whole(self, base: str, stored: StoredRecord) -> Record:
        """The whole record of ``stored``: from the cache, or read again from its file.

        The file must still hold the bytes ``stored`` stands for, else
        :class:`RecordChanged`; filesystem failures pass through the store's guard.
        """
        record = self._whole.get(stored)
        if record is not None:
            return record
        with self._guarded(stored.parts[:-1]):
            data = _read_again(base, stored.parts)
        if hashlib.sha256(data).digest() != stored._digest:
            raise RecordChanged()
        record = _whole_record(data, stored.parts)
        self._whole.put(stored, record, len(data))
        return record

    # --- internals -------------------------------------------------------------------------

    def _scan(
        self,
        cache: _ScopeCache,
        base: str,
        start_fd: int,
        start_parts: tuple[str, ...],
        depth: int,
    ) -> tuple[StoredRecord, ...]:
        first = self._first_scan(cache, start_parts)
        try:
            return self._scan_now(cache, base, start_fd, start_parts, depth)
        finally:
            if first is not None:
                with self._mutex:
                    cache.first = None
                first.set()

    def _first_scan(
        self, cache: _ScopeCache, start_parts: tuple[str, ...]
    ) -> threading.Event | None:
        """Wait for a first scan of the scope under way in another thread, if there is one;
        then, when this scan may share the scope's files out among workers (it reaches
        nothing cached yet), mark it as the first scan under way and return its mark, which
        it sets once done."""
        while True:
            with self._mutex:
                under_way = cache.first
                if under_way is None:
                    if not may_share_out(self._limit) or cache.reaches(start_parts):
                        return None
                    cache.first = threading.Event()
                    return cache.first
            under_way.wait()

    def _scan_now(
        self,
        cache: _ScopeCache,
        base: str,
        start_fd: int,
        start_parts: tuple[str, ...],
        depth: int,
    ) -> tuple[StoredRecord, ...]:
        scope = start_parts[0]
        key = (start_parts, depth)
        chain = _chain(base, start_parts)
        replay = self._unchanged_snapshot(cache, key, chain)
        if replay is not None:
            return _replayed(scope, replay, walked=False)
        since = self._feed.mark() if chain else None
        previous = cache.snapshots.get(key)
        if since is not None and previous is not None and previous.folders is not None:
            if previous.chain == chain:
                return _Rescan(self, cache, key, previous).scan(base, start_fd, since, chain)
        workers = self._planned_workers(cache, base, start_fd, start_parts, depth)
        try:
            return self._walk_and_load(cache, base, start_fd, key, chain, since, previous, workers)
        except CandidateLimitExceeded:
            if workers is not None:
                self._note_over_limit(directory_key(start_fd))
            raise
        finally:
            if workers is not None:
                workers.close(wait=False)  # they stop by themselves: no answer waits for it

    def _walk_and_load(
        self,
        cache: _ScopeCache,
        base: str,
        start_fd: int,
        key: _ScanKey,
        chain: tuple[tuple[int, int, int], ...],
        since: tuple[int, int] | None,
        previous: _Snapshot | None,
        workers: Workers | None,
    ) -> tuple[StoredRecord, ...]:
        start_parts, depth = key
        scope = start_parts[0]
        walked = _WalkReport(scope, self._feed if since is not None else None)
        candidates = discovery.walk(
            start_fd,
            depth,
            report_too_deep=depth > 0,
            on_skip=walked.skip,
            limit=self._limit,
            entries_of=walked.listing(self._listings.entries),
            on_directory=walked.directory if since is not None else None,
            identities=workers is None,  # else each file's read takes its identity
        )
        if previous is not None and since is None and previous.candidates == candidates:
            return _replayed(scope, previous, walked=True)
        found, skipped, outcomes, settled = self._load_all(
            cache, base, start_fd, start_parts, candidates, workers
        )
        snapshot = _Snapshot(candidates, tuple(found), tuple(skipped), tuple(walked.skipped))
        # A file with a second hard link can be written through a directory nobody watches.
        # A walk for workers took no identities (so its snapshot is never settled, and is
        # kept only vouched, without candidates): each read took its file's.
        if workers is None:
            shared = _shares_inodes(candidates)
        else:
            shared = _read_shares_inodes(cache, start_parts, candidates)
        vouched = since is not None and walked.all_watched and not shared
        if vouched:
            folders = walked.folders(outcomes, depth)
            snapshot = dataclasses.replace(
                snapshot,
                candidates=None,
                since=since,
                watches=walked.watches,
                chain=chain,
                folders=folders,
            )
        with self._mutex:
            # A scan on workers began with nothing cached below its start: all the cache
            # holds there now was read meanwhile, by it or by a single-file load of a file
            # that was there (one the walk may not have listed yet), so nothing is stale.
            if workers is None:
                cache.retain(key, {start_parts + candidate.parts for candidate in candidates})
            if vouched or settled:
                cache.keep(key, snapshot)
        return snapshot.found

    def _follower(self, cache: _ScopeCache, base: str, make: Callable[[], Follower]) -> Follower:
        """The cache's follower; a new one is first told of every record the cache holds."""
        with self._mutex:
            if cache.follower is not None:
                return cache.follower
            follower = cache.follower = make()
            for stored in cache.records():
                try:
                    record = self.whole(base, stored)
                except Exception:  # noqa: BLE001 - gone or unreadable: the next scan reads it
                    cache.put(stored.parts, None)
                    continue
                follower.added(stored, record)
            return follower

    def _load_all(
        self,
        cache: _ScopeCache,
        base: str,
        start_fd: int,
        start_parts: tuple[str, ...],
        candidates: list[discovery.Candidate],
        workers: Workers | None = None,
    ) -> tuple[list[StoredRecord], list[Skip], dict[tuple[str, ...], Outcome], bool]:
        """Every candidate's outcome (cached when trusted), found and skipped and by the
        candidate's parts; whether all of them were trusted."""
        scope = start_parts[0]
        found: list[StoredRecord] = []
        skipped: list[Skip] = []
        outcomes: dict[tuple[str, ...], Outcome] = {}
        settled = True
        read = 0
        fresh = [
            position
            for position, candidate in enumerate(candidates)
            if start_parts + candidate.parts not in cache.entries
        ]
        fresh_candidates = [candidates[n] for n in fresh]
        bulk = self._bulk(cache, base, start_fd, start_parts, fresh_candidates, workers)
        in_bulk = set(fresh) if bulk is not None else set()
        with _Directories(start_fd) as directories:
            for position, candidate in enumerate(candidates):
                parts = start_parts + candidate.parts
                if bulk is not None and position in in_bulk:
                    settled = False
                    outcome = next(bulk)
                else:
                    outcome = _trusted_outcome(cache, candidate.identity, parts)
                if outcome is None:
                    settled = False
                    outcome = self._read_candidate(cache, base, directories, candidate, parts)
                    read += 1
                    _settle_after(read)
                outcomes[candidate.parts] = outcome
                if isinstance(outcome, StoredRecord):
                    found.append(outcome)
                else:
                    skipped.append(outcome)
                    log_skip(scope, outcome)
        return found, skipped, outcomes, settled

    def _planned_workers(
        self, cache: _ScopeCache, base: str, start_fd: int, start_parts: tuple[str, ...], depth: int
    ) -> Workers | None:
        """Workers for a scan that will find many files it never read (nothing below its
        start is cached, and counting finds BULK_FROM files or more), started now so they
        are ready once the walk is done; None for a scan that reads its files itself.

        They start while the walk goes on; should the start directory hold more than the
        limit (the walk says so), they are let go. A directory found over the limit is
        counted whole first the next time, so a scope over the limit does not start
        workers call after call."""
        if not may_share_out(self._limit) or cache.reaches(start_parts):
            return None
        key = directory_key(start_fd)
        if key in self._over_limit:
            try:
                self.count(start_fd, depth)
            except CandidateLimitExceeded:
                return None  # the walk says so
            self._over_limit.discard(key)
        if not self.holds_at_least(start_fd, depth, BULK_FROM):
            return None
        workers = Workers(min(usable_cpus(), MAX_WORKERS))
        workers.warm(_read_run, self._run_job(cache, base, start_fd, start_parts, (), 0))
        return workers

    def _note_over_limit(self, key: tuple[int, int]) -> None:
        if len(self._over_limit) >= MAX_SCOPES:
            self._over_limit.clear()
        self._over_limit.add(key)

    def _run_job(
        self,
        cache: _ScopeCache,
        base: str,
        start_fd: int,
        start_parts: tuple[str, ...],
        names: tuple[tuple[str, ...], ...],
        read_ns: int,
    ) -> _RunJob:
        follower = cache.follower
        make_part = None if follower is None else follower.part_maker()
        return _RunJob(base, start_parts, directory_key(start_fd), names, make_part, read_ns)

    def _bulk(
        self,
        cache: _ScopeCache,
        base: str,
        start_fd: int,
        start_parts: tuple[str, ...],
        fresh: list[discovery.Candidate],
        workers: Workers | None,
    ) -> Iterator[Outcome | None] | None:
        """When a scan finds many files it never read, their outcomes, in order, read by
        the ``workers`` in runs of consecutive files (None for each file of a run they
        could not read: the scan reads it itself); None when the scan reads them all.

        Each run is taken into the cache, and its records into the follower, at once.
        """
        if workers is None or len(fresh) < BULK_FROM:
            return None
        read_ns = self._clock()
        jobs = [
            self._run_job(
                cache,
                base,
                start_fd,
                start_parts,
                tuple(candidate.parts for candidate in fresh[start:end]),
                read_ns,
            )
            for start, end in runs(len(fresh), workers.count)
        ]
        results = workers.in_order(_read_run, jobs, _not_read, self._on_shared_out)
        return self._taken(cache, jobs, results)

    def _taken(
        self,
        cache: _ScopeCache,
        jobs: list[_RunJob],
        results: Iterator[_RunRead | None],
    ) -> Iterator[Outcome | None]:
        for job, result in zip(jobs, results, strict=True):
            if result is None:
                yield from (None for _ in job.files)
            else:
                yield from self._take(cache, job, result)

    def _take(self, cache: _ScopeCache, job: _RunJob, result: _RunRead) -> list[Outcome]:
        """The outcomes of a run read by a worker, now in the cache (and the follower)."""
        origin = self._origin(job.base)
        outcomes: list[Outcome] = []
        valid: list[StoredRecord] = []
        taken: list[tuple[tuple[str, ...], _Entry | None]] = []
        with self._mutex:
            cleared = cache.cleared
            for (
                names,
                identity,
                settled,
                digest,
                title,
                kind,
                state,
                legacy,
                same,
                reason,
                error,
            ) in zip(job.files, *result.columns, strict=True):
                parts = job.start + names
                outcome: Outcome
                if not reason:  # a valid record
                    facts = (title, kind, state, legacy, same)
                    outcome = StoredRecord.of(facts, parts, digest, origin)
                    valid.append(outcome)
                    entry = _Entry(identity, settled, digest, outcome)
                else:
                    outcome = reason
                    if error is not None:
                        outcome = FailedRead(faults.fault_of(error, parts[:-1]))
                    entry = None
                    if identity is not None:
                        entry = _Entry(identity, settled, digest, reason)
                taken.append((parts, entry))
                outcomes.append(outcome)
            cache.put_run(taken)
            self._tell(cache, job.base, valid, result.part, cache.cleared == cleared)
        gc.freeze()
        return outcomes

    def _tell(
        self,
        cache: _ScopeCache,
        base: str,
        valid: list[StoredRecord],
        part: object,
        all_held: bool,
    ) -> None:
        """Tell the follower of the records of a run just taken into the cache: the part
        made of them, or (should the cache have let some go, ``all_held`` being false, or
        there be no part) those it still holds, one by one, read again."""
        follower = cache.follower
        if follower is None or not valid:
            return
        if part is not None and all_held:
            follower.added_part(valid, part)
            return
        held = [stored for stored in valid if _holds(cache, stored)]
        if part is not None and len(held) == len(valid):
            follower.added_part(valid, part)
            return
        for stored in held:
            try:
                record = self.whole(base, stored)
            except Exception:  # noqa: BLE001 - gone or unreadable: the next scan reads it
                cache.put(stored.parts, None)
                continue
            follower.added(stored, record)

    def _read_candidate(
        self,
        cache: _ScopeCache,
        base: str,
        directories: _Directories,
        candidate: discovery.Candidate,
        parts: tuple[str, ...],
    ) -> Outcome:
        try:
            dir_fd = directories.open(candidate.parts[:-1])
        except OSError as exc:
            with self._mutex:
                cache.put(parts, None)
            skipped = files.EntrySkipped(files.open_failure_reason(exc))
            skipped.__cause__ = exc
            return _skip_of(skipped, parts)
        return self._read(cache, base, dir_fd, parts[-1], parts)

    def _read(
        self, cache: _ScopeCache, base: str, dir_fd: int, name: str, parts: tuple[str, ...]
    ) -> Outcome:
        entry = cache.entries.get(parts)
        read_ns = self._clock()
        try:
            content = files.read_file_at(dir_fd, name)
        except files.EntrySkipped as skipped:
            # Only skips tied to the file's identity (its size) can be reused.
            kept = None
            if skipped.identity is not None:
                kept = _entry(skipped.identity, read_ns, None, skipped.reason)
            with self._mutex:
                cache.put(parts, kept)
            return _skip_of(skipped, parts)
        digest = hashlib.sha256(content.data).digest()
        record: Record | None = None
        if entry is not None and entry.digest == digest:
            outcome = entry.outcome
        else:
            outcome, record = _parse(content.data, parts, digest, self._origin(base))
        with self._mutex:
            cache.put(parts, _entry(content.identity, read_ns, digest, outcome), record)
        if record is not None and isinstance(outcome, StoredRecord):
            self._whole.put(outcome, record, len(content.data))
        return outcome

    def _origin(self, base: str) -> _Origin:
        origin = self._origins.get(base)
        if origin is None:
            with self._mutex:
                origin = self._origins.setdefault(base, _Origin(self, base))
                while len(self._origins) > MAX_SCOPES:
                    del self._origins[next(iter(self._origins))]
        return origin

    def _guarded(self, directory: tuple[str, ...]) -> AbstractContextManager[None]:
        if self._guard is None:
            return _Unguarded()
        return self._guard(directory)

    def _scope(self, base: str, scope: str) -> _ScopeCache:
        key = (base, scope)
        with self._mutex:
            cache = self._scopes.pop(key, None)
            if cache is None:
                cache = _ScopeCache(self._limit, self._whole)
            self._scopes[key] = cache
            while len(self._scopes) > MAX_SCOPES:
                # The scans still running on it keep it, and its follower, to themselves.
                del self._scopes[next(iter(self._scopes))]
            return cache

    def _unchanged_snapshot(
        self, cache: _ScopeCache, key: _ScanKey, chain: tuple[tuple[int, int, int], ...]
    ) -> _Snapshot | None:
        """The last snapshot of ``key`` if change notification vouches for it."""
        snapshot = cache.snapshots.get(key)
        if snapshot is None or snapshot.since is None or not chain or snapshot.chain != chain:
            return None
        if not snapshot.replayable or not self._feed.unchanged(snapshot.watches, snapshot.since):
            return None
        return snapshot


class _Unguarded(AbstractContextManager[None]):
    def __exit__(self, *exc_info: object) -> None:
        return None


class _Directories(AbstractContextManager["_Directories"]):
    """The directories below a scan's start that its reads go through, each opened once
    (no-follow, like every descent) while the scan reads the files in it."""

    def __init__(self, start_fd: int) -> None:
        self._start_fd = start_fd
        self._names: tuple[str, ...] = ()
        self._fd: int | None = None

    def open(self, names: tuple[str, ...]) -> int:
        """The directory ``start/names...``, kept open until another one is asked for."""
        if not names:
            return self._start_fd
        if self._fd is not None and names == self._names:
            return self._fd
        self._close()
        self._fd = files.open_beneath(self._start_fd, names)
        self._names = names
        return self._fd

    def _close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def __exit__(self, *exc_info: object) -> None:
        self._close()


class _WholeRecords:
    """The whole records last read: at most MAX_WHOLE_RECORDS of them and
    MAX_WHOLE_RECORD_BYTES of their files' bytes, least recently used first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: OrderedDict[StoredRecord, tuple[Record, int]] = OrderedDict()
        self._bytes = 0

    def get(self, stored: StoredRecord) -> Record | None:
        with self._lock:
            kept = self._kept.get(stored)
            if kept is None:
                return None
            self._kept.move_to_end(stored)
            return kept[0]

    def take(self, stored: StoredRecord) -> Record | None:
        """Forget ``stored``'s record, returning it if it was kept."""
        with self._lock:
            old = self._kept.pop(stored, None)
            if old is None:
                return None
            self._bytes -= old[1]
            return old[0]

    def put(self, stored: StoredRecord, record: Record, size: int) -> None:
        with self._lock:
            old = self._kept.pop(stored, None)
            if old is not None:
                self._bytes -= old[1]
            self._kept[stored] = (record, size)
            self._bytes += size
            while len(self._kept) > MAX_WHOLE_RECORDS or self._bytes > MAX_WHOLE_RECORD_BYTES:
                _, (_, dropped) = self._kept.popitem(last=False)
                self._bytes -= dropped


class _WalkReport:
    """What one walk reports besides its candidates: warnings, directory watches, and what
    each directory held (for the folders of a snapshot)."""

    def __init__(self, scope: str, feed: ChangeFeed | None) -> None:
        self._scope = scope
        self._feed = feed
        self.skipped: list[str] = []
        self._watches: list[int | None] = []
        self._at: tuple[str, ...] = ()
        self._directories: dict[tuple[str, ...], tuple[tuple[int, int], int | None]] = {}
        self._listed: dict[tuple[str, ...], discovery.Entries] = {}

    def skip(self, reason: str) -> None:
        self.skipped.append(reason)
        log_skip(self._scope, reason)

    def directory(self, fd: int, parts: tuple[str, ...]) -> None:
        if self._feed is not None:
            watch = self._feed.watch(fd)
            self._watches.append(watch)
            status = os.fstat(fd)
            self._directories[parts] = ((status.st_dev, status.st_ino), watch)
            self._at = parts

    def listing(
        self, entries_of: Callable[[int], discovery.Entries]
    ) -> Callable[[int], discovery.Entries]:
        """``entries_of``, noting what each directory held (it lists the one just entered)."""

        def listed(fd: int) -> discovery.Entries:
            entries = entries_of(fd)
            if self._feed is not None:
                self._listed[self._at] = entries
            return entries

        return listed

    def folders(
        self, outcomes: Mapping[tuple[str, ...], Outcome], depth: int
    ) -> dict[tuple[str, ...], _Folder]:
        """The folders of a vouched walk (every directory watched)."""
        folders = {}
        for parts, (key, watch) in self._directories.items():
            assert watch is not None
            items = _items_of(self._listed[parts], parts, depth, outcomes=outcomes)
            folders[parts] = _Folder(key, watch, items)
        return folders

    @property
    def all_watched(self) -> bool:
        return self._feed is not None and None not in self._watches

    @property
    def watches(self) -> tuple[int, ...]:
        return tuple(wd for wd in self._watches if wd is not None)


def _items_of(
    entries: discovery.Entries,
    parts: tuple[str, ...],
    depth: int,
    *,
    outcomes: Mapping[tuple[str, ...], Outcome] | None = None,
    stat: Callable[[str], files.Identity | None] | None = None,
) -> tuple[_Item, ...]:
    """A directory's entries as a scan of ``depth`` sees them, in name order: runs of record
    files (with their ``outcomes``, or their identities by ``stat``, to be read), the
    subdirectories it enters, and what the walk reports (symlink, unreadable, too_deep)."""
    items: list[_Item] = []
    run: list[str] = []

    def close_run() -> None:
        if not run:
            return
        names = tuple(run)
        run.clear()
        if outcomes is None:
            assert stat is not None
            items.append(_Fresh(names, tuple(map(stat, names))))
            return
        got = [outcomes[(*parts, name)] for name in names]
        kept = tuple(item for item in got if isinstance(item, StoredRecord))
        items.append(_Run(names, kept, tuple(item for item in got if isinstance(item, Skip))))

    for name, kind in entries:
        if kind is discovery.CANDIDATE:
            run.append(name)
            continue
        close_run()
        if kind is not discovery.DIRECTORY:
            items.append(kind)
        elif len(parts) < depth:
            items.append(_Enter(name))
        elif depth > 0:  # a scan of depth 0 says nothing of subdirectories
            items.append(discovery.TOO_DEEP)
    close_run()
    return tuple(items)


class _Rescan:
    """A scan after a snapshot kept by folder: the folders whose directory's watch stayed
    quiet are taken as they were, without listing, stat-ing or reading a file; the others
    are listed again and their files checked as a walk checks them. Warnings, the candidate
    limit and the order of the records are those of a full walk."""

    def __init__(
        self, scanner: Scanner, cache: _ScopeCache, key: _ScanKey, previous: _Snapshot
    ) -> None:
        assert previous.folders is not None
        self._scanner = scanner
        self._cache = cache
        self._key = key
        self._previous = previous
        self._known = previous.folders
        self._scope = key[0][0]
        self._items: dict[tuple[str, ...], list[_Item]] = {}
        self._directories: dict[tuple[str, ...], tuple[tuple[int, int], int | None]] = {}
        self._reused: set[tuple[str, ...]] = set()
        self._walk_skipped: list[str] = []
        self._count = 0

    def scan(
        self,
        base: str,
        start_fd: int,
        since: tuple[int, int],
        chain: tuple[tuple[int, int, int], ...],
    ) -> tuple[StoredRecord, ...]:
        self._visit(start_fd, ())
        found, skipped, present, shared = self._load(base, start_fd)
        watches = tuple(watch for _, watch in self._directories.values() if watch is not None)
        vouched = len(watches) == len(self._directories) and not shared
        folders = {
            rel: _Folder(key, watch, tuple(self._items[rel]))
            for rel, (key, watch) in self._directories.items()
            if watch is not None
        }
        snapshot = _Snapshot(
            None,
            tuple(found),
            tuple(skipped),
            tuple(self._walk_skipped),
            since,
            watches,
            chain,
            folders,
        )
        start = self._key[0]
        with self._scanner._mutex:
            self._cache.retain(self._key, present, {start + rel for rel in self._reused})
            if vouched:
                self._cache.keep(self._key, snapshot)
            else:
                self._cache.snapshots.pop(self._key, None)
        return snapshot.found

    def _visit(self, fd: int, rel: tuple[str, ...]) -> None:
        feed = self._scanner._feed
        watch = feed.watch(fd)
        status = os.fstat(fd)
        key = (status.st_dev, status.st_ino)
        self._directories[rel] = (key, watch)
        known = self._known.get(rel)
        if (
            known is not None
            and watch is not None
            and (known.key, known.watch) == (key, watch)
            and self._previous.since is not None
            and feed.unchanged((watch,), self._previous.since)
        ):
            items: tuple[_Item, ...] = known.items
            self._reused.add(rel)
        else:
            entries = self._scanner._listings.entries(fd)
            items = _items_of(entries, rel, self._key[1], stat=_identity_at(fd))
        self._items[rel] = list(items)
        for item in items:
            if isinstance(item, str):
                self._walk_skipped.append(item)
                log_skip(self._scope, item)
            elif isinstance(item, _Enter):
                self._enter(fd, rel, item.name)
            else:
                self._count += len(item.names)
                if self._count > self._scanner._limit:
                    raise CandidateLimitExceeded(limit=self._scanner._limit)

    def _enter(self, fd: int, rel: tuple[str, ...], name: str) -> None:
        try:
            child = files.open_subdirectory(fd, name)
        except files.SymlinkRefused:
            self._walk_skipped.append(files.SYMLINK)
            log_skip(self._scope, files.SYMLINK)
            return
        with files.closing_fd(child):
            self._visit(child, (*rel, name))

    def _load(
        self, base: str, start_fd: int
    ) -> tuple[list[StoredRecord], list[Skip], set[tuple[str, ...]], bool]:
        """The records in walk order, the skips, the files of the folders listed again,
        and whether one of those has a second hard link."""
        found: list[StoredRecord] = []
        skipped: list[Skip] = []
        present: set[tuple[str, ...]] = set()
        shared = False
        with _Directories(start_fd) as directories:
            stack: list[tuple[tuple[str, ...], int]] = [((), 0)]
            while stack:
                rel, index = stack.pop()
                items = self._items[rel]
                while index < len(items):
                    item = items[index]
                    index += 1
                    if isinstance(item, _Fresh):
                        shared = shared or _links_elsewhere(item.identities)
                        item = items[index - 1] = self._read(base, directories, rel, item)
                        present.update((*self._key[0], *rel, name) for name in item.names)
                    if isinstance(item, _Run):
                        found.extend(item.found)
                        skipped.extend(item.skipped)
                    elif isinstance(item, _Enter) and (*rel, item.name) in self._items:
                        stack.append((rel, index))
                        stack.append(((*rel, item.name), 0))
                        break
        for skip in skipped:
            log_skip(self._scope, skip)
        return found, skipped, present, shared

    def _read(
        self, base: str, directories: _Directories, rel: tuple[str, ...], fresh: _Fresh
    ) -> _Run:
        found: list[StoredRecord] = []
        skipped: list[Skip] = []
        for name, identity in zip(fresh.names, fresh.identities, strict=True):
            parts = (*self._key[0], *rel, name)
            outcome = _trusted_outcome(self._cache, identity, parts)
            if outcome is None:
                candidate = discovery.Candidate((*rel, name), identity)
                outcome = self._scanner._read_candidate(
                    self._cache, base, directories, candidate, parts
                )
            if isinstance(outcome, StoredRecord):
                found.append(outcome)
            else:
                skipped.append(outcome)
        return _Run(fresh.names, tuple(found), tuple(skipped))


def _identity_at(fd: int) -> Callable[[str], files.Identity | None]:
    def identity(name: str) -> files.Identity | None:
        try:
            status = files.lstat_at(fd, name)
        except OSError:
            return None
        return None if status is None else files.identity_of(status)

    return identity


def _replayed(scope: str, snapshot: _Snapshot, *, walked: bool) -> tuple[StoredRecord, ...]:
    """The snapshot's records, logging the warnings this scan would have logged."""
    reasons = snapshot.skipped if walked else snapshot.walk_skipped + snapshot.skipped
    for reason in reasons:
        log_skip(scope, reason)
    return snapshot.found


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
            status = files.lstat_at(None, path)
        except OSError:
            return ()
        if status is None or not stat.S_ISDIR(status.st_mode):
            return ()
        chain.append((status.st_dev, status.st_ino, status.st_mode))
    return tuple(chain)


def directory_key(fd: int) -> tuple[int, int]:
    """The device and inode of the directory open at ``fd``."""
    status = os.fstat(fd)
    return status.st_dev, status.st_ino


def _read_shares_inodes(
    cache: _ScopeCache, start_parts: tuple[str, ...], candidates: list[discovery.Candidate]
) -> bool:
    """Whether a file of a walk that took no identities has a second hard link, by the
    identity its read took (kept packed in the cache: the link count is its last field)."""
    entries = cache.entries
    links = _IDENTITY.size - _IDENTITY_LINKS.size
    for parts, _ in candidates:
        entry = entries.get(start_parts + parts)
        if entry is not None and _IDENTITY_LINKS.unpack_from(entry.identity, links)[0] > 1:
            return True
    return False


def _shares_inodes(candidates: list[discovery.Candidate]) -> bool:
    return _links_elsewhere(candidate.identity for candidate in candidates)


def _links_elsewhere(identities: Iterable[files.Identity | None]) -> bool:
    """Whether a file has a second hard link (and so can change through another folder)."""
    links = files.LINKS
    return any(identity is not None and identity[links] > 1 for identity in identities)


def _trusted_outcome(
    cache: _ScopeCache, identity: files.Identity | None, parts: tuple[str, ...]
) -> Outcome | None:
    """The cached outcome for ``parts`` if its entry is trusted for the walk's identity."""
    entry = cache.entries.get(parts)
    if entry is not None and entry.trusted(identity):
        return entry.outcome
    return None


def _skip_of(skipped: files.EntrySkipped, parts: tuple[str, ...]) -> Skip:
    """The skip's reason, or the failed read when the filesystem refused the bytes."""
    if skipped.reason == files.UNREADABLE and isinstance(skipped.__cause__, OSError):
        return FailedRead(faults.fault_of(skipped.__cause__, parts[:-1]))
    return skipped.reason


def _parse(
    data: bytes, parts: tuple[str, ...], digest: bytes, origin: _Origin | None
) -> tuple[Outcome, Record | None]:
    """The outcome of a file's bytes, with the whole record when it is valid."""
    checked = _checked(data, parts)
    if isinstance(checked, str):
        return checked, None
    return StoredRecord(checked, parts, digest, origin), checked


def _whole_record(data: bytes, parts: tuple[str, ...]) -> Record:
    """The valid record of a file read again, else :class:`RecordChanged`."""
    checked = _checked(data, parts)
    if isinstance(checked, str):
        raise RecordChanged()
    return checked


def _checked(data: bytes, parts: tuple[str, ...]) -> Record | str:
    """The valid record in the bytes of the file at ``parts``, or why the file is skipped."""
    try:
        record = parse_record_bytes(data)
    except RecordInvalid as invalid:
        return invalid.reason
    if isinstance(record, CanonicalRecord) and record_parts(record) != parts:
        return PATH_MISMATCH
    return record


def _read_again(base: str, parts: tuple[str, ...]) -> bytes:
    """The bytes of the file at root-relative ``parts`` (a followed root, a no-follow
    descent and file, as a single-file load reads); :class:`RecordChanged` when there is
    no readable record file there any more."""
    try:
        root_fd = files.open_directory(base, follow=True)
    except (FileNotFoundError, NotADirectoryError):
        raise RecordChanged() from None
    with files.closing_fd(root_fd):
        try:
            dir_fd = files.open_beneath(root_fd, parts[:-1])
        except (FileNotFoundError, NotADirectoryError):
            raise RecordChanged() from None
        with files.closing_fd(dir_fd):
            try:
                return files.read_file_at(dir_fd, parts[-1]).data
            except files.EntrySkipped as skipped:
                cause = skipped.__cause__
                if isinstance(cause, OSError) and skipped.reason == files.UNREADABLE:
                    if not isinstance(cause, FileNotFoundError):
                        raise cause from None
                raise RecordChanged() from None


# --- many files read by worker processes ----------------------------------------------------

# A scan hands the files it never read to worker processes (storage/workers.py) once there
# are this many: below that, starting the workers costs more than they save.
BULK_FROM = 8192
# At most this many workers, and no fewer than two (or the scan reads the files itself).
MAX_WORKERS = 4
# Each worker gets about this many runs of consecutive files, of at least MIN_RUN files:
# the scan takes in one run while the workers read the next ones.
RUNS_PER_WORKER = 8
MIN_RUN = 512
MAX_RUN = 2048
# The last runs hold at most 1/TAPER of a worker's share of the files left (see _runs).
TAPER = 2


def may_share_out(limit: int) -> bool:
    """Whether a scanner with the candidate ``limit`` may share a first scan's files out
    among worker processes here (it does once it counts BULK_FROM files or more)."""
    return limit >= BULK_FROM and usable_cpus() >= 2


class _RunJob(NamedTuple):
    """A run of files for a worker: the root, the scan's start directory (its parts and
    its device and inode), the files' parts below it, the follower's part maker, and the
    scan's clock when the reads began."""

    base: str
    start: tuple[str, ...]
    start_key: tuple[int, int]
    files: tuple[tuple[str, ...], ...]
    make_part: Callable[[Sequence[tuple[StoredRecord, Record]]], Any] | None
    read_ns: int


# What a worker read of one file: the identity (packed, as the cache keeps it), whether it
# is settled, and the digest, that make the outcome reusable, when there are; the facts of
# a valid record (Facts' fields) or None; the reason the file is skipped ("" for a valid
# record); the filesystem's error, for a failed read.
_FileRead: TypeAlias = tuple[
    bytes | None, bool, bytes | None, FactFields | None, str, OSError | None
]
_NO_FACTS: Final = (None, None, None, None, None)


class _RunRead(NamedTuple):
    """What a worker read of a run, field by field: the identities of its files, whether
    each is settled, their digests, the five fields of their facts (all None for a file
    skipped), their reasons and errors (see ``_FileRead``); and the part made of its valid
    records. Columns of plain values travel without a container per file, which pickling
    and unpickling (and the collector, in the server) would each go through."""

    columns: tuple[tuple[Any, ...], ...]
    part: Any


def _columns(reads: list[_FileRead]) -> tuple[tuple[Any, ...], ...]:
    if not reads:
        return ((),) * 10
    identities, settled, digests, facts, reasons, errors = zip(*reads, strict=True)
    spread = zip(*[fields or _NO_FACTS for fields in facts], strict=True)
    return (identities, settled, digests, *spread, reasons, errors)


class _Moved(Exception):
    """The start directory a worker opened is not the scan's."""


def runs(total: int, workers: int) -> Iterator[tuple[int, int]]:
    """Where each run of ``total`` files shared out among ``workers`` starts and ends: about
    RUNS_PER_WORKER runs a worker of MIN_RUN to MAX_RUN files, the last ones smaller (down to
    MIN_RUN) so that the workers finish at about the same time: a run holds at most half of
    a worker's share of the files left."""
    size = min(MAX_RUN, max(MIN_RUN, total // (RUNS_PER_WORKER * workers)))
    start = 0
    while start < total:
        step = max(MIN_RUN, min(size, (total - start) // (TAPER * workers)))
        yield start, min(total, start + step)
        start += step


def open_start(base: str, start: tuple[str, ...], key: tuple[int, int]) -> int:
    """Open, in a worker, a scan's start directory ``start`` below the root ``base`` (the root
    followed, no link below it); raises when it is not the directory ``key`` names (device
    and inode: another one has taken its place since the scan opened it)."""
    root_fd = files.open_directory(base, follow=True)
    with files.closing_fd(root_fd):
        start_fd = files.open_beneath(root_fd, start)
    if directory_key(start_fd) != key:
        os.close(start_fd)
        raise _Moved()
    return start_fd


def _read_run(job: _RunJob) -> _RunRead:
    """Read a run of files in a worker process as the scanner reads each (the root followed,
    no link followed below it), and make the follower's part of its valid records.

    The cyclic garbage collector waits meanwhile: a run makes a great many containers
    that die young, and its passes over them cost about a tenth of the run."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run_read(job)
    finally:
        if collecting:
            gc.enable()


def _run_read(job: _RunJob) -> _RunRead:
    start_fd = open_start(job.base, job.start, job.start_key)
    with files.closing_fd(start_fd), _Directories(start_fd) as directories:
        reads: list[_FileRead] = []
        records: list[tuple[StoredRecord, Record]] = []
        for names in job.files:
            parts = job.start + names
            read, record = _read_one(directories, parts, names, job.read_ns)
            reads.append(read)
            if record is not None:
                _, _, digest, facts, _, _ = read
                assert facts is not None and digest is not None
                stored = StoredRecord.of(facts, parts, digest, None, record)
                records.append((stored, record))
    part = job.make_part(records) if job.make_part is not None and records else None
    return _RunRead(_columns(reads), part)


def _read_one(
    directories: _Directories, parts: tuple[str, ...], names: tuple[str, ...], read_ns: int
) -> tuple[_FileRead, Record | None]:
    """One file of a run (``names`` below the start, ``parts`` below the root), as
    ``Scanner._read_candidate`` reads it, the reads having begun at ``read_ns``."""
    try:
        dir_fd = directories.open(names[:-1])
    except OSError as exc:
        reason = files.open_failure_reason(exc)
        return (None, False, None, None, reason, _failure(reason, exc)), None
    try:
        content = files.read_file_at(dir_fd, names[-1])
    except files.EntrySkipped as skipped:
        error = _failure(skipped.reason, skipped.__cause__)
        if skipped.identity is None:
            return (None, False, None, None, skipped.reason, error), None
        settled = _settled(skipped.identity, read_ns)
        return (_packed(skipped.identity), settled, None, None, skipped.reason, error), None
    identity = _packed(content.identity)
    settled = _settled(content.identity, read_ns)
    digest = hashlib.sha256(content.data).digest()
    checked = _checked(content.data, parts)
    if isinstance(checked, str):
        return (identity, settled, digest, None, checked, None), None
    return (identity, settled, digest, (*facts_of(checked),), "", None), checked


def _failure(reason: str, cause: BaseException | None) -> OSError | None:
    """The error that makes a skip a failed read (see :func:`_skip_of`), if it is one."""
    return cause if reason == files.UNREADABLE and isinstance(cause, OSError) else None


def _not_read(job: _RunJob) -> None:
    """A run no worker read: the scan reads its files itself."""
    return None


def _holds(cache: _ScopeCache, stored: StoredRecord) -> bool:
    entry = cache.entries.get(stored.parts)
    return entry is not None and entry.outcome is stored


# --- directory listings --------------------------------------------------------------------


@dataclass(slots=True)
class _Listing:
    change: tuple[int, int]  # the directory's (st_mtime_ns, st_ctime_ns) before listing
    listed_ns: int
    entries: discovery.Entries
    summary: discovery.Summary | None = None  # its count, made when first asked


class _Listings:
    """Directory listings remembered between walks, by device and inode.

    A directory is listed again unless its mtime and ctime are those of the remembered
    listing and its last change came at least the racy window before that listing was
    taken (so a change within the same timestamp tick cannot hide). Adding, removing or
    renaming an entry changes the directory; editing a file does not, which is why files
    are stat-ed on every walk regardless. A changed directory's new listing replaces the
    old one.
    """

    def __init__(self, clock: Callable[[], int], limit: int) -> None:
        self._clock = clock
        self._limit = limit
        # Listings by (st_dev, st_ino): at most MAX_LISTINGS of them, and MAX_LISTED_NAMES
        # names in all of them together (both scaled to the limit); past either bound all
        # are dropped.
        self._known: dict[tuple[int, int], _Listing] = {}
        self._names = 0
        self._mutex = threading.Lock()

    def entries(self, fd: int) -> discovery.Entries:
        return self._listing(fd).entries

    def summary(self, fd: int) -> discovery.Summary:
        """What counting needs of the directory, from its listing."""
        listing = self._listing(fd)
        if listing.summary is None:
            listing.summary = discovery.summarize(listing.entries)
        return listing.summary

    def _listing(self, fd: int) -> _Listing:
        status = os.fstat(fd)
        key = (status.st_dev, status.st_ino)
        change = (status.st_mtime_ns, status.st_ctime_ns)
        with self._mutex:
            known = self._known.get(key)
        if (
            known is not None
            and known.change == change
            and max(change) < known.listed_ns - RACY_WINDOW_NS
        ):
            return known
        listing = _Listing(change, self._clock(), discovery.list_entries(fd))
        if all(kind is not files.UNREADABLE for _, kind in listing.entries):
            self._keep(key, listing)
        return listing

    def _keep(self, key: tuple[int, int], listing: _Listing) -> None:
        size = len(listing.entries)
        most_listings = _scaled(MAX_LISTINGS, self._limit)
        most_names = _scaled(MAX_LISTED_NAMES, self._limit)
        with self._mutex:
            old = self._known.pop(key, None)
            if old is not None:
                self._names -= len(old.entries)
            if len(self._known) >= most_listings or self._names + size > most_names:
                self._known.clear()
                self._names = 0
            if size <= most_names:
                self._known[key] = listing
                self._names += size
