"""Words as a person may write them: the keys of recall's wider tier.

A text's *keys* are what is left of its words once the differences that do not change what
a word means are taken away:

- **folding**: NFKC, case folding, accents and other combining marks removed, and the
  letters that are written as two Latin letters or as a bare one spelled out
  (``São`` and ``sao``, ``ＣＳＳ`` and ``css``, ``œufs`` and ``oeufs``, ``Søren`` and ``soren``
  have one key);
- **chunks**: the text is cut at white space and each chunk loses the punctuation around
  it, except a dot before it and ``#`` or ``+`` after it (``(.NET)`` is ``.net``, ``C#,`` is
  ``c#``);
- **words**: the runs of letters and digits of a chunk, of two characters or more, each
  stemmed with the Snowball algorithm of the text's language (English spellings read as
  American first, see :mod:`.spellings`); stop words, and the stems of stop words, are no
  keys;
- **compounds**: a chunk whose words are joined by a hyphen, slash, dot, underscore or
  apostrophe also gives the key of the words written together (``on-line`` and ``online``,
  ``TCP/IP`` and ``tcpip``);
- **terms as spelled**: a chunk that starts with a dot, holds other characters than letters,
  digits and those joiners, or is one letter or digit, is also a key exactly as folded
  (``c#``, ``f#``, ``c++``, ``.net``, ``q``), so it meets only the same term spelled the
  same way.

Words written apart (``health care``) meet their joined form through the query: recall
joins each two neighbouring query words, and tries each query word cut in two against the
scope's keys, checking with :func:`adjacent` that a memory really has the two halves side
by side.

Stemming uses the ``snowballstemmer`` package, imported on first use (it takes some tens of
milliseconds); each language's stems are kept in a bounded cache.
"""

from __future__ import annotations

import re
import sys
import threading
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Final, Protocol, cast

from mymcp.plugins.mnemosyne.memory.recall.spellings import american

__all__ = [
    "ENGLISH",
    "STOP_WORDS",
    "TERM_RE",
    "adjacent",
    "chunk_keys",
    "chunks",
    "extra_keys_of",
    "fold",
    "piece_keys",
    "splits",
    "stemming_language",
    "text_keys",
    "word_key",
]

ENGLISH: Final = "english"

# The Snowball algorithm of each primary language subtag; "und" (no language said) and
# legacy records, which have no language, are read as English.
_ALGORITHMS: Final = {
    "ar": "arabic",
    "ca": "catalan",
    "cs": "czech",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "en": ENGLISH,
    "eo": "esperanto",
    "es": "spanish",
    "et": "estonian",
    "eu": "basque",
    "fa": "persian",
    "fi": "finnish",
    "fr": "french",
    "ga": "irish",
    "hi": "hindi",
    "hu": "hungarian",
    "hy": "armenian",
    "id": "indonesian",
    "it": "italian",
    "lt": "lithuanian",
    "nb": "norwegian",
    "ne": "nepali",
    "nl": "dutch",
    "nn": "norwegian",
    "no": "norwegian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "st": "sesotho",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "und": ENGLISH,
    "yi": "yiddish",
}

# Words that never narrow a search: "user" (every memory is the user's) and question words.
STOP_WORDS: Final = frozenset(
    (
        "a an and are do does for how i in is it of on or the to user what when where which who why"
    ).split()
)
# A maximal run of Unicode word characters other than the underscore.
TERM_RE: Final = re.compile(r"[^\W_]+")
# Between the words of one chunk, these make a compound (the words also meet joined).
_JOINERS: Final = frozenset("-/._'\u2019\u2010\u2011")
_KEEP_BEFORE: Final = "."
_KEEP_AFTER: Final = "#+"
# Stems and pieces kept per language; past that a cache starts again (an entry is a few
# microseconds of work and about 150 bytes).
_CACHE_LIMIT: Final = 20_000
# A word is stemmed at most this many times over (see _Stemmers.stem).
_STEM_ROUNDS: Final = 3
# Query words shorter than this are not cut in two.
_SPLIT_MINIMUM: Final = 5


def stemming_language(language: str | None) -> str | None:
    """The stemming algorithm for a record's language tag; ``None`` when there is none.

    ``None`` (a legacy record) and ``und`` are English; a language without an algorithm
    is folded but not stemmed.
    """
    if language is None:
        return ENGLISH
    algorithm = _ALGORITHMS.get(language.partition("-")[0])
    return algorithm if algorithm in _stemmers.available() else None


# Letters that Unicode does not decompose but people type without: ligatures and stroked letters.
_SPELLED_OUT = str.maketrans(
    {"œ": "oe", "æ": "ae", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th"}
)


def fold(text: str) -> str:
    """NFKC, case folding, accents and other combining marks removed, ligatures spelled out."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    if folded.isascii():
        return folded
    decomposed = unicodedata.normalize("NFD", folded)
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    return unicodedata.normalize("NFC", bare).translate(_SPELLED_OUT)


def chunks(text: str) -> list[str]:
    """The white-space separated pieces of ``text``, without the punctuation around them."""
    found = []
    for piece in text.split():
        trimmed = _trim(piece)
        if trimmed:
            found.append(trimmed)
    return found


def chunk_keys(chunk: str, language: str | None) -> Iterator[str]:
    """The keys of one folded chunk (see the module's docstring); may repeat."""
    words = TERM_RE.findall(chunk)
    for word in words:
        if len(word) > 1:
            key = word_key(word, language)
            if key is not None:
                yield key
    between = set(TERM_RE.sub("", chunk))
    if len(words) > 1 and between <= _JOINERS:
        key = word_key("".join(words), language)
        if key is not None:
            yield key
    spelled = chunk.startswith(_KEEP_BEFORE) or not between <= _JOINERS or len(chunk) == 1
    if spelled and chunk not in STOP_WORDS:
        yield sys.intern(chunk)


def piece_keys(piece: str, language: str | None) -> tuple[str, ...]:
    """The distinct keys of one folded white-space separated piece of text (cached)."""
    return _stemmers.piece_keys(piece, language)


def text_keys(text: str, language: str | None) -> set[str]:
    """Every key of ``text`` in one language."""
    return set().union(*map(_stemmers.pieces(language).__getitem__, set(fold(text).split())))


def extra_keys_of(language: str | None) -> Mapping[str, tuple[str, ...]]:
    """The keys of each folded piece of text in ``language`` besides the keys of its words
    (a compound's joined key, the piece as spelled), looked up by the piece: what a text's
    words do not already give."""
    return _stemmers.extras(language)


def word_key(word: str, language: str | None) -> str | None:
    """The key of one folded word (letters and digits only), or ``None`` for a stop word."""
    if word in STOP_WORDS:
        return None
    key = _stemmers.stem(word, language)
    if len(key) < 2 or key in _stop_stems():
        return None
    return key


def splits(word: str) -> Iterator[tuple[str, str]]:
    """Each way to cut a folded word in two words of two characters or more, not stop words."""
    if len(word) < _SPLIT_MINIMUM or not word.isalnum():
        return
    for cut in range(2, len(word) - 1):
        left, right = word[:cut], word[cut:]
        if left not in STOP_WORDS and right not in STOP_WORDS:
            yield left, right


def adjacent(folded: str, left: str, right: str) -> bool:
    """Whether ``folded`` text has a word starting with ``left`` and, after a joiner or a
    space, a word starting with ``right`` (``health care`` or ``working day`` for the two
    halves of ``healthcare`` and ``workday``)."""
    pattern = rf"(?<![^\W_]){re.escape(left)}[^\W_]*[\s\-/._'\u2019\u2010\u2011]+{re.escape(right)}"
    return re.search(pattern, folded) is not None


def _trim(piece: str) -> str:
    start, end = 0, len(piece)
    while start < end and not _inner(piece[start]):
        start += 1
    if start == end:
        return ""
    if piece[start - 1 : start] == _KEEP_BEFORE and piece[start - 2 : start - 1] != _KEEP_BEFORE:
        start -= 1
    while not _inner(piece[end - 1]):
        end -= 1
    while end < len(piece) and piece[end] in _KEEP_AFTER:
        end += 1
    return piece[start:end]


def _inner(char: str) -> bool:
    """A letter, a digit, or a mark that combines with the one before it."""
    return char.isalnum() or unicodedata.combining(char) != 0


_stop_stems_cache: frozenset[str] | None = None


def _stop_stems() -> frozenset[str]:
    """The stop words and their English stems (``does`` stems to ``doe``)."""
    global _stop_stems_cache
    if _stop_stems_cache is None:
        stems = (_stemmers.stem(word, ENGLISH) for word in STOP_WORDS)
        _stop_stems_cache = STOP_WORDS | frozenset(stems)
    return _stop_stems_cache


class _PieceKeys(dict[str, tuple[str, ...]]):
    """The keys of each folded piece of text met in one language; a piece not met yet is
    worked out on lookup, so a whole text's pieces can be looked up in one pass of C."""

    def __init__(self, language: str | None) -> None:
        super().__init__()
        self.language = language

    def __missing__(self, piece: str) -> tuple[str, ...]:
        chunk = _trim(piece)
        keys = tuple(set(chunk_keys(chunk, self.language))) if chunk else ()
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        self[piece] = keys
        return keys


class _ExtraKeys(dict[str, tuple[str, ...]]):
    """The keys of each folded piece of text met in one language that the keys of its own
    words (:func:`word_key` of each) leave out; worked out on lookup, like :class:`_PieceKeys`."""

    def __init__(self, pieces: _PieceKeys) -> None:
        super().__init__()
        self.pieces = pieces

    def __missing__(self, piece: str) -> tuple[str, ...]:
        language = self.pieces.language
        own = {word_key(word, language) for word in TERM_RE.findall(_trim(piece))}
        keys = tuple(key for key in self.pieces[piece] if key not in own)
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        self[piece] = keys
        return keys


class _Stemmers:
    """The Snowball stemmers, made on first use, and per language two bounded caches: the
    stem of each word and the keys of each piece of text.

    A stemmer object keeps state while it stems, so stemming is serialized; the caches are
    plain dictionaries, read and written without the lock (a race only stems a word twice).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stemmers: dict[str, Callable[[str], str]] = {}
        self._stems: dict[str, dict[str, str]] = {}
        self._pieces: dict[str | None, _PieceKeys] = {}
        self._extras: dict[str | None, _ExtraKeys] = {}
        self._available: frozenset[str] | None = None

    def available(self) -> frozenset[str]:
        if self._available is None:
            with self._lock:
                self._available = frozenset(_snowball().algorithms())
        return self._available

    def pieces(self, language: str | None) -> _PieceKeys:
        """The cache of piece keys of one language (looking a piece up fills it)."""
        table = self._pieces.get(language)
        if table is None:
            table = self._pieces.setdefault(language, _PieceKeys(language))
        return table

    def extras(self, language: str | None) -> _ExtraKeys:
        """The cache of extra piece keys of one language (looking a piece up fills it)."""
        table = self._extras.get(language)
        if table is None:
            table = self._extras.setdefault(language, _ExtraKeys(self.pieces(language)))
        return table

    def piece_keys(self, piece: str, language: str | None) -> tuple[str, ...]:
        """The keys of one folded white-space separated piece of a text, cached."""
        return self.pieces(language)[piece]

    def stem(self, word: str, language: str | None) -> str:
        if language is None:
            return sys.intern(word)
        stems = self._stems.get(language)
        if stems is not None:
            cached = stems.get(word)
            if cached is not None:
                return cached
        with self._lock:
            stemmer = self._stemmers.get(language)
            if stemmer is None:
                stemmer = self._stemmers[language] = _snowball().stemmer(language).stemWord
            stem = american(word) if language == ENGLISH else word
            # Stemmed again until it stays: Snowball's German takes "kurse" to "kurs" but
            # "kurs" to "kur", and both must meet.
            for _ in range(_STEM_ROUNDS):
                stemmed = stemmer(stem)
                if stemmed == stem:
                    break
                stem = stemmed
            stem = sys.intern(stem)
            stems = self._stems.setdefault(language, {})
            if len(stems) >= _CACHE_LIMIT:
                stems.clear()
            stems[word] = stem
        return stem


class _Stemmer(Protocol):
    def stemWord(self, word: str) -> str: ...  # noqa: N802 (the library's name)


class _Snowball(Protocol):
    """What recall uses of the ``snowballstemmer`` module (it ships no type hints)."""

    def algorithms(self) -> Iterable[str]: ...

    def stemmer(self, language: str) -> _Stemmer: ...


def _snowball() -> _Snowball:
    import snowballstemmer  # type: ignore[import-untyped]  # on first use: it takes ~40 ms

    return cast(_Snowball, snowballstemmer)


_stemmers: Final = _Stemmers()
