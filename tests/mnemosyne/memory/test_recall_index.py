"""Recall's index per scope: the scores of the ranking rule, in bounded memory, across changes.

The index keeps each term once, a record's terms as a sorted tuple with one weight byte
each, and a list of record references per term; a record that leaves stays in the lists,
set aside, until the records gone outnumber those served. Whatever sequence of scans it
follows, its scores must be those the ranking rule gives the records of the latest scan.
"""

from __future__ import annotations

import sys
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.memory import recall
from mymcp.plugins.mnemosyne.memory.records import CanonicalRecord, Namespace
from mymcp.plugins.mnemosyne.memory.scan import StoredRecord
from mymcp.plugins.mnemosyne.memory.values import canonical_tag_key
from mymcp.plugins.mnemosyne.memory.vocabulary import (
    LifecycleState,
    MemoryKind,
    NamespaceKind,
    Origin,
    RecordedVia,
    Scope,
)

WORDS = ("alpha", "beta", "gamma", "delta", "plan", "release", "tea", "zeta", "ops", "q1")
# The terms of a record's path beside its words: the namespace, "mem", the ID's hex, "json".
PATH_TERMS = ("atlas", "mem", "<hex>", "json")
TEXTS = st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join)


def stored(number: int, title: str, content: str, tags: tuple[str, ...], archived: bool) -> Any:
    record = CanonicalRecord(
        id=f"mem_{number:032x}",
        scope=Scope.PROJECT,
        namespace=Namespace(NamespaceKind.PROJECT, "atlas", None),
        collection=None,
        kind=MemoryKind.DECISION,
        language="en",
        title=title or None,
        content=content or "x",
        tags=tags,
        origin=Origin.EXPLICIT_USER_STATEMENT,
        recorded_via=RecordedVia.MEMORY_REMEMBER,
        state=LifecycleState.ARCHIVED if archived else LifecycleState.ACTIVE,
        revision=1,
        created_at="2025-01-01T00:00:00Z",
        updated_at="2025-01-01T00:00:00Z",
        occurred_at=None,
    )
    parts = ("project", "atlas", f"{record.id}.json")
    return StoredRecord(record, parts, "0" * 64)


RECORDS = st.builds(
    stored,
    st.integers(min_value=0, max_value=2**64),
    TEXTS,
    TEXTS,
    st.lists(st.sampled_from(WORDS[:5]), max_size=3, unique=True).map(tuple),
    st.booleans(),
)


def expected_scores(
    records: list[StoredRecord], query: frozenset[str], tags: frozenset[str]
) -> dict[StoredRecord, int]:
    """The ranking rule, computed from each record's text directly."""
    scores: dict[StoredRecord, int] = {}
    for item in records:
        record = item.record
        assert isinstance(record, CanonicalRecord)
        if record.state is LifecycleState.ARCHIVED:
            continue
        title, content = recall.terms(record.title or ""), recall.terms(record.content)
        path = recall.terms(item.scope_path).union(*(recall.terms(tag) for tag in record.tags))
        score = sum(
            recall.TITLE_WEIGHT * (term in title)
            + recall.PATH_WEIGHT * (term in path)
            + recall.CONTENT_WEIGHT * (term in content)
            for term in query
        )
        score += recall.TAG_WEIGHT * len(tags & {canonical_tag_key(t) for t in record.tags})
        if score:
            scores[item] = score
    return scores


@settings(max_examples=60, deadline=None)
@given(
    pool=st.lists(RECORDS, min_size=1, max_size=40),
    scans=st.lists(st.lists(st.integers(min_value=0, max_value=39)), min_size=1, max_size=25),
    query=st.lists(st.sampled_from(WORDS), max_size=3).map(frozenset),
    tags=st.lists(st.sampled_from(WORDS[:5]), max_size=2).map(frozenset),
)
def test_the_index_scores_the_latest_scan_by_the_ranking_rule_in_bounded_memory(
    pool: list[StoredRecord],
    scans: list[list[int]],
    query: frozenset[str],
    tags: frozenset[str],
) -> None:
    index = recall._ScopeIndex()
    for picks in scans:
        scan = list(dict.fromkeys(pool[pick % len(pool)] for pick in picks))
        index.sync(scan)

        assert dict(index.scores(query, tags)) == expected_scores(scan, query, tags)
        live = sum(1 for item in scan if recall._memoize(item).searchable)
        assert len(index._gone) <= max(recall._MIN_REBUILD, live)
        postings = sum(len(listed) for listed in index._postings.values())
        # A record earns at most 6 points per term; a record gone at most as many.
        most = 6 * sum(len(recall._memoize(item).terms) for item in scan)
        assert postings <= most + 6 * len(index._gone) * (len(WORDS) + len(PATH_TERMS))


def test_a_rebuild_forgets_every_slot_and_posting_of_records_that_left() -> None:
    index = recall._ScopeIndex()
    keep = stored(1, "alpha plan", "beta", ("tea",), False)
    for number in range(2, 200):
        index.sync([keep, stored(number, "gamma", "delta release", ("ops",), False)])

    assert len(index._gone) <= recall._MIN_REBUILD
    assert index.scores(frozenset({"alpha"}), frozenset()) == {keep: recall.TITLE_WEIGHT}
    most_points = 6 * (len(recall._memoize(keep).terms) + 4)  # no record here earns more
    postings = sum(len(listed) for listed in index._postings.values())
    assert postings <= (len(index._gone) + 2) * most_points
    assert f"{2:032x}" not in index._postings  # the id term of a record long gone


def test_a_term_is_kept_once_however_many_records_hold_it() -> None:
    first = stored(1, "release plan", "release", (), False)
    second = stored(2, "release notes", "plan", (), False)
    index = recall._ScopeIndex()
    index.sync([first, second])

    one, two = recall._memoize(first), recall._memoize(second)
    release = one.terms[one.terms.index("release")]

    assert release is two.terms[two.terms.index("release")]
    assert release is sys.intern("release")
    assert list(one.terms) == sorted(one.terms)
    assert len(one.weights) == len(one.terms)


@settings(max_examples=60, deadline=None)
@given(
    pool=st.lists(RECORDS, min_size=1, max_size=40),
    scans=st.lists(st.lists(st.integers(min_value=0, max_value=39)), min_size=1, max_size=25),
)
def test_the_wider_postings_follow_the_scans_in_the_same_bound(
    pool: list[StoredRecord], scans: list[list[int]]
) -> None:
    index = recall._ScopeIndex()
    for picks in scans:
        scan = list(dict.fromkeys(pool[pick % len(pool)] for pick in picks))
        index.sync(scan)

        served = [item for item in scan if recall._memoize(item).searchable]
        assert index.languages() == ({"english"} if served else set())
        postings = sum(len(listed) for listed in index._near.values())
        most = 6 * sum(len(recall._memoize(item).keys) for item in scan)
        assert postings <= most + 6 * len(index._gone) * (len(WORDS) + len(PATH_TERMS))


@settings(max_examples=80, deadline=None)
@given(
    pool=st.lists(RECORDS, min_size=1, max_size=12, unique_by=lambda item: item.record.id),
    query=st.lists(st.sampled_from((*WORDS, "plans", "releases", "Alpha's", "q")), max_size=3),
    tags=st.lists(st.sampled_from(WORDS[:5]), max_size=2, unique=True),
)
def test_the_exact_tier_leads_unchanged_and_the_wider_tier_only_fills(
    pool: list[StoredRecord], query: list[str], tags: list[str]
) -> None:
    text = " ".join(query) or "alpha"
    tag_keys = frozenset(canonical_tag_key(tag) for tag in tags)
    index = recall._ScopeIndex()
    index.sync(pool)
    exact = expected_scores(pool, recall.terms(text), tag_keys)
    ranked = sorted(
        exact.items(), key=lambda item: (-item[1], item[0].scope_path, item[0].record.id)
    )
    near_query = recall._NearQuery.of(text, index.languages())
    near, split_words = index.near(near_query, exact)

    assert not set(near) & set(exact)
    for stored, score in near.items():
        assert score > 0
        memo = recall._memoize(stored)
        assert recall._positions(near_query, memo) | split_words.get(stored, set())
    assert [stored for stored, _ in recall._best(exact)] == [s for s, _ in ranked[:5]]
    assert all(recall._memoize(stored).searchable for stored in near)
