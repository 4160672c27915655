"""The engine: a table of named rules, run in order over one prepared text.

A :class:`Rule` is data: a stable id, the reason it reports, the keywords that let it run,
a finder that yields candidates, a validator that accepts or rejects each candidate, and
its samples (texts it must refuse, look-alikes it must store), which the tests run.

:class:`Table` is the prefilter and the loop. Before any rule runs it makes one pass over
the text that finds which keywords occur, and so which rules can apply; then it tries
those rules in table order and returns the first whose finder yields a valid candidate.
A keyword is found in one of three ways:

- a word of lowercase ASCII letters and digits must be a whole word of the text (a run of
  ASCII letters and digits, compared in lower case): ``ssn`` is found in "SSN: …" but not
  in "classname";
- any other keyword (punctuation, letters outside ASCII, or a word written with a leading
  ``*``) is found anywhere in the lowercase text: ``-----``, ``://``, ``пароль``,
  ``*pass`` (in "DB_PASSWORD" and "mypassword");
- the keywords of a rule marked ``tokens`` are prefixes, found case-sensitively at the
  start of a long token (see :meth:`Text.tokens`): ``glpat-``, ``AKIA``.

A rule without keywords always runs; its finder then starts with a cheap test of its own.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Rule", "Table", "Text"]

# A decimal digit outside ASCII ("\d" in the contract is Unicode-aware).
_FOREIGN_DIGIT = re.compile(r"[^\D\x00-\x7f]")


def _table(marks: Callable[[str], str | None]) -> bytes:
    return bytes(ord(marks(chr(code)) or chr(code)) for code in range(128)) + b"?" * 128


# One byte per character: "A" a capital, "a" a small letter, "0" a digit, "\n" a line
# break, " " other white space, "?" outside ASCII, punctuation as itself. Offsets in it are
# offsets in the value.
_SHAPE = _table(
    lambda c: "A" if c.isupper() else "a" if c.islower() else "0" if c.isdigit() else
    "\n" if c in "\n\r" else " " if c.isspace() else None
)  # fmt: skip
_WORDS = bytes(ord(chr(c).lower()) if chr(c).isalnum() else 32 for c in range(128)) + b" " * 128
_TOKEN_CHARS = "_-."
# "w" for a character of a token, " " for white space, "p" for anything else.
_STRETCH = _table(
    lambda c: "w" if c.isalnum() or c in _TOKEN_CHARS else " " if c.isspace() else "p"
).replace(b"?", b"p")
_LONG = 15
_CHUNK = re.compile(rb"[wp]*" + b"w" * _LONG + rb"[wp]*")


class Text:
    """One value as every rule sees it (all views have the value's length).

    ``value`` has every decimal digit written in ASCII, ``lower`` is it in lower case,
    ``shape`` its shape bytes (see ``_SHAPE``) and ``words`` the set of its lowercase
    ASCII words. ``cache`` keeps what several rules share (assignments, numbers).
    """

    __slots__ = ("value", "lower", "shape", "words", "cache", "present", "hits")

    def __init__(self, raw: str) -> None:
        value = raw if raw.isascii() or not _FOREIGN_DIGIT.search(raw) else _fold(raw)
        encoded = value.encode("ascii", "replace")
        lower = value.lower()
        if len(lower) != len(value):  # only U+0130 grows when lowered
            lower = value.replace("\u0130", "i").lower()
        self.value, self.lower = value, lower
        self.shape = encoded.translate(_SHAPE)
        self.words = frozenset(encoded.translate(_WORDS).split())
        self.cache: dict[str, Any] = {}
        self.present: set[str] = set()
        self.hits: dict[str, list[int]] = {}

    def tokens(self) -> tuple[list[tuple[int, int]], str]:
        """The white-space delimited stretches that hold 15 or more token characters in a
        row (letters, digits, ``_-.``), and their text joined by single spaces.

        Every provider token, key body and wallet key is such a stretch; prose has few.
        """
        found = self.cache.get("tokens")
        if found is None:
            stretches = self.value.encode("ascii", "replace").translate(_STRETCH)
            spans = (
                [m.span() for m in _CHUNK.finditer(stretches)] if b"w" * _LONG in stretches else []
            )
            found = self.cache["tokens"] = (spans, " ".join(self.value[a:b] for a, b in spans))
        return found  # type: ignore[no-any-return]

    def token_text(self) -> str:
        return self.tokens()[1]

    def at(self, needle: str) -> list[int]:
        """Every offset of ``needle`` in the lowercase view."""
        found, at = [], self.lower.find(needle)
        while at >= 0:
            found.append(at)
            at = self.lower.find(needle, at + 1)
        return found


def _fold(value: str) -> str:
    return _FOREIGN_DIGIT.sub(lambda match: str(unicodedata.decimal(match.group())), value)


Finder = Callable[[Text], Iterable[Any]]
Validator = Callable[[Text, Any], bool]


@dataclass(frozen=True)
class Rule:
    """One named rule of the policy (see the module docstring)."""

    id: str
    reason: str
    find: Finder
    valid: Validator | None = None
    keywords: tuple[str, ...] = ()
    tokens: bool = False
    refuse: tuple[str, ...] = ()
    store: tuple[str, ...] = field(default=())

    def fires(self, text: Text) -> bool:
        """True when one candidate of the finder passes the validator."""
        valid = self.valid
        return any(valid is None or valid(text, found) for found in self.find(text))


class Table:
    """The rules in order, and the one prefilter pass that tells which of them can apply."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        ids = [rule.id for rule in rules]
        if len(set(ids)) != len(ids):
            raise ValueError("rule ids must be unique")
        self.rules = tuple(rules)
        self._always: list[int] = []
        self._index: dict[str, list[int]] = defaultdict(list)
        words: set[bytes] = set()
        inside: set[str] = set()
        prefixes: set[str] = set()
        for number, rule in enumerate(self.rules):
            if not rule.keywords:
                self._always.append(number)
            for keyword in rule.keywords:
                key = _key(keyword, rule.tokens)
                self._index[key].append(number)
                if rule.tokens:
                    prefixes.add(keyword)
                elif key.startswith("w:"):
                    words.add(keyword.encode())
                else:
                    inside.add(key[2:])
        self._words = frozenset(words)
        self._inside_ascii = tuple(sorted(word for word in inside if word.isascii()))
        foreign = sorted((word for word in inside if not word.isascii()), key=len, reverse=True)
        self._inside_foreign = re.compile("|".join(map(re.escape, foreign))) if foreign else None
        self._prefixes = _prefix_pattern(prefixes)
        # A hit names the longest prefix found there; the shorter ones it starts with hit too.
        self._within = {p: [q for q in prefixes if p.startswith(q)] for p in prefixes}

    def prefilter(self, text: Text) -> list[Rule]:
        """The rules that can apply to ``text``, in table order (fills ``text.present``)."""
        present = text.present
        present.update("w:" + word.decode() for word in text.words & self._words)
        present.update("i:" + word for word in self._inside_ascii if word in text.lower)
        if self._inside_foreign is not None and not text.value.isascii():
            present.update("i:" + m.group() for m in self._inside_foreign.finditer(text.lower))
        token_text = text.token_text()
        if token_text and self._prefixes is not None:
            for match in self._prefixes.finditer(token_text):
                for prefix in self._within[match.group()]:
                    text.hits.setdefault(prefix, []).append(match.start())
            present.update("t:" + prefix for prefix in text.hits)
        numbers = {number for key in present for number in self._index.get(key, ())}
        return [self.rules[number] for number in sorted(numbers.union(self._always))]

    def decide(self, value: str) -> Rule | None:
        """The first rule, in table order, that refuses ``value``; None when none does."""
        text = Text(value)
        return next((rule for rule in self.prefilter(text) if rule.fires(text)), None)


def _key(keyword: str, tokens: bool) -> str:
    if tokens:
        return "t:" + keyword
    if keyword.isascii() and keyword.isalnum() and keyword.islower() or keyword.isdigit():
        return "w:" + keyword
    return "i:" + keyword.removeprefix("*").lower()


def _prefix_pattern(prefixes: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern for the token prefixes, grouped by first character, found where no
    letter or digit stands before them (a longer prefix is tried first)."""
    groups: dict[str, list[str]] = defaultdict(list)
    for prefix in prefixes:
        groups[prefix[0]].append(re.escape(prefix[1:]))
    if not groups:
        return None
    branches = (
        re.escape(first) + "(?:" + "|".join(sorted(rests, key=len, reverse=True)) + ")"
        for first, rests in sorted(groups.items())
    )
    return re.compile("(?<![A-Za-z0-9])(?:" + "|".join(branches) + ")")
