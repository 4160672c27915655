"""Revising: replace every mutable text of one stored memory at a known revision.

The caller sends the complete new state of the labels, title, content and tags. The
content policy sees those values before the record is even looked up. Then, inside one
critical section of the memory root, the record is loaded, its revision compared with the
one the caller saw, and the replacement written atomically. Identity, kind, language,
provenance, lifecycle state and the creation and event times are never touched, and a
request equal to what is stored writes nothing.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from mymcp.plugins.mnemosyne.memory import policy
from mymcp.plugins.mnemosyne.memory.model.errors import InvalidRequest
from mymcp.plugins.mnemosyne.memory.model.records import CanonicalRecord, Collection, Namespace
from mymcp.plugins.mnemosyne.memory.model.references import CanonicalReference
from mymcp.plugins.mnemosyne.memory.services.inspect import load_current
from mymcp.plugins.mnemosyne.memory.services.lifecycle import (
    Changed,
    Clock,
    checked_current,
    now_timestamp,
    replace_record,
)
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore

__all__ = ["ALREADY_CURRENT", "REVISED", "Revision", "revise"]

REVISED: Final = "revised"
ALREADY_CURRENT: Final = "already_current"


@dataclass(frozen=True)
class Revision:
    """The requested mutable state, every value already normalized.

    ``collection_label`` is None both when it was sent as null and when it was omitted.
    """

    namespace_label: str | None
    collection_label: str | None
    title: str | None
    content: str
    tags: tuple[str, ...]

    def matches(self, record: CanonicalRecord) -> bool:
        """True when ``record`` already holds exactly these values (tags in order, by case)."""
        collection_label = None if record.collection is None else record.collection.label
        return (
            record.namespace.label == self.namespace_label
            and collection_label == self.collection_label
            and record.title == self.title
            and record.content == self.content
            and record.tags == self.tags
        )

    def applied_to(self, record: CanonicalRecord, updated_at: str) -> CanonicalRecord:
        """The next revision of ``record`` carrying these values."""
        namespace = Namespace(record.namespace.kind, record.namespace.id, self.namespace_label)
        collection = record.collection
        if collection is not None:
            collection = Collection(collection.id, self.collection_label)
        return dataclasses.replace(
            record,
            namespace=namespace,
            collection=collection,
            title=self.title,
            content=self.content,
            tags=self.tags,
            revision=record.revision + 1,
            updated_at=updated_at,
        )


def revise(
    store: MemoryStore,
    root: Path,
    reference: CanonicalReference,
    expected_revision: int,
    revision: Revision,
    *,
    clock: Clock | None = None,
) -> Changed:
    """Replace the mutable text of the referenced record (``revised``) or find it equal
    (``already_current``).

    Raises ContentRefused (before any read), NotFound, Conflict (``revision_conflict``,
    ``write_conflict``), InvalidRequest (``invalid_collection`` for a collection label on a
    record without collection; ``invalid_record``/``revision`` for a replacement that
    cannot be stored), OutcomeUncertain and storage errors.
    """
    policy.check_values(
        policy.revise_values(
            revision.namespace_label,
            revision.collection_label,
            revision.title,
            revision.content,
            revision.tags,
        )
    )
    load_current(store, root, reference)  # a missing record never gets the root created
    with store.lock(root, create=False):
        stored, record = checked_current(store, root, reference, expected_revision)
        if record.collection is None and revision.collection_label is not None:
            raise InvalidRequest("invalid_collection", field="collection_label")
        if revision.matches(record):
            return Changed(ALREADY_CURRENT, record)
        new = revision.applied_to(record, now_timestamp(clock))
        written = replace_record(store, root, stored, new, invalid=_invalid_revision)
    return Changed(REVISED, written)


def _invalid_revision() -> InvalidRequest:
    return InvalidRequest("invalid_record", field="revision")
