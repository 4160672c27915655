"""Numbers in a text, and the word that labels each: the one digit-cluster helper.

:func:`numbers` finds every run of digits and capitals joined by single separators (``-``,
``.``, ``/``, one space, a check character in brackets), standing alone and six characters
long or more: "529.982.247-25", "AB 12 34 56 C", "A123456(3)". A run ends at a line break
and before a word of capitals ("8443 SSN 436 86 3356" holds two).

:func:`label_of` reads what the writer said a number is: the nearest label among the five
words before it, within its own sentence, clause and line (a number that opens its line
takes the label of the line above, as in a form), or a label right after it in brackets or
at the end of the line:

- ``benign``: order, invoice, part, SKU, ISBN, phone, version… (a phone or count label,
  such as "page" or "row", says nothing of a number longer than a phone number, or shaped
  as a social security number);
- ``card``: card, credit, Visa, Mastercard… (in several languages);
- ``identity``: the names of identity, tax, social security, passport, licence and
  residence numbers of many countries.
"""

from __future__ import annotations

import bisect
import re

from mymcp.plugins.mnemosyne.memory.policy import words
from mymcp.plugins.mnemosyne.memory.policy.engine import Text

Span = tuple[int, int]


def parts(text: Text, start: int, end: int) -> list[Span]:
    """The spans of the pieces of the number at ``start:end`` between single spaces."""
    found, at = [], start
    for piece in text.shape[start:end].split(b" "):
        found.append((at, at + len(piece)))
        at += len(piece) + 1
    return found


# On the shape: pieces holding a digit joined by one separator, a lone capital after a
# separator ("…-K", "… C"), or "(0)" / "(A)".
# A space joins only a piece that holds a digit, so a word of capitals ends the run.
# (It opens with the first character, [A0], so that the search skips to the next one.)
_CLUSTER = re.compile(
    rb"[A0](?<![A0a][A0])(?=[A0 ()./-]{5})(?:(?<=0)|(?=[A0]*0))[A0]*"
    rb"(?:(?:[-./]|[ ](?=[A0]*0))[A0]*0[A0]*|[-./ ]A(?![A0a])|\([A0]\))*"
)


def numbers(text: Text) -> list[Span]:
    """Every number of the text that stands alone (no letter or digit glued to it)."""
    found = text.cache.get("numbers")
    if found is None:
        shape = text.shape
        found = text.cache["numbers"] = (
            [m.span() for m in _CLUSTER.finditer(shape) if shape[m.end() : m.end() + 1] != b"a"]
            if b"0" in shape
            else []
        )
    return found


# --- labels -------------------------------------------------------------------------------

_WORD = re.compile(r"[^\W\d_]+")
_BEFORE = 48
# A word in lower case, then ".", "!" or "?" and a blank: the end of a sentence. Capitals
# ("IdNr."), short words ("No.") and words that end as "number" is shortened ("Ausweisnr.")
# make the dot an abbreviation's.
_SENTENCE_END = re.compile(r"([^\W\d_]+)[.!?][ \t\n]")
_SHORT_FOR_NUMBER = ("nr", "no", "num", "nro", "nbr", "nummer")
# "44051401359 (PESEL)": a label right after the number in brackets, or ending its line.
_AFTER = re.compile(
    r"[ \t]*[(\[][ \t]*([^\W\d_]+)[ \t]*[)\]]|[ \t]+([^\W\d_]+)[ \t]*[.,;]?(?:$|\n)"
)


_LABEL_NUMBER = re.compile(rb"[Aa]{2}-0{1,3}")


def _label_number(shape: bytes, digit: int) -> bool:
    """The digits that end at ``digit`` are one to three glued to a word by a hyphen."""
    return any(_LABEL_NUMBER.fullmatch(shape, digit - n - 2, digit + 1) for n in (1, 2, 3))


def _reach(text: Text, start: int) -> int:
    """Where the words that can label the number at ``start`` begin."""
    reach = max(0, start - _BEFORE)
    digit = text.shape.rfind(b"0", reach, start)  # another number before, unless a label's
    if digit >= 0 and not _label_number(text.shape, digit):  # ISBN-13, EAN-8
        reach = digit + 1
    line = text.value.rfind("\n", reach, start)
    if line >= 0 and text.value[line + 1 : start].strip():
        reach = line + 1  # only a number that opens its line takes a label from above
    clause = max(text.value.rfind(":", reach, start), text.value.rfind(";", reach, start))
    if clause >= 0 and _WORD.search(text.value, clause + 1, start):
        reach = clause + 1  # "Notes from the call: pay with 4111…"
    for sentence in _SENTENCE_END.finditer(text.value, reach, start):
        word = sentence.group(1)
        if len(word) >= 4 and word.islower() and not word.endswith(_SHORT_FOR_NUMBER):
            reach = sentence.end()
    return reach


def _nearest(before: list[str], digits: int, ssn: bool) -> str | None:
    lowered = [
        "" if word.lower() in words.SPELLED_IN_CAPITALS and not word.isupper() else word.lower()
        for word in before
    ]
    for index in range(len(lowered) - 1, -1, -1):
        word = lowered[index]
        pair = (lowered[index - 1], word) if index else ("", "")
        if pair in words.PHRASES and not (pair[0] == "id" and _benign(lowered, index - 2)):
            return "identity"
        if word == "id" and _benign(lowered, index - 1):
            return words.BENIGN  # "page id", "row id": whatever its length
        label = words.LABELS.get(word) or next(
            (kind for infix, kind in words.LABEL_INFIXES if infix in word), None
        )
        short = words.SHORT_LABELS.get(word)
        if label is not None and not (short and digits > 12 or short == "phone" and ssn):
            return label
    return None


def _benign(before: list[str], index: int) -> bool:
    return index >= 0 and words.LABELS.get(before[index]) == words.BENIGN


def label_of(text: Text, start: int, end: int) -> str | None:
    """The nearest label of the number at ``start:end`` (see the module docstring)."""
    digits, ssn = text.shape.count(b"0", start, end), text.shape[start:end] == b"000-00-0000"
    found = _nearest(_WORD.findall(text.value, _reach(text, start), start)[-5:], digits, ssn)
    if found is None and (after := _AFTER.match(text.value, end)) is not None:
        found = _nearest([after.group(1) or after.group(2)], digits, ssn)
        found = None if found == words.BENIGN else found
    return found


# --- digits that are no number ------------------------------------------------------------

# A UUID, or a run of 16 or more hex digits with a letter (a digest, a commit, an object ID).
_HEX = re.compile(
    r"(?<![0-9A-Za-z])(?:[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}|[0-9a-fA-F]{16,})"
    r"(?![0-9A-Za-z])"
)
_HEX_LETTERS = frozenset("abcdefABCDEF")


def in_hex(text: Text, start: int, end: int) -> bool:
    """True when ``start:end`` lies inside a UUID or a long run of hex digits."""
    spans = text.cache.get("hex")
    if spans is None:
        spans = text.cache["hex"] = [
            match.span()
            for begin, stop in text.tokens()[0]
            for match in _HEX.finditer(text.value, begin, stop)
            if not _HEX_LETTERS.isdisjoint(match.group())
        ]
    index = bisect.bisect_right(spans, (start, len(text.value))) - 1
    return index >= 0 and end <= spans[index][1]
