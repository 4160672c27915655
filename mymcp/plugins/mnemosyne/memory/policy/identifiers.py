"""Government identifiers and payment cards: the finders and validators of their rules.

Every rule here reads the numbers of :mod:`.numbers` (or, for the contract's own rules,
the exact digit shapes those name), and the label the writer gave them.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from mymcp.plugins.mnemosyne.memory.policy.checksums import ean13, luhn
from mymcp.plugins.mnemosyne.memory.policy.engine import Finder, Text
from mymcp.plugins.mnemosyne.memory.policy.numbers import in_hex, label_of, numbers, parts
from mymcp.plugins.mnemosyne.memory.policy.words import BENIGN, CARD, IDENTITY

Span = tuple[int, int]
_BEFORE, _AFTER = 48, 24  # how far before and after a number its label stands


def _standing(text: Text, start: int, end: int) -> bool:
    """Not a phone number ("+1 …"), not the digits a mask leaves ("***-**-2388"), not a
    masked number ("XXXXX5150"), not digits inside a UUID or a digest."""
    before, found = text.value[max(0, start - 3) : start], text.value[start:end]
    if before.endswith("+") or re.search(r"[*\u2022#]{2}[- .]?$", before):
        return False
    if "XXX" in found.upper():
        return False
    return not in_hex(text, start, end)


# --- US social security numbers (the contract's rule) -------------------------------------

_ITIN_GROUPS = frozenset([*range(50, 66), *range(70, 89), *range(90, 93), *range(94, 100)])


def ssn_candidates(text: Text) -> Iterator[Span]:
    """``NNN-NN-NNNN`` with no digit glued to either side."""
    shape = text.shape
    at = shape.find(b"000-00-0000")
    while at >= 0:
        end = at + 11
        if shape[at - 1 : at] != b"0" and shape[end : end + 1] != b"0":
            yield at, end
        at = shape.find(b"000-00-0000", at + 1)


def valid_ssn(text: Text, span: Span) -> bool:
    """Issuable (or named an identity), not a placeholder, not labelled as something else."""
    digits = text.value[span[0] : span[1]].replace("-", "")
    label = label_of(text, *span)
    if label == BENIGN or len(set(digits)) == 1 or not _standing(text, *span):
        return False
    area, group, serial = int(digits[:3]), int(digits[3:5]), int(digits[5:])
    issuable = area not in (0, 666) and group and serial and (area < 900 or group in _ITIN_GROUPS)
    return label == IDENTITY or bool(issuable)


# --- national numbers in their own format -------------------------------------------------


_FORMATS: set[bytes] = set()  # the shapes the rules ask for (see formatted)


def _shapes(text: Text) -> dict[bytes, list[Span]]:
    """Every number and every piece of one between spaces in one of the formats the rules
    ask for, by shape (found once per text)."""
    index = text.cache.get("shapes")
    if index is None:
        index = text.cache["shapes"] = {}
        shape = text.shape
        for start, end in numbers(text):
            if end - start < 9:
                continue  # no format is shorter
            spans = parts(text, start, end) if b" " in shape[start:end] else [(start, end)]
            if len(spans) > 1:
                spans.append((start, end))
            if shape.endswith(b"AA ", 0, start):  # "AB 12 34 56 C"
                spans.append((start - 3, end))
            for span in spans:
                if (key := shape[span[0] : span[1]]) in _FORMATS:
                    index.setdefault(key, []).append(span)
    return index


def formatted(shapes: tuple[bytes, ...], *, labelled: bool = True) -> Finder:
    """The finder of the numbers written in one of ``shapes``, in upper case (unless a
    label says they are something else, when ``labelled``)."""

    def find(text: Text) -> Iterator[str]:
        index = _shapes(text)
        for shape in shapes:
            for start, end in index.get(shape, ()):
                if _standing(text, start, end) and not (
                    labelled and label_of(text, start, end) == BENIGN
                ):
                    yield text.value[start:end].upper()

    _FORMATS.update(shapes)
    return find


# --- numbers a label names as an identity -------------------------------------------------

# Dates (with a time after them or not), decimal amounts and IPv4 addresses are numbers,
# not identifiers.
_NOT_AN_IDENTIFIER = re.compile(
    rb"0{4}[-./]0{2}[-./]0{2}|0{1,2}[-./]0{1,2}[-./]0{2,4}|0+\.0{1,2}|0+,0+|0{1,3}(?:\.0{1,3}){3}(?:/0{1,2}|:0{1,5})?"
)
_YEARS = re.compile(r"(?:19|20)\d\d[-/](?:19|20)?\d\d")


def _identity_shaped(text: Text, start: int, end: int) -> bool:
    shape = text.shape[start:end]
    digits = shape.count(b"0")
    code = shape.isalnum() and (digits >= 2 and len(shape) >= 6 or len(shape) >= 8)
    if digits < 6 and not (code and len(shape) <= 12):
        return False  # six digits or more, or a code of capitals and digits (a passport)
    if _NOT_AN_IDENTIFIER.fullmatch(shape):
        value = text.value[start:end]
        return b"." in shape and any(int(part) > 255 for part in value.split(".") if part.isdigit())
    return _YEARS.fullmatch(text.value, start, end) is None


def identity_candidates(text: Text, words: frozenset[str]) -> Iterator[Span]:
    """Each number shaped like an identifier, or each such piece of it, that one of
    ``words`` (which a label of an identity number holds) stands near enough to label."""
    spans = numbers(text)
    found = [key[2:] for key in text.present if key[2:] in words] if spans else []
    marks = sorted(text.spots(found))
    for start, end in spans:
        near = bisect.bisect_left(marks, start - _BEFORE)
        if near == len(marks) or marks[near] > end + _AFTER:
            continue
        if _identity_shaped(text, start, end):
            yield start, end
        elif b" " in text.shape[start:end]:
            yield from (part for part in parts(text, start, end) if _identity_shaped(text, *part))


def labelled_identity(text: Text, span: Span) -> bool:
    return _standing(text, *span) and label_of(text, *span) == IDENTITY


_MBI = re.compile(rb"0A[A0]0-?A[A0]0-?AA00")
_MBI_LETTERS = frozenset("ACDEFGHJKMNPQRTUVWXY")


def medicare_ids(text: Text) -> Iterator[str]:
    """US Medicare beneficiary identifiers (``1EG4-TE5-MK73``) with the letters they use."""
    for start, end in numbers(text):
        found = text.value[start:end]
        if _MBI.fullmatch(text.shape, start, end) and found[0] != "0":
            if all(c in _MBI_LETTERS for c in found if c.isalpha()):
                yield found


# --- payment cards ------------------------------------------------------------------------

# The contract's candidates, on the shape: 13 to 19 digits with at most one space or hyphen
# after each, taken greedily from left to right.
_CANDIDATE = re.compile(rb"0(?<!00)(?:[ -]?0){12,18}(?!0)")
_GROUP = re.compile(r"\d+")


_AFTER_A_MASK = re.compile(r"[*\u2022#]{2}[- ]?$")


def _in_a_list(shape: bytes, start: int, end: int) -> bool:
    """Six digit groups or more in a row ("timings 5615 7325 9645 4318 2849 2701") are a
    list of numbers, not a card."""
    while start and shape[start - 1] in b"0 -":
        start -= 1
    while end < len(shape) and shape[end] in b"0 -":
        end += 1
    return len(shape[start:end].replace(b"-", b" ").split()) >= 6


def card_candidates(text: Text) -> Iterator[Span]:
    """The contract's candidates, less the digits inside a digest or a list, or right after
    a mask ("**** **** **** 0600 …")."""
    if text.shape.count(b"0") >= 13:
        for match in _CANDIDATE.finditer(text.shape):
            start, end = match.span()
            if _in_a_list(text.shape, start, end) or in_hex(text, start, end):
                continue
            if not _AFTER_A_MASK.search(text.value, max(0, start - 3), start):
                yield start, end


def _issued(digits: str) -> bool:
    """True when a major card network issues numbers with this prefix and length."""
    size = len(digits)
    two, three, four, six = (int(digits[:n]) for n in (2, 3, 4, 6))
    networks = (
        (digits[0] == "4", size in (13, 16, 19)),  # Visa
        (51 <= two <= 55 or 2221 <= four <= 2720, size == 16),  # Mastercard
        (two in (34, 37), size == 15),  # American Express
        (
            four == 6011 or 644 <= three <= 649 or two == 65 or 622126 <= six <= 622925,
            16 <= size <= 19,
        ),
        (300 <= three <= 305 or four == 3095 or two in (36, 38, 39), 14 <= size <= 19),
        (3528 <= four <= 3589, 16 <= size <= 19),  # JCB
        (two in (62, 81), 16 <= size <= 19),  # UnionPay
        (two == 50 or 56 <= two <= 69, 12 <= size <= 19),  # Maestro
        (2200 <= four <= 2204, 16 <= size <= 19),  # Mir
        (two in (60, 65, 81, 82) or three == 508, size == 16),  # RuPay
        (four == 9792, size == 16),  # Troy
        (digits[0] == "1", size == 15),  # UATP
    )
    return any(prefix and length for prefix, length in networks)


def _layout(sizes: list[int], *, irregular: bool = False) -> bool:
    """How people write a card: unbroken, in fours, 4-6-5, or (``irregular``, for a number
    that stands alone) two to four groups of three or more digits, the first of four or more.
    Two numbers side by side ("10 2321661931417") pass Luhn together only by chance."""
    if len(sizes) == 1 or sizes in ([4, 6, 5], [4, 6, 4]):
        return True
    if all(size == 4 for size in sizes[:-1]) and 1 <= sizes[-1] <= 4:
        return True
    return irregular and len(sizes) <= 4 and sizes[0] >= 4 and all(3 <= n <= 12 for n in sizes)


def _is_card(text: Text, span: Span, label: str | None, digits: str, written: bool) -> bool:
    if not luhn(digits) or len(set(digits)) == 1 or text.value[span[0] - 1 : span[0]] == "+":
        return False
    if label == BENIGN or not (written or label == CARD):
        return False
    return label == CARD or (
        not (digits[:3] in ("978", "979") and ean13(digits)) and _issued(digits)
    )


def card_number(text: Text, span: Span) -> bool:
    """The candidate, or a run of its groups, is a card number (see the module docstring).
    A run of groups takes the label of the whole number (an IBAN's groups are no card)."""
    value = text.value
    groups = [match.span() for match in _GROUP.finditer(value, *span)]
    sizes = [stop - begin for begin, stop in groups]
    digits = "".join(value[begin:stop] for begin, stop in groups)
    label = label_of(text, *span)
    if _is_card(text, span, label, digits, _layout(sizes, irregular=True)):
        return True
    for first in range(len(groups)):  # "4111111111111111 0": the card is a run of groups
        for last in range(first, len(groups)):
            total = sum(sizes[first : last + 1])
            if total > 19:
                break
            if total >= 13 and (first, last) != (0, len(groups) - 1):
                run = "".join(value[b:e] for b, e in groups[first : last + 1])
                if _layout(sizes[first : last + 1]):
                    if _is_card(text, (groups[first][0], groups[last][1]), label, run, True):
                        return True
    return False
