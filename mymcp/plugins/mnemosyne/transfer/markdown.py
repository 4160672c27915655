"""The notebook as a Markdown document to read: one section per scope, namespace, collection.

Every record of the snapshot appears in notebook order with its title as a heading, a line
of what it is (id, kind, state and revision, language, tags, times, provenance) and its
content as a block quote, so a heading inside a memory cannot break the outline. Version 1
records follow in their own section of each scope, named by their path. The files recall
and list skip come last. Only the JSON export can be imported again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from itertools import groupby

from mymcp.plugins.mnemosyne.memory.model.records import CanonicalRecord, LegacyRecord
from mymcp.plugins.mnemosyne.memory.model.vocabulary import LifecycleState, Scope
from mymcp.plugins.mnemosyne.transfer.snapshot import Found, Snapshot

__all__ = ["render_markdown"]

_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")
_UNTITLED = "(untitled)"


def render_markdown(snapshot: Snapshot, *, scopes: Sequence[Scope], exported_at: str) -> str:
    """The readable notebook of ``snapshot``, whose records are those of ``scopes``."""
    lines = ["# Mnemosyne notebook", "", _summary(snapshot, scopes, exported_at)]
    by_scope = {scope: [f for f in snapshot.records if f.scope is scope] for scope in scopes}
    for scope in scopes:
        lines += ["", f"## {scope}"]
        lines += _scope(by_scope[scope])
    if snapshot.skipped:
        lines += ["", "## Skipped files", ""]
        lines += [f"- {_code(entry.path)}: {entry.reason}" for entry in snapshot.skipped]
    return "\n".join(lines) + "\n"


def _summary(snapshot: Snapshot, scopes: Sequence[Scope], exported_at: str) -> str:
    records = snapshot.records
    archived = sum(
        isinstance(f.record, CanonicalRecord) and f.record.state is LifecycleState.ARCHIVED
        for f in records
    )
    legacy = sum(isinstance(f.record, LegacyRecord) for f in records)
    skipped = len(snapshot.skipped)
    return (
        f"Exported {exported_at}: {_count(len(records), 'record')} ({archived} archived, "
        f"{legacy} of version 1) in the scopes {', '.join(map(str, scopes))}; "
        f"{_count(skipped, 'file')} skipped."
    )


def _scope(found: list[Found]) -> Iterator[str]:
    if not found:
        yield from ("", "No records.")
        return
    canonical = [f.record for f in found if isinstance(f.record, CanonicalRecord)]
    for _, group in groupby(canonical, key=lambda record: record.namespace.id):
        yield from _namespace(list(group))
    legacy = [(f.path, f.record) for f in found if isinstance(f.record, LegacyRecord)]
    if legacy:
        yield from ("", "### Version 1 records")
        for path, record in legacy:
            yield from _legacy(path, record)


def _namespace(records: list[CanonicalRecord]) -> Iterator[str]:
    namespace = records[0].namespace
    label = f": {_inline(namespace.label)}" if namespace.label else ""
    yield from ("", f"### {_inline(namespace.id)}{label} ({namespace.kind})")
    for _, group in groupby(records, key=lambda record: record.collection_id):
        collected = list(group)
        collection = collected[0].collection
        if collection is None:
            heading = "Without a collection"
        else:
            label = f": {_inline(collection.label)}" if collection.label else ""
            heading = f"Collection {_inline(collection.id)}{label}"
        yield from ("", f"#### {heading}")
        for record in collected:
            yield from _record(record)


def _record(record: CanonicalRecord) -> Iterator[str]:
    facts = [
        _code(record.id),
        str(record.kind),
        f"{record.state}, revision {record.revision}",
        f"language {record.language}",
    ]
    if record.tags:
        facts.append("tags: " + ", ".join(map(_inline, record.tags)))
    if record.occurred_at is not None:
        facts.append(f"occurred {record.occurred_at}")
    facts.append(f"created {record.created_at}, updated {record.updated_at}")
    facts.append(f"{record.origin} via {record.recorded_via}")
    yield from ("", f"##### {_inline(record.title) if record.title else _UNTITLED}", "")
    yield " · ".join(facts)
    yield from _quote(record.content)


def _legacy(path: str, record: LegacyRecord) -> Iterator[str]:
    facts = [_code(path), f"id {_code(record.id)}"]
    if record.tags:
        facts.append("tags: " + ", ".join(map(_inline, record.tags)))
    yield from ("", f"#### {_inline(record.title) if record.title else _UNTITLED}", "")
    yield " · ".join(facts)
    yield from _quote(record.content)


def _quote(text: str) -> Iterator[str]:
    yield ""
    for line in text.splitlines() or [""]:
        yield f"> {line}".rstrip()


def _inline(text: str) -> str:
    """Text in a heading or a list: on one line, Markdown's special characters escaped."""
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    return f"{fence} {text} {fence}" if fence == "``" else f"`{text}`"


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"
