"""The scanner: the valid records below a directory, reading as few files as possible.

A scan walks its start directory (depth first, names in code point order), takes the
``lstat`` identity of every record file it finds, and reads, hashes and parses only the
files whose identity differs from the cached read, or whose cached read began too soon
after the file's last change for coarse timestamps to tell a later write apart. Nothing
is ever written.

Three caches, all in process memory, make repeated scans cheap. Each has a bound, written
below next to it, and each lets go of what it describes once that is superseded:

- the *read cache* of a scope (a root and one scope directory): the outcome of each file,
  a :class:`StoredRecord` or a skip reason. A changed file gets a new outcome; a file the
  walk of its directory no longer finds is forgotten by that walk.
- the *snapshots* of a scope: per kind of scan (start directory and depth), the walk's
  candidates and results. A scan whose walk finds the same candidates with the same
  identities replays its snapshot. With change notification (``memory/watch.py``) it does
  not even walk while no watched directory has reported an event and the path from the
  root down still leads to the same directories. A snapshot goes when its scan runs again
  or when a file it covers gets a new outcome.
- *directory listings*, by device and inode, reused while the directory is unchanged.

Failures of the filesystem propagate as ``OSError`` for the store to map; the walk also
raises :class:`CandidateLimitExceeded`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeAlias

from mymcp.plugins.mnemosyne.memory import discovery, faults, files
from mymcp.plugins.mnemosyne.memory.records import (
    CanonicalRecord,
    Record,
    RecordInvalid,
    canonical_relative_parts,
    parse_record_bytes,
)
from mymcp.plugins.mnemosyne.memory.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.watch import ChangeFeed

__all__ = [
    "PATH_MISMATCH",
    "FailedRead",
    "RACY_WINDOW_NS",
    "SCOPE_DEPTH",
    "Scanner",
    "StoredRecord",
    "log_skip",
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


def _scaled(bound: int, limit: int) -> int:
    """A bound written for the default candidate limit, for a scanner of ``limit``."""
    return bound * limit // files.MAX_CANDIDATES


@dataclass(eq=False, slots=True)
class StoredRecord:
    """A valid record together with where it lives and what its bytes hash to."""

    record: Record
    parts: tuple[str, ...]  # root-relative, e.g. ("project", "mnemosyne", "mem_….json")
    digest: str  # SHA-256 hex of the file bytes
    # Memo for consumers, one value per consumer's key (recall's terms, a rendered list
    # entry); it goes with this object when the file changes.
    derived: dict[str, object] = field(default_factory=dict)

    @property
    def scope_path(self) -> str:
        """The path below the scope directory, POSIX style."""
        return "/".join(self.parts[1:])


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


@dataclass(slots=True)
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


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """The result of one scan, replayed while nothing it depends on has changed."""

    candidates: list[discovery.Candidate]
    found: tuple[StoredRecord, ...]
    skipped: tuple[Skip, ...]
    walk_skipped: tuple[str, ...] = ()  # warnings of the walk itself (symlink, too_deep)
    since: tuple[int, int] | None = None  # the change feed's mark taken before the walk
    watches: tuple[int, ...] = ()
    chain: tuple[tuple[int, int, int], ...] = ()


# A kind of scan within a scope: (start directory parts, depth).
_ScanKey = tuple[tuple[str, ...], int]


class _ScopeCache:
    """What the scans of one scope have learned; used under the scanner's mutex."""

    __slots__ = ("directories", "entries", "limit", "snapshots")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        # Read outcome per root-relative path; at most MAX_ENTRIES_PER_SCOPE.
        self.entries: dict[tuple[str, ...], _Entry] = {}
        # The same paths by directory, so a walk looks only at the directories it reached.
        self.directories: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
        # Snapshot per kind of scan, least recently kept first; at most MAX_SNAPSHOTS_PER_SCOPE.
        self.snapshots: dict[_ScanKey, _Snapshot] = {}

    def put(self, parts: tuple[str, ...], entry: _Entry | None) -> None:
        """Record (or, with None, forget) the outcome of one file."""
        old = self.entries.pop(parts, None)
        if entry is not None:
            if len(self.entries) >= _scaled(MAX_ENTRIES_PER_SCOPE, self.limit):
                self.entries.clear()
                self.directories.clear()
                self.snapshots.clear()
            self.entries[parts] = entry
            self.directories.setdefault(parts[:-1], set()).add(parts)
        elif old is not None:
            self._unlist(parts)
        if old is not None and (entry is None or entry.outcome is not old.outcome):
            self._release(parts)

    def retain(self, key: _ScanKey, found: set[tuple[str, ...]]) -> None:
        """Forget the files within reach of ``key``'s scan that its walk no longer found."""
        start, depth = key
        size = len(start)
        reached = [d for d in self.directories if len(d) <= size + depth and d[:size] == start]
        for directory in reached:
            for parts in [parts for parts in self.directories[directory] if parts not in found]:
                del self.entries[parts]
                self._unlist(parts)
                self._release(parts)

    def keep(self, key: _ScanKey, snapshot: _Snapshot) -> None:
        self.snapshots.pop(key, None)
        self.snapshots[key] = snapshot
        while len(self.snapshots) > MAX_SNAPSHOTS_PER_SCOPE:
            del self.snapshots[next(iter(self.snapshots))]

    def _unlist(self, parts: tuple[str, ...]) -> None:
        siblings = self.directories[parts[:-1]]
        siblings.discard(parts)
        if not siblings:
            del self.directories[parts[:-1]]

    def _release(self, parts: tuple[str, ...]) -> None:
        """Drop the snapshots covering ``parts``: they hold its superseded outcome."""
        for key in [key for key in self.snapshots if _covers(key, parts)]:
            del self.snapshots[key]


def _covers(key: _ScanKey, parts: tuple[str, ...]) -> bool:
    """Whether the scan ``key`` reaches the file at root-relative ``parts``."""
    start, depth = key
    size = len(start)
    return size < len(parts) <= size + depth + 1 and parts[:size] == start


# --- the scanner ---------------------------------------------------------------------------


class Scanner:
    """Scans and single-file loads over the caches; thread-safe, one per store."""

    def __init__(
        self, clock: Callable[[], int], feed: ChangeFeed, limit: int = files.MAX_CANDIDATES
    ) -> None:
        self._clock = clock
        self._feed = feed
        self._limit = limit
        self._mutex = threading.Lock()
        # Read caches and snapshots by (root, scope), least recently used first; at most
        # MAX_SCOPES.
        self._scopes: dict[tuple[str, str], _ScopeCache] = {}
        self._listings = _Listings(clock, limit)

    def scan(
        self, base: str, start_fd: int, start_parts: tuple[str, ...], depth: int
    ) -> list[StoredRecord]:
        """Every valid record below ``start_fd`` in discovery order; each skip is logged.

        ``base`` is the absolute root and ``start_parts`` the start directory below it, in
        its scope's directory. Directories beyond ``depth`` are skipped; a scan of depth 0
        takes one directory's files and says nothing of its subdirectories.
        """
        scope = start_parts[0]
        cache = self._scope(base, scope)
        key = (start_parts, depth)
        chain = _chain(base, start_parts)
        replay = self._unchanged_snapshot(cache, key, chain)
        if replay is not None:
            return _replayed(scope, replay, walked=False)
        since = self._feed.mark() if chain else None
        walked = _WalkReport(scope, self._feed if since is not None else None)
        candidates = discovery.walk(
            start_fd,
            depth,
            report_too_deep=depth > 0,
            on_skip=walked.skip,
            limit=self._limit,
            entries_of=self._listings.entries,
            on_directory=walked.directory if since is not None else None,
        )
        previous = cache.snapshots.get(key)
        if previous is not None and since is None and previous.candidates == candidates:
            return _replayed(scope, previous, walked=True)
        found, skipped, settled = self._load_all(cache, scope, start_fd, start_parts, candidates)
        snapshot = _Snapshot(candidates, tuple(found), tuple(skipped), tuple(walked.skipped))
        # A file with a second hard link can be written through a directory nobody watches.
        vouched = since is not None and walked.all_watched and not _shares_inodes(candidates)
        if vouched:
            snapshot = dataclasses.replace(
                snapshot, since=since, watches=walked.watches, chain=chain
            )
        with self._mutex:
            cache.retain(key, {start_parts + candidate.parts for candidate in candidates})
            if vouched or settled:
                cache.keep(key, snapshot)
        return found

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
        candidate = discovery.Candidate((parts[-1],), files.identity_of(status))
        cache = self._scope(base, parts[0])
        outcome = self._read(cache, dir_fd, candidate, parts, fresh=fresh)
        if not isinstance(outcome, StoredRecord):
            log_skip(parts[0], outcome)
            return None
        return outcome

    def forget(self, base: str, parts: tuple[str, ...]) -> None:
        """Drop the cached outcome of a file that was just removed."""
        cache = self._scope(base, parts[0])
        with self._mutex:
            cache.put(parts, None)

    def _load_all(
        self,
        cache: _ScopeCache,
        scope: str,
        start_fd: int,
        start_parts: tuple[str, ...],
        candidates: list[discovery.Candidate],
    ) -> tuple[list[StoredRecord], list[Skip], bool]:
        """Every candidate's outcome (cached when trusted); whether all of them were trusted."""
        found: list[StoredRecord] = []
        skipped: list[Skip] = []
        settled = True
        for candidate in candidates:
            parts = start_parts + candidate.parts
            outcome = _trusted_outcome(cache, candidate, parts)
            if outcome is None:
                settled = False
                outcome = self._read(cache, start_fd, candidate, parts, fresh=True)
            if isinstance(outcome, StoredRecord):
                found.append(outcome)
            else:
                skipped.append(outcome)
                log_skip(scope, outcome)
        return found, skipped, settled

    def _read(
        self,
        cache: _ScopeCache,
        dir_fd: int,
        candidate: discovery.Candidate,
        parts: tuple[str, ...],
        *,
        fresh: bool,
    ) -> Outcome:
        if not fresh:
            cached = _trusted_outcome(cache, candidate, parts)
            if cached is not None:
                return cached
        entry = cache.entries.get(parts)
        read_ns = self._clock()
        try:
            content = files.read_candidate(dir_fd, candidate.parts)
        except files.EntrySkipped as skipped:
            # Only skips tied to the file's identity (its size) can be reused.
            kept = None
            if skipped.identity is not None:
                kept = _Entry(skipped.identity, read_ns, None, skipped.reason)
            with self._mutex:
                cache.put(parts, kept)
            return _skip_of(skipped, parts)
        digest = hashlib.sha256(content.data).hexdigest()
        if entry is not None and entry.digest == digest:
            outcome = entry.outcome
        else:
            outcome = _parse(content.data, parts, digest)
        with self._mutex:
            cache.put(parts, _Entry(content.identity, read_ns, digest, outcome))
        return outcome

    def _scope(self, base: str, scope: str) -> _ScopeCache:
        key = (base, scope)
        with self._mutex:
            cache = self._scopes.pop(key, None)
            if cache is None:
                cache = _ScopeCache(self._limit)
            self._scopes[key] = cache
            while len(self._scopes) > MAX_SCOPES:
                del self._scopes[next(iter(self._scopes))]
            return cache

    def _unchanged_snapshot(
        self, cache: _ScopeCache, key: _ScanKey, chain: tuple[tuple[int, int, int], ...]
    ) -> _Snapshot | None:
        """The last snapshot of ``key`` if change notification vouches for it."""
        snapshot = cache.snapshots.get(key)
        if snapshot is None or snapshot.since is None or not chain or snapshot.chain != chain:
            return None
        if not self._feed.unchanged(snapshot.watches, snapshot.since):
            return None
        return snapshot


class _WalkReport:
    """What one walk reports besides its candidates: warnings and directory watches."""

    def __init__(self, scope: str, feed: ChangeFeed | None) -> None:
        self._scope = scope
        self._feed = feed
        self.skipped: list[str] = []
        self._watches: list[int | None] = []

    def skip(self, reason: str) -> None:
        self.skipped.append(reason)
        log_skip(self._scope, reason)

    def directory(self, fd: int) -> None:
        if self._feed is not None:
            self._watches.append(self._feed.watch(fd))

    @property
    def all_watched(self) -> bool:
        return self._feed is not None and None not in self._watches

    @property
    def watches(self) -> tuple[int, ...]:
        return tuple(wd for wd in self._watches if wd is not None)


def _replayed(scope: str, snapshot: _Snapshot, *, walked: bool) -> list[StoredRecord]:
    """The snapshot's records, logging the warnings this scan would have logged."""
    reasons = snapshot.skipped if walked else snapshot.walk_skipped + snapshot.skipped
    for reason in reasons:
        log_skip(scope, reason)
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
            status = files.lstat_at(None, path)
        except OSError:
            return ()
        if status is None or not stat.S_ISDIR(status.st_mode):
            return ()
        chain.append((status.st_dev, status.st_ino, status.st_mode))
    return tuple(chain)


def _shares_inodes(candidates: list[discovery.Candidate]) -> bool:
    links = files.LINKS
    return any(c.identity is not None and c.identity[links] > 1 for c in candidates)


def _trusted_outcome(
    cache: _ScopeCache, candidate: discovery.Candidate, parts: tuple[str, ...]
) -> Outcome | None:
    """The cached outcome for ``parts`` if its entry is trusted for the walk's identity."""
    entry = cache.entries.get(parts)
    if entry is not None and entry.trusted(candidate.identity):
        return entry.outcome
    return None


def _skip_of(skipped: files.EntrySkipped, parts: tuple[str, ...]) -> Skip:
    """The skip's reason, or the failed read when the filesystem refused the bytes."""
    if skipped.reason == files.UNREADABLE and isinstance(skipped.__cause__, OSError):
        return FailedRead(faults.fault_of(skipped.__cause__, parts[:-1]))
    return skipped.reason


def _parse(data: bytes, parts: tuple[str, ...], digest: str) -> Outcome:
    try:
        record = parse_record_bytes(data)
    except RecordInvalid as invalid:
        return invalid.reason
    if isinstance(record, CanonicalRecord) and record_parts(record) != parts:
        return PATH_MISMATCH
    return StoredRecord(record, parts, digest)


# --- directory listings --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Listing:
    change: tuple[int, int]  # the directory's (st_mtime_ns, st_ctime_ns) before listing
    listed_ns: int
    entries: discovery.Entries


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
            return known.entries
        listed_ns = self._clock()
        entries = discovery.list_entries(fd)
        if all(kind is not files.UNREADABLE for _, kind in entries):
            self._keep(key, _Listing(change, listed_ns, entries))
        return entries

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
