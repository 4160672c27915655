"""One scope's search index: which records hold which words, and the best of them.

Records get a number as they come in. Each word of a record (a term of recall's exact tier,
a key of its wider tier, a tag, a namespace) is listed under that word, per part of the
record it is in (title, path, content): as an ascending array of record numbers while few
records hold it (four bytes a mention), as a bitmap of one bit per record number once so
many do that the bitmap is the smaller. A record that leaves is only marked gone; once the
gone outnumber those served (and :data:`MIN_COMPACTION`), the records served are numbered
afresh and every list is rewritten without the gone.

A query adds up the bitmaps of its few words as bit-sliced numbers: plane ``i`` of a score
holds bit ``i`` of every record's score, so adding a word's weight to every record at once
costs a handful of operations on integers of one bit per record. The best few records are
then read off the planes from the highest bit down, and records that tie are told apart by
their path below the scope, as recall's ranking rule says. Nothing here is written to
disk; it lives as long as the scope's cache in the store.
"""

from __future__ import annotations

import bisect
import re
import sys
import threading
from array import array
from collections import Counter, deque
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import partial
from itertools import chain, compress, repeat
from typing import Final, NamedTuple

from mymcp.plugins.mnemosyne.memory.model.records import Record
from mymcp.plugins.mnemosyne.memory.storage.scan import StoredRecord

__all__ = [
    "CONTENT",
    "MIN_COMPACTION",
    "PARTS",
    "PATH",
    "TITLE",
    "Part",
    "Planes",
    "SearchIndex",
    "Words",
    "make_part",
]

# The parts of a record a word can be in, each with the weight recall gives it there.
TITLE: Final = 0
PATH: Final = 1
CONTENT: Final = 2
PARTS: Final = (TITLE, PATH, CONTENT)
_WEIGHT_BITS: Final = ((0, 1), (1,), (0,))  # 3 = 2**0 + 2**1, 2 = 2**1, 1 = 2**0

# Records gone tolerated in the lists before they are rewritten, whatever the number of
# records; past that, as many as the index serves.
MIN_COMPACTION: Final = 64
# Bitmaps of sparse words kept for the next query, in bytes; past that all are dropped.
MAX_BITMAP_BYTES: Final = 32 * 2**20
# Records whose numbers may wait (see _Table) before they join the lists.
_BATCH: Final = 4096
# A word's array becomes a bitmap once it holds this many numbers and a bitmap of every
# record is no larger than the array (four bytes a number, one bit a record).
_DENSE_FROM: Final = 64
# Below this many numbers a bitmap is made bit by bit, above it from a string of digits.
_FEW: Final = 48
# A tie of at most this many records is sorted; a larger one is read in path order.
_SMALL_TIE: Final = 64
_NONZERO: Final = re.compile(rb"[^\x00]")
# Bytes 0 and 1 as the binary digits "0" and "1".
_DIGITS: Final = bytes.maketrans(b"\x00\x01", b"01")
# A canonical record's file name: the prefix, the hex digits of its ID, the suffix.
_FILE_PREFIX: Final = "mem_"
_ID_HEX: Final = 32
_FILE_SUFFIX: Final = ".json"


class Words(NamedTuple):
    """What the index lists of one record: its terms and keys per part (title, path,
    content); per part, whether the keys of its terms are derived from them at query time
    rather than listed (``key_of`` of each term; the keys listed are then only the others);
    its tag keys, its namespace (None for a legacy record), its language, the name of its
    file when that gives the path a term no other record has (a canonical record's
    ``mem_<hex>.json``: the hex), which is listed under the name, not in an array, and the
    (English) keys of its folder names, which the index counts.
    """

    terms: tuple[Collection[str], Collection[str], Collection[str]]
    keys: tuple[Collection[str], Collection[str], Collection[str]]
    derived: tuple[bool, bool, bool]
    tags: Collection[str]
    namespace: str | None
    language: str | None
    name: str | None = None
    folder_keys: Collection[str] = ()


# What a record's words are (None: not searchable, so not listed), computed by recall.
Describe = Callable[[StoredRecord, Record], Words | None]
# The key a term gives in a language, if any (recall's wider tier: ``wording.word_key``).
KeyOf = Callable[[str, str | None], str | None]
Planes = list[int]


class _Pending(dict[str, list[int]]):
    def __missing__(self, word: str) -> list[int]:
        numbers = self[word] = []
        return numbers


class _Table:
    """Word -> the records that hold it: an ascending array of numbers (``sparse``) or a
    bitmap (``dense``).

    New numbers wait in ``pending`` (small lists, which stay in the processor's cache
    while many records come in) and join the lists in one step per word: appending to
    thousands of large arrays record by record costs a cache miss per mention.
    """

    __slots__ = ("dense", "pending", "sparse")

    def __init__(self) -> None:
        self.sparse: dict[str, array] = {}  # type: ignore[type-arg]
        self.dense: dict[str, int] = {}
        self.pending = _Pending()

    def flush(self, records: int) -> None:
        """Move the pending numbers into the lists (``records``: the numbers given)."""
        self._extend(self.pending.items(), records)
        self.pending.clear()

    def merge(self, other: _Table, base: int, records: int) -> None:
        """Take in the lists of another table (of a part), its numbers raised by ``base``;
        every number here is below ``base``."""
        shift = base.__add__
        self._extend(
            ((word, array("i", map(shift, numbers))) for word, numbers in other.sparse.items()),
            records,
        )
        for word, bits in other.dense.items():
            listed = self.sparse.pop(word, None)
            if listed is not None:
                bits = _bitmap_of(listed) | bits << base
            else:
                bits = self.dense.get(word, 0) | bits << base
            self.dense[sys.intern(word)] = bits

    def _extend(self, lists: Iterable[tuple[str, array | list[int]]], records: int) -> None:  # type: ignore[type-arg]
        """Add each word's numbers (above every number listed) to its list."""
        dense, sparse = self.dense, self.sparse
        for word, numbers in lists:
            bits = dense.get(word)
            if bits is not None:
                dense[word] = bits | _bitmap_of(numbers)
                continue
            listed = sparse.get(word)
            if listed is not None:
                listed.extend(numbers)
                if len(listed) >= _DENSE_FROM and len(listed) * 32 >= records:
                    dense[sys.intern(word)] = _bitmap_of(listed)
                    del sparse[word]
            elif len(numbers) >= _DENSE_FROM and len(numbers) * 32 >= records:
                # A word is kept once, whichever tables list it.
                dense[sys.intern(word)] = _bitmap_of(numbers)
            else:
                sparse[sys.intern(word)] = array("i", numbers)

    def words(self) -> dict[str, list[int]]:
        """Every word with its record numbers (for tests)."""
        listed = {word: list(numbers) for word, numbers in self.sparse.items()}
        listed.update((word, _numbers_of(bits)) for word, bits in self.dense.items())
        return listed

    def mentions(self) -> int:
        sparse = sum(len(numbers) for numbers in self.sparse.values())
        return sparse + sum(bits.bit_count() for bits in self.dense.values())

    def compact(self, alive: bytes, renumbered: array) -> None:  # type: ignore[type-arg]
        """Keep only the numbers of records ``alive`` (a byte per old number), renumbered."""
        for word, numbers in list(self.sparse.items()):
            kept = array("i", compress(numbers, map(alive.__getitem__, numbers)))
            if kept:
                self.sparse[word] = array("i", map(renumbered.__getitem__, kept))
            else:
                del self.sparse[word]
        # A bitmap's digits, least significant first, are the old numbers in order.
        for word, bits in list(self.dense.items()):
            digits = format(bits, "b")[::-1].ljust(len(alive), "0")
            kept_digits = "".join(compress(digits, alive))[::-1]
            if "1" in kept_digits:
                self.dense[word] = int(kept_digits, 2)
            else:
                del self.dense[word]


_APPEND = list.append


def _language_name(language: str | None) -> str:
    # The tables are keyed by strings; a record without a stemming language is "".
    return language or ""


def _list(table: _Table, words: Iterable[str], number: int) -> None:
    # Adds ``number`` to each word's pending numbers, in C: this runs for every mention.
    deque(map(_APPEND, map(table.pending.__getitem__, words), repeat(number)), 0)


class SearchIndex:
    """The searchable records of one scope, numbered, and their words; see the module.

    It follows the store's cache of the scope (``scan.Follower``): ``added``, ``removed``
    and ``cleared`` come under the store's lock, queries under :attr:`lock`, which every
    change takes too.
    """

    def __init__(self, describe: Describe, key_of: KeyOf) -> None:
        self.lock = threading.Lock()
        self._describe = describe
        self._key_of = key_of
        self._reset()

    def _reset(self) -> None:
        self._records: list[StoredRecord | None] = []
        self._languages: list[str | None] = []
        self._language_counts: Counter[str | None] = Counter()
        self._by_language = _Table()  # the records of each stemming language ("" for none)
        # The keys of the folder names of each record, and how many records served hold each.
        self._folders: list[Collection[str]] = []
        self._folder_counts: Counter[str] = Counter()
        self._live = bytearray()
        self._gone = 0
        # (terms, keys) x (title, path, content), then tags and namespaces.
        self._tables = [[_Table() for _ in PARTS] for _ in range(2)]
        self._tags = _Table()
        self._namespaces = _Table()
        self._named: dict[str, int] = {}  # a canonical file name -> its record's number
        # Per part, the records whose keys are derived from their terms, by language; per
        # language, the terms seen in them so far and, by key, the terms that give it.
        self._derived = [_Table() for _ in PARTS]
        self._mapped: dict[str | None, set[str]] = {}
        self._key_terms: dict[str | None, dict[str, set[str]]] = {}
        self._bitmaps: dict[tuple[int, str], tuple[int, int]] = {}
        self._bitmap_bytes = 0
        self._ordered: list[int] = []  # record numbers by path below the scope
        self._unordered: list[int] = []  # numbers given since ``_ordered`` was made
        self._waiting = 0  # records whose numbers wait in the tables' pending lists

    # --- following the store ---------------------------------------------------------------

    def added(self, stored: StoredRecord, record: Record) -> None:
        words = self._describe(stored, record)
        if words is None:
            return
        with self.lock:
            number = len(self._records)
            self._records.append(stored)
            self._languages.append(words.language)
            self._language_counts[words.language] += 1
            self._by_language.pending[_language_name(words.language)].append(number)
            self._folders.append(words.folder_keys)
            self._folder_counts.update(words.folder_keys)
            stored.index_number = number
            self._list_words(words, number)
            if len(self._live) <= number >> 3:
                self._live.extend(bytes(max(64, len(self._live))))
            self._live[number >> 3] |= 1 << (number & 7)
            self._unordered.append(number)
            self._waiting += 1
            if self._waiting >= _BATCH:
                self._flush()

    def part_maker(self) -> Callable[[Sequence[tuple[StoredRecord, Record]]], Part]:
        """What makes a :class:`Part` of this index's kind out of records, to be called
        away from it (in another process: so it holds only what pickles by name)."""
        return partial(make_part, self._describe, self._key_of)

    def _list_words(self, words: Words, number: int, *, map_keys: bool = True) -> None:
        """List the words of record ``number`` (they wait in the tables' pending lists);
        with ``map_keys`` false, the keys of its derived terms are left to the caller."""
        for tables, lists in ((self._tables[0], words.terms), (self._tables[1], words.keys)):
            for table, listed in zip(tables, lists, strict=True):
                if listed:
                    _list(table, listed, number)
        language = _language_name(words.language)
        for part in PARTS:
            if words.derived[part]:
                self._derived[part].pending[language].append(number)
                if map_keys:
                    self._map_keys(words.terms[part], words.language)
        if words.tags:
            _list(self._tags, words.tags, number)
        if words.namespace is not None:
            self._namespaces.pending[words.namespace].append(number)
        if words.name is not None:
            self._named[words.name] = number

    def added_part(self, stored: Sequence[StoredRecord], part: Part) -> None:
        """Take in a part made of records that ``stored`` stands for here, item for item,
        as if each of them had been ``added`` in their order."""
        with self.lock:
            self._flush()  # what waits comes first: every list stays in ascending order
            base = len(self._records)
            count = len(part.positions)
            records = list(map(stored.__getitem__, part.positions))
            deque(map(setattr, records, repeat("index_number"), range(base, base + count)), 0)
            self._records += records
            self._languages += part.languages
            self._language_counts.update(part.language_counts)
            self._folders += part.folders
            self._folder_counts.update(part.folder_counts)
            self._named.update((name, base + number) for name, number in part.named.items())
            self._unordered += range(base, base + count)
            self._serve(base, base + count)
            for mine, theirs in zip(self._all_tables(), part.tables, strict=True):
                mine.merge(theirs, base, base + count)
            for language, terms in part.mapped.items():
                self._mapped.setdefault(language, set()).update(terms)
            for language, keys in part.key_terms.items():
                by_key = self._key_terms.setdefault(language, {})
                for key, giving in keys.items():
                    by_key.setdefault(key, set()).update(giving)

    def _serve(self, start: int, stop: int) -> None:
        """Mark the records numbered from ``start`` to ``stop`` (excluded) served."""
        if start >= stop:
            return
        live = self._live
        while len(live) <= (stop - 1) >> 3:
            live.extend(bytes(max(64, len(live))))
        first, last = start >> 3, (stop - 1) >> 3
        if first == last:
            live[first] |= (0xFF << (start & 7)) & (0xFF >> (7 - ((stop - 1) & 7)))
            return
        live[first] |= (0xFF << (start & 7)) & 0xFF
        live[first + 1 : last] = b"\xff" * (last - first - 1)
        live[last] |= 0xFF >> (7 - ((stop - 1) & 7))

    def removed(self, stored: StoredRecord) -> None:
        with self.lock:
            number = stored.index_number
            if not 0 <= number < len(self._records) or self._records[number] is not stored:
                return
            self._records[number] = None
            self._live[number >> 3] &= ~(1 << (number & 7))
            self._language_counts[self._languages[number]] -= 1
            self._folder_counts.subtract(self._folders[number])
            stored.index_number = -1
            self._gone += 1
            if self._gone > max(MIN_COMPACTION, len(self._records) - self._gone):
                self._compact()

    def cleared(self) -> None:
        with self.lock:
            for stored in self._records:
                if stored is not None:
                    stored.index_number = -1
            self._reset()

    # --- what queries read (under ``lock``) ----------------------------------------------------

    @property
    def served(self) -> int:
        """How many records are searchable."""
        return len(self._records) - self._gone

    def languages(self) -> set[str | None]:
        """The stemming languages of the records served."""
        return {language for language, count in self._language_counts.items() if count > 0}

    def live(self) -> int:
        """The bitmap of the records served."""
        return int.from_bytes(self._live, "little")

    def language(self, language: str | None) -> int:
        """The bitmap of the records of one stemming language."""
        return self._bitmap(self._by_language, _language_name(language))

    def in_folder_names(self, key: str) -> bool:
        """Whether a folder name of a record served gives ``key`` (in English)."""
        return self._folder_counts[key] > 0

    def weights(self, tier: int, word: str, mask: int) -> dict[int, int]:
        """Each record of ``mask`` holding ``word``, with the weight it earns by it."""
        parts = [self.word(tier, part, word) & mask for part in PARTS]
        held = parts[TITLE] | parts[PATH] | parts[CONTENT]
        if not held:
            return {}
        size = (held.bit_length() + 7) // 8
        title, path, content = (bits.to_bytes(size, "little") for bits in parts)
        found = {}
        for number in _numbers_of(held):
            byte, bit = number >> 3, number & 7
            found[number] = (
                3 * (title[byte] >> bit & 1)
                + 2 * (path[byte] >> bit & 1)
                + (content[byte] >> bit & 1)
            )
        return found

    def namespace(self, namespace_id: str) -> int:
        """The bitmap of the canonical records of one namespace."""
        return self._bitmap(self._namespaces, namespace_id)

    def word(self, tier: int, part: int, word: str) -> int:
        """The bitmap of the records holding ``word`` in ``part`` (tier 0: terms, 1: keys)."""
        bits = self._bitmap(self._tables[tier][part], word)
        if tier == 0 and part == PATH and len(word) == _ID_HEX:
            number = self._named.get(_FILE_PREFIX + word + _FILE_SUFFIX)
            if number is not None and self._records[number] is not None:
                bits |= 1 << number
        if tier == 1:
            for language, by_key in self._key_terms.items():
                giving = by_key.get(word)
                if not giving:
                    continue
                records = self._bitmap(self._derived[part], _language_name(language))
                for term in giving if records else ():
                    bits |= self._bitmap(self._tables[0][part], term) & records
        return bits

    def held(self, tier: int, word: str) -> int:
        """The bitmap of the records holding ``word`` anywhere."""
        return (
            self.word(tier, TITLE, word)
            | self.word(tier, PATH, word)
            | self.word(tier, CONTENT, word)
        )

    def tag(self, tag_key: str) -> int:
        return self._bitmap(self._tags, tag_key)

    def record(self, number: int) -> StoredRecord:
        stored = self._records[number]
        assert stored is not None
        return stored

    def weigh(self, planes: Planes, tier: int, word: str) -> None:
        """Add the weight ``word`` earns each record (title 3, path 2, content 1)."""
        for part, shifts in zip(PARTS, _WEIGHT_BITS, strict=True):
            bits = self.word(tier, part, word)
            if bits:
                for shift in shifts:
                    add(planes, bits, shift)

    def best(self, planes: Planes, limit: int) -> list[tuple[int, int]]:
        """The ``limit`` best records by score, then path: (number, score), best first.

        Only records with a score above zero count.
        """
        above, tied = _split_at_limit(planes, limit)
        chosen = _numbers_of(above)
        if tied and len(chosen) < limit:
            chosen += self._first_in_order(tied, limit - len(chosen))
        scored = [(number, score_of(planes, number)) for number in chosen]
        scored.sort(key=lambda item: (-item[1], self.record(item[0]).scope_path))
        return scored

    def in_order(self, bits: int, limit: int) -> list[int]:
        """At most ``limit`` of the records of ``bits``, by path below the scope."""
        return self._first_in_order(bits, limit)

    # --- internals -----------------------------------------------------------------------------

    def _map_keys(self, terms: Collection[str], language: str | None) -> None:
        """Note the key of each term not seen yet in ``language``."""
        mapped = self._mapped.setdefault(language, set())
        if mapped.issuperset(terms):
            return
        new = set(terms) - mapped
        mapped.update(new)
        by_key = self._key_terms.setdefault(language, {})
        for term in new:
            key = self._key_of(term, language)
            if key is not None:
                by_key.setdefault(key, set()).add(term)

    def _all_tables(self) -> tuple[_Table, ...]:
        return (
            *self._tables[0],
            *self._tables[1],
            *self._derived,
            self._tags,
            self._namespaces,
            self._by_language,
        )

    def _flush(self) -> None:
        for table in self._all_tables():
            table.flush(len(self._records))
        self._waiting = 0

    def _bitmap(self, table: _Table, word: str) -> int:
        if self._waiting:
            self._flush()
        bits = table.dense.get(word)
        if bits is not None:
            return bits
        numbers = table.sparse.get(word)
        if not numbers:
            return 0
        key = (id(table), word)
        kept = self._bitmaps.get(key)
        if kept is not None and kept[0] == len(numbers):
            return kept[1]
        start, bits = (kept[0], kept[1]) if kept is not None else (0, 0)
        bits |= _bitmap_of(numbers, start)
        if self._bitmap_bytes > MAX_BITMAP_BYTES:
            self._bitmaps.clear()
            self._bitmap_bytes = 0
        self._bitmaps[key] = (len(numbers), bits)
        self._bitmap_bytes += bits.bit_length() // 8
        return bits

    def _first_in_order(self, bits: int, limit: int) -> list[int]:
        if bits.bit_count() <= _SMALL_TIE:
            numbers = _numbers_of(bits)
            numbers.sort(key=lambda number: self.record(number).scope_path)
            return numbers[:limit]
        members = bits.to_bytes((bits.bit_length() + 7) // 8, "little")
        found: list[int] = []
        for number in self._order():
            byte = number >> 3
            if byte < len(members) and members[byte] >> (number & 7) & 1:
                found.append(number)
                if len(found) == limit:
                    break
        return found

    def _order(self) -> list[int]:
        """Every record number served, by path below the scope."""
        if self._unordered:

            def path(number: int) -> str:
                stored = self._records[number]
                return "" if stored is None else stored.scope_path

            if len(self._unordered) * 16 > len(self._ordered):
                self._ordered = sorted(
                    (n for n in range(len(self._records)) if self._records[n] is not None),
                    key=path,
                )
            else:
                for number in self._unordered:
                    if self._records[number] is not None:
                        bisect.insort(self._ordered, number, key=path)
            self._unordered = []
        return self._ordered

    def _compact(self) -> None:
        """Number the records served afresh and rewrite every list without the gone."""
        self._flush()
        alive = bytes(stored is not None for stored in self._records)
        renumbered = array("i", repeat(-1, len(self._records)))
        kept = [stored for stored in self._records if stored is not None]
        for new, stored in enumerate(kept):
            renumbered[stored.index_number] = new
            stored.index_number = new
        for table in self._all_tables():
            table.compact(alive, renumbered)
        self._languages = list(compress(self._languages, alive))
        self._folders = list(compress(self._folders, alive))
        self._named = {
            name: renumbered[number]
            for name, number in self._named.items()
            if renumbered[number] >= 0
        }
        self._records = list(kept)
        self._gone = 0
        self._live = bytearray(len(self._live))
        for number in range(len(kept)):
            self._live[number >> 3] |= 1 << (number & 7)
        self._ordered = [renumbered[n] for n in self._ordered if renumbered[n] >= 0]
        self._unordered = [renumbered[n] for n in self._unordered if renumbered[n] >= 0]
        self._bitmaps.clear()
        self._bitmap_bytes = 0

    # --- for tests: the lists as they are ------------------------------------------------------

    def mentions(self) -> int:
        """How many record numbers all lists hold together."""
        self._flush()
        return sum(table.mentions() for table in self._all_tables()) + len(self._named)

    def table(self, tier: int, part: int) -> Mapping[str, list[int]]:
        """The words of one part of one tier, each with its record numbers."""
        self._flush()
        return self._tables[tier][part].words()


# --- parts made away from the index ---------------------------------------------------------


class Part(NamedTuple):
    """What an index lists of a run of records, numbered from 0 in their order: made where
    the records are read (a worker process of the store's first scan) and taken in whole
    by :meth:`SearchIndex.added_part`, which only moves the numbers up."""

    positions: list[int]  # of each record listed, where it was among those given
    languages: list[str | None]
    language_counts: Counter[str | None]
    folders: list[Collection[str]]
    folder_counts: Counter[str]
    named: dict[str, int]
    tables: tuple[_Table, ...]  # in the order of ``SearchIndex._all_tables``
    mapped: dict[str | None, set[str]]
    key_terms: dict[str | None, dict[str, set[str]]]


def make_part(
    describe: Describe, key_of: KeyOf, records: Sequence[tuple[StoredRecord, Record]]
) -> Part:
    """The part an index made with ``describe`` and ``key_of`` lists of ``records``.

    It lists the words as :meth:`SearchIndex.added` does, but keeps none of what only a
    serving index needs (the records, which are served, their order) and counts
    languages and folder names once at the end: a worker makes one for every record of
    a large scope.
    """
    index = SearchIndex(describe, key_of)
    positions: list[int] = []
    languages: list[str | None] = []
    folders: list[Collection[str]] = []
    by_language = index._by_language.pending
    keys = _KeysOfRun(index)
    for position, (stored, record) in enumerate(records):
        words = describe(stored, record)
        if words is None:
            continue
        number = len(positions)
        positions.append(position)
        languages.append(words.language)
        by_language[_language_name(words.language)].append(number)
        folders.append(words.folder_keys)
        keys.note(words)  # before its terms are listed
        index._list_words(words, number, map_keys=False)
    keys.finish()
    for table in index._all_tables():
        table.flush(len(positions))  # every table's pending numbers join its lists
    return Part(
        positions,
        languages,
        Counter(languages),
        folders,
        Counter(chain.from_iterable(folders)),
        index._named,
        index._all_tables(),
        index._mapped,
        index._key_terms,
    )


class _KeysOfRun:
    """Notes the keys of the derived terms of a run of records for a part's index.

    While every record with terms in a part has their keys derived, in the language of
    the run's first record, the terms to note for that part are exactly those its terms
    table lists: they are noted once, at the end, instead of record by record. From the
    first record that breaks this on, that part's are noted as :meth:`SearchIndex.added`
    notes them (those of the records before it first, from the table)."""

    __slots__ = ("deferred", "index", "language", "started")

    def __init__(self, index: SearchIndex) -> None:
        self.index = index
        self.started = False
        self.language: str | None = None
        self.deferred = [True for _ in PARTS]

    def note(self, words: Words) -> None:
        """Take in the next record, before its terms are listed."""
        if not self.started:
            self.started, self.language = True, words.language
        for part in PARTS:
            terms, derived = words.terms[part], words.derived[part]
            if self.deferred[part]:
                if not terms or (derived and words.language == self.language):
                    continue
                self.deferred[part] = False
                self._from_table(part)
            if derived:
                self.index._map_keys(terms, words.language)

    def finish(self) -> None:
        for part in PARTS:
            if self.deferred[part]:
                self._from_table(part)

    def _from_table(self, part: int) -> None:
        listed = self.index._tables[0][part].pending.keys()
        if listed:
            self.index._map_keys(listed, self.language)


# --- bit-sliced scores ------------------------------------------------------------------------


def add(planes: Planes, bits: int, shift: int = 0) -> None:
    """Add ``2**shift`` to the score of every record in ``bits``."""
    carry = bits
    index = shift
    while carry:
        while index >= len(planes):
            planes.append(0)
        plane = planes[index]
        planes[index] = plane ^ carry
        carry &= plane
        index += 1


def masked(planes: Planes, mask: int) -> Planes:
    """The planes of the records in ``mask`` only."""
    return [plane & mask for plane in planes]


def nonzero(planes: Planes) -> int:
    """The records with a score above zero."""
    bits = 0
    for plane in planes:
        bits |= plane
    return bits


def score_of(planes: Planes, number: int) -> int:
    return sum(((plane >> number) & 1) << index for index, plane in enumerate(planes))


def _split_at_limit(planes: Planes, limit: int) -> tuple[int, int]:
    """The records surely among the best ``limit`` (fewer than ``limit``) and the records
    that tie for the places left, from the highest bit of the scores down."""
    above, tied = 0, nonzero(planes)
    taken = 0
    for plane in reversed(planes):
        with_bit = tied & plane
        count = taken + with_bit.bit_count()
        if count > limit:
            tied = with_bit
        else:
            above |= with_bit
            taken = count
            tied ^= with_bit
            if count == limit:
                tied = 0
                break
    return above, tied


def _numbers_of(bits: int) -> list[int]:
    """The record numbers in ``bits``, ascending."""
    if bits.bit_count() <= _FEW:
        numbers = []
        while bits:
            low = bits & -bits
            numbers.append(low.bit_length() - 1)
            bits ^= low
        return numbers
    data = bits.to_bytes((bits.bit_length() + 7) // 8, "little")
    return [
        (match.start() << 3) + bit
        for match in _NONZERO.finditer(data)
        for bit in range(8)
        if data[match.start()] >> bit & 1
    ]


def _bitmap_of(numbers: array | list[int], start: int = 0) -> int:  # type: ignore[type-arg]
    """The bitmap of ``numbers[start:]`` (ascending)."""
    count = len(numbers) - start
    if count <= 0:
        return 0
    # Only the span the numbers cover is made, then shifted into place.
    low, top = numbers[start], numbers[-1]
    if count <= _FEW:
        bits = 0
        for number in numbers[start:] if start else numbers:
            bits |= 1 << (number - low)
        return bits << low
    # A byte per record of the span, 1 for each number: reversed and read as binary
    # digits, they are the bitmap (a plain loop stores a byte faster than any ``map``).
    flags = bytearray(top - low + 1)
    if low:
        for number in numbers[start:] if start else numbers:
            flags[number - low] = 1
    else:
        for number in numbers:
            flags[number] = 1
    return int(flags[::-1].translate(_DIGITS), 2) << low
