"""Recall's search index per scope: the ranking rule, in bounded memory, across changes.

The index follows the store's cache of a scope: it is told of each record gained and lost.
Whatever sequence it follows, the best records it reads off its bitmaps must be those the
ranking rule gives the records it serves, and the record numbers of records gone never
outnumber those served (and 64) before the arrays are rewritten.
"""

from __future__ import annotations

import sys
from array import array
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.memory.model import vocabulary
from mymcp.plugins.mnemosyne.memory.model.records import CanonicalRecord
from mymcp.plugins.mnemosyne.memory.model.values import canonical_tag_key
from mymcp.plugins.mnemosyne.memory.recall import ranking, search_index, wording
from mymcp.plugins.mnemosyne.memory.recall.search_index import MIN_COMPACTION, SearchIndex
from mymcp.plugins.mnemosyne.memory.storage.scan import StoredRecord
from tests.mnemosyne.memory.recall.decisions import decision

WORDS = ("alpha", "beta", "gamma", "delta", "plan", "release", "tea", "zeta", "ops", "q1")
TEXTS = st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join)
NAMESPACES = ("atlas", "beacon")


def stored(
    number: int,
    title: str,
    content: str,
    tags: tuple[str, ...],
    archived: bool,
    namespace: str = "atlas",
) -> Any:
    return decision(number, title or None, content or "x", tags, archived, folders=(namespace,))


RECORDS = st.builds(
    stored,
    st.integers(min_value=0, max_value=2**64),
    TEXTS,
    TEXTS,
    st.lists(st.sampled_from(WORDS[:5]), max_size=3, unique=True).map(tuple),
    st.booleans(),
    st.sampled_from(NAMESPACES),
)


def expected_scores(
    records: list[StoredRecord], query: frozenset[str], tags: frozenset[str]
) -> dict[StoredRecord, int]:
    """The ranking rule, computed from each record's text directly."""
    scores: dict[StoredRecord, int] = {}
    for item in records:
        record = item.record
        assert isinstance(record, CanonicalRecord)
        if record.state is vocabulary.LifecycleState.ARCHIVED:
            continue
        title, content = ranking.terms(record.title or ""), ranking.terms(record.content)
        path = ranking.terms(item.scope_path).union(*(ranking.terms(tag) for tag in record.tags))
        score = sum(
            ranking.TITLE_WEIGHT * (term in title)
            + ranking.PATH_WEIGHT * (term in path)
            + ranking.CONTENT_WEIGHT * (term in content)
            for term in query
        )
        score += ranking.TAG_WEIGHT * len(tags & {canonical_tag_key(t) for t in record.tags})
        if score:
            scores[item] = score
    return scores


def ranked(scores: dict[StoredRecord, int]) -> list[tuple[StoredRecord, int]]:
    return sorted(scores.items(), key=lambda item: (-item[1], item[0].scope_path, item[0].id))


def follow(index: SearchIndex, served: list[StoredRecord], scan: list[StoredRecord]) -> None:
    """Tell the index what the store's cache would: the records lost, then those gained."""
    for item in served:
        if item not in scan:
            index.removed(item)
    for item in scan:
        if item not in served:
            index.added(item, item.record)


def best(
    index: SearchIndex, query: frozenset[str], tags: frozenset[str], mask: int | None = None
) -> list[tuple[StoredRecord, int]]:
    with index.lock:
        planes = ranking.exact_planes(index, query, tags, index.live() if mask is None else mask)
        return [(index.record(number), score) for number, score in index.best(planes, 5)]


@settings(max_examples=60, deadline=None)
@given(
    pool=st.lists(RECORDS, min_size=1, max_size=40, unique_by=lambda item: item.id),
    scans=st.lists(st.lists(st.integers(min_value=0, max_value=39)), min_size=1, max_size=25),
    query=st.lists(st.sampled_from(WORDS), max_size=3).map(frozenset),
    tags=st.lists(st.sampled_from(WORDS[:5]), max_size=2).map(frozenset),
)
def test_the_index_ranks_what_it_serves_by_the_ranking_rule_in_bounded_memory(
    pool: list[StoredRecord],
    scans: list[list[int]],
    query: frozenset[str],
    tags: frozenset[str],
) -> None:
    index = SearchIndex(ranking.record_words, wording.word_key)
    served: list[StoredRecord] = []
    for picks in scans:
        scan = list(dict.fromkeys(pool[pick % len(pool)] for pick in picks))
        follow(index, served, scan)
        served = scan

        assert best(index, query, tags) == ranked(expected_scores(scan, query, tags))[:5]
        searchable = [item for item in scan if item.state is vocabulary.LifecycleState.ACTIVE]
        assert index.served == len(searchable)
        assert index._gone <= max(MIN_COMPACTION, index.served)


@settings(max_examples=40, deadline=None)
@given(
    pool=st.lists(RECORDS, min_size=1, max_size=30, unique_by=lambda item: item.id),
    query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(frozenset),
    namespace=st.sampled_from(NAMESPACES),
)
def test_a_namespace_narrows_the_ranking_to_its_records(
    pool: list[StoredRecord], query: frozenset[str], namespace: str
) -> None:
    index = SearchIndex(ranking.record_words, wording.word_key)
    follow(index, [], pool)
    within = [item for item in pool if item.namespace_id == namespace]

    mask = index.live() & index.namespace(namespace)

    assert (
        best(index, query, frozenset(), mask)
        == ranked(expected_scores(within, query, frozenset()))[:5]
    )


def test_compaction_forgets_every_mention_of_records_that_left() -> None:
    index = SearchIndex(ranking.record_words, wording.word_key)
    keep = stored(1, "alpha plan", "beta", ("tea",), False)
    served = [keep]
    follow(index, [], served)
    for number in range(2, 200):
        scan = [keep, stored(number, "gamma", "delta release", ("ops",), False)]
        follow(index, served, scan)
        served = scan

    assert index._gone <= MIN_COMPACTION
    assert best(index, frozenset({"alpha"}), frozenset()) == [(keep, ranking.TITLE_WEIGHT)]
    assert f"{2:032x}" not in index.table(ranking.EXACT, search_index.PATH)  # a long-gone id
    # Records served and gone together hold every mention there is: per record its terms,
    # keys and tags, the parts whose keys are derived, its namespace, language and file name.
    sample = [keep, stored(0, "gamma", "delta release", ("ops",), False)]
    per_record = max(
        sum(len(part) for part in (*words.terms, *words.keys)) + len(words.tags) + 5
        for words in (ranking.record_words(item, item.record) for item in sample)
        if words is not None
    )
    assert index.mentions() <= (index._gone + index.served) * per_record


def test_a_word_is_kept_once_however_many_records_hold_it() -> None:
    index = SearchIndex(ranking.record_words, wording.word_key)
    follow(index, [], [stored(1, "release plan", "release", (), False)])
    follow(index, [], [stored(2, "release notes", "plan", (), False)])

    for part in search_index.PARTS:
        for word in index.table(ranking.EXACT, part):
            assert word is sys.intern(word)
    assert list(index.table(ranking.EXACT, search_index.CONTENT)["release"]) == [0]
    assert list(index.table(ranking.EXACT, search_index.TITLE)["release"]) == [0, 1]


def test_a_large_tie_is_broken_by_path_also_after_changes() -> None:
    index = SearchIndex(ranking.record_words, wording.word_key)
    pool = [stored(number, "", "zeta", (), False) for number in range(300)]
    follow(index, [], pool[100:])
    follow(index, [], pool[:100])  # numbered after the others, first by path
    query = frozenset({"zeta"})

    expected = ranked(expected_scores(pool, query, frozenset()))[:5]
    assert best(index, query, frozenset()) == expected
    follow(index, pool, pool[3:])
    assert (
        best(index, query, frozenset()) == ranked(expected_scores(pool[3:], query, frozenset()))[:5]
    )


@settings(max_examples=100, deadline=None)
@given(numbers=st.sets(st.integers(min_value=0, max_value=5000), max_size=300))
def test_bitmaps_and_record_numbers_convert_both_ways(numbers: set[int]) -> None:
    ordered = sorted(numbers)
    bits = search_index._bitmap_of(array("i", ordered))

    assert bits == sum(1 << number for number in ordered)
    assert search_index._numbers_of(bits) == ordered
    if len(ordered) > 1:
        half = len(ordered) // 2
        rest = search_index._bitmap_of(array("i", ordered), half)
        assert rest == sum(1 << number for number in ordered[half:])


@settings(max_examples=100, deadline=None)
@given(scores=st.lists(st.integers(min_value=0, max_value=40), max_size=120))
def test_bit_planes_add_up_and_give_the_best_by_score_then_number(scores: list[int]) -> None:
    planes: list[int] = []
    for number, score in enumerate(scores):
        for shift in range(score.bit_length()):
            if score >> shift & 1:
                search_index.add(planes, 1 << number, shift)

    assert [search_index.score_of(planes, n) for n in range(len(scores))] == scores
    above, tied = search_index._split_at_limit(planes, 5)
    chosen = search_index._numbers_of(above)
    positive = sorted((n for n, s in enumerate(scores) if s), key=lambda n: (-scores[n], n))
    assert len(chosen) <= 5 and set(chosen) <= set(positive[:5])
    if tied:
        tie = {scores[n] for n in search_index._numbers_of(tied)}
        assert len(tie) == 1 and tie == {scores[positive[len(chosen)]]}
    else:
        assert sorted(chosen) == sorted(positive[:5])


PIECES = st.sampled_from(
    [
        *WORDS,
        "a",
        "i",
        "x",
        "7",
        "c++",
        "c#",
        ".net",
        "..net",
        "(.net)",
        "on-line",
        "v1.2",
        "don't",
        "tcp/ip",
        "plans.",
        "Release,",
        "ALPHA",
        "q)",
        "x#",
        "a-b-c",
        "foo_bar",
        "!!",
        "-",
    ]
)
ASCII_TEXTS = st.lists(
    st.tuples(PIECES, st.sampled_from([" ", "  ", "\n", "\t"])), max_size=12
).map(lambda pairs: "".join(piece + space for piece, space in pairs))


@settings(max_examples=300, deadline=None)
@given(text=ASCII_TEXTS, language=st.sampled_from(["english", "german", None]))
def test_ascii_text_gives_the_terms_and_keys_of_the_rules_in_c(
    text: str, language: str | None
) -> None:
    words, keys, derived = ranking._text_words(text, language)

    assert derived
    assert set(words) == ranking.terms(text)
    from_terms = {key for word in words if (key := wording.word_key(word, language)) is not None}
    assert from_terms | keys == wording.text_keys(text, language)


def _text_words_before(text: str, language: str | None) -> tuple[set[str], set[str]]:
    """The ASCII tokenizer as it was before the punctuation around words stopped listing
    keys (issue 37, fourth round): the terms and the keys it listed, kept as the oracle."""
    pieces = set(text.lower().split())
    beyond = {piece for piece in pieces if not piece.isalnum()}
    found = pieces - beyond
    found.update(" ".join(beyond).translate(ranking._SEPARATORS).split())
    found -= ranking._NOT_TERMS
    beyond |= pieces & set("abcdefghijklmnopqrstuvwxyz0123456789")  # single letters and digits
    keys: set[str] = set().union(*(wording.piece_keys(piece, language) for piece in beyond))
    return found, keys


ANY_ASCII = st.one_of(
    st.text(st.characters(max_codepoint=127), max_size=60),
    st.lists(
        st.tuples(
            st.sampled_from(["", "(", '"', ".", "-", "'"]),
            PIECES,
            st.sampled_from(["", ",", ".", ";", ":", "!", "?", ")", '"', "'", "...", "-", "#"]),
            st.sampled_from([" ", "\n", "\t", "\x1f"]),
        ),
        max_size=12,
    ).map(lambda parts: "".join("".join(part) for part in parts)),
)


@settings(max_examples=500, deadline=None)
@given(text=ANY_ASCII, language=st.sampled_from(["english", "german", None]))
def test_ascii_text_lists_the_keys_it_listed_before_less_those_its_terms_give(
    text: str, language: str | None
) -> None:
    words, keys, _ = ranking._text_words(text, language)
    terms_before, keys_before = _text_words_before(text, language)

    assert words == terms_before
    from_terms = {key for word in words if (key := wording.word_key(word, language)) is not None}
    # What recall sees, the keys listed and those the index derives from the terms, is the
    # same set; only keys the terms already give are no longer listed.
    assert keys | from_terms == keys_before | from_terms
    assert keys <= keys_before


# Words of a record as recall could describe them: terms and keys per part, whether each
# part's keys are derived, in one of two stemming languages (or none), sometimes not listed.
TERM_SETS = st.frozensets(st.sampled_from(WORDS), max_size=4)
DESCRIBED = st.none() | st.builds(
    search_index.Words,
    st.tuples(TERM_SETS, TERM_SETS, TERM_SETS),
    st.tuples(TERM_SETS, TERM_SETS, TERM_SETS),
    st.tuples(st.booleans(), st.booleans(), st.booleans()),
    TERM_SETS,
    st.sampled_from((None, "atlas", "beacon")),
    st.sampled_from((None, "english", "french")),
    st.none(),
    TERM_SETS,
)


def _state(index: SearchIndex) -> tuple[object, ...]:
    """Everything an index lists, by record position, whichever way it was filled."""
    with index.lock:
        index.mentions()  # flushes what waits
        tables = [table.words() for table in index._all_tables()]
        mapped = {language: terms for language, terms in index._mapped.items() if terms}
        key_terms = {
            language: {key: terms for key, terms in by_key.items() if terms}
            for language, by_key in index._key_terms.items()
            if by_key
        }
        return (
            tables,
            mapped,
            key_terms,
            index._languages,
            +index._language_counts,
            index._folders,
            +index._folder_counts,
            index._named,
            [item.index_number if item else None for item in index._records],
        )


@settings(max_examples=80, deadline=None)
@given(described=st.lists(DESCRIBED, min_size=1, max_size=12), split=st.integers(0, 12))
def test_a_part_lists_what_adding_its_records_one_by_one_lists(
    described: list[search_index.Words | None], split: int
) -> None:
    items = [stored(number, "t", "c", (), False) for number in range(len(described))]
    words_of = {id(item): words for item, words in zip(items, described, strict=True)}

    def describe(item: StoredRecord, record: object) -> search_index.Words | None:
        return words_of[id(item)]

    one_by_one = SearchIndex(describe, wording.word_key)
    for item in items:
        one_by_one.added(item, item.record)
    expected = _state(one_by_one)
    for item in items:
        item.index_number = -1

    in_parts = SearchIndex(describe, wording.word_key)
    for run in (items[:split], items[split:]):
        pairs = [(item, item.record) for item in run]
        part = search_index.make_part(describe, wording.word_key, pairs)
        in_parts.added_part(run, part)

    assert _state(in_parts) == expected
