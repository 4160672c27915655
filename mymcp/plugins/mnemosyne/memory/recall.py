"""Recall: rank the valid records of one scope against a short query and optional tags.

A record's terms are the casefolded runs of letters and digits (underscore and
punctuation separate them) of two characters or more, minus a few stop words. A record
scores, per distinct match: 4 for each requested tag it carries, 3 for each query term in
its title, 2 for each in its scope-relative path or its tags' words, and 1 for each in its
content. Archived canonical records never match. The best five win, ties broken by path,
then by ID.

Each record's terms and their weights are computed once and kept in the store's per-file
memo (``StoredRecord.derived``), which goes away with the file version it describes. An
inverted index per scope follows the store's scans by difference, so a call tokenizes only
its query and reads the postings of its few terms.

Memory: a term is kept once however many records hold it (``sys.intern``), a record's
terms are a sorted tuple with one weight byte each, and a term's postings are one list of
record references (a record appears once per point of weight). A record that leaves the
scan stays in the lists until the records gone outnumber those served (and are more than
:data:`_MIN_REBUILD`); then the index is rebuilt from its records, so it never holds more
than twice the postings of the records it serves.
"""

from __future__ import annotations

import bisect
import heapq
import os
import re
import sys
import threading
import weakref
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from mymcp.jsonvalue import JsonObject
from mymcp.plugins.mnemosyne.memory.records import CanonicalRecord
from mymcp.plugins.mnemosyne.memory.references import reference_dict
from mymcp.plugins.mnemosyne.memory.store import MemoryStore, StoredRecord
from mymcp.plugins.mnemosyne.memory.values import RESULT_LIMIT, canonical_tag_key
from mymcp.plugins.mnemosyne.memory.vocabulary import LifecycleState, Scope

__all__ = [
    "RESULT_LIMIT",
    "STOP_WORDS",
    "RecallHit",
    "RecallRequest",
    "hit_view",
    "recall",
    "terms",
]

STOP_WORDS: Final = frozenset(
    (
        "a an and are do does for how i in is it of on or the to user what when where which who why"
    ).split()
)
TAG_WEIGHT: Final = 4
TITLE_WEIGHT: Final = 3
PATH_WEIGHT: Final = 2
CONTENT_WEIGHT: Final = 1

# A maximal run of Unicode word characters other than the underscore.
_TERM_RE: Final = re.compile(r"[^\W_]+")
_MEMO_KEY: Final = "recall.terms"


def terms(text: str) -> frozenset[str]:
    """The distinct searchable terms of ``text``."""
    return frozenset(
        term
        for term in _TERM_RE.findall(text.casefold())
        if len(term) > 1 and term not in STOP_WORDS
    )


@dataclass(frozen=True)
class RecallRequest:
    """A validated recall: the query exactly as sent, the scope and the requested tags."""

    query: str
    scope: Scope
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class RecallHit:
    """A ranked record with the query terms and tags that matched it (both sorted)."""

    stored: StoredRecord
    score: int
    terms: tuple[str, ...]
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _RecordTerms:
    """What recall needs of one record, computed once per file version."""

    searchable: bool  # False for archived canonical records
    # Each term of the record (sorted, interned) and, at the same position, the weight it
    # earns: title 3 + path or tag words 2 + content 1, for the components that contain it.
    terms: tuple[str, ...]
    weights: bytes
    tag_keys: frozenset[str]
    scope_path: str

    def has(self, term: str) -> bool:
        index = bisect.bisect_left(self.terms, term)
        return index < len(self.terms) and self.terms[index] == term


def recall(store: MemoryStore, root: Path, request: RecallRequest) -> list[RecallHit]:
    """The best matches in the scope, at most :data:`RESULT_LIMIT`, best first.

    Raises the store's storage errors.
    """
    candidates = store.recall_scan(root, request.scope)
    query = terms(request.query)
    tag_keys = frozenset(canonical_tag_key(tag) for tag in request.tags)
    index = _index_for(store, root, request.scope)
    with index.lock:
        index.sync(candidates)
        scores = index.scores(query, tag_keys)
    return [_hit(stored, score, query, tag_keys) for stored, score in _best(scores)]


def hit_view(hit: RecallHit, scope: Scope) -> JsonObject:
    """The result item of one hit: its reference, text, tags and what matched."""
    record = hit.stored.record
    return {
        "reference": reference_dict(record, scope),
        "id": record.id,
        "scope": scope.value,
        "title": record.title,
        "content": record.content,
        "tags": list(record.tags),
        "match": {"terms": list(hit.terms), "tags": list(hit.tags)},
    }


def _best(scores: dict[StoredRecord, int]) -> list[tuple[StoredRecord, int]]:
    """The top records by score desc, scope-relative path asc, then ID asc."""
    if len(scores) > RESULT_LIMIT:
        # Only records scoring at least the fifth best score can be among the best five.
        floor = heapq.nlargest(RESULT_LIMIT, scores.values())[-1]
        scores = {stored: score for stored, score in scores.items() if score >= floor}
    ranked = sorted(
        scores.items(),
        key=lambda item: (-item[1], _memoize(item[0]).scope_path, item[0].record.id),
    )
    return ranked[:RESULT_LIMIT]


def _hit(
    stored: StoredRecord, score: int, query: frozenset[str], tag_keys: frozenset[str]
) -> RecallHit:
    memo = _memoize(stored)
    matched = sorted(term for term in query if memo.has(term))
    return RecallHit(stored, score, tuple(matched), tuple(sorted(tag_keys & memo.tag_keys)))


def _memoize(stored: StoredRecord) -> _RecordTerms:
    memo = stored.derived.get(_MEMO_KEY)
    if isinstance(memo, _RecordTerms):
        return memo
    record = stored.record
    title = terms(record.title or "")
    path = terms(stored.scope_path).union(*(terms(tag) for tag in record.tags))
    content = terms(record.content)
    ordered = tuple(sorted(sys.intern(term) for term in title | path | content))
    weights = bytes(
        TITLE_WEIGHT * (term in title)
        + PATH_WEIGHT * (term in path)
        + CONTENT_WEIGHT * (term in content)
        for term in ordered
    )
    memo = _RecordTerms(
        searchable=not (
            isinstance(record, CanonicalRecord) and record.state is LifecycleState.ARCHIVED
        ),
        terms=ordered,
        weights=weights,
        tag_keys=frozenset(sys.intern(canonical_tag_key(tag)) for tag in record.tags),
        scope_path=stored.scope_path,
    )
    stored.derived[_MEMO_KEY] = memo
    return memo


class _ScopeIndex:
    """An inverted index over the searchable records of one scope's latest scan.

    It follows the scans by difference: a record (a :class:`StoredRecord`, which the
    store replaces whenever its file changes) is indexed when it appears and removed when
    it disappears, so an unchanged scope costs one identity comparison of the scan.

    A term's postings list each record that holds it once per point of weight it earns, so
    counting a query's lists (in C, with ``Counter.update``) gives every score. A record
    that disappears stays in the lists, set aside in ``_gone`` and dropped from the counts,
    until the next rebuild.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._scan: list[StoredRecord] = []
        self._members: set[StoredRecord] = set()
        self._searchable = 0
        self._gone: set[StoredRecord] = set()
        self._postings: dict[str, list[StoredRecord]] = {}
        self._tagged: dict[str, list[StoredRecord]] = {}

    def sync(self, scan: list[StoredRecord]) -> None:
        # StoredRecord compares by identity, so this is a fast element-wise check.
        if scan == self._scan:
            return
        current = set(scan)
        for stored in self._members - current:
            self._remove(stored)
        for stored in current - self._members:
            self._add(stored)
        self._members = current
        if len(self._gone) > max(_MIN_REBUILD, self._searchable):
            self._rebuild()
        self._scan = list(scan)

    def scores(self, query: frozenset[str], tag_keys: frozenset[str]) -> dict[StoredRecord, int]:
        counts: Counter[StoredRecord] = Counter()
        for term in query:
            postings = self._postings.get(term)
            if postings:
                counts.update(postings)
        for tag in tag_keys:
            tagged = self._tagged.get(tag)
            for _ in range(TAG_WEIGHT if tagged else 0):
                counts.update(tagged)
        for stored in self._gone if counts else ():
            counts.pop(stored, None)
        return counts

    def _add(self, stored: StoredRecord) -> None:
        memo = _memoize(stored)
        if not memo.searchable:
            return
        self._searchable += 1
        if stored in self._gone:  # back again: its postings never left
            self._gone.discard(stored)
            return
        for term, weight in zip(memo.terms, memo.weights, strict=True):
            self._postings.setdefault(term, []).extend([stored] * weight)
        for tag in memo.tag_keys:
            self._tagged.setdefault(tag, []).append(stored)

    def _remove(self, stored: StoredRecord) -> None:
        if _memoize(stored).searchable:
            self._searchable -= 1
            self._gone.add(stored)

    def _rebuild(self) -> None:
        """Index the members afresh, without the postings of records that left."""
        self._searchable, self._gone = 0, set()
        self._postings, self._tagged = {}, {}
        for stored in self._members:
            self._add(stored)


# Records gone from the scan tolerated in the postings before a rebuild, whatever the
# number of records; past that, as many as the index serves.
_MIN_REBUILD: Final = 64


# One index per (store, root, scope), at most _MAX_INDEXES, the least recently used
# forgotten first. Each holds the records of its scope's latest scan only (at most
# files.MAX_CANDIDATES): a record the next scan no longer returns leaves the index then.
_MAX_INDEXES: Final = 32
_indexes: weakref.WeakKeyDictionary[MemoryStore, dict[tuple[str, Scope], _ScopeIndex]] = (
    weakref.WeakKeyDictionary()
)
_indexes_lock = threading.Lock()


def _index_for(store: MemoryStore, root: Path, scope: Scope) -> _ScopeIndex:
    key = (os.path.abspath(root), scope)
    with _indexes_lock:
        per_store = _indexes.setdefault(store, {})
        index = per_store.pop(key, None) or _ScopeIndex()
        per_store[key] = index
        while len(per_store) > _MAX_INDEXES:
            del per_store[next(iter(per_store))]
        return index
