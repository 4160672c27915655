"""Importing records into a memory root, or saying what an import would do (the dry run).

Both readers (our own export, ``document.py``, and the official memory server's file,
``server_memory.py``) turn a file into a sequence of entries: an :class:`Incoming` record,
or a :class:`Line` that already says why something is not imported. Each incoming record
gets the rules of ``memory_remember``, in its order:

1. the content policy, through the calls remember makes, before anything is read;
2. the record must encode into a record file that parses back unchanged;
3. an equal record by the duplicate rule of remember, in the directory it would go to
   (for our own export also a record with the same id there), means it is already there;
4. the candidate bound: a record goes into a scope only while that scope holds fewer record
   files than the store's candidate limit (1,000 unless the operator raised it), so that
   recall and list keep working there;
5. the record is published through the store, atomically, never replacing a file.

The dry run reads and never writes. ``apply`` writes record by record, in batches that each
hold the root's write lock for a fraction of a second: inside a batch nothing else changes
the notebook, between batches a running server's Tools get their turn. Every check of a
batch is made under its lock, so an interrupted import leaves complete records only, and
running it again finds them already there.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

from mymcp.plugins.mnemosyne.memory import policy
from mymcp.plugins.mnemosyne.memory.model.errors import (
    CandidateLimitExceeded,
    Conflict,
    ContentRefused,
    InvalidRequest,
)
from mymcp.plugins.mnemosyne.memory.model.records import (
    CanonicalRecord,
    LegacyRecord,
    Record,
    duplicate_hash,
    duplicate_key,
)
from mymcp.plugins.mnemosyne.memory.model.values import format_timestamp
from mymcp.plugins.mnemosyne.memory.model.vocabulary import LifecycleState, Scope
from mymcp.plugins.mnemosyne.memory.services.remember import new_memory_id
from mymcp.plugins.mnemosyne.memory.storage.scan import record_parts
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore, StoredRecord, encode_record

__all__ = ["Entry", "Incoming", "Kind", "Line", "import_entries"]

# A batch holds the root's lock for at most this long, or this many records.
BATCH_SECONDS = 0.2
BATCH_RECORDS = 200


class Kind(StrEnum):
    """What became of an entry: created, already there, refused or invalid."""

    CREATE = "create"
    EXISTS = "exists"
    REFUSED = "refused"
    INVALID = "invalid"


@dataclass(frozen=True)
class Line:
    """One line of the report: what became of the entry at ``where``, and why."""

    kind: Kind
    where: str
    detail: str


@dataclass(frozen=True)
class Incoming:
    """A record to import, found at ``where`` in the file.

    ``parts`` is its root-relative path. A ``fresh`` record is a new memory, as remember
    makes one: it gets a new id and the current time when it is written, so its ``parts``
    only name the directory it goes to. ``note`` is added to its report line.
    """

    where: str
    record: Record
    parts: tuple[str, ...]
    fresh: bool = False
    note: str = ""


Entry = Incoming | Line


def import_entries(
    store: MemoryStore,
    root: Path,
    entries: Iterable[Entry],
    *,
    apply: bool,
    emit: Callable[[Line], None],
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> Counter[Kind]:
    """Import (``apply``) or look at (dry run) every entry; each outcome goes to ``emit``.

    Returns the count of each kind. Raises the store's errors (``SourceUnavailable``) when
    the root cannot be read or written; every line of the records written before is
    emitted first.
    """
    counts: Counter[Kind] = Counter()

    def report(line: Line) -> None:
        counts[line.kind] += 1
        emit(line)

    stream = _screened(entries)
    if apply:
        _apply(_Writer(store, root, clock), stream, report)
    else:
        view = _View(store, root, set())
        for entry in stream:
            report(entry if isinstance(entry, Line) else view.settle(entry, write=None))
    return counts


def _apply(writer: _Writer, stream: Iterator[Entry], report: Callable[[Line], None]) -> None:
    entry = next(stream, None)
    while entry is not None:
        lines: list[Line] = []
        try:
            if isinstance(entry, Line):
                lines.append(entry)
                entry = next(stream, None)
            else:
                entry = _batch(writer, entry, stream, lines)
        finally:
            # Reported only once the lock is released: the output may be a blocked pipe.
            for line in lines:
                report(line)


def _screened(entries: Iterable[Entry]) -> Iterator[Entry]:
    """The entries, each record the policy refuses or that cannot be stored as its Line.

    These checks need no file, so a refused record never takes the lock, let alone makes
    the memory root.
    """
    for entry in entries:
        yield entry if isinstance(entry, Line) else (_problem(entry) or entry)


def _batch(
    writer: _Writer, first: Incoming, stream: Iterator[Entry], lines: list[Line]
) -> Entry | None:
    """Settle ``first`` and the entries after it under one hold of the lock.

    Returns the next entry left for the following batch, or None after the last one.
    """
    deadline = time.monotonic() + BATCH_SECONDS
    with writer.store.lock(writer.root):
        view = _View(writer.store, writer.root, writer.created)
        entry: Entry | None = first
        while entry is not None and len(lines) < BATCH_RECORDS:
            if time.monotonic() > deadline and lines:
                break
            lines.append(entry if isinstance(entry, Line) else view.settle(entry, write=writer))
            entry = next(stream, None)
    return entry


# --- writing ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Writer:
    store: MemoryStore
    root: Path
    clock: Callable[[], datetime]
    created: set[tuple[str, ...]] = field(default_factory=set)  # paths, over all batches

    def write(self, entry: Incoming) -> tuple[Record, tuple[str, ...]]:
        """Publish the entry's record; the record as written and its path parts."""
        record = entry.record
        if isinstance(record, LegacyRecord):
            self.store.create_legacy(self.root, entry.parts, record)
            return record, entry.parts
        if entry.fresh:
            now = format_timestamp(self.clock())
            record = dataclasses.replace(record, id=new_memory_id(), created_at=now, updated_at=now)
        stored = self.store.create(self.root, record)
        return stored.record, stored.parts


# --- what the notebook holds -----------------------------------------------------------------


# A record of a directory: one found there (read whole only when it must be compared) or
# one this import put there.
_Known = StoredRecord | CanonicalRecord


def _whole(known: _Known) -> CanonicalRecord:
    record = known.record if isinstance(known, StoredRecord) else known
    assert isinstance(record, CanonicalRecord)
    return record


@dataclass
class _Directory:
    """The valid version 2 records of one directory, by id and by the hash of their
    duplicate identity, in the order they were found."""

    ids: dict[str, _Known] = field(default_factory=dict)
    keys: dict[int | None, list[_Known]] = field(default_factory=dict)

    def add(self, known: _Known) -> None:
        self.ids.setdefault(known.id, known)
        if isinstance(known, StoredRecord):
            duplicate = known.duplicate
        else:
            duplicate = duplicate_hash(known)
        self.keys.setdefault(duplicate, []).append(known)

    def same_id(self, record_id: str) -> CanonicalRecord | None:
        known = self.ids.get(record_id)
        return None if known is None else _whole(known)

    def equal(self, record: CanonicalRecord) -> CanonicalRecord | None:
        """The first record found that is equal to ``record`` by the duplicate rule."""
        wanted = duplicate_key(record)
        for known in self.keys.get(duplicate_hash(record), ()):
            whole = _whole(known)
            if duplicate_key(whole) == wanted:
                return whole
        return None


class _View:
    """What the notebook holds where the entries go, as far as this view has looked.

    It reads each directory and counts each scope once, then adds what it settles as
    created, so later entries see earlier ones (in a dry run too, where nothing is written).
    """

    def __init__(self, store: MemoryStore, root: Path, ours: set[tuple[str, ...]]) -> None:
        self._store = store
        self._root = root
        self._directories: dict[tuple[str, ...], _Directory] = {}
        self._legacy: dict[tuple[str, ...], Record | None] = {}
        self._counts: dict[Scope, int] = {}
        # The paths this import created (or, in a dry run, would create), in every batch.
        self._ours = ours

    def settle(self, entry: Incoming, *, write: _Writer | None) -> Line:
        """The entry's outcome; with a writer, a record to create is written.

        The entry has passed the content policy already (:func:`_screened`).
        """
        scope = Scope(entry.parts[0])
        try:
            there = self._existing(entry)
        except CandidateLimitExceeded as exceeded:
            return _full(entry, scope, exceeded.limit)
        if there is not None:
            return Line(Kind.EXISTS, entry.where, there)
        if self._count(scope) >= self._store.candidate_limit:
            return _full(entry, scope, self._store.candidate_limit)
        record, parts = entry.record, entry.parts
        if write is not None:
            try:
                record, parts = write.write(entry)
            except Conflict:
                shown = _folder(parts) if entry.fresh else "/".join(parts)
                detail = f"{shown}: another file is at this path; it is kept as it is"
                return Line(Kind.EXISTS, entry.where, detail)
        self._add(record, parts, scope)
        shown = "/".join(parts) if not entry.fresh or write is not None else _folder(parts)
        return Line(Kind.CREATE, entry.where, shown + entry.note)

    def _existing(self, entry: Incoming) -> str | None:
        """Why the entry is already there, or None."""
        record = entry.record
        if isinstance(record, LegacyRecord):
            return self._legacy_there(entry.parts, record)
        directory = self._directory(entry.parts[:-1])
        same = None if entry.fresh else directory.same_id(record.id)
        path = "/".join(entry.parts)
        if same is not None and entry.parts in self._ours:
            return f"{path}: the same id came earlier in this file"
        if same is not None and same == record:
            return f"{path}: the same record is already there"
        if same is not None:
            return (
                f"{path}: a record with this id is there at revision {same.revision} and "
                "differs; it is kept as it is"
            )
        equal = directory.equal(record)
        if equal is None:
            return None
        if record_parts(equal) in self._ours:
            # Two records of one export are two records of its notebook: both come back.
            if not entry.fresh:
                return None
            return (
                "an equal memory came earlier in this file (the duplicate rule of memory_remember)"
            )
        archived = " (archived)" if equal.state is LifecycleState.ARCHIVED else ""
        return (
            f"{'/'.join(record_parts(equal))}: an equal memory is there{archived} "
            "(the duplicate rule of memory_remember)"
        )

    def _legacy_there(self, parts: tuple[str, ...], record: LegacyRecord) -> str | None:
        if parts not in self._legacy:
            stored = self._store.load_file(self._root, parts)
            self._legacy[parts] = None if stored is None else stored.record
        there = self._legacy[parts]
        if there is None:
            return None
        if parts in self._ours:
            return f"{'/'.join(parts)}: the same path came earlier in this file"
        if there == record:
            return f"{'/'.join(parts)}: the same record is already there"
        return f"{'/'.join(parts)}: another record is at this path; it is kept as it is"

    def _directory(self, names: tuple[str, ...]) -> _Directory:
        known = self._directories.get(names)
        if known is None:
            known = _Directory()
            scope, namespace_id, *collection = names
            found = self._store.list_scan(
                self._root,
                Scope(scope),
                namespace_id,
                "exact" if collection else "none",
                collection[0] if collection else None,
            )
            for stored in found:
                if stored.is_canonical:
                    known.add(stored)
            self._directories[names] = known
        return known

    def _count(self, scope: Scope) -> int:
        if scope not in self._counts:
            self._counts[scope] = self._store.candidate_count(self._root, scope)
        return self._counts[scope]

    def _add(self, record: Record, parts: tuple[str, ...], scope: Scope) -> None:
        self._counts[scope] = self._count(scope) + 1
        self._ours.add(parts)
        if isinstance(record, CanonicalRecord):
            self._directory(parts[:-1]).add(record)
        else:
            self._legacy[parts] = record


def _problem(entry: Incoming) -> Line | None:
    """A refusal by the content policy, or a record that cannot be stored, else None."""
    try:
        policy.check_values(_policy_values(entry))
        encode_record(entry.record)
    except ContentRefused as refused:
        return Line(Kind.REFUSED, entry.where, f"{refused.field}: {refused.reason}")
    except InvalidRequest:
        return Line(Kind.INVALID, entry.where, "it cannot be written as a record file")
    return None


def _policy_values(entry: Incoming) -> list[tuple[str, str | None]]:
    """The values the policy looks at: those of memory_remember, for version 1 the path."""
    record = entry.record
    if isinstance(record, CanonicalRecord):
        collection = record.collection
        return policy.remember_values(
            record.namespace.id,
            record.namespace.label,
            record.collection_id,
            None if collection is None else collection.label,
            record.title,
            record.content,
            record.tags,
        )
    return [
        *(("path", name) for name in entry.parts[1:]),
        ("title", record.title),
        ("content", record.content),
        *(("tags", tag) for tag in record.tags),
    ]


def _full(entry: Incoming, scope: Scope, limit: int) -> Line:
    detail = (
        f"scope {scope} already holds {limit:,} record files "
        "(candidate_limit_exceeded); recall and list would stop working past that"
    )
    return Line(Kind.REFUSED, entry.where, detail)


def _folder(parts: tuple[str, ...]) -> str:
    return "/".join(parts[:-1]) + "/"
