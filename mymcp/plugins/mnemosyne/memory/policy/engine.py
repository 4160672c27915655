"""The engine: a table of named rules, run in order over one prepared text.

A :class:`Rule` is data: a stable id, the reason it reports, the keywords that let it run,
a finder that yields candidates and a validator that accepts or rejects each candidate
(:mod:`.rules` makes them from the entries of ``rules.toml``).

:class:`Table` is the prefilter and the loop. Before any rule runs it makes one pass over
the text that finds which keywords occur, and so which rules can apply; then it tries
those rules in table order and returns the first whose finder yields a valid candidate.
The prefilter only skips rules that cannot apply: a rule run on its own finds what it
needs itself and decides the same.
A keyword is found in one of three ways:

- a word of lowercase ASCII letters and digits must be a whole word of the text (a run of
  ASCII letters and digits, compared in lower case): ``ssn`` is found in "SSN: …" but not
  in "classname";
- any other keyword (punctuation, letters outside ASCII, or a word written with a leading
  ``*``) is found anywhere in the lowercase text: ``-----``, ``://``, ``пароль``,
  ``*pass`` (in "DB_PASSWORD" and "mypassword");
- a keyword written with a leading ``#`` is found in the shape bytes (see ``_SHAPE``):
  ``#000-00-0000`` where a social security number's digits stand, ``#0`` where any digit;
- the keywords of a rule marked ``tokens`` are found case-sensitively in the long tokens
  (see :meth:`Text.tokens`): as a prefix at the start of a token (``glpat-``), or anywhere
  in one when written with a leading ``*`` (``*AKIA``).

A rule without keywords always runs; its finder then starts with a cheap test of its own.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

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
_RUN = b"w" * 15
# From a run of 15 token characters to the end of its stretch (the engine finds the run,
# a literal, fast; the stretch's start is the blank before it).
_CHUNK = re.compile(_RUN + rb"[wp]*")


class Text:
    """One value as every rule sees it (all views have the value's length).

    ``value`` has every decimal digit written in ASCII, ``lower`` is it in lower case,
    ``shape`` its shape bytes (see ``_SHAPE``) and ``words`` the set of its lowercase
    ASCII words. ``cache`` keeps what several rules compute alike (assignments, numbers),
    each computed by the first rule that asks for it.
    """

    __slots__ = ("value", "lower", "shape", "words", "cache")

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

    def tokens(self) -> tuple[list[tuple[int, int]], str]:
        """The white-space delimited stretches that hold 15 or more token characters in a
        row (letters, digits, ``_-.``), and their text joined by single spaces.

        Every provider token, key body and wallet key is such a stretch; prose has few.
        """
        found = self.cache.get("tokens")
        if found is None:
            stretches = self.value.encode("ascii", "replace").translate(_STRETCH)
            spans = [
                (stretches.rfind(b" ", 0, m.start()) + 1, m.end())
                for m in (_CHUNK.finditer(stretches) if _RUN in stretches else ())
            ]
            found = self.cache["tokens"] = (spans, " ".join(self.value[a:b] for a, b in spans))
        return found

    def token_text(self) -> str:
        return self.tokens()[1]

    def at(self, needle: str) -> list[int]:
        """Every offset of ``needle`` in the lowercase view."""
        found, at = [], self.lower.find(needle)
        while at >= 0:
            found.append(at)
            at = self.lower.find(needle, at + 1)
        return found

    def spots(self, words: Iterable[str]) -> Iterator[int]:
        """The offsets of each of ``words`` (ASCII letters and digits, or anything else, which
        is looked for anywhere) that occurs in the text as a word."""
        for word in words:
            if not (word.isascii() and word.isalnum()) or word.encode() in self.words:
                yield from self.at(word)


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
        in_tokens: set[str] = set()
        shapes: set[str] = set()
        for number, rule in enumerate(self.rules):
            if not rule.keywords:
                self._always.append(number)
            for keyword in rule.keywords:
                key = _key(keyword, rule.tokens)
                self._index[key].append(number)
                if key.startswith("s:"):
                    shapes.add(key[2:])
                elif key.startswith("T:"):
                    in_tokens.add(keyword[1:])
                elif rule.tokens:
                    prefixes.add(keyword)
                elif key.startswith("w:"):
                    words.add(keyword.encode())
                else:
                    inside.add(key[2:])
        self._words = frozenset(words)
        self._shapes = tuple((shape, shape.encode()) for shape in sorted(shapes))
        self._inside_ascii = tuple(sorted(word for word in inside if word.isascii()))
        self._foreign, self._tails = foreign_pattern([w for w in inside if not w.isascii()])
        self._in_tokens = tuple(sorted(in_tokens))
        self._prefixes = _prefix_pattern(prefixes)
        # A hit names the longest prefix found there; the shorter ones it starts with hit too.
        self._within = {p: [q for q in prefixes if p.startswith(q)] for p in prefixes}

    def prefilter(self, text: Text) -> list[Rule]:
        """The rules that can apply to ``text``, in table order."""
        present = {"w:" + word.decode() for word in text.words & self._words}
        present.update("s:" + shape for shape, raw in self._shapes if raw in text.shape)
        present.update("i:" + word for word in self._inside_ascii if word in text.lower)
        if self._foreign is not None and not text.value.isascii():
            present.update(
                "i:" + self._tails[m.group()] for m in self._foreign.finditer(text.lower)
            )
        token_text = text.token_text()
        if token_text:
            present.update("T:" + word for word in self._in_tokens if word in token_text)
        if token_text and self._prefixes is not None:
            for match in self._prefixes.finditer(token_text):
                present.update("t:" + prefix for prefix in self._within[match.group(1)])
        numbers = {number for key in present for number in self._index.get(key, ())}
        return [self.rules[number] for number in sorted(numbers.union(self._always))]

    def decide(self, value: str) -> Rule | None:
        """The first rule, in table order, that refuses ``value``; None when none does."""
        text = Text(value)
        return next((rule for rule in self.prefilter(text) if rule.fires(text)), None)


def _key(keyword: str, tokens: bool) -> str:
    if keyword.startswith("#"):
        return "s:" + keyword[1:]
    if tokens:
        return ("T:" + keyword[1:]) if keyword.startswith("*") else ("t:" + keyword)
    if keyword.isascii() and keyword.isalnum() and keyword.islower() or keyword.isdigit():
        return "w:" + keyword
    return "i:" + keyword.removeprefix("*").lower()


def foreign_pattern(words: list[str]) -> tuple[re.Pattern[str] | None, dict[str, str]]:
    """One pattern for the keywords with letters outside ASCII, and the keyword each of its
    matches belongs to. Each alternative opens with the keyword's first such letter (the
    letters before it are checked behind), so the engine skips every character that opens
    none of them, ASCII included."""
    branches: list[str] = []
    tails: dict[str, str] = {}
    for word in sorted(words, key=len, reverse=True):
        at = next(index for index, char in enumerate(word) if not char.isascii())
        behind = f"(?<={re.escape(word[: at + 1])})" if at else ""
        branches.append(re.escape(word[at]) + behind + re.escape(word[at + 1 :]))
        tails.setdefault(word[at:], word)
    return (re.compile("|".join(branches)) if branches else None), tails


def _prefix_pattern(prefixes: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern for the token prefixes, grouped by first character, found where no
    letter or digit stands before them (a longer prefix is tried first, and one that
    starts inside another is found too)."""
    groups: dict[str, list[str]] = defaultdict(list)
    for prefix in prefixes:
        groups[prefix[0]].append(re.escape(prefix[1:]))
    if not groups:
        return None
    branches = (
        re.escape(first) + "(?:" + "|".join(sorted(rests, key=len, reverse=True)) + ")"
        for first, rests in sorted(groups.items())
    )
    return re.compile("(?<![A-Za-z0-9])(?=(" + "|".join(branches) + "))")
