"""Recall: rank the valid records of one scope against a short query and optional tags.

A record's terms are the casefolded runs of letters and digits (underscore and
punctuation separate them) of two characters or more, minus a few stop words. A record
scores, per distinct match: 4 for each requested tag it carries, 3 for each query term in
its title, 2 for each in its scope-relative path or its tags' words, and 1 for each in its
content. Archived canonical records never match. The best five win, ties broken by path,
then by ID.

Each record's term sets are computed once and kept in the store's per-file memo
(``StoredRecord.derived``), which the store drops whenever the file changes; a call only
tokenizes its query and intersects sets.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from mymcp.plugins.mnemosyne.memory.errors import SourceUnavailable
from mymcp.plugins.mnemosyne.memory.inspect import reference_dict
from mymcp.plugins.mnemosyne.memory.records import CanonicalRecord
from mymcp.plugins.mnemosyne.memory.store import MemoryStore, StoredRecord
from mymcp.plugins.mnemosyne.memory.values import canonical_tag_key
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
RESULT_LIMIT: Final = 5
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


@dataclass(frozen=True)
class _RecordTerms:
    """What recall needs of one record, computed once per file version."""

    searchable: bool  # False for archived canonical records
    # Each term of the record and the weight it earns: title 3 + path or tag words 2 +
    # content 1, for the components that contain it.
    weights: dict[str, int]
    tag_keys: frozenset[str]
    scope_path: str


def recall(store: MemoryStore, root: Path, request: RecallRequest) -> list[RecallHit]:
    """The best matches in the scope, at most :data:`RESULT_LIMIT`, best first.

    Raises the store's storage errors (an OS error counts as an unavailable source).
    """
    try:
        candidates = store.recall_scan(root, request.scope)
    except OSError as exc:
        raise SourceUnavailable() from exc
    query = tuple(terms(request.query))
    zeros = (0,) * len(query)
    tag_keys = frozenset(canonical_tag_key(tag) for tag in request.tags)
    ranked: list[tuple[int, str, str, int, StoredRecord]] = []
    for position, stored in enumerate(candidates):
        memo = stored.derived.get(_MEMO_KEY)
        if not isinstance(memo, _RecordTerms):
            memo = _memoize(stored)
        if not memo.searchable:
            continue
        score = sum(map(memo.weights.get, query, zeros))
        if tag_keys:
            score += TAG_WEIGHT * len(tag_keys & memo.tag_keys)
        if score > 0:
            ranked.append((-score, memo.scope_path, stored.record.id, position, stored))
    best = heapq.nsmallest(RESULT_LIMIT, ranked)
    return [_hit(stored, -negated, query, tag_keys) for negated, *_, stored in best]


def hit_view(hit: RecallHit, scope: Scope) -> dict[str, Any]:
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


def _hit(
    stored: StoredRecord, score: int, query: tuple[str, ...], tag_keys: frozenset[str]
) -> RecallHit:
    memo = _memoize(stored)
    matched = sorted(term for term in query if term in memo.weights)
    return RecallHit(stored, score, tuple(matched), tuple(sorted(tag_keys & memo.tag_keys)))


def _memoize(stored: StoredRecord) -> _RecordTerms:
    memo = stored.derived.get(_MEMO_KEY)
    if isinstance(memo, _RecordTerms):
        return memo
    record = stored.record
    title = terms(record.title or "")
    path = terms(stored.scope_path).union(*(terms(tag) for tag in record.tags))
    content = terms(record.content)
    weights = {
        term: TITLE_WEIGHT * (term in title)
        + PATH_WEIGHT * (term in path)
        + CONTENT_WEIGHT * (term in content)
        for term in title | path | content
    }
    memo = _RecordTerms(
        searchable=not (
            isinstance(record, CanonicalRecord) and record.state is LifecycleState.ARCHIVED
        ),
        weights=weights,
        tag_keys=frozenset(canonical_tag_key(tag) for tag in record.tags),
        scope_path=stored.scope_path,
    )
    stored.derived[_MEMO_KEY] = memo
    return memo
