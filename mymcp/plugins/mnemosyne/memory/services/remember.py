"""Remembering: turn a validated draft into a new record, unless an equal one already exists.

The content policy looks at the draft before anything on disk is touched. Then, inside one
critical section of the memory root (shared by threads and processes), the scope is
searched for a record with the same identity and, when there is none, the new record is
published. Two identical drafts racing each other therefore produce exactly one file.

A valid record sits exactly at the path its own scope, namespace and collection name, so
an equal record can only live in the directory the draft would be written to: that one
directory is loaded (through the store's cache) and compared. The rest of the scope is
only counted, so that a scope past the candidate bound still refuses every write. A
symlinked root is read through for this search, as recall reads through it, so an equal
record behind it is still reported; nothing new is ever published below such a root.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from mymcp.plugins.mnemosyne.memory import policy
from mymcp.plugins.mnemosyne.memory.model.errors import MnemosyneError, NotFound, SourceUnavailable
from mymcp.plugins.mnemosyne.memory.model.records import (
    CanonicalRecord,
    duplicate_hash,
    duplicate_key,
)
from mymcp.plugins.mnemosyne.memory.model.values import format_timestamp, is_canonical_id
from mymcp.plugins.mnemosyne.memory.model.vocabulary import LifecycleState, RecordedVia
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore, StoredRecord, encode_record

__all__ = [
    "ALREADY_EXISTS",
    "EXISTING_ARCHIVED",
    "REMEMBERED",
    "Draft",
    "Remembered",
    "duplicate_key",
    "new_memory_id",
    "remember",
]

REMEMBERED: Final = "remembered"
ALREADY_EXISTS: Final = "already_exists"
EXISTING_ARCHIVED: Final = "existing_archived"

# Stand-ins of the same length as the real values, to check a draft before the lock.
_PLACEHOLDER_ID: Final = "mem_" + "0" * 32
_PLACEHOLDER_TIME: Final = "2000-01-01T00:00:00Z"


# A memory as the caller proposed it, every value already normalized: a record whose ID and
# times are stand-ins of the real ones' length until :func:`remember` stores it.
Draft: Final = functools.partial(
    CanonicalRecord,
    id=_PLACEHOLDER_ID,
    recorded_via=RecordedVia.MEMORY_REMEMBER,
    state=LifecycleState.ACTIVE,
    revision=1,
    created_at=_PLACEHOLDER_TIME,
    updated_at=_PLACEHOLDER_TIME,
)


@dataclass(frozen=True)
class Remembered:
    """The outcome: ``remembered`` with the new record, or the duplicate that was found."""

    status: str
    record: CanonicalRecord


def new_memory_id() -> str:
    """A fresh random canonical memory ID."""
    memory_id = "mem_" + uuid.uuid4().hex
    if not is_canonical_id(memory_id):
        raise MnemosyneError()
    return memory_id


def _utc_now() -> datetime:
    return datetime.now(UTC)


def remember(
    store: MemoryStore,
    root: Path,
    draft: CanonicalRecord,
    *,
    clock: Callable[[], datetime] = _utc_now,
) -> Remembered:
    """Store ``draft`` as a new record below ``root``, or report the equal record found.

    Raises ContentRefused (policy), InvalidRequest (a draft that cannot be serialized),
    CandidateLimitExceeded, SourceUnavailable, Conflict (``write_conflict``) and
    MnemosyneError when the published record cannot be read back.
    """
    policy.check_values(
        policy.remember_values(
            draft.namespace.id,
            draft.namespace.label,
            draft.collection_id,
            None if draft.collection is None else draft.collection.label,
            draft.title,
            draft.content,
            draft.tags,
        )
    )
    # An unstorable draft (e.g. a lone surrogate) fails here, before the root is created.
    encode_record(draft)
    with ExitStack() as held:
        linked = _hold_root(held, store, root)
        existing = _find_duplicate(_candidates(store, root, draft, linked=linked), draft)
        if existing is not None:
            status = (
                ALREADY_EXISTS if existing.state is LifecycleState.ACTIVE else EXISTING_ARCHIVED
            )
            return Remembered(status, existing)
        now = format_timestamp(clock())
        record = dataclasses.replace(draft, id=new_memory_id(), created_at=now, updated_at=now)
        stored = store.create(root, record)
    if not isinstance(stored.record, CanonicalRecord):
        raise MnemosyneError()
    return Remembered(REMEMBERED, stored.record)


def _hold_root(held: ExitStack, store: MemoryStore, root: Path) -> bool:
    """Take the root's write lock for the search and the publication; True for a symlink.

    A symlinked root is followed for the search, as recall reads through one, so an equal
    record behind it is still reported; the store refuses to publish below such a root.
    """
    if not os.path.islink(root):
        held.enter_context(store.lock(root))
        return False
    try:
        held.enter_context(store.lock(root, create=False))
    except NotFound as exc:  # a dangling link: nothing to search and nowhere to write
        raise SourceUnavailable() from exc
    return True


def _find_duplicate(found: list[StoredRecord], draft: CanonicalRecord) -> CanonicalRecord | None:
    # The stored records keep a hash of their duplicate identity; only a record with the
    # same hash is read whole and compared.
    wanted = duplicate_key(draft)
    wanted_hash = duplicate_hash(draft)
    for stored in found:
        if stored.duplicate != wanted_hash:
            continue
        record = stored.record
        if isinstance(record, CanonicalRecord) and duplicate_key(record) == wanted:
            return record
    return None


def _candidates(
    store: MemoryStore, root: Path, draft: CanonicalRecord, *, linked: bool
) -> list[StoredRecord]:
    """The valid records an equal memory could be among, in discovery order.

    That is the draft's destination directory; behind a symlinked root, which the
    directory listing refuses, the whole scope is walked the way recall walks it.
    Raises CandidateLimitExceeded when the whole scope holds more candidates than the bound.
    """
    store.check_candidate_bound(root, draft.scope)
    if linked:
        return store.recall_scan(root, draft.scope)
    if draft.collection is None:
        return store.list_scan(root, draft.scope, draft.namespace.id, "none", None)
    return store.list_scan(root, draft.scope, draft.namespace.id, "exact", draft.collection.id)
