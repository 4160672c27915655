"""Inspect: look one memory up by its versioned reference and show everything it holds.

A version 2 reference names one exact file; a version 1 reference names a legacy ID that
is searched for across the whole scope and must occur in exactly one valid legacy file.
Archived records are shown like active ones.
"""

from __future__ import annotations

from pathlib import Path

from mymcp.jsonvalue import JsonObject
from mymcp.plugins.mnemosyne.memory.model.errors import Conflict, NotFound
from mymcp.plugins.mnemosyne.memory.model.records import (
    LEGACY_VERSION,
    CanonicalRecord,
    LegacyRecord,
    Record,
    canonical_record_dict,
)
from mymcp.plugins.mnemosyne.memory.model.references import (
    CanonicalReference,
    LegacyReference,
    Reference,
    reference_dict,
)
from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore, StoredRecord

__all__ = ["inspect_memory", "load_current", "memory_view"]


def inspect_memory(store: MemoryStore, root: Path, reference: Reference) -> Record:
    """The record the reference names.

    Raises :class:`NotFound` (no valid record there), :class:`Conflict`
    (``ambiguous_reference``: a legacy ID held by several valid files) and the store's
    storage errors.
    """
    if isinstance(reference, CanonicalReference):
        return load_current(store, root, reference)[1]
    return _legacy(store, root, reference)


def load_current(
    store: MemoryStore, root: Path, reference: CanonicalReference
) -> tuple[StoredRecord, CanonicalRecord]:
    """The valid version 2 record at the reference's exact path, with its stored form.

    Raises :class:`NotFound` when there is none (missing, invalid, misplaced or legacy)
    and :class:`SourceUnavailable` for a symlinked component.
    """
    stored = store.load_canonical(
        root, reference.scope, reference.namespace_id, reference.collection_id, reference.id
    )
    if stored is None or not isinstance(stored.record, CanonicalRecord):
        raise NotFound()
    return stored, stored.record


def _legacy(store: MemoryStore, root: Path, reference: LegacyReference) -> Record:
    matches = [
        stored
        for stored in store.inspect_legacy_scan(root, reference.scope)
        if stored.legacy_id == reference.id
    ]
    if not matches:
        raise NotFound()
    if len(matches) > 1:
        raise Conflict("ambiguous_reference")
    return matches[0].record


def memory_view(record: Record, scope: Scope) -> JsonObject:
    """Everything a record holds, led by its reference.

    A canonical record shows its normalized fields in file order; a legacy record shows
    only what version 1 can say, verbatim, with ``title`` and ``tags`` always present.
    """
    view: JsonObject = {"reference": reference_dict(record, scope)}
    if isinstance(record, CanonicalRecord):
        view.update(canonical_record_dict(record))
    else:
        view.update(_legacy_fields(record))
    return view


def _legacy_fields(record: LegacyRecord) -> JsonObject:
    # A field the file holds keeps its place around ``content``; absent ones follow it.
    fields: JsonObject = {"schema_version": LEGACY_VERSION, "id": record.id}
    if "title" in record.field_order:
        fields["title"] = record.title
    fields["content"] = record.content
    if "tags" in record.field_order:
        fields["tags"] = list(record.tags)
    fields.setdefault("title", None)
    fields.setdefault("tags", [])
    return fields
