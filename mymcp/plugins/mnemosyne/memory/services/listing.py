"""The listing service: a complete, totally ordered inventory of one selection, in pages.

Each page is served from one scan of the selected container (the store's stat-validated
cache, so unchanged files are neither read nor hashed again) plus the page itself. The
ordered view of a selection (sort order, inspectability and the rendered snapshot) depends
only on the scanned records, so it is remembered for the exact set of records it was built
from and reused by the following pages of the same walk.

Order: version 1 records first, by ID and then by their scope-relative path (duplicate
legacy IDs stay separate items and are marked ``ambiguous``); then version 2 records by
namespace, collectionless before collected, collection and ID. Strings compare by code
point.
"""

from __future__ import annotations

import math
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple

from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.services import cursors
from mymcp.plugins.mnemosyne.memory.storage.store import CollectionMode, MemoryStore, StoredRecord

__all__ = [
    "AMBIGUOUS",
    "DEFAULT_PAGE_SIZE",
    "EXACT",
    "ListRequest",
    "ListedItem",
    "Page",
    "Selector",
    "list_page",
]

DEFAULT_PAGE_SIZE = cursors.DEFAULT_PAGE_SIZE
EXACT = "exact"
AMBIGUOUS = "ambiguous"

CollectionSelection = Literal["all", "collectionless", "exact"]
_STORE_MODES: dict[CollectionSelection, CollectionMode] = {
    "all": "all",
    "collectionless": "none",
    "exact": "exact",
}
_MEMO_SIZE = 8  # selections whose ordered view is kept, one view each


@dataclass(frozen=True)
class Selector:
    """What to list: a whole scope, a namespace, or one collection mode within it."""

    scope: Scope
    namespace_id: str | None = None
    collection: CollectionSelection = "all"
    collection_id: str | None = None

    def canonical(self) -> dict[str, object]:
        return {
            "scope": self.scope.value,
            "namespace_id": self.namespace_id,
            "collection_mode": self.collection,
            "collection_id": self.collection_id,
        }


@dataclass(frozen=True)
class ListRequest:
    """A validated request: a first page (``page_size``) or a continuation (``cursor``)."""

    selector: Selector
    page_size: int = DEFAULT_PAGE_SIZE
    cursor: str | None = None


class ListedItem(NamedTuple):
    """One record of a page and whether its reference names it alone (a named tuple: a page
    makes one per record)."""

    stored: StoredRecord
    inspectability: str


@dataclass(frozen=True)
class Page:
    items: tuple[ListedItem, ...]
    number: int
    total_count: int
    total_pages: int
    next_cursor: str | None

    @property
    def truncated(self) -> bool:
        return self.next_cursor is not None


def list_page(store: MemoryStore, root: Path, request: ListRequest) -> Page:
    """One page of the selection; the whole page or an error, never a partial inventory.

    Raises ``invalid_cursor`` / ``stale_cursor`` for a continuation that cannot be served,
    and the store's errors for an unavailable or overfull container.
    """
    selector = request.selector
    selector_digest = cursors.selector_digest(selector.canonical())
    cursor = None
    if request.cursor is not None:
        cursor = cursors.open_cursor(request.cursor, selector_digest)
    view = _view(root, selector, _scan(store, root, selector))
    offset, size = 0, request.page_size
    if cursor is not None:
        offset = cursor.resume(view.digest(), view.total)
        size = cursor.page_size
    end = offset + size
    next_cursor = None
    if end < view.total:
        next_cursor = cursors.issue_cursor(selector_digest, view.digest(), end, size)
    return Page(
        items=view.page(offset, end),
        number=offset // size + 1,
        total_count=view.total,
        total_pages=math.ceil(view.total / size),
        next_cursor=next_cursor,
    )


def _scan(store: MemoryStore, root: Path, selector: Selector) -> list[StoredRecord]:
    return store.list_scan(
        root,
        selector.scope,
        selector.namespace_id,
        _STORE_MODES[selector.collection],
        selector.collection_id,
    )


# --- the ordered view ----------------------------------------------------------------------


@dataclass
class _View:
    """The ordered selection, its legacy records whose ID another shares (``ambiguous``),
    and its snapshot fingerprint, made when first asked for."""

    ordered: tuple[StoredRecord, ...]
    ambiguous: frozenset[StoredRecord]
    _digest: tuple[str, str] | None = field(default=None, repr=False)  # (marker, digest)

    @property
    def total(self) -> int:
        return len(self.ordered)

    def page(self, start: int, end: int) -> tuple[ListedItem, ...]:
        return tuple(
            ListedItem(stored, AMBIGUOUS if stored in self.ambiguous else EXACT)
            for stored in self.ordered[start:end]
        )

    def digest(self) -> str:
        marker = cursors.secret_marker()
        if self._digest is None or self._digest[0] != marker:
            self._digest = (marker, cursors.snapshot_digest_of(self._snapshot_pieces()))
        return self._digest[1]

    def _snapshot_pieces(self) -> Iterator[bytes]:
        """The snapshot's canonical JSON (``[entry,...]``), a thousand entries at a time."""
        yield b"["
        for start in range(0, len(self.ordered), _ENTRIES_AT_ONCE):
            chunk = self.ordered[start : start + _ENTRIES_AT_ONCE]
            entries = [_snapshot_entry(stored) for stored in chunk]
            yield (b"," if start else b"") + cursors.canonical_json(entries)[1:-1]
        yield b"]"


# Snapshot entries rendered at once when a view is fingerprinted.
_ENTRIES_AT_ONCE = 1000


# The scanned records a view was built from, in scan order.
_Records = tuple[StoredRecord, ...]


class _Memo:
    """The latest view of each recently listed selection, at most ``size`` of them.

    A view is kept with the exact record objects it was built from. The store hands out the
    same :class:`StoredRecord` object for as long as a file is unchanged, so the same
    objects mean the same records; a scan that returns other objects builds a new view,
    which replaces the superseded one at once.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        # (root, selector) -> (scanned records, their view), least recently used first.
        self._views: OrderedDict[tuple[str, Selector], tuple[_Records, _View]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, Selector], scanned: _Records) -> _View | None:
        with self._lock:
            kept = self._views.get(key)
            if kept is None or kept[0] != scanned:
                return None
            self._views.move_to_end(key)
            return kept[1]

    def put(self, key: tuple[str, Selector], scanned: _Records, view: _View) -> None:
        with self._lock:
            self._views[key] = (scanned, view)
            self._views.move_to_end(key)
            while len(self._views) > self._size:
                self._views.popitem(last=False)


_memo = _Memo(_MEMO_SIZE)


def _view(root: Path, selector: Selector, scanned: list[StoredRecord]) -> _View:
    key, records = (str(root), selector), tuple(scanned)
    view = _memo.get(key, records)
    if view is None:
        view = _build_view(selector, scanned)
        _memo.put(key, records, view)
    return view


def _build_view(selector: Selector, scanned: list[StoredRecord]) -> _View:
    selected = scanned
    if selector.namespace_id is not None:
        selected = [stored for stored in scanned if stored.is_canonical]
    ordered = tuple(sorted(selected, key=_order_key))
    legacy = [stored for stored in ordered if stored.legacy_id is not None]
    legacy_ids = Counter(stored.legacy_id for stored in legacy)
    return _View(ordered, frozenset(s for s in legacy if legacy_ids[s.legacy_id] > 1))


def _order_key(stored: StoredRecord) -> tuple[object, ...]:
    # What the order needs is in the path of a canonical record and the legacy ID.
    if stored.legacy_id is not None:
        return (1, stored.legacy_id, stored.scope_path)
    parts = stored.parts
    if len(parts) == 3:
        return (2, parts[1], 0, "", stored.id)
    return (2, parts[1], 1, parts[2], stored.id)


def _snapshot_entry(stored: StoredRecord) -> list[object]:
    return [_identity(stored), "/".join(stored.parts), stored.digest]


def _identity(stored: StoredRecord) -> list[object]:
    if stored.legacy_id is not None:
        return [1, stored.legacy_id]
    return [2, stored.namespace_id, stored.collection_id, stored.id]
