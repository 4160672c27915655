"""The notebook scanned: the stored records the content policy would refuse today.

A record that reached the notebook before the policy could catch it (a hand edit, an import
of an old notebook, a record an older version wrote) stays there unseen; ``mymcp doctor``
and ``mymcp explain --notebook`` name each such record, and the notebook page can call
:func:`scan` for the same list. A finding names the record's path below the memory root, the
field and the rule that refuses it, never the value. Nothing here changes a file.

The values are judged as ``memory_remember`` would judge them, in its order (the namespace's
id and label, the collection's, the title, the content, each tag), and the first refused
value of a record is the one named. A version 1 record has a title, content and tags only.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mymcp.plugins.mnemosyne.memory import policy
from mymcp.plugins.mnemosyne.memory.model.records import CanonicalRecord, Record
from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore
from mymcp.plugins.mnemosyne.transfer.snapshot import read_snapshot

__all__ = ["Refused", "Scanned", "first_refusal", "scan"]


@dataclass(frozen=True)
class Refused:
    """A stored record the policy would refuse: where it is and why, never what it holds."""

    path: str  # below the memory root, as scope/namespace[/collection]/id.json
    field: str  # namespace.id, namespace.label, collection.id, collection.label, title,
    # content, or tags[i]
    reason: str  # the reason a Tool would report
    rule: str  # the id of the rule that refuses it

    def line(self) -> str:
        """``path: field (reason, rule id)``, for the operator's terminal."""
        return f"{self.path}: {self.field} ({self.reason}, rule {self.rule})"


def _values(record: Record) -> Iterator[tuple[str, str | None]]:
    if isinstance(record, CanonicalRecord):
        yield "namespace.id", record.namespace.id
        yield "namespace.label", record.namespace.label
        if record.collection is not None:
            yield "collection.id", record.collection.id
            yield "collection.label", record.collection.label
    yield "title", record.title
    yield "content", record.content
    yield from ((f"tags[{index}]", tag) for index, tag in enumerate(record.tags))


def first_refusal(record: Record) -> tuple[str, str, str] | None:
    """The field, reason and rule id of the record's first value the policy refuses."""
    for field, value in _values(record):
        verdict = None if value is None else _verdict(value)
        if verdict is not None:
            return field, *verdict
    return None


# A value this short (a namespace or collection, a tag, a title) is judged once per scan:
# record after record repeats the same few, and judging them was half of a scan's time.
_SHORT = 256


def _verdict(value: str) -> tuple[str, str] | None:
    return _short_verdict(value) if len(value) <= _SHORT else policy.explain(value)


_short_verdict = functools.lru_cache(maxsize=8192)(policy.explain)


@dataclass(frozen=True)
class Scanned:
    """How many valid records the scan read, and those the policy would refuse."""

    records: int
    refused: list[Refused]


def scan(root: Path) -> Scanned:
    """Every valid record below ``root`` that the policy would refuse, in notebook order.

    The records are read as ``mymcp export`` reads them (under the root's lock, which no
    reading changes); a missing root is an empty notebook. Raises ``OSError`` when a folder
    cannot be listed and the store's errors when the root cannot be read.
    """
    snapshot = read_snapshot(MemoryStore(watch_changes=False), root, tuple(Scope))
    found = ((entry.path, first_refusal(entry.record)) for entry in snapshot.records)
    refused = [Refused(path, *refusal) for path, refusal in found if refusal is not None]
    return Scanned(len(snapshot.records), refused)
