"""Lifecycle changes of a stored memory: archive, restore and forget.

Each operation names one version 2 record by its reference and the revision the caller
last saw. The load, the revision and state checks and the write of one call happen inside
one critical section of the memory root, held against other threads and other processes,
so two calls racing at the same revision end in one success and one clean conflict.

A stale revision is reported before anything else about the record's state. Archive and
restore flip the state, bump the revision and stamp ``updated_at``; asking for the state
the record is already in changes nothing. Forget removes the file of an archived record
and keeps no trace of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from mymcp.plugins.mnemosyne.memory.model.errors import (
    Conflict,
    InvalidRequest,
    MnemosyneError,
    NotFound,
)
from mymcp.plugins.mnemosyne.memory.model.records import CanonicalRecord
from mymcp.plugins.mnemosyne.memory.model.references import REFERENCE, CanonicalReference
from mymcp.plugins.mnemosyne.memory.model.values import format_timestamp
from mymcp.plugins.mnemosyne.memory.model.vocabulary import LifecycleState
from mymcp.plugins.mnemosyne.memory.services.inspect import load_current
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore, StoredRecord

__all__ = [
    "ALREADY_ACTIVE",
    "ALREADY_ARCHIVED",
    "ARCHIVED",
    "Changed",
    "Clock",
    "RESTORED",
    "change_state",
    "checked_current",
    "forget",
    "now_timestamp",
    "replace_record",
]

ARCHIVED: Final = "archived"
ALREADY_ARCHIVED: Final = "already_archived"
RESTORED: Final = "restored"
ALREADY_ACTIVE: Final = "already_active"

Clock = Callable[[], datetime]


@dataclass(frozen=True)
class Changed:
    """The outcome of a replacing operation: its status and the record as it now stands."""

    status: str
    record: CanonicalRecord


# The status of a state change that was made, and of one that was not needed.
_STATUSES: Final = {
    LifecycleState.ARCHIVED: (ARCHIVED, ALREADY_ARCHIVED),
    LifecycleState.ACTIVE: (RESTORED, ALREADY_ACTIVE),
}


def _utc_now() -> datetime:
    return datetime.now(UTC)


def now_timestamp(clock: Clock | None = None) -> str:
    """The current UTC time as a record timestamp (seconds), read from ``clock`` if given."""
    return format_timestamp((clock or _utc_now)())


# --- shared steps (revise uses them too) ------------------------------------------------


def checked_current(
    store: MemoryStore, root: Path, reference: CanonicalReference, expected_revision: int
) -> tuple[StoredRecord, CanonicalRecord]:
    """Load the record and require it to be at ``expected_revision``.

    Call with the root's lock held so that the answer stays true until the write.
    """
    stored, record = load_current(store, root, reference)
    if record.revision != expected_revision:
        raise Conflict("revision_conflict")
    return stored, record


def replace_record(
    store: MemoryStore,
    root: Path,
    current: StoredRecord,
    new: CanonicalRecord,
    *,
    invalid: Callable[[], InvalidRequest],
) -> CanonicalRecord:
    """Atomically write ``new`` over ``current`` and return the record as read back.

    A replacement that cannot be serialized is reported as the error ``invalid`` builds;
    a read-back that is not ``new`` is an internal error.
    """
    try:
        stored = store.replace(root, current, new)
    except InvalidRequest as exc:
        raise invalid() from exc
    if not isinstance(stored.record, CanonicalRecord):
        raise NotFound()
    if stored.record != new:
        raise MnemosyneError()
    return stored.record


# --- the operations ---------------------------------------------------------------------


def change_state(
    store: MemoryStore,
    root: Path,
    reference: CanonicalReference,
    expected_revision: int,
    target: LifecycleState,
    *,
    clock: Clock | None = None,
) -> Changed:
    """Archive or restore: bring the record into the ``target`` state.

    Archiving hides an active record from recall (``archived``), restoring returns an
    archived one (``restored``); a record already in that state is left alone
    (``already_archived``, ``already_active``). Raises NotFound, Conflict,
    OutcomeUncertain and storage errors.
    """
    done, unchanged = _STATUSES[target]
    load_current(store, root, reference)  # a missing record never gets the root created
    with store.lock(root, create=False):
        stored, record = checked_current(store, root, reference, expected_revision)
        if record.state is target:
            return Changed(unchanged, record)
        new = dataclasses.replace(
            record, state=target, revision=record.revision + 1, updated_at=now_timestamp(clock)
        )
        written = replace_record(store, root, stored, new, invalid=_invalid_reference)
    return Changed(done, written)


def _invalid_reference() -> InvalidRequest:
    return InvalidRequest("invalid_reference", field=REFERENCE)


def forget(
    store: MemoryStore, root: Path, reference: CanonicalReference, expected_revision: int
) -> None:
    """Physically remove an archived record's file; nothing else is touched or kept.

    Raises NotFound (also for a second forget), Conflict (``revision_conflict``,
    ``not_archived``, ``write_conflict``), OutcomeUncertain
    (``deletion_outcome_uncertain``) and storage errors.
    """
    load_current(store, root, reference)
    with store.lock(root, create=False):
        stored, record = checked_current(store, root, reference, expected_revision)
        if record.state is not LifecycleState.ARCHIVED:
            raise Conflict("not_archived")
        store.delete(root, stored)
