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
    searchable: bool  # False for archived canonical records
    title: frozenset[str]
    path: frozenset[str]  # scope-relative path terms and the words of every tag
    content: frozenset[str]
    every: frozenset[str]  # union of the three, for a quick rejection
    tag_keys: frozenset[str]


def recall(store: MemoryStore, root: Path, request: RecallRequest) -> list[RecallHit]:
    """The best matches in the scope, at most :data:`RESULT_LIMIT`, best first.

    Raises the store's storage errors (an OS error counts as an unavailable source).
    """
    try:
        candidates = store.recall_scan(root, request.scope)
    except OSError as exc:
        raise SourceUnavailable() from exc
    query_terms = terms(request.query)
    tag_keys = frozenset(canonical_tag_key(tag) for tag in request.tags)
    hits = [
        hit for stored in candidates if (hit := _match(stored, query_terms, tag_keys)) is not None
    ]
    return heapq.nsmallest(RESULT_LIMIT, hits, key=_rank)


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


def _rank(hit: RecallHit) -> tuple[int, str, str]:
    return (-hit.score, hit.stored.scope_path, hit.stored.record.id)


def _match(
    stored: StoredRecord, query_terms: frozenset[str], tag_keys: frozenset[str]
) -> RecallHit | None:
    memo = _record_terms(stored)
    if not memo.searchable or (
        query_terms.isdisjoint(memo.every) and tag_keys.isdisjoint(memo.tag_keys)
    ):
        return None
    tags = tag_keys & memo.tag_keys
    title = query_terms & memo.title
    path = query_terms & memo.path
    content = query_terms & memo.content
    score = (
        TAG_WEIGHT * len(tags)
        + TITLE_WEIGHT * len(title)
        + PATH_WEIGHT * len(path)
        + CONTENT_WEIGHT * len(content)
    )
    if score <= 0:
        return None
    return RecallHit(stored, score, tuple(sorted(title | path | content)), tuple(sorted(tags)))


def _record_terms(stored: StoredRecord) -> _RecordTerms:
    memo = stored.derived.get(_MEMO_KEY)
    if isinstance(memo, _RecordTerms):
        return memo
    record = stored.record
    title = terms(record.title or "")
    path = terms(stored.scope_path).union(*(terms(tag) for tag in record.tags))
    content = terms(record.content)
    memo = _RecordTerms(
        searchable=not (
            isinstance(record, CanonicalRecord) and record.state is LifecycleState.ARCHIVED
        ),
        title=title,
        path=path,
        content=content,
        every=title | path | content,
        tag_keys=frozenset(canonical_tag_key(tag) for tag in record.tags),
    )
    stored.derived[_MEMO_KEY] = memo
    return memo
