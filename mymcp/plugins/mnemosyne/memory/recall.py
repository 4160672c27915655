"""Recall: rank the valid records of one scope against a short query and optional tags.

A record's terms are the casefolded runs of letters and digits (underscore and
punctuation separate them) of two characters or more, minus a few stop words. A record
scores, per distinct match: 4 for each requested tag it carries, 3 for each query term in
its title, 2 for each in its scope-relative path or its tags' words, and 1 for each in its
content. Archived canonical records never match. The best five win, ties broken by path,
then by ID. This exact tier is the original's; ``namespace_id`` narrows it (and the wider
tier) to one namespace's canonical records before ranking.

When the exact tier has fewer than five records, a wider tier fills the places left with
records it did not match that share a *key* with the query (see :mod:`.wording`: folded,
stemmed, joined or spelled-as-written forms of words), ranked by the same weights and ties;
a query word cut in two (``healthcare``) also meets a record holding both halves side by
side. A wider hit names the query words that led to it instead of terms and tags.

Each record's terms and their weights are computed once and kept in the store's per-file
memo (``StoredRecord.derived``), which goes away with the file version it describes. An
inverted index per scope follows the store's scans by difference, so a call tokenizes only
its query and reads the postings of its few terms.

Memory: a term is kept once however many records hold it (``sys.intern``), a record's
terms are a sorted tuple with one weight byte each, and a term's postings are one list of
record references (a record appears once per point of weight); a record's keys are kept
the same way, in a second set of lists. A record that leaves the
scan stays in the lists until the records gone outnumber those served (and are more than
:data:`_MIN_REBUILD`); then the index is rebuilt from its records, so it never holds more
than twice the postings of the records it serves.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import os
import re
import sys
import threading
import weakref
from collections import Counter
from collections.abc import Iterator, Mapping, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from mymcp.jsonvalue import JsonObject
from mymcp.plugins.mnemosyne.memory import meaning, wording
from mymcp.plugins.mnemosyne.memory.records import CanonicalRecord
from mymcp.plugins.mnemosyne.memory.references import reference_dict
from mymcp.plugins.mnemosyne.memory.store import MemoryStore, StoredRecord
from mymcp.plugins.mnemosyne.memory.values import RESULT_LIMIT, canonical_tag_key
from mymcp.plugins.mnemosyne.memory.vocabulary import LifecycleState, Scope
from mymcp.plugins.mnemosyne.memory.wording import STOP_WORDS, TERM_RE

__all__ = [
    "RESULT_LIMIT",
    "STOP_WORDS",
    "RecallHit",
    "RecallRequest",
    "hit_view",
    "recall",
    "terms",
]

TAG_WEIGHT: Final = 4
TITLE_WEIGHT: Final = 3
PATH_WEIGHT: Final = 2
CONTENT_WEIGHT: Final = 1

_MEMO_KEY: Final = "recall.terms"


def terms(text: str) -> frozenset[str]:
    """The distinct searchable terms of ``text``."""
    return frozenset(
        term
        for term in TERM_RE.findall(text.casefold())
        if len(term) > 1 and term not in STOP_WORDS
    )


@dataclass(frozen=True)
class RecallRequest:
    """A validated recall: the query exactly as sent, the scope, the requested tags and the
    namespace it is narrowed to (``None``: the whole scope)."""

    query: str
    scope: Scope
    tags: tuple[str, ...] = ()
    namespace_id: str | None = None


@dataclass(frozen=True)
class RecallHit:
    """A ranked record with what matched it.

    An exact-tier hit has the query terms and tags that matched (both sorted) and no
    ``near`` nor ``meaning``; a wider-tier hit has no terms or tags, and ``near`` names the
    query words, as the query wrote them and in its order, that led to it; a meaning-tier
    hit has only ``meaning``: pairs of query words and the memory's word they may mean.
    """

    stored: StoredRecord
    score: int
    terms: tuple[str, ...]
    tags: tuple[str, ...]
    near: tuple[str, ...] = ()
    meaning: tuple[tuple[str, str], ...] = ()


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
    # The same for the wider tier's keys (see ``wording``), in the record's language.
    keys: tuple[str, ...]
    key_weights: bytes
    language: str | None  # the stemming algorithm
    namespace_id: str | None  # None for a legacy record

    def has(self, term: str) -> bool:
        return _holds(self.terms, term)

    def has_key(self, key: str) -> bool:
        return _holds(self.keys, key)


def _holds(ordered: tuple[str, ...], item: str) -> bool:
    index = bisect.bisect_left(ordered, item)
    return index < len(ordered) and ordered[index] == item


def recall(store: MemoryStore, root: Path, request: RecallRequest) -> list[RecallHit]:
    """The best matches in the scope (or namespace), at most :data:`RESULT_LIMIT`, best first.

    The exact tier ranks first; when it has fewer than :data:`RESULT_LIMIT` records, the
    wider tier fills the places left with records the exact tier did not match.

    Raises the store's storage errors.
    """
    candidates = store.recall_scan(root, request.scope)
    query = terms(request.query)
    tag_keys = frozenset(canonical_tag_key(tag) for tag in request.tags)
    index = _index_for(store, root, request.scope)
    with index.lock:
        index.sync(candidates)
        scores = _within(index.scores(query, tag_keys), request.namespace_id)
        hits = [_hit(stored, score, query, tag_keys) for stored, score in _best(scores)]
        if len(hits) < RESULT_LIMIT:
            near = _NearQuery.of(request.query, index.languages())
            found, split_words = index.near(near, scores)
            for stored, score in _best(
                _within(found, request.namespace_id), RESULT_LIMIT - len(hits)
            ):
                words = _positions(near, _memoize(stored)) | split_words.get(stored, set())
                hits.append(RecallHit(stored, score, (), (), near.written(words)))
            if len(hits) < RESULT_LIMIT:
                skip = scores.keys() | found.keys()
                hits.extend(_meaning_hits(index, request, skip, RESULT_LIMIT - len(hits)))
    return hits


def _meaning_hits(
    index: _ScopeIndex, request: RecallRequest, skip: Set[StoredRecord], limit: int
) -> list[RecallHit]:
    """The meaning tier: records that hold words the query's words may mean (English only)."""
    expansion = meaning.expand(request.query)
    if not expansion.targets:
        return []
    kept = {
        item.record: item
        for item in meaning.found(expansion, _TextPostings(index), skip, _side_by_side)
        if _memoize(item.record).language == wording.ENGLISH
    }
    scores = _within({stored: item.score for stored, item in kept.items()}, request.namespace_id)
    hits = []
    for stored, score in _best(scores, limit):
        pairs = (
            (" ".join(expansion.words[p] for p in positions), _written(stored, keys))
            for positions, keys in kept[stored].evidence
        )
        hits.append(RecallHit(stored, score, (), (), (), tuple(pairs)))
    return hits


class _TextPostings:
    """The records holding a wider key with the weight they earn by it, less the records
    that hold it only in a folder name: folders name a namespace, which says little of
    what a memory means."""

    def __init__(self, index: _ScopeIndex) -> None:
        self._index = index

    def __call__(self, key: str) -> Counter[StoredRecord]:
        weights = Counter(self._index.near_postings(key))
        if self._index.in_folder_names(key):
            for stored in [stored for stored in weights if key in _folder_keys(stored)]:
                if not _in_text(stored, key):
                    del weights[stored]
        return weights


def _folder_keys(stored: StoredRecord) -> frozenset[str]:
    """The English keys of a record's folder names (and a legacy file's name)."""
    return _keys_of_folders(_path_words(stored))


@functools.lru_cache(maxsize=4096)
def _keys_of_folders(folders: tuple[str, ...]) -> frozenset[str]:
    return frozenset(wording.text_keys(" ".join(folders), wording.ENGLISH))


def _in_text(stored: StoredRecord, key: str) -> bool:
    """Whether a record holding ``key`` holds it in its title, tags or content.

    Its weight says where: title 3, folders and tags 2, content 1, summed. Only a weight of
    exactly 2 leaves the question open, and then the tags answer it.
    """
    memo = _memoize(stored)
    index = bisect.bisect_left(memo.keys, key)
    found = index < len(memo.keys) and memo.keys[index] == key
    if found and memo.key_weights[index] != PATH_WEIGHT:
        return True
    tags = stored.record.tags
    return any(key in wording.text_keys(tag, wording.ENGLISH) for tag in tags)


def _written(stored: StoredRecord, keys: tuple[str, ...]) -> str:
    """The record's words, as it writes them, that give ``keys`` one after the other."""
    record = stored.record
    for text in (record.title or "", *record.tags, record.content):
        folded = wording.fold(text)
        found = _where(folded, keys)
        if found is None:
            continue
        if len(folded) != len(text):  # folding moved the offsets: read the chunks instead
            return _chunks_giving(text, keys) or " ".join(keys)
        start, end = found
        start = text.rfind(" ", 0, start) + 1
        end = len(text) if text.find(" ", end) < 0 else text.find(" ", end)
        return " ".join(wording.chunks(text[start:end]))
    for text in (record.title or "", *record.tags, record.content):
        for chunk in wording.chunks(text):  # a compound's joined key (left-handed: lefthand)
            if keys[0] in wording.piece_keys(wording.fold(chunk), wording.ENGLISH):
                return chunk
    return " ".join(keys)


def _chunks_giving(text: str, keys: tuple[str, ...]) -> str | None:
    """The fewest chunks of ``text``, as written, that give ``keys`` from their start."""
    chunks = wording.chunks(text)
    for start in range(len(chunks)):
        for end in range(start + 1, min(start + 2 * len(keys), len(chunks)) + 1):
            span = " ".join(chunks[start:end])
            found = _where(wording.fold(span), keys)
            if found is not None and found[0] == 0:
                return span
    return None


def _side_by_side(stored: StoredRecord, keys: tuple[str, ...]) -> bool:
    """Whether the record's title, a tag or its content has ``keys`` one after the other
    (stop words between them aside)."""
    record = stored.record
    texts = (record.title or "", *record.tags, record.content)
    return any(_where(wording.fold(text), keys) is not None for text in texts)


def _where(folded: str, keys: tuple[str, ...]) -> tuple[int, int] | None:
    """Where folded text has words giving ``keys`` one after the other (stop words between
    them aside).

    A regular expression finds where a candidate may begin (a word starting like the first
    key, less its last letter, which stemming may change); only the words from there on are
    read.
    """
    for begin in _start_pattern(keys[0]).finditer(folded):
        wanted = 0
        for word in wording.TERM_RE.finditer(folded, begin.start()):
            text = word.group()
            key = wording.word_key(text, wording.ENGLISH) if len(text) > 1 else None
            if key is None:
                continue
            if key != keys[wanted]:
                break
            wanted += 1
            if wanted == len(keys):
                return begin.start(), word.end()
    return None


@functools.lru_cache(maxsize=1024)
def _start_pattern(key: str) -> re.Pattern[str]:
    return re.compile(r"(?<![^\W_])" + re.escape(key[:-1] if len(key) > 2 else key))


def hit_view(hit: RecallHit, scope: Scope) -> JsonObject:
    """The result item of one hit: its reference, text, tags and what matched."""
    record = hit.stored.record
    match: JsonObject = {"terms": list(hit.terms), "tags": list(hit.tags)}
    if hit.near:
        match["near"] = list(hit.near)
    if hit.meaning:
        match["meaning"] = [{"query": query, "memory": word} for query, word in hit.meaning]
    return {
        "reference": reference_dict(record, scope),
        "id": record.id,
        "scope": scope.value,
        "title": record.title,
        "content": record.content,
        "tags": list(record.tags),
        "match": match,
    }


def _within(scores: dict[StoredRecord, int], namespace_id: str | None) -> dict[StoredRecord, int]:
    """The scores of the records in the namespace (canonical records only), or all."""
    if namespace_id is None:
        return scores
    return {
        stored: score
        for stored, score in scores.items()
        if _memoize(stored).namespace_id == namespace_id
    }


def _best(
    scores: dict[StoredRecord, int], limit: int = RESULT_LIMIT
) -> list[tuple[StoredRecord, int]]:
    """The top records by score desc, scope-relative path asc, then ID asc."""
    if len(scores) > limit:
        # Only records scoring at least the limit-th best score can be among the best.
        floor = heapq.nlargest(limit, scores.values())[-1]
        scores = {stored: score for stored, score in scores.items() if score >= floor}
    ranked = sorted(
        scores.items(),
        key=lambda item: (-item[1], _memoize(item[0]).scope_path, item[0].record.id),
    )
    return ranked[:limit]


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
    ordered, weights = _weighted(title, path, content)
    canonical = record if isinstance(record, CanonicalRecord) else None
    searchable = canonical is None or canonical.state is not LifecycleState.ARCHIVED
    language = wording.stemming_language(None if canonical is None else canonical.language)
    keys, key_weights = _weighted(*_key_components(stored, language)) if searchable else ((), b"")
    memo = _RecordTerms(
        searchable=searchable,
        terms=ordered,
        weights=weights,
        tag_keys=frozenset(sys.intern(canonical_tag_key(tag)) for tag in record.tags),
        scope_path=stored.scope_path,
        keys=keys,
        key_weights=key_weights,
        language=language,
        namespace_id=None if canonical is None else canonical.namespace.id,
    )
    stored.derived[_MEMO_KEY] = memo
    return memo


def _weighted(title: Set[str], path: Set[str], content: Set[str]) -> tuple[tuple[str, ...], bytes]:
    """The sorted, interned terms of a record's three components, and each one's weight."""
    ordered = tuple(sorted(sys.intern(term) for term in title | path | content))
    weights = bytes(
        TITLE_WEIGHT * (term in title)
        + PATH_WEIGHT * (term in path)
        + CONTENT_WEIGHT * (term in content)
        for term in ordered
    )
    return ordered, weights


def _key_components(
    stored: StoredRecord, language: str | None
) -> tuple[set[str], set[str], set[str]]:
    """The wider keys of a record's title, path and tags, and content.

    The path gives its folders' names and a legacy file's name, but not the canonical file
    name (``mem_<hex>.json``) nor the ``.json`` suffix: they are in every record's path.
    """
    record = stored.record
    path = _path_words(stored)
    title = wording.text_keys(record.title or "", language)
    path_keys = set().union(*(wording.text_keys(text, language) for text in (*path, *record.tags)))
    return title, path_keys, wording.text_keys(record.content, language)


def _path_words(stored: StoredRecord) -> tuple[str, ...]:
    folders = stored.parts[1:-1]
    if isinstance(stored.record, CanonicalRecord):
        return folders
    return (*folders, stored.parts[-1].removesuffix(".json"))


def _key_evidence(stored: StoredRecord) -> tuple[tuple[str, int], ...]:
    """A record's folded texts with their weights, to look for words side by side."""
    record = stored.record
    texts = (
        (record.title or "", TITLE_WEIGHT),
        (" ".join((*_path_words(stored), *record.tags)), PATH_WEIGHT),
        (record.content, CONTENT_WEIGHT),
    )
    return tuple((wording.fold(text), weight) for text, weight in texts if text)


@dataclass(frozen=True)
class _Split:
    """A query word cut in two (``healthcare``: ``health`` and ``care``), with the keys of
    each half in each language."""

    word: int  # its position in the query's words
    left: str
    right: str
    left_keys: frozenset[str]
    right_keys: frozenset[str]


@dataclass(frozen=True)
class _NearQuery:
    """The query as the wider tier reads it: its words and the keys each one gives."""

    words: tuple[str, ...]  # as written, punctuation around them removed
    keys: dict[str, frozenset[int]]  # each key and the words it comes from
    splits: tuple[_Split, ...]

    @classmethod
    def of(cls, query: str, languages: Set[str | None]) -> _NearQuery:
        written = wording.chunks(query)
        folded = [wording.fold(word) for word in written]
        keys: dict[str, set[int]] = {}
        splits: list[_Split] = []
        for position, chunk in enumerate(folded):
            for key in _keys_in(chunk, languages):
                keys.setdefault(key, set()).add(position)
            splits.extend(_splits_of(position, chunk, languages))
        for position, (first, second) in enumerate(zip(folded, folded[1:], strict=False)):
            if first.isalnum() and second.isalnum():
                for key in _keys_in(first + second, languages):
                    keys.setdefault(key, set()).update((position, position + 1))
        return cls(
            tuple(written),
            {key: frozenset(positions) for key, positions in keys.items()},
            tuple(splits),
        )

    def written(self, positions: Set[int]) -> tuple[str, ...]:
        """The words at ``positions``, in query order, each once."""
        return tuple(dict.fromkeys(self.words[position] for position in sorted(positions)))


def _keys_in(chunk: str, languages: Set[str | None]) -> set[str]:
    return {key for language in languages for key in wording.piece_keys(chunk, language)}


def _splits_of(position: int, chunk: str, languages: Set[str | None]) -> Iterator[_Split]:
    for left, right in wording.splits(chunk):
        left_keys, right_keys = _keys_in(left, languages), _keys_in(right, languages)
        if left_keys and right_keys:
            yield _Split(position, left, right, frozenset(left_keys), frozenset(right_keys))


def _positions(query: _NearQuery, memo: _RecordTerms) -> set[int]:
    """The positions of the query words whose keys the record holds."""
    return {
        position
        for key, positions in query.keys.items()
        if memo.has_key(key)
        for position in positions
    }


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
        self._near: dict[str, list[StoredRecord]] = {}
        self._languages: Counter[str | None] = Counter()
        # The English keys of the folder names of the records served, with how many hold
        # each: the meaning tier checks a key's records only when a folder gives it.
        self._folder_keys: Counter[str] = Counter()

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

    def near_postings(self, key: str) -> list[StoredRecord]:
        """The records holding a wider key, each once per point of weight it earns there
        (records that left the scan left out)."""
        postings = self._near.get(key, [])
        if self._gone and postings:
            return [stored for stored in postings if stored not in self._gone]
        return postings

    def in_folder_names(self, key: str) -> bool:
        """Whether a folder name of a record served gives ``key`` (in English)."""
        return self._folder_keys[key] > 0

    def languages(self) -> set[str | None]:
        """The stemming languages of the records served."""
        return {language for language, count in self._languages.items() if count > 0}

    def near(
        self, query: _NearQuery, exact: Mapping[StoredRecord, int]
    ) -> tuple[dict[StoredRecord, int], dict[StoredRecord, set[int]]]:
        """The wider tier: each record the exact tier did not match that shares a key with
        the query, with its score; and for the records found by a query word cut in two,
        that word's position."""
        counts: Counter[StoredRecord] = Counter()
        for key in query.keys:
            postings = self._near.get(key)
            if postings:
                counts.update(postings)
        for stored in (*exact, *self._gone) if counts else ():
            counts.pop(stored, None)
        split_words: dict[StoredRecord, set[int]] = {}
        for split in query.splits:
            for stored, weight in self._side_by_side(split, exact):
                counts[stored] += weight
                split_words.setdefault(stored, set()).add(split.word)
        return counts, split_words

    def _side_by_side(
        self, split: _Split, exact: Mapping[StoredRecord, int]
    ) -> Iterator[tuple[StoredRecord, int]]:
        """The records with the two halves of a word next to each other, and the weight of
        the components where they are."""
        left = {stored for key in split.left_keys for stored in self._near.get(key, ())}
        right = {stored for key in split.right_keys for stored in self._near.get(key, ())}
        for stored in left & right:
            if stored in exact or stored in self._gone:
                continue
            weight = sum(
                weight
                for text, weight in _key_evidence(stored)
                if wording.adjacent(text, split.left, split.right)
            )
            if weight:
                yield stored, weight

    def _add(self, stored: StoredRecord) -> None:
        memo = _memoize(stored)
        if not memo.searchable:
            return
        self._searchable += 1
        self._languages[memo.language] += 1
        if stored in self._gone:  # back again: its postings never left
            self._gone.discard(stored)
            self._folder_keys.update(_folder_keys(stored))
            return
        for term, weight in zip(memo.terms, memo.weights, strict=True):
            self._postings.setdefault(term, []).extend([stored] * weight)
        for key, weight in zip(memo.keys, memo.key_weights, strict=True):
            self._near.setdefault(key, []).extend([stored] * weight)
        for tag in memo.tag_keys:
            self._tagged.setdefault(tag, []).append(stored)
        self._folder_keys.update(_folder_keys(stored))

    def _remove(self, stored: StoredRecord) -> None:
        memo = _memoize(stored)
        if memo.searchable:
            self._searchable -= 1
            self._languages[memo.language] -= 1
            self._gone.add(stored)
            self._folder_keys.subtract(_folder_keys(stored))

    def _rebuild(self) -> None:
        """Index the members afresh, without the postings of records that left."""
        self._searchable, self._gone = 0, set()
        self._postings, self._tagged, self._near = {}, {}, {}
        self._languages, self._folder_keys = Counter(), Counter()
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
