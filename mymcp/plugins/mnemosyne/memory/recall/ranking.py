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
side. A wider hit names the query words that led to it instead of terms and tags. When both
leave places, the meaning tier (:mod:`.meaning`) fills them with English records holding words
the query's words may mean.

The words of each record are worked out once, when the store parses its file, and listed
in the scope's search index (:mod:`.search_index`), which follows the store's cache of the
scope; a call tokenizes only its query, scores every record at once from the bitmaps of its
few words, and reads the whole records of the winners only. A query word cut in two is
checked against the text of at most :data:`SPLIT_CHECKS` records (in path order), which is
every record of a scope within the default candidate limit.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
from collections.abc import Iterator, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Final, NamedTuple

from mymcp.jsonvalue import JsonObject
from mymcp.plugins.mnemosyne.memory.model.errors import RecordChanged
from mymcp.plugins.mnemosyne.memory.model.records import CanonicalRecord, Record
from mymcp.plugins.mnemosyne.memory.model.references import reference_dict
from mymcp.plugins.mnemosyne.memory.model.values import RESULT_LIMIT, canonical_tag_key
from mymcp.plugins.mnemosyne.memory.model.vocabulary import LifecycleState, Scope
from mymcp.plugins.mnemosyne.memory.recall import meaning, wording
from mymcp.plugins.mnemosyne.memory.recall.search_index import (
    Planes,
    SearchIndex,
    Words,
    add,
    masked,
    nonzero,
)
from mymcp.plugins.mnemosyne.memory.recall.wording import STOP_WORDS, TERM_RE
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore, StoredRecord

__all__ = [
    "RESULT_LIMIT",
    "SPLIT_CHECKS",
    "STOP_WORDS",
    "RecallHit",
    "RecallRequest",
    "exact_planes",
    "hit_view",
    "prepare",
    "recall",
    "record_words",
    "terms",
]

TAG_WEIGHT: Final = 4
TITLE_WEIGHT: Final = 3
PATH_WEIGHT: Final = 2
CONTENT_WEIGHT: Final = 1
_TAG_SHIFT: Final = 2  # 4 = 2**2

# The two tiers' word lists in the index.
EXACT: Final = 0
WIDER: Final = 1
# The most records whose text a query word cut in two is checked against.
SPLIT_CHECKS: Final = 1000


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
    """A ranked record, its whole record, and what matched it.

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
    record: Record | None = None

    @property
    def whole(self) -> Record:
        return self.record if self.record is not None else self.stored.record


def recall(store: MemoryStore, root: Path, request: RecallRequest) -> list[RecallHit]:
    """The best matches in the scope (or namespace), at most :data:`RESULT_LIMIT`, best first.

    The exact tier ranks first; when it has fewer than :data:`RESULT_LIMIT` records, the
    wider tier fills the places left with records the exact tier did not match.

    Raises the store's storage errors. A winner whose file changed between the scan and
    the reading of its record sends the call back to the start, once.
    """
    try:
        return _recall(store, root, request)
    except RecordChanged:
        return _recall(store, root, request)


def _recall(store: MemoryStore, root: Path, request: RecallRequest) -> list[RecallHit]:
    index = store.followed_scope(root, request.scope, _new_index)
    if index is None:
        return []
    query = terms(request.query)
    tag_keys = frozenset(canonical_tag_key(tag) for tag in request.tags)
    with index.lock:
        mask = index.live()
        if request.namespace_id is not None:
            mask &= index.namespace(request.namespace_id)
        planes = exact_planes(index, query, tag_keys, mask)
        hits = [
            _hit(index, number, score, query, tag_keys)
            for number, score in index.best(planes, RESULT_LIMIT)
        ]
        if len(hits) < RESULT_LIMIT:
            mask &= ~nonzero(planes)
            wider, mask = _wider(index, request.query, mask, RESULT_LIMIT - len(hits))
            hits += wider
            if len(hits) < RESULT_LIMIT:
                hits += _meaning_hits(index, request.query, mask, RESULT_LIMIT - len(hits))
    return [_whole(hit) for hit in hits]


def prepare(store: MemoryStore, root: Path, scope: Scope) -> None:
    """Bring the scope's search index up to date now, as its next recall would (the server
    does it at start for a large scope, so that its first recall finds the index made)."""
    store.followed_scope(root, scope, _new_index)


def exact_planes(
    index: SearchIndex, query: frozenset[str], tag_keys: frozenset[str], mask: int
) -> Planes:
    """The exact tier's score of every record in ``mask``, as bit planes."""
    planes: Planes = []
    for term in query:
        index.weigh(planes, EXACT, term)
    for tag in tag_keys:
        add(planes, index.tag(tag), _TAG_SHIFT)
    return masked(planes, mask)


def _new_index() -> SearchIndex:
    return SearchIndex(record_words, wording.word_key)


def _whole(hit: RecallHit) -> RecallHit:
    """The hit with its whole record read (from the store's cache or the file)."""
    return dataclasses.replace(hit, record=hit.stored.record)


def hit_view(hit: RecallHit, scope: Scope) -> JsonObject:
    """The result item of one hit: its reference, text, tags and what matched."""
    record = hit.whole
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


def _hit(
    index: SearchIndex, number: int, score: int, query: frozenset[str], tag_keys: frozenset[str]
) -> RecallHit:
    matched = sorted(term for term in query if index.held(EXACT, term) >> number & 1)
    tags = sorted(tag for tag in tag_keys if index.tag(tag) >> number & 1)
    return RecallHit(index.record(number), score, tuple(matched), tuple(tags))


# --- the wider tier ----------------------------------------------------------------------------


def _wider(index: SearchIndex, query: str, mask: int, places: int) -> tuple[list[RecallHit], int]:
    """The wider tier's best records among ``mask`` (the exact tier's are left out), and
    ``mask`` less every record it found."""
    near = _NearQuery.of(query, index.languages())
    planes: Planes = []
    for key in near.keys:
        index.weigh(planes, WIDER, key)
    planes = masked(planes, mask)
    split_words = _add_splits(index, near, mask, planes)
    hits = []
    for number, score in index.best(planes, places):
        words = _positions(index, near, number) | split_words.get(number, set())
        hits.append(RecallHit(index.record(number), score, (), (), near.written(words)))
    return hits, mask & ~nonzero(planes)


# --- the meaning tier --------------------------------------------------------------------------


def _meaning_hits(index: SearchIndex, query: str, mask: int, places: int) -> list[RecallHit]:
    """The meaning tier: English records among ``mask`` (those no other tier found) that hold
    words the query's words may mean."""
    expansion = meaning.expand(query)
    if not expansion.targets:
        return []
    mask &= index.language(wording.ENGLISH)
    postings = _TextPostings(index, mask)
    kept = meaning.found(expansion, postings, frozenset(), postings.side_by_side)
    kept.sort(key=lambda item: (-item.score, *_tie_order(index.record(item.record))))
    hits = []
    for item in kept[:places]:
        stored = index.record(item.record)
        pairs = (
            (" ".join(expansion.words[p] for p in positions), _written(stored, keys))
            for positions, keys in item.evidence
        )
        hits.append(RecallHit(stored, item.score, (), (), (), tuple(pairs)))
    return hits


def _tie_order(stored: StoredRecord) -> tuple[str, str]:
    """How meaning hits of one score are ordered: by title, then by path below the scope.
    Such ties are common (one word the query may mean, held by many memories), and a path
    holds a random ID: by the title first, a notebook written again gives the same answer."""
    return (stored.title or "", stored.scope_path)


class _TextPostings:
    """The records (by number, among ``mask``) holding a wider key with the weight they earn
    by it, less the records that hold it only in a folder name: folders name a namespace,
    which says little of what a memory means."""

    def __init__(self, index: SearchIndex, mask: int) -> None:
        self._index = index
        self._mask = mask

    def __call__(self, key: str) -> dict[int, int]:
        weights = self._index.weights(WIDER, key, self._mask)
        if self._index.in_folder_names(key):
            for number in [number for number, weight in weights.items() if weight == PATH_WEIGHT]:
                stored = self._index.record(number)
                if key in _folder_keys(stored) and not _in_tags(stored, key):
                    del weights[number]
        return weights

    def side_by_side(self, number: int, keys: tuple[str, ...]) -> bool:
        return _side_by_side(self._index.record(number), keys)


def _folder_keys(stored: StoredRecord) -> frozenset[str]:
    """The English keys of a record's folder names (and a legacy file's name)."""
    return _keys_of_folders(_path_words(stored))


@functools.lru_cache(maxsize=4096)
def _keys_of_folders(folders: tuple[str, ...]) -> frozenset[str]:
    return frozenset(wording.text_keys(" ".join(folders), wording.ENGLISH))


def _in_tags(stored: StoredRecord, key: str) -> bool:
    """Whether a record's tags give ``key`` (a weight of exactly 2 comes from its folders,
    its tags, or both)."""
    return any(key in wording.text_keys(tag, wording.ENGLISH) for tag in stored.record.tags)


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


def _add_splits(
    index: SearchIndex, near: _NearQuery, mask: int, planes: Planes
) -> dict[int, set[int]]:
    """Add to ``planes`` what query words cut in two earn the records holding both halves
    side by side; the positions of those words, by record number."""
    split_words: dict[int, set[int]] = {}
    gained: dict[int, int] = {}
    for split in near.splits:
        left = _any_key(index, split.left_keys)
        both = left & _any_key(index, split.right_keys) & mask if left else 0
        for number in index.in_order(both, SPLIT_CHECKS) if both else ():
            weight = sum(
                weight
                for text, weight in _key_evidence(index.record(number))
                if wording.adjacent(text, split.left, split.right)
            )
            if weight:
                gained[number] = gained.get(number, 0) + weight
                split_words.setdefault(number, set()).add(split.word)
    for number, weight in gained.items():
        for shift in range(weight.bit_length()):
            if weight >> shift & 1:
                add(planes, 1 << number, shift)
    return split_words


def _any_key(index: SearchIndex, keys: Set[str]) -> int:
    bits = 0
    for key in keys:
        bits |= index.held(WIDER, key)
    return bits


def _positions(index: SearchIndex, query: _NearQuery, number: int) -> set[int]:
    """The positions of the query words whose keys the record holds."""
    return {
        position
        for key, positions in query.keys.items()
        if index.held(WIDER, key) >> number & 1
        for position in positions
    }


def _path_words(stored: StoredRecord) -> tuple[str, ...]:
    folders = stored.parts[1:-1]
    if stored.is_canonical:
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


# --- the words of a record -----------------------------------------------------------------------


def record_words(stored: StoredRecord, record: Record) -> Words | None:
    """What the index lists of a record: its terms and keys per part, its tag keys, its
    namespace and stemming language; None for an archived record, which never matches.

    A canonical record's file name (``mem_<hex>.json``) gives the path the terms ``mem``,
    the hex of its ID and ``json``; the index lists the ID's term under the file name.
    """
    namespace: str | None = None
    name: str | None = None
    if isinstance(record, CanonicalRecord):
        if record.state is LifecycleState.ARCHIVED:
            return None
        language = wording.stemming_language(record.language)
        place = _canonical_place(stored.parts[1:-1], language)
        namespace, name = sys.intern(record.namespace.id), stored.parts[-1]
    else:
        language = wording.stemming_language(None)
        # A legacy file name gives the path its own terms, and is read like a folder's.
        folders = _path_words(stored)
        place = _place(folders, language, _text_terms(stored.parts[-1]))
    title_terms, title_keys, title_derived = _text_words(record.title or "", language)
    content_terms, content_keys, content_derived = _text_words(record.content, language)
    path_terms, path_keys, tag_keys = place.terms, place.keys, _NO_TAGS
    if record.tags:
        shorts = [_short_words(tag, language) for tag in record.tags]
        path_terms = path_terms.union(*[short.terms for short in shorts])
        path_keys = path_keys.union(*[short.keys for short in shorts])
        tag_keys = frozenset([short.tag_key for short in shorts])
    return Words(
        (title_terms, path_terms, content_terms),
        (title_keys, path_keys, content_keys),
        (title_derived, False, content_derived),
        tag_keys,
        namespace,
        language,
        name,
        place.folder_keys,
    )


# The terms every canonical record's file name gives besides its ID's hex.
_FILE_NAME_TERMS: Final = frozenset({"mem", "json"})
_NO_TAGS: Final[frozenset[str]] = frozenset()


class _Place(NamedTuple):
    """The words a record's place gives: the path's terms and keys of its folders (and file
    name), and the English keys of its folder names (:func:`_folder_keys`)."""

    terms: frozenset[str]
    keys: frozenset[str]
    folder_keys: frozenset[str]


def _canonical_place(folders: tuple[str, ...], language: str | None) -> _Place:
    """The words of a canonical record's folders: the same few come back record after
    record, so they are kept (at most 4,096)."""
    key = (folders, language)
    found = _places.get(key)
    if found is None:
        found = _place(folders, language, _FILE_NAME_TERMS)
        if len(_places) >= 4096:
            _places.clear()
        _places[key] = found
    return found


def _place(folders: tuple[str, ...], language: str | None, name_terms: Set[str]) -> _Place:
    shorts = [_short_words(folder, language) for folder in folders]
    return _Place(
        frozenset(name_terms).union(*[short.terms for short in shorts]),
        frozenset().union(*[short.keys for short in shorts]),
        _keys_of_folders(folders),
    )


_places: dict[tuple[tuple[str, ...], str | None], _Place] = {}


class _Short(NamedTuple):
    terms: frozenset[str]
    keys: frozenset[str]
    tag_key: str


def _short_words(text: str, language: str | None) -> _Short:
    """The terms, keys and tag key of a short text (a folder name, a tag): the same few
    come back in record after record, so they are kept (at most 8,192)."""
    key = (text, language)
    found = _shorts.get(key)
    if found is None:
        found = _Short(
            frozenset(_text_terms(text)),
            frozenset(wording.text_keys(text, language)),
            sys.intern(canonical_tag_key(text)),
        )
        if len(_shorts) >= 8192:
            _shorts.clear()
        _shorts[key] = found
    return found


_shorts: dict[tuple[str, str | None], _Short] = {}


def _text_terms(text: str) -> set[str]:
    if text.isascii():
        return _ascii_terms(text.lower())
    return {sys.intern(term) for term in terms(text)}


# ASCII text, casefolded: every character but a letter or a digit separates terms.
_SEPARATORS: Final = str.maketrans(
    {chr(code): " " for code in range(128) if not chr(code).isalnum() or chr(code).isupper()}
)
# What is never a term: stop words, and single letters and digits.
_NOT_TERMS: Final = STOP_WORDS | frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def _ascii_terms(lowered: str) -> set[str]:
    """The terms of casefolded ASCII text (the same as :func:`terms`, made in C)."""
    return set(lowered.translate(_SEPARATORS).split()) - _NOT_TERMS


def _text_words(text: str, language: str | None) -> tuple[set[str], set[str], bool]:
    """The terms of ``text``, the keys the index must list for it, and whether the index
    derives the rest of its keys from its terms.

    Casefolding and folding are the same for ASCII text, the usual case, so there every
    word of the wider tier is a term of the exact tier and its key is the term's
    (``wording.word_key``); the index works those out from the terms when a query asks.
    Listed are only the keys the words do not give (a compound's joined key, a piece as
    spelled: ``wording.extra_keys_of``) of the pieces (what lies between white space) that
    hold something besides letters and digits, or are one letter or digit; a word with
    punctuation around it (``plans.``) lists nothing. Other text gets all of its keys
    listed. (It is done for every record of a scope: everything runs in C on sets of
    distinct pieces, but for the pieces never met before.)
    """
    if not text.isascii():
        return {sys.intern(term) for term in terms(text)}, wording.text_keys(text, language), False
    found = set(text.lower().split())  # the pieces, most of them terms met before
    beyond = found - _plain_pieces  # pieces with more than letters and digits, and the others
    if not beyond:
        return found, set(), True
    found -= beyond
    found.update(*map(_piece_terms.__getitem__, beyond))  # notes the terms among them
    keyed = beyond - _keyless  # the pieces that may give keys of their own
    extra_keys = wording.extra_keys_of(language).__getitem__
    return found, set().union(*map(extra_keys, keyed)), True


class _PieceTerms(dict[str, tuple[str, ...]]):
    """The terms of each lowered ASCII piece of text met, worked out on lookup; a piece
    met is also noted among the plain terms or the keyless pieces when it is one. At most
    _PIECES_KEPT pieces are kept; past that, all three start again."""

    def __missing__(self, piece: str) -> tuple[str, ...]:
        found = tuple(_ascii_terms(piece))
        if len(self) >= _PIECES_KEPT:
            self.clear()
            _plain_pieces.clear()
            _keyless.clear()
        self[piece] = found
        if found == (piece,):
            _plain_pieces.add(piece)
        if _gives_no_keys(piece):
            _keyless.add(piece)
        return found


def _gives_no_keys(piece: str) -> bool:
    """Whether a lowered ASCII piece is, in every language, a word of two letters or
    digits or more with only punctuation around it that no key keeps (not a ``.`` before
    it, not ``#`` or ``+`` after it): such a piece gives the keys of its word and no other.
    """
    word = piece.lstrip(_DROPPED_BEFORE).rstrip(_DROPPED_AFTER)
    return len(word) > 1 and word.isalnum()


# Pieces of ASCII text met (most pieces of a text were met before), and among them the plain
# terms (letters and digits only, not a stop word nor a single letter or digit: each its own
# only term) and the pieces that give no key besides their words' (see _gives_no_keys).
_PIECES_KEPT: Final = 32768
_piece_terms = _PieceTerms()
_plain_pieces: set[str] = set()
_keyless: set[str] = set()
# ASCII punctuation a piece's key drops before its first letter or digit, and after its last.
_PUNCTUATION: Final = "".join(chr(code) for code in range(33, 127) if not chr(code).isalnum())
_DROPPED_BEFORE: Final = _PUNCTUATION.replace(".", "")
_DROPPED_AFTER: Final = _PUNCTUATION.replace("#", "").replace("+", "")
