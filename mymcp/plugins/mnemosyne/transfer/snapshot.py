"""Everything a memory root holds, read at one moment: the valid records and what is skipped.

The whole walk runs while the root's write lock is held, so no Tool, server or import
changes a file in between: the snapshot shows the notebook as it was at one instant. Only
reading happens under the lock; what is done with the snapshot (encoding it, writing it
to a pipe that may block) happens after the lock is released.

Each scope is walked the way recall walks it (``memory/storage/discovery.py``: depth, symlinks,
names in code point order) without its candidate bound, each file is read with the
store's no-follow, size-checked read and parsed by the record parser, and every file that
recall and list skip is named with its root-relative path and the reason.
"""

from __future__ import annotations

import stat
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mymcp.plugins.mnemosyne.memory.model.errors import NotFound
from mymcp.plugins.mnemosyne.memory.model.records import (
    CanonicalRecord,
    LegacyRecord,
    Record,
    RecordInvalid,
    parse_record_bytes,
)
from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.storage import discovery, files
from mymcp.plugins.mnemosyne.memory.storage.scan import PATH_MISMATCH, SCOPE_DEPTH, record_parts
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore

__all__ = ["NOT_A_DIRECTORY", "NOT_A_SCOPE", "Found", "Skipped", "Snapshot", "read_snapshot"]

# Skip reasons of the snapshot besides the store's: an entry of the root that is no scope
# folder, and a scope path that is not a folder.
NOT_A_SCOPE = "not_a_scope"
NOT_A_DIRECTORY = "not_a_directory"

_ALL = sys.maxsize  # a snapshot takes every record, past the store's candidate bound too


@dataclass(frozen=True)
class Found:
    """A valid record and its root-relative path parts."""

    record: Record
    parts: tuple[str, ...]

    @property
    def scope(self) -> Scope:
        return Scope(self.parts[0])

    @property
    def path(self) -> str:
        return "/".join(self.parts)


@dataclass(frozen=True)
class Skipped:
    """An entry recall and list skip: its root-relative path (a folder ends in ``/``)."""

    path: str
    reason: str


@dataclass
class Snapshot:
    """The valid records in notebook order and the skipped entries in path order."""

    records: list[Found] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def sort(self) -> None:
        self.records.sort(key=_order)
        self.skipped.sort(key=lambda entry: entry.path)


def read_snapshot(
    store: MemoryStore,
    root: Path,
    scopes: Iterable[Scope],
    *,
    known: Mapping[tuple[str, ...], Record] | None = None,
) -> Snapshot:
    """The records and skipped entries of ``scopes`` below ``root``, read under its lock.

    ``known`` holds records already read at their root-relative path parts (the store's
    cached scans); a file the walk finds there is taken from it instead of being read again.
    A missing root is an empty notebook. Raises ``OSError`` when a folder cannot be listed
    and the store's errors when the root cannot be locked.
    """
    selected = tuple(scopes)
    snapshot = Snapshot()
    try:
        with store.lock(root, create=False):
            with files.closing_fd(files.open_directory(root, follow=True)) as root_fd:
                if set(selected) == set(Scope):
                    snapshot.skipped += _strangers(root_fd)
                for scope in selected:
                    _read_scope(root_fd, scope, snapshot, known or {})
    except NotFound:
        return snapshot
    snapshot.sort()
    return snapshot


def _strangers(root_fd: int) -> list[Skipped]:
    """Entries of the root that no scope reads (hidden names are left out)."""
    scopes = {str(scope) for scope in Scope}
    return [
        Skipped(entry.name + ("/" if entry.is_dir(follow_symlinks=False) else ""), NOT_A_SCOPE)
        for entry in files.list_directory(root_fd)
        if entry.name not in scopes and not entry.name.startswith(".")
    ]


def _read_scope(
    root_fd: int, scope: Scope, snapshot: Snapshot, known: Mapping[tuple[str, ...], Record]
) -> None:
    name = str(scope)
    status = files.lstat_at(root_fd, name)
    if status is None:
        return
    if stat.S_ISLNK(status.st_mode):
        snapshot.skipped.append(Skipped(f"{name}/", files.SYMLINK))
        return
    if not stat.S_ISDIR(status.st_mode):
        snapshot.skipped.append(Skipped(name, NOT_A_DIRECTORY))
        return

    def skip(reason: str, parts: tuple[str, ...]) -> None:
        shown = "/".join((name, *parts)) + ("/" if reason == discovery.TOO_DEEP else "")
        snapshot.skipped.append(Skipped(shown, reason))

    with files.closing_fd(files.open_subdirectory(root_fd, name)) as scope_fd:
        walked = discovery.walk(
            scope_fd, SCOPE_DEPTH, report_too_deep=True, on_skip_at=skip, limit=_ALL
        )
        for candidate in walked:
            parts = (name, *candidate.parts)
            outcome = known.get(parts) or _read(scope_fd, candidate.parts, parts)
            if isinstance(outcome, str):
                snapshot.skipped.append(Skipped("/".join(parts), outcome))
            else:
                snapshot.records.append(Found(outcome, parts))


def _read(scope_fd: int, below: tuple[str, ...], parts: tuple[str, ...]) -> Record | str:
    """The valid record in one candidate file, or the reason recall and list skip it."""
    try:
        record = parse_record_bytes(files.read_candidate(scope_fd, below).data)
    except (files.EntrySkipped, RecordInvalid) as skipped:
        return skipped.reason
    if isinstance(record, CanonicalRecord) and record_parts(record) != parts:
        return PATH_MISMATCH
    return record


def _order(found: Found) -> tuple[object, ...]:
    """Scopes in their order; in each, the order of ``memory_list`` (version 1 first)."""
    record = found.record
    scope = list(Scope).index(found.scope)
    if isinstance(record, LegacyRecord):
        return (scope, 1, record.id, found.path)
    collection = "" if record.collection is None else record.collection.id
    return (scope, 2, record.namespace.id, record.collection is not None, collection, record.id)
