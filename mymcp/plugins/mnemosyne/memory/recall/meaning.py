"""Recall's meaning tier: the words a query may mean, from tables shipped in the package.

``meanings.bin``, beside this module, is Princeton WordNet 3.0 reduced by
``scripts/build-meanings`` to what this tier reads: each English lemma as the recall keys of
its words (see :mod:`.wording`), its senses with how often each was seen in WordNet's tagged
texts, each sense's lemmas, and the links between senses: broader, narrower and related
(derived forms, similar adjectives, parts and wholes and the like). ``neighbours.bin``, made
by ``scripts/build-neighbours``, lists for about 34,000 common words the words a small
sentence embedding model (all-MiniLM-L6-v2) places closest, with their cosines: it knows
words WordNet does not (``wifi``) and uses it leaves out (``wireless``: ``Wi-Fi``). Nothing
is fetched; both are read on the first query that needs them (or by the warm-up thread),
and then kept: a few megabytes of flat arrays, whatever the size of the notebook.

A query is *expanded*, never the records: each query word (or two or three neighbouring
words that WordNet holds as one lemma, ``curriculum vitae``) gives the keys of the words it
may mean, each with a strength:

- a word of the same sense (``diary``: ``journal``), :data:`SYNONYM`; of a sense one step
  narrower (``antibiotics``: ``penicillin``), :data:`NARROWER`; one step broader or related
  (``mom``: ``mother``), :data:`NEAR`; two steps narrower (``dessert``: ``custard``),
  :data:`FAR`; three (``offspring``: ``daughter``), :data:`FARTHER`; each times how
  likely the query word means that sense and how likely the other word means its own there
  (WordNet's tagged counts), so rare senses and words of many uses count little. A
  broader word counts only where both are likely (:data:`LEAST_BROADER`): what a thing
  shares with its kin (``cider``: ``drink``) says little of the thing; and a broader verb
  only below WordNet's top verbs (:data:`LEAST_VERB_DEPTH`: ``swim`` does not lead to
  ``travel``). A sense's words include the irregular forms of its nouns and verbs
  (``kids``: ``children``);
- a word WordNet does not hold but writes as two words it does: the lemma of the two
  (``weblog``: ``web log``, so ``blog``), else the last word and its synonyms, at
  :data:`HEAD` (``grandkids``: ``kids``, so ``children``);
- a neighbour by use, :data:`USE` scaled by how far its cosine is above :data:`USE_FLOOR`,
  unless WordNet places the two words side by side under a common broader sense
  (:func:`siblings`: ``tea`` and ``coffee``, ``son`` and ``daughter``: near in use, but not
  the thing asked for), or it is the query word with a letter or two more (``tea``:
  ``teal``).

Stop words and other function words (:data:`FUNCTION_WORDS`), symbol terms (``C#``) and
very common words (:data:`COMMON`) are left out, as query words and as targets, and so
are numbers as targets (``numbers``: ``23``). The caller looks the keys up in its own
index; a record is kept when the strongest target it holds per query word, summed over the
query words, reaches :data:`THRESHOLD`, and scores that strength times the weight of where
it holds the words.
"""

from __future__ import annotations

import array
import bisect
import functools
import json
import logging
import sys
import threading
import zlib
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

from mymcp.plugins.mnemosyne.memory.recall import wording

__all__ = [
    "FAR",
    "NARROWER",
    "NEAR",
    "SYNONYM",
    "THRESHOLD",
    "Expansion",
    "Found",
    "Target",
    "expand",
    "found",
    "load",
    "siblings",
]

R = TypeVar("R")

logger = logging.getLogger("mymcp.memory.recall")

TABLE_FILE: Final = "meanings.bin"
MAGIC: Final = b"MYMCP-MEANINGS 1\n"
NEIGHBOURS_FILE: Final = "neighbours.bin"
NEIGHBOURS_MAGIC: Final = b"MYMCP-NEIGHBOURS 1\n"

# How close a link is: the same sense, a sense one step narrower, one step broader or
# related, two steps down, three steps down.
SYNONYM: Final = 1.0
NARROWER: Final = 0.7
NEAR: Final = 0.5
FAR: Final = 0.25
FARTHER: Final = 0.12
# A broader sense's words count only where how likely the query word means its sense, times
# how likely the other word means the broader one, reaches this.
LEAST_BROADER: Final = 0.25
# A broader verb sense counts only this many steps below a verb with nothing broader: the top
# verbs (``travel``, ``move``, ``change``) say nothing of the verb asked for (``swim``).
LEAST_VERB_DEPTH: Final = 2
VERB: Final = 1  # the part of speech of a verb sense in the table's ``kinds``
# Siblings (see :func:`siblings`): a common broader sense this many steps up at most, on
# each side, at least this many steps below WordNet's top (``entity``, ``act``).
SIBLING_STEPS: Final = 2
SIBLING_DEPTH: Final = 5
# A neighbour by use that is the query word with at most this many letters more is left out.
SPELLING_SLACK: Final = 2
# Added to each sense's count in the tagged texts before the shares are taken.
SMOOTHING: Final = 1.0
# A query word's sense also counts this share of how often the sense's other words were
# seen meaning it: WordNet's tagged texts saw "kid" meaning a son or daughter never, "child"
# 65 times, and people write "my kids" for theirs. All of it: a sense is as common as its
# words together (the sixth round measured 0.3 to 3; from 1 to 1.5 did best).
BORROWED: Final = 1.0
# A word seen more often than this in WordNet's tagged texts is never a target.
COMMON: Final = 1000
# A neighbour by use (see scripts/build-neighbours, which keeps cosines from 0.6) at cosine c
# has strength USE * (c - USE_FLOOR) / (1 - USE_FLOOR): none at or below the floor, USE for
# the same vector.
USE: Final = 0.3
USE_FLOOR: Final = 0.6
# How much the share of the sense a target word has there counts.
TARGET_EXPONENT: Final = 1.0
# Senses a query word means less often than this are not read.
MIN_SHARE: Final = 0.02
# The least strength a record must reach, summed over the query words, to be a hit.
THRESHOLD: Final = 0.01
# Narrower senses read two steps down only below senses with at most this many one step
# down (``medication``: ``metformin``), and three steps down only below senses with at most
# this many two steps down (``offspring``: ``daughter``).
FAR_FANOUT: Final = 150
# Query words looked at (a longer query is read up to here).
MAX_WORDS: Final = 12
# Query words whose targets are kept, the least recently used forgotten first.
CACHE_SIZE: Final = 2048
# At most this many targets per query word are looked up, the strongest.
TARGETS_PER_WORD: Final = 1000
# Scores are whole numbers: strengths times weights, times this.
SCALE: Final = 1000
# What a query word may hold besides letters and digits to be read (``left-handed``, ``mum's``).
_INSIDE_WORDS: Final = frozenset("-'\u2019\u2010\u2011")
# A compound's last word counts this much of its strengths (see _add_compounds).
HEAD: Final = 0.5
# Neighbouring words tried together as one lemma.
LONGEST_LEMMA: Final = 3


@dataclass(frozen=True, slots=True)
class Target:
    """A term a query word may mean: its recall keys (all in one record for a lemma of
    several words), the positions of the query words behind it and its strength."""

    keys: tuple[str, ...]
    positions: tuple[int, ...]
    strength: float


@dataclass(frozen=True, slots=True)
class Expansion:
    """What a query may mean: its words as written, and the targets."""

    words: tuple[str, ...]
    targets: tuple[Target, ...]


class _Terms(Sequence[str]):
    """The table's sorted terms, read from one blob by offset (searchable with bisect)."""

    def __init__(self, blob: str, starts: array.array[int]) -> None:
        self._blob = blob
        self._starts = starts

    def __len__(self) -> int:
        return len(self._starts) - 1

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        return self._blob[self._starts[index] : self._starts[index + 1] - 1]


@dataclass(frozen=True)
class _Container:
    """A table file as read: its header, its sorted terms and its arrays by name."""

    header: dict[str, object]
    terms: _Terms
    sections: dict[str, array.array[int]]


def _container(data: bytes, magic: bytes) -> _Container:
    """Read a table file (a first line, a JSON header, zlib-compressed arrays);
    ``ValueError`` when ``data`` is not a whole one."""
    if not data.startswith(magic):
        raise ValueError("not a table of this kind")
    try:
        return _read_container(data, len(magic))
    except (KeyError, IndexError, TypeError, zlib.error) as damaged:
        raise ValueError("damaged table") from damaged


def _read_container(data: bytes, start: int) -> _Container:
    header_end = data.index(b"\n", start)
    header = json.loads(data[start:header_end])
    payload = zlib.decompress(data[header_end + 1 :])
    sections: dict[str, array.array[int]] = {}
    offset = 0
    blob = ""
    for name, code, length in header["sections"]:
        size = array.array(code).itemsize * length
        chunk = payload[offset : offset + size]
        offset += size
        if name == "terms":
            blob = chunk.decode() + "\n"
            continue
        values = array.array(code)
        values.frombytes(chunk)
        if sys.byteorder != "little":
            values.byteswap()
        sections[name] = values
    return _Container(header, _Terms(blob, sections["term_start"]), sections)


class Table:
    """The loaded meaning table (see ``scripts/build-meanings`` for its sections)."""

    def __init__(self, data: bytes) -> None:
        """Read a table; ``ValueError`` when ``data`` is not a whole one."""
        container = _container(data, MAGIC)
        self.header = container.header
        self.terms = container.terms
        self._sections = container.sections
        try:
            self.kinds = self._sections["kinds"]
        except KeyError as damaged:
            raise ValueError("damaged table") from damaged
        self._depths: dict[int, int] = {}

    def term_id(self, term: str) -> int | None:
        index = bisect.bisect_left(self.terms, term)
        if index < len(self.terms) and self.terms[index] == term:
            return index
        return None

    def _row(self, name: str, index: int) -> array.array[int]:
        starts = self._sections[f"{name}_start"]
        return self._sections[name][starts[index] : starts[index + 1]]

    def senses(self, term: int) -> list[tuple[int, int]]:
        """The term's senses, most often seen first, each with how often it was seen."""
        starts = self._sections["sense_start"]
        begin, end = starts[term], starts[term + 1]
        return list(
            zip(
                self._sections["senses"][begin:end],
                self._sections["sense_counts"][begin:end],
                strict=True,
            )
        )

    def members(self, sense: int) -> array.array[int]:
        starts = self._sections["member_start"]
        return self._sections["members"][starts[sense] : starts[sense + 1]]

    def broader(self, sense: int) -> array.array[int]:
        return self._row("broader", sense)

    def narrower(self, sense: int) -> array.array[int]:
        return self._row("narrower", sense)

    def related(self, sense: int) -> array.array[int]:
        return self._row("related", sense)

    def depth(self, sense: int) -> int:
        """The fewest steps from ``sense`` up to a sense with nothing broader."""
        found = self._depths.get(sense)
        if found is None:
            above = self.broader(sense)
            found = 1 + min(self.depth(up) for up in above) if above else 0
            self._depths[sense] = found
        return found

    def common(self, term: int) -> bool:
        """Whether a term is too common to say anything (``be``, ``have``, ``make``)."""
        starts = self._sections["sense_start"]
        counts = self._sections["sense_counts"][starts[term] : starts[term + 1]]
        return sum(counts) > COMMON


class Neighbours:
    """The word-neighbour table (see ``scripts/build-neighbours``): per key, the keys of the
    words a sentence embedding model places closest, with their cosines."""

    def __init__(self, data: bytes) -> None:
        """Read a table; ``ValueError`` when ``data`` is not a whole one."""
        container = _container(data, NEIGHBOURS_MAGIC)
        self.header = container.header
        self.terms = container.terms
        try:
            self._starts = container.sections["row_start"]
            self._targets = container.sections["targets"]
            self._cosines = container.sections["cosines"]
        except KeyError as damaged:
            raise ValueError("damaged table") from damaged

    def of(self, key: str) -> Iterator[tuple[str, float]]:
        """The neighbours of ``key`` with their cosines, closest first."""
        index = bisect.bisect_left(self.terms, key)
        if index == len(self.terms) or self.terms[index] != key:
            return
        begin, end = self._starts[index], self._starts[index + 1]
        for target, cosine in zip(self._targets[begin:end], self._cosines[begin:end], strict=True):
            yield self.terms[target], cosine / 255


_table: Table | None = None
_neighbours: Neighbours | None = None
_unavailable = False
_load_lock = threading.Lock()


def load() -> Table | None:
    """The packaged table, read once per process; ``None`` when it cannot be read (the
    meaning tier is then left out, and one warning says so)."""
    global _table, _neighbours, _unavailable
    if _table is None and not _unavailable:
        with _load_lock:
            if _table is None and not _unavailable:
                try:
                    table = Table(_read_table(TABLE_FILE))
                    # The neighbours first: a caller that sees the table (read without the
                    # lock) must see them too, or its words would keep no neighbours.
                    _neighbours = Neighbours(_read_table(NEIGHBOURS_FILE))
                    _table = table
                except (OSError, ValueError):
                    _table = _neighbours = None
                    _unavailable = True
                    logger.warning("meaning table unreadable; recall goes on without it")
    return _table


def _read_table(name: str) -> bytes:
    from importlib import resources

    return resources.files(__package__).joinpath(name).read_bytes()


def expand(query: str) -> Expansion:
    """The targets of the query's words (none for a query of stop words or unknown words,
    or when the table cannot be read)."""
    table = load()
    words = tuple(wording.chunks(query))[:MAX_WORDS]
    if table is None:
        return Expansion(words, ())
    content = _content_keys(words)
    targets: dict[tuple[tuple[str, ...], tuple[int, ...]], float] = {}
    for term, positions in _query_terms(table, content):
        asked = {key for position, key in content if position in positions}
        for target, strength in _targets_of(table, term):
            keys = tuple(table.terms[target].split(" "))
            if set(keys) <= asked:
                continue
            slot = (keys, positions)
            targets[slot] = max(targets.get(slot, 0.0), strength)
    _add_compounds(table, words, content, targets)
    _add_neighbours(table, content, targets)
    return Expansion(words, _worth_looking_up(targets))


def _add_compounds(
    table: Table,
    words: Sequence[str],
    content: list[tuple[int, str]],
    targets: dict[tuple[tuple[str, ...], tuple[int, ...]], float],
) -> None:
    """A query word WordNet does not hold, written as two words it does (``grandkids``,
    ``lifejacket``): the lemma of the two words, else the last word (what the compound is a
    kind of), at :data:`HEAD` of its strengths."""
    for position, key in content:
        if table.term_id(key) is not None:
            continue
        split = _compound(table, wording.fold(words[position]))
        if split is None:
            continue
        term, factor = split
        related = _targets_of(table, term) if factor == 1.0 else _synonyms(table, term)
        for target, strength in ((term, 1.0), *related):
            keys = tuple(table.terms[target].split(" "))
            slot = (keys, (position,))
            targets[slot] = max(targets.get(slot, 0.0), factor * strength)


def _synonyms(table: Table, term: int) -> Iterator[tuple[int, float]]:
    """The other words of the senses ``term`` likely means, with their strengths."""
    for sense, share in _shares(table, term):
        if share >= MIN_SHARE:
            yield from _strength(table, sense, SYNONYM, share, term)


def _compound(table: Table, word: str) -> tuple[int, float] | None:
    """The lemma of two words ``word`` is written as, with strength factor 1; else the last
    of two words WordNet holds (both three letters or more, the most even cut), with
    :data:`HEAD`; ``None`` when there is no such cut."""
    best: tuple[int, int, float] | None = None
    for left, right in wording.splits(word):
        first = wording.word_key(left, wording.ENGLISH)
        second = wording.word_key(right, wording.ENGLISH)
        if first is None or second is None or len(right) < 3 or len(left) < 3:
            continue
        lemma = table.term_id(f"{first} {second}")
        if lemma is not None and not table.common(lemma):
            return lemma, 1.0
        head = table.term_id(second)
        if head is None or table.term_id(first) is None or table.common(head):
            continue
        balance = min(len(left), len(right))
        if best is None or balance > best[0]:
            best = (balance, head, HEAD)
    return None if best is None else (best[1], best[2])


def _add_neighbours(
    table: Table,
    content: list[tuple[int, str]],
    targets: dict[tuple[tuple[str, ...], tuple[int, ...]], float],
) -> None:
    """Each query word's neighbours by use that may be targets (see _neighbour_targets)."""
    for position, key in content:
        for other, strength in _neighbour_targets(table, key):
            slot = ((other,), (position,))
            if strength > targets.get(slot, 0.0):
                targets[slot] = strength


@functools.lru_cache(maxsize=CACHE_SIZE)
def _neighbour_targets(table: Table, key: str) -> tuple[tuple[str, float], ...]:
    """The neighbours by use of ``key``, each with a strength growing with its cosine; words
    WordNet counts as very common give none and are none, and function words, siblings and
    spellings of ``key`` are none."""
    if _neighbours is None or _common_key(table, key):
        return ()
    found = []
    for other, cosine in _neighbours.of(key):
        if cosine <= USE_FLOOR:
            break  # closest first: the rest are further still
        if _common_key(table, other) or other in _function_keys():
            continue
        if _spelled_alike(key, other) or _sibling_keys(table, key, other):
            continue
        found.append((other, USE * (cosine - USE_FLOOR) / (1 - USE_FLOOR)))
    return tuple(found)


def _common_key(table: Table, key: str) -> bool:
    term = table.term_id(key)
    return term is not None and table.common(term)


def _worth_looking_up(
    targets: dict[tuple[tuple[str, ...], tuple[int, ...]], float],
) -> tuple[Target, ...]:
    """The targets that could lift a record to :data:`THRESHOLD`: a target counts with the
    best of each other query word's, so one too weak even then is never looked up."""
    best: dict[tuple[int, ...], float] = {}
    for (_, positions), strength in targets.items():
        best[positions] = max(best.get(positions, 0.0), strength)
    total = sum(best.values())
    ranked = sorted(targets.items(), key=lambda item: -item[1])
    kept: list[Target] = []
    per_word: dict[tuple[int, ...], int] = {}
    for (keys, positions), strength in ranked:
        if strength + total - best[positions] < THRESHOLD:
            continue
        if per_word.get(positions, 0) < TARGETS_PER_WORD:
            per_word[positions] = per_word.get(positions, 0) + 1
            kept.append(Target(keys, positions, strength))
    return tuple(kept)


def _content_keys(words: Sequence[str]) -> list[tuple[int, str]]:
    """The English keys of the query's words, each with the position of the word that gives
    it (a hyphenated word gives one per part); function words, one-letter words and terms
    spelled with symbols (``C#``, ``.NET``, ``TCP/IP``) left out."""
    found = []
    for position, word in enumerate(words):
        folded = wording.fold(word)
        if not all(char.isalnum() or char in _INSIDE_WORDS for char in folded):
            continue
        for piece in wording.TERM_RE.findall(folded):
            key = wording.word_key(piece, wording.ENGLISH) if len(piece) > 1 else None
            if key is not None and key not in _function_keys():
                found.append((position, key))
    return found


def _query_terms(
    table: Table, content: list[tuple[int, str]]
) -> Iterator[tuple[int, tuple[int, ...]]]:
    """The table terms the query holds, longest first, each word in one term at most."""
    used: set[int] = set()
    for size in range(min(LONGEST_LEMMA, len(content)), 0, -1):
        for start in range(len(content) - size + 1):
            window = content[start : start + size]
            positions = tuple(dict.fromkeys(position for position, _ in window))
            if used.intersection(positions):
                continue
            term = table.term_id(" ".join(key for _, key in window))
            if term is None or table.common(term):
                continue
            used.update(positions)
            yield term, positions


def _shares(table: Table, term: int) -> list[tuple[int, float]]:
    """Each sense of a term with how likely the term means it: how often it was seen in
    WordNet's tagged texts, smoothed so that a sense never seen still counts a little, plus
    a share (:data:`BORROWED`) of how often the sense's other words were seen meaning it."""
    weights = [
        (sense, count + SMOOTHING + BORROWED * _others_count(table, term, sense))
        for sense, count in table.senses(term)
    ]
    total = sum(weight for _, weight in weights)
    return [(sense, weight / total) for sense, weight in weights]


@functools.lru_cache(maxsize=CACHE_SIZE)
def _others_count(table: Table, term: int, sense: int) -> int:
    """How often the sense's other words were seen meaning it in the tagged texts."""
    found = 0
    for member in table.members(sense):
        if member != term:
            found += sum(count for other, count in table.senses(member) if other == sense)
    return found


def _share(table: Table, term: int, sense: int) -> float:
    """How likely ``term``, used as the part of speech of ``sense``, means it."""
    return _kind_shares(table, term).get(sense, 0.0)


@functools.lru_cache(maxsize=CACHE_SIZE)
def _kind_shares(table: Table, term: int) -> dict[int, float]:
    """Each sense of ``term`` with its share among the term's senses of that part of speech."""
    totals: dict[int, float] = {}
    senses = table.senses(term)
    for sense, count in senses:
        kind = table.kinds[sense]
        totals[kind] = totals.get(kind, 0.0) + count + SMOOTHING
    return {sense: (count + SMOOTHING) / totals[table.kinds[sense]] for sense, count in senses}


@functools.lru_cache(maxsize=CACHE_SIZE)
def _targets_of(table: Table, term: int) -> tuple[tuple[int, float], ...]:
    """The terms ``term`` may mean, each with its best strength (see _related_terms)."""
    best: dict[int, float] = {}
    for target, strength in _related_terms(table, term):
        if strength > best.get(target, 0.0):
            best[target] = strength
    return tuple(best.items())


def _related_terms(table: Table, term: int) -> Iterator[tuple[int, float]]:
    """Each term sharing a sense of ``term``, or linked to one, with its strength: how
    close the link is, times how likely ``term`` means that sense, times how likely the
    other term means the sense it has there."""
    for sense, share in _shares(table, term):
        if share < MIN_SHARE:
            continue
        yield from _strength(table, sense, SYNONYM, share, term)
        for broader in table.broader(sense):
            if table.kinds[broader] != VERB or table.depth(broader) >= LEAST_VERB_DEPTH:
                yield from _strength(table, broader, NEAR, share, term, LEAST_BROADER)
        for linked in table.related(sense):
            yield from _strength(table, linked, NEAR, share, term)
        narrower = table.narrower(sense)
        for below in narrower:
            yield from _strength(table, below, NARROWER, share, term)
        if len(narrower) <= FAR_FANOUT:
            two = [further for below in narrower for further in table.narrower(below)]
            for further in two:
                yield from _strength(table, further, FAR, share, term)
            if len(two) <= FAR_FANOUT:
                for further in two:
                    for furthest in table.narrower(further):
                        yield from _strength(table, furthest, FARTHER, share, term)


def _strength(
    table: Table, sense: int, link: float, share: float, term: int, least: float = 0.0
) -> Iterator[tuple[int, float]]:
    """The words of ``sense`` but ``term``, each with ``link`` times how likely ``term`` means
    the sense it came from (``share``) times how likely the word means ``sense``; a word
    whose likelihoods multiply to less than ``least``, a very common or function word, or a
    number, gives nothing."""
    for member in table.members(sense):
        if member == term or table.common(member) or table.terms[member] in _function_keys():
            continue
        if table.terms[member].replace(" ", "").isdigit():
            continue
        likely = share * _share(table, member, sense) ** TARGET_EXPONENT
        if likely >= least:
            yield member, link * likely


@dataclass(frozen=True, slots=True)
class Found(Generic[R]):
    """A record the meaning tier keeps: its score, and per query word (or words taken as
    one lemma) the keys of the target it holds."""

    record: R
    score: int
    evidence: tuple[tuple[tuple[int, ...], tuple[str, ...]], ...]


def found(
    expansion: Expansion,
    postings: Callable[[str], Mapping[R, int]],
    skip: Container[R],
    in_order: Callable[[R, tuple[str, ...]], bool],
) -> list[Found[R]]:
    """The records holding targets of ``expansion`` and reaching :data:`THRESHOLD`.

    ``postings`` gives, for one key, each record holding it with the weight it earns there
    (title 3, tags 2, content 1, summed); records in ``skip`` are left out, and a
    target of several words counts only where ``in_order`` finds them side by side. A
    record's score is, summed over the query words, the strength of the strongest target it
    holds for that word times the weight it earns by it.
    """
    groups: dict[tuple[int, ...], list[Target]] = {}
    for target in sorted(expansion.targets, key=lambda target: -target.strength):
        groups.setdefault(target.positions, []).append(target)
    cached: dict[str, Mapping[R, int]] = {}

    def weights(key: str) -> Mapping[R, int]:
        found = cached.get(key)
        if found is None:
            found = cached[key] = postings(key)
        return found

    strengths: dict[R, float] = {}
    scores: dict[R, float] = {}
    evidence: dict[R, list[tuple[tuple[int, ...], tuple[str, ...]]]] = {}
    for positions, targets in groups.items():
        # Per record, the strongest target of this query word it holds.
        best: dict[R, tuple[float, int, tuple[str, ...]]] = {}
        for target in targets:
            fresh = {
                record: weight
                for record, weight in _holding(target.keys, weights, skip).items()
                if record not in best and (len(target.keys) == 1 or in_order(record, target.keys))
            }
            best.update((record, (target.strength, w, target.keys)) for record, w in fresh.items())
        for record, (strength, weight, keys) in best.items():
            strengths[record] = strengths.get(record, 0.0) + strength
            scores[record] = scores.get(record, 0.0) + strength * weight
            evidence.setdefault(record, []).append((positions, keys))
    return [
        Found(record, round(SCALE * scores[record]), tuple(sorted(evidence[record])))
        for record, strength in strengths.items()
        if strength >= THRESHOLD
    ]


def _holding(
    keys: tuple[str, ...], postings: Callable[[str], Mapping[R, int]], skip: Container[R]
) -> dict[R, int]:
    """The records holding every key, each with the least weight it gives one of them."""
    held: dict[R, int] | None = None
    for key in keys:
        weights = postings(key)
        if held is None:
            held = {record: weight for record, weight in weights.items() if record not in skip}
        else:
            held = {
                record: min(weight, weights[record])
                for record, weight in held.items()
                if record in weights
            }
        if not held:
            break
    return held or {}


# Words that carry no meaning of their own here, besides recall's stop words: left out as
# query words and as targets (``supervisor``: ``over``, the key of "overseer", which a memory
# writes as a preposition; ``numbers``: ``no``).
FUNCTION_WORDS: Final = frozenset(
    """about above across after again against all along also although am among an another any
    anybody anyone anything anyway anywhere around as at away be became because become been
    before behind being below besides between beyond both but by can cannot could did do does
    doing done down during each either else even ever every everybody everyone everything
    everywhere few for from had has have having he her hers herself him himself his how however
    if in into is it its itself just may me might mine more most much must my myself neither no
    nobody none nor not nothing now nowhere of off on onto or ours ourselves out over past per
    perhaps quite rather shall she should since so some somebody someone something sometimes
    somewhere such than that the their theirs them themselves then there these they this those
    though through throughout thus till to too toward towards under unless until up upon us very
    via was we were what whatever when whenever where wherever whether which while who whoever
    whom whose why will with within without would yet you your yours yourself yourselves""".split()
)


@functools.lru_cache(maxsize=1)
def _function_keys() -> frozenset[str]:
    """The recall keys of :data:`FUNCTION_WORDS`."""
    keys = (wording.word_key(word, wording.ENGLISH) for word in FUNCTION_WORDS)
    return frozenset(key for key in keys if key is not None)


def _spelled_alike(key: str, other: str) -> bool:
    """Whether one key is the other with at most :data:`SPELLING_SLACK` letters more at its
    end: a neighbour by spelling, not by meaning (``tea``, ``teal``)."""
    short, long = sorted((key, other), key=len)
    return long.startswith(short) and len(long) - len(short) <= SPELLING_SLACK


def _sibling_keys(table: Table, key: str, other: str) -> bool:
    first, second = table.term_id(key), table.term_id(other)
    return first is not None and second is not None and siblings(table, first, second)


def siblings(table: Table, first: int, second: int) -> bool:
    """Whether WordNet places two terms side by side: no sense in common, neither sense a
    few steps under the other's, and a common broader sense as many steps up from each
    (at most :data:`SIBLING_STEPS`) and not too general (:data:`SIBLING_DEPTH` steps or more
    below the top): ``tea`` and ``coffee``, ``son`` and ``daughter``, ``cat`` and ``dog``;
    not ``pet`` and ``dog`` (one step up from ``pet``, two from ``dog``)."""
    one, other = _above(table, first), _above(table, second)
    if any(step == 0 and sense in other for sense, step in one.items()):
        return False  # a sense in common, or the first's under the second's
    if any(step == 0 and sense in one for sense, step in other.items()):
        return False
    return any(
        one[sense] == other[sense] and table.depth(sense) >= SIBLING_DEPTH
        for sense in one.keys() & other.keys()
    )


@functools.lru_cache(maxsize=CACHE_SIZE)
def _above(table: Table, term: int) -> dict[int, int]:
    """The senses ``term`` may mean (step 0) and those up to :data:`SIBLING_STEPS` broader,
    each with the fewest steps up to it."""
    steps: dict[int, int] = {}
    level = [sense for sense, share in _shares(table, term) if share >= MIN_SHARE]
    for step in range(SIBLING_STEPS + 1):
        level = [sense for sense in level if sense not in steps]
        steps.update((sense, step) for sense in level)
        level = [up for sense in level for up in table.broader(sense)]
    return steps
