"""What the notebook page reads of the notebook, besides what the Tools answer.

The page searches with ``memory_recall``, shows a memory with ``memory_inspect`` and changes
one with the change Tools, all through the runtime's Tool handlers. What no Tool answers is
here: every record of the memory root in notebook order, with what a row of the page shows
(title, kind, state, dates, and where it sits), and the files recall and list skip, with
their path below the root and the reason; the export document; and which setting turns each
change on.

Both reads take the snapshot ``mymcp export`` takes (``transfer/snapshot.py``): one walk of
the six scopes under the root's lock, every file read afresh, so a file changed by hand
shows on the next call. Nothing here creates, changes or logs anything; a root that does not
exist is an empty notebook.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from mymcp.jsonvalue import JsonObject
from mymcp.plugins.mnemosyne.configuration.gates import GATE_VARIABLES
from mymcp.plugins.mnemosyne.configuration.memory_root import (
    memory_root_problem,
    resolve_memory_root,
)
from mymcp.plugins.mnemosyne.memory.model.errors import StorageError
from mymcp.plugins.mnemosyne.memory.model.records import LegacyRecord, Record
from mymcp.plugins.mnemosyne.memory.model.values import format_timestamp
from mymcp.plugins.mnemosyne.memory.model.vocabulary import SCOPE_RULES, Scope
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore
from mymcp.plugins.mnemosyne.tools import inspect, lifecycle, recall, remember, revise
from mymcp.plugins.mnemosyne.tools.framework import MemoryTool
from mymcp.plugins.mnemosyne.transfer.document import build_document, encode_document
from mymcp.plugins.mnemosyne.transfer.snapshot import Found, Snapshot, read_snapshot

__all__ = ["UNAVAILABLE", "export", "overview", "tools", "vocabulary"]

# The Tools the page calls, by the role the page gives each.
_ROLES: Mapping[str, MemoryTool] = {
    "recall": recall.TOOL,
    "inspect": inspect.TOOL,
    "remember": remember.TOOL,
    "revise": revise.TOOL,
    "archive": lifecycle.ARCHIVE,
    "restore": lifecycle.RESTORE,
    "forget": lifecycle.FORGET,
}

# The answer when the memory root cannot be read (its folders are named in no answer).
UNAVAILABLE: JsonObject = {
    "status": "storage_error",
    "code": "memory_source_unavailable",
    "message": "the memory root could not be read; mymcp doctor says why",
}


def overview(environ: Mapping[str, str] | None = None) -> JsonObject:
    """Every record of the root, in notebook order, and every file recall and list skip.

    ``{"status": "ok", "memories": [row, ...], "skipped": [{"path", "reason"}, ...]}``, or
    :data:`UNAVAILABLE`. A row carries the record's reference, scope, namespace, collection,
    title, kind, lifecycle state and revision and its dates (``null`` where version 1 has
    none); never its content or tags.
    """
    snapshot = _snapshot(environ)
    if snapshot is None:
        return dict(UNAVAILABLE)
    return {
        "status": "ok",
        "memories": [_row(found) for found in snapshot.records],
        "skipped": [{"path": entry.path, "reason": entry.reason} for entry in snapshot.skipped],
    }


def export(environ: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """The whole notebook as ``mymcp export`` writes it: a file name and the document's text.

    None when the memory root cannot be read.
    """
    snapshot = _snapshot(environ, cached=False)
    if snapshot is None:
        return None
    now = datetime.now(UTC)
    document = build_document(snapshot, scopes=tuple(Scope), exported_at=format_timestamp(now))
    return f"mymcp-notebook-{now:%Y%m%dT%H%M%SZ}.json", encode_document(document)


def tools() -> list[JsonObject]:
    """The Tools the page calls, each by the role the page gives it, with its gate.

    ``{"role", "tool", "variable", "setting"}``: the Tool's public name and the environment
    variable and ``config.toml`` key that switch it on (both ``null`` for a read Tool).
    """
    variables = {key: variable for variable, key in GATE_VARIABLES}
    return [
        {
            "role": role,
            "tool": tool.name,
            "variable": None if tool.gate is None else variables[tool.gate],
            "setting": tool.gate,
        }
        for role, tool in _ROLES.items()
    ]


def vocabulary() -> JsonObject:
    """The scopes in order, each with the namespace kinds and memory kinds it takes."""
    return {
        "scopes": [
            {
                "scope": str(scope),
                "namespace_kinds": [str(kind) for kind in SCOPE_RULES[scope].namespace_kinds],
                "memory_kinds": [str(kind) for kind in SCOPE_RULES[scope].memory_kinds],
            }
            for scope in Scope
        ]
    }


def _snapshot(environ: Mapping[str, str] | None, *, cached: bool = True) -> Snapshot | None:
    """The snapshot of the whole root; ``cached`` takes the files the page's store has read
    and that have not changed since from its caches."""
    root = resolve_memory_root(os.environ if environ is None else environ)
    if memory_root_problem(root) is not None:
        return None
    store = _page_store()
    try:
        known = _known(store, root) if cached else None
        return read_snapshot(store, root, tuple(Scope), known=known)
    except (OSError, StorageError):
        return None


def _known(store: MemoryStore, root: Path) -> dict[tuple[str, ...], Record]:
    """The valid records of each scope as the store's scan finds them: read again only when
    their file changed (``memory/storage/scan.py``), so a page load parses few files."""
    known: dict[tuple[str, ...], Record] = {}
    for scope in Scope:
        try:
            known.update((stored.parts, stored.record) for stored in store.recall_scan(root, scope))
        except StorageError:  # over the candidate bound, or not a folder: the walk reads it
            continue
    return known


_store: MemoryStore | None = None
_store_lock = threading.Lock()


def _page_store() -> MemoryStore:
    """The page's own store, made once per process; its caches follow the files."""
    global _store
    with _store_lock:
        if _store is None:
            _store = MemoryStore()
        return _store


def _row(found: Found) -> JsonObject:
    record = found.record
    scope = str(found.scope)
    if isinstance(record, LegacyRecord):
        return {
            "reference": {"schema_version": 1, "scope": scope, "id": record.id},
            "scope": scope,
            **_LEGACY_ROW,
            "title": record.title,
        }
    namespace, collection = record.namespace, record.collection
    return {
        "reference": {
            "schema_version": 2,
            "scope": scope,
            "namespace_id": namespace.id,
            "collection_id": None if collection is None else collection.id,
            "id": record.id,
        },
        "scope": scope,
        "namespace": {"kind": str(namespace.kind), "id": namespace.id, "label": namespace.label},
        "collection": None
        if collection is None
        else {"id": collection.id, "label": collection.label},
        "title": record.title,
        "kind": str(record.kind),
        "state": str(record.state),
        "revision": record.revision,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "occurred_at": record.occurred_at,
    }


# What a version 1 record cannot say: where it sits beyond its scope, kind, revision, dates.
_LEGACY_ROW: JsonObject = {
    "namespace": None,
    "collection": None,
    "title": None,
    "kind": None,
    "state": "active",
    "revision": None,
    "created_at": None,
    "updated_at": None,
    "occurred_at": None,
}
