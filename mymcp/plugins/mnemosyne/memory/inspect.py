"""Inspect: look one memory up by its versioned reference and show everything it holds.

A version 2 reference names one exact file; a version 1 reference names a legacy ID that
is searched for across the whole scope and must occur in exactly one valid legacy file.
Archived records are shown like active ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

from mymcp.plugins.mnemosyne.memory.errors import Conflict, NotFound
from mymcp.plugins.mnemosyne.memory.records import (
    CanonicalRecord,
    LegacyRecord,
    Record,
    canonical_record_dict,
)
from mymcp.plugins.mnemosyne.memory.store import MemoryStore
from mymcp.plugins.mnemosyne.memory.vocabulary import Scope

__all__ = [
    "CanonicalReference",
    "LegacyReference",
    "Reference",
    "inspect_memory",
    "memory_view",
    "reference_dict",
]


@dataclass(frozen=True)
class CanonicalReference:
    """Where a version 2 record lives: its scope, namespace, collection (or none) and ID."""

    scope: Scope
    namespace_id: str
    collection_id: str | None
    id: str


@dataclass(frozen=True)
class LegacyReference:
    """A version 1 record: its scope and its legacy ID."""

    scope: Scope
    id: str


Reference: TypeAlias = CanonicalReference | LegacyReference


def inspect_memory(store: MemoryStore, root: Path, reference: Reference) -> Record:
    """The record the reference names.

    Raises :class:`NotFound` (no valid record there), :class:`Conflict`
    (``ambiguous_reference``: a legacy ID held by several valid files) and the store's
    storage errors.
    """
    if isinstance(reference, CanonicalReference):
        return _canonical(store, root, reference)
    return _legacy(store, root, reference)


def _canonical(store: MemoryStore, root: Path, reference: CanonicalReference) -> Record:
    stored = store.load_canonical(
        root, reference.scope, reference.namespace_id, reference.collection_id, reference.id
    )
    if stored is None:
        raise NotFound()
    return stored.record


def _legacy(store: MemoryStore, root: Path, reference: LegacyReference) -> Record:
    matches = [
        stored.record
        for stored in store.inspect_legacy_scan(root, reference.scope)
        if isinstance(stored.record, LegacyRecord) and stored.record.id == reference.id
    ]
    if not matches:
        raise NotFound()
    if len(matches) > 1:
        raise Conflict("ambiguous_reference")
    return matches[0]


def reference_dict(record: Record, scope: Scope) -> dict[str, Any]:
    """The versioned reference a client passes back to name ``record`` (found in ``scope``)."""
    if isinstance(record, LegacyRecord):
        return {"schema_version": 1, "scope": scope.value, "id": record.id}
    return {
        "schema_version": 2,
        "scope": record.scope.value,
        "namespace_id": record.namespace.id,
        "collection_id": None if record.collection is None else record.collection.id,
        "id": record.id,
    }


def memory_view(record: Record, scope: Scope) -> dict[str, Any]:
    """Everything a record holds, led by its reference.

    A canonical record shows its normalized fields in file order; a legacy record shows
    only what version 1 can say, verbatim, with ``title`` and ``tags`` always present.
    """
    view: dict[str, Any] = {"reference": reference_dict(record, scope)}
    if isinstance(record, CanonicalRecord):
        view.update(canonical_record_dict(record))
    else:
        view.update(_legacy_fields(record))
    return view


def _legacy_fields(record: LegacyRecord) -> dict[str, Any]:
    # A field the file holds keeps its place around ``content``; absent ones follow it.
    fields: dict[str, Any] = {"schema_version": 1, "id": record.id}
    if "title" in record.field_order:
        fields["title"] = record.title
    fields["content"] = record.content
    if "tags" in record.field_order:
        fields["tags"] = list(record.tags)
    fields.setdefault("title", None)
    fields.setdefault("tags", [])
    return fields
