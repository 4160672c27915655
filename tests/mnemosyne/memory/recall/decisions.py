"""A canonical decision of the project scope, as the store's cache holds it, for the tests of
recall's index."""

from __future__ import annotations

from mymcp.plugins.mnemosyne.memory.model import vocabulary
from mymcp.plugins.mnemosyne.memory.model.records import CanonicalRecord, Namespace
from mymcp.plugins.mnemosyne.memory.storage.scan import StoredRecord


def decision(
    number: int,
    title: str | None,
    content: str,
    tags: tuple[str, ...],
    archived: bool,
    *,
    language: str = "en",
    folders: tuple[str, ...] = ("atlas",),
) -> StoredRecord:
    """Decision ``number`` in the namespace named by ``folders[0]``, at ``folders`` below
    the scope."""
    record = CanonicalRecord(
        id=f"mem_{number:032x}",
        scope=vocabulary.Scope.PROJECT,
        namespace=Namespace(vocabulary.NamespaceKind.PROJECT, folders[0], None),
        collection=None,
        kind=vocabulary.MemoryKind.DECISION,
        language=language,
        title=title,
        content=content,
        tags=tags,
        origin=vocabulary.Origin.EXPLICIT_USER_STATEMENT,
        recorded_via=vocabulary.RecordedVia.MEMORY_REMEMBER,
        state=vocabulary.LifecycleState.ARCHIVED if archived else vocabulary.LifecycleState.ACTIVE,
        revision=1,
        created_at="2025-01-01T00:00:00Z",
        updated_at="2025-01-01T00:00:00Z",
        occurred_at=None,
    )
    return StoredRecord(record, ("project", *folders, f"{record.id}.json"), bytes(32))
