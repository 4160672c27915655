"""One value prepared for the detectors: folded digits, a lowercase copy and two byte masks.

Every detector works on the same :class:`Text`. All its views have the length of the value,
so an offset found in one view is valid in every other one:

- ``value``: the value with every decimal digit of any script written as an ASCII digit
  (``\\d`` in the policy means any decimal digit, so a full-width or Arabic-Indic number is
  still a number);
- ``lower``: ``value`` in lower case, for finding keywords;
- ``shape``: one byte per character: ``A`` for an ASCII capital, ``a`` for a small letter,
  ``0`` for a digit, a space for ASCII white space, ``?`` for anything outside ASCII and the
  ASCII punctuation as itself. Searching it for a literal such as ``b"000-00-0000"`` is one
  fast byte search instead of a regular expression run over the whole text;
- ``word``: ``w`` for a character that can be part of a token (letters, digits, ``_``, ``-``
  and ``.``), a space for anything else;
- ``words``: the set of lowercase ASCII words (runs of letters and digits) of the value, so
  that a detector can ask whether its keywords occur at all in one set lookup each.

The masks are the policy's prefilter: most detectors first look for a keyword, a literal or
a long token there, and run their exact rule only around what they found. Two more views are
computed on demand and kept in ``cache``: :meth:`Text.chunks` (the stretches that can hold a
token or a key, with :meth:`Text.chunk_text` joining them for one search) and
:meth:`Text.foreign` (where the characters outside ASCII are, when there are few of them: a
regular expression over a value that is not Latin-1 is slow, so a detector that needs one
such character can look at these few places instead).

Speed matters because the policy runs on every remember and revise; every shortcut here and
in the detectors is exact (the same answer as the plain rule, never a weaker one), and
``tests/mnemosyne/memory/test_policy_fast_paths.py`` checks each against its plain form.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterator
from typing import cast

__all__ = ["Text"]

# A decimal digit outside ASCII: "not a non-digit and not ASCII".
_FOREIGN_DIGIT = re.compile(r"[^\D\x00-\x7f]")


def _shape_table() -> bytes:
    table = bytearray(range(128)) + bytearray(b"?" * 128)
    for start, end, mark in ((65, 90, "A"), (97, 122, "a"), (48, 57, "0")):
        for code in range(start, end + 1):
            table[code] = ord(mark)
    for code in (9, 10, 11, 12, 13, 32):
        table[code] = 32
    return bytes(table)


def _words_table() -> bytes:
    table = bytearray(b" " * 256)
    for code in range(128):
        if chr(code).isalnum():
            table[code] = ord(chr(code).lower())
    return bytes(table)


def _word_table() -> bytes:
    table = bytearray(b" " * 256)
    for code in range(128):
        if chr(code).isalnum() or chr(code) in "_-.":
            table[code] = ord("w")
    return bytes(table)


def _stretch_table() -> bytes:
    # "w" for a token character, a space for white space, "p" for anything else.
    table = bytearray(b"p" * 256)
    for code in range(128):
        if chr(code).isalnum() or chr(code) in "_-.":
            table[code] = ord("w")
    for code in (9, 10, 11, 12, 13, 32):
        table[code] = 32
    return bytes(table)


_TOKEN_RUN = 15
_TOKEN_PROBE = b"w" * _TOKEN_RUN
# Written as literal characters so that the engine searches for the whole run at once.
_CHUNK = re.compile(_TOKEN_PROBE + b"[wp]*")
_SHAPE = _shape_table()
_WORD = _word_table()
_WORDS = _words_table()
_STRETCH = _stretch_table()


# Up to this many characters outside ASCII, looking at each of them is cheaper than one
# regular expression over the whole value (which is slow once the value is not Latin-1).
_FEW_FOREIGN = 256


def _foreign_positions(value: str, encoded: bytes) -> list[int] | None:
    """The offset of each character outside ASCII, or None when there are too many."""
    if encoded.count(b"?") > _FEW_FOREIGN:
        return None
    positions = []
    at = encoded.find(b"?")
    while at >= 0:
        if value[at] != "?":
            positions.append(at)
        at = encoded.find(b"?", at + 1)
    return positions


def _has_foreign_digit(value: str, foreign: list[int] | None) -> bool:
    if foreign is None:
        return _FOREIGN_DIGIT.search(value) is not None
    return any(value[at].isdecimal() for at in foreign)  # the same test as \d


def _fold_digits(value: str) -> str:
    return _FOREIGN_DIGIT.sub(lambda match: str(unicodedata.decimal(match.group())), value)


# A UUID, or a run of 16 or more hex digits (a digest, a commit, an object ID), standing alone.
_HEX_IDENTIFIER = re.compile(
    r"(?<![0-9A-Za-z])(?:[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}|[0-9a-fA-F]{16,})"
    r"(?![0-9A-Za-z])"
)
_HEX_LETTERS = frozenset("abcdefABCDEF")


class Text:
    """The views of one value that the detectors share (see the module docstring)."""

    __slots__ = ("value", "lower", "shape", "word", "words", "cache")

    def __init__(self, raw: str) -> None:
        # "replace" writes one "?" per character it cannot encode, so offsets are kept.
        encoded = raw.encode("ascii", "replace")
        value = raw
        only_ascii = raw.isascii()
        foreign = [] if only_ascii else _foreign_positions(raw, encoded)
        if not only_ascii and _has_foreign_digit(raw, foreign):
            value = _fold_digits(raw)
            encoded = value.encode("ascii", "replace")
            foreign = _foreign_positions(value, encoded)
        lower = value.lower()
        if len(lower) != len(value):
            # Only U+0130 grows when lowered; keep the views aligned.
            lower = value.replace("\u0130", "i").lower()
        self.value = value
        self.lower = lower
        self.shape = encoded.translate(_SHAPE)
        self.word = encoded.translate(_WORD)
        self.words = frozenset(encoded.translate(_WORDS).split())
        # Results that several detectors share (assignments, chunks), computed on demand.
        self.cache: dict[str, object] = {"foreign": foreign}

    def __len__(self) -> int:
        return len(self.value)

    def foreign(self) -> list[int] | None:
        """The offset of each character outside ASCII, or None when there are many."""
        if "foreign" not in self.cache:
            encoded = self.value.encode("ascii", "replace")
            self.cache["foreign"] = _foreign_positions(self.value, encoded)
        return cast(list[int] | None, self.cache["foreign"])

    def in_hex_identifier(self, start: int, end: int) -> bool:
        """True when ``start:end`` lies inside a UUID or a long run of hex digits.

        Such a run with at least one letter is a digest or an ID, never a number a person
        is known by or pays with; its digits are not read as one. Found on demand only.
        """
        spans = self.cache.get("hex")
        if spans is None:
            # The runs do not overlap and come in order, so the one that could hold
            # start:end is the last to begin at or before start.
            # Both kinds are runs of 15 token characters or more, so they lie in the chunks.
            found = [
                match.span()
                for begin, stop in self.chunks()
                for match in _HEX_IDENTIFIER.finditer(self.value, begin, stop)
                if not _HEX_LETTERS.isdisjoint(match.group())
            ]
            spans = ([begin for begin, _ in found], [stop for _, stop in found])
            self.cache["hex"] = spans
        begins, stops = cast(tuple[list[int], list[int]], spans)
        index = bisect.bisect_right(begins, start) - 1
        return index >= 0 and end <= stops[index]

    def mentions(self, words: frozenset[bytes]) -> bool:
        """True when one of ``words`` (lowercase ASCII, as bytes) is a word of the value."""
        return not self.words.isdisjoint(words)

    def positions(self, needle: str) -> Iterator[int]:
        """Every offset where ``needle`` starts in the lowercase view (overlaps skipped)."""
        at = self.lower.find(needle)
        while at >= 0:
            yield at
            at = self.lower.find(needle, at + len(needle))

    def chunks(self) -> list[tuple[int, int]]:
        """Each white-space delimited stretch that holds a run of 15+ token characters.

        Every provider token, key body and wallet key is such a run; prose has few.
        """
        cached = self.cache.get("chunks")
        if cached is None:
            cached = []
            if _TOKEN_PROBE in self.word:
                # On the stretch mask a match runs from the first long run of a stretch to
                # its end, so each stretch is found once, in order.
                stretches = self.value.encode("ascii", "replace").translate(_STRETCH)
                cached = [
                    (self.shape.rfind(b" ", 0, match.start()) + 1, match.end())
                    for match in _CHUNK.finditer(stretches)
                ]
            self.cache["chunks"] = cached
        return cast(list[tuple[int, int]], cached)

    def chunk_text(self, minimum: int = 0) -> str:
        """The chunks of at least ``minimum`` characters, joined by single spaces.

        No pattern the detectors run over chunks can match a space, and each of their
        boundaries treats a space as it treats the start or the end of a chunk, so one
        search over this text finds what a search of each chunk would.
        """
        key = f"chunk_text{minimum}"
        cached = self.cache.get(key)
        if cached is None:
            value = self.value
            cached = " ".join(
                value[begin:stop] for begin, stop in self.chunks() if stop - begin >= minimum
            )
            self.cache[key] = cached
        return cast(str, cached)
