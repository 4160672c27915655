"""Government identifiers (reason ``government_identifier_shape``).

- US social security and taxpayer numbers written ``NNN-NN-NNNN`` (the contract's base rule),
  stored when the number cannot be issued (area 000 or 666, group 00, serial 0000, a 9xx
  area outside the ITIN groups), when all its digits are equal (a placeholder), or when a
  label such as "part" or "order" says what it is instead;
- national numbers written in their own format with a valid check digit or date (see
  :mod:`.national`): Brazil's CPF, Korea's RRN, Nordic personal numbers, Spain's DNI and
  NIE, Italy's codice fiscale, the UK's National Insurance number, India's Aadhaar and
  PAN, China's resident ID, and more;
- any number of six or more digits (letters allowed, as in passport numbers) that a label
  names as an identity, tax, social security, passport or licence number;
- US Medicare beneficiary identifiers and the machine-readable zone of passports.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import cast

from mymcp.plugins.mnemosyne.memory.policy.labels import (
    BENIGN,
    IDENTITY,
    label_around,
    may_name_an_identity,
    may_name_one_here,
    names_an_identity,
)
from mymcp.plugins.mnemosyne.memory.policy.national import FORMATS
from mymcp.plugins.mnemosyne.memory.policy.text import Text

__all__ = ["cluster_shapes", "has_government_identifier"]

_ALNUM = frozenset(b"Aa0")
_ITIN_GROUPS = frozenset([*range(50, 66), *range(70, 89), *range(90, 93), *range(94, 100)])


def _issuable(digits: str) -> bool:
    area, group, serial = int(digits[:3]), int(digits[3:5]), int(digits[5:])
    if area == 0 or area == 666 or group == 0 or serial == 0:
        return False
    return area < 900 or group in _ITIN_GROUPS


def _has_ssn(text: Text) -> bool:
    shape = text.shape
    at = shape.find(b"000-00-0000")
    while at >= 0:
        end = at + 11
        if (at == 0 or shape[at - 1] != 48) and (end == len(shape) or shape[end] != 48):
            digits = text.value[at:end].replace("-", "")
            label = label_around(text, at, end)
            if label != BENIGN and len(set(digits)) > 1:
                if label == IDENTITY or _issuable(digits):
                    return True
        at = shape.find(b"000-00-0000", at + 1)
    return False


# Digits, then digits or capitals, single separators and "(d)" check digits: a digit and
# four or more such steps. The capitals right before the first digit belong to the cluster
# too ("AB 12 34 56 C", "X1234567L"). Written for speed: the lookahead (each step takes one
# of its characters) lets a short number fail at once, and after four steps the rest is
# read run by run; the steps never overlap, so the matches are those of the plain form
# 0(?:[A0]|[-./+ ][A0]|\([A0]\)){4,}.
_STEP = rb"(?:[A0]|[-./+ ][A0]|\([A0]\))"
_CLUSTER = re.compile(
    rb"0(?=[A0\-./+ ()]{4})" + _STEP + rb"{4}[A0]*(?:(?:[-./+ ][A0]|\([A0]\))[A0]*)*"
)
# Dates (with a time after them or not), decimal amounts and IPv4 addresses are numbers,
# not identifiers.
_NOT_AN_IDENTIFIER = re.compile(
    rb"0{4}[-./]0{2}[-./]0{2}(?:A.*)?|0{1,2}[-./]0{1,2}[-./]0{2,4}|0+\.0+"
    rb"|0{1,3}(?:\.0{1,3}){3}(?:/0{1,2}|:0{1,5})?|0+(?:\.0+)+"
)
_DIGIT_GROUPS = re.compile(rb"0+(?: 0+)*")
_YEARS = re.compile(r"(?:19|20)\d\d[-/](?:19|20)?\d\d")
_YEAR_SHAPES = frozenset({b"0000-00", b"0000/00", b"0000-0000", b"0000/0000"})
_SEPARATORS = str.maketrans("", "", "-./+ ()")
# What a match of _CLUSTER, or one of its space-separated parts, looks like when the
# cluster, a part, or "AA " and the cluster has the shape of a format (the capitals that
# open a format may stand before the match). When none occurs, no format applies.
# On the shape, a token that _CAPITAL_WORD makes a word of capitals on the value.
_CAPITAL_TOKEN = re.compile(rb"AA+(?:[-./+]|$)")
_FORMAT_SHAPES = frozenset(
    piece
    for shape in FORMATS
    for whole in (shape, shape[3:] if shape.startswith(b"AA ") else shape)
    for piece in (whole, whole.lstrip(b"A"))
)


def cluster_shapes(text: Text) -> list[bytes]:
    """The shape of every match of _CLUSTER in the text, in order (found once per text).

    Every run of digits with single separators is inside one of them, so a detector that
    looks for such runs can first look in these few short strings.
    """
    cached = text.cache.get("cluster_shapes")
    if cached is None:
        text.cache["cluster_shapes"] = cached = _CLUSTER.findall(text.shape)
    return cast(list[bytes], cached)


def _clusters(text: Text) -> list[tuple[int, int]]:
    """Each cluster standing alone: no letter or digit touches it on either side."""
    return _cluster_spans(text)[0]


def _cluster_spans(text: Text) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The clusters standing alone, and those that stand once a word glued to their end
    is left out ("232511625 FedEx", see _standing_end): only a label can name those."""
    shape = text.shape
    size = len(shape)
    standing = []
    cut = []
    shapes = []
    # A line break is a blank on the shape: only a cluster with a blank can hold one.
    lines = "\n" in text.value
    for match in _CLUSTER.finditer(shape):
        found = match.group()
        shapes.append(found)
        split = b" A" in found or (lines and b" " in found)
        for start, end in _numbers(text, match) if split else (match.span(),):
            while start and shape[start - 1] == 65:
                start -= 1
            if start and shape[start - 1] in _ALNUM:
                continue
            if end == size or shape[end] not in _ALNUM:
                standing.append((start, end))
            elif (stop := _standing_end(shape, start, end)) > start:
                cut.append((start, stop))
    text.cache["cluster_shapes"] = shapes
    return standing, cut


def _standing_end(shape: bytes, start: int, end: int) -> int:
    """Where the cluster ends once a word glued to its last part is left out, or ``start``.

    "232511625 FedEx": the capital opens the next word, so the number is "232511625". Only
    a blank cuts: "X1234567Lx" is one word, not a number.
    """
    cut = shape.rfind(b" ", start, end)
    while cut > start and shape[cut - 1] in _CUT_CHARACTERS:
        cut -= 1
    return max(cut, start)


_CUT_CHARACTERS = frozenset(b" -./+")


def _numbers(text: Text, match: re.Match[bytes]) -> list[tuple[int, int]]:
    """The numbers in a cluster: a number ends with its line, and a word of capitals stands
    between two numbers ("8443 SSN 436 86 3356", "3356 SHA-256")."""
    start, end = match.span()
    value = text.value
    if b" A" not in match.group() or _CAPITAL_WORD.search(value, start, end) is None:
        if value.find("\n", start, end) < 0:
            return [(start, end)]
    parts: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    for token in _TOKEN.finditer(value, start, end):
        begin, stop = token.span()
        word = _CAPITAL_WORD.match(value, begin, stop) is not None
        if word or (current is not None and "\n" in value[current[1] : begin]):
            parts.extend(_trimmed(value, current))
            current = None
        if not word:
            current = (begin, stop) if current is None else (current[0], stop)
    parts.extend(_trimmed(value, current))
    return parts


def _trimmed(value: str, span: tuple[int, int] | None) -> list[tuple[int, int]]:
    """The span without what is not a letter or a digit at its ends, if it holds a digit."""
    if span is None:
        return []
    begin, stop = span
    while begin < stop and not value[begin].isalnum():
        begin += 1
    while stop > begin and not value[stop - 1].isalnum() and value[stop - 1] != ")":
        stop -= 1
    return [(begin, stop)] if any(char.isdigit() for char in value[begin:stop]) else []


_TOKEN = re.compile(r"\S+")
# Two capitals or more that make a word, alone or before a separator ("SSN", "SHA-256").
_CAPITAL_WORD = re.compile(r"(?<!\S)[A-Z]{2,}(?=[\s\-./+]|$)")


def _may_be_formatted(text: Text) -> bool:
    """False when no cluster, part of one or "AA " and a cluster has the shape of a format.

    A cluster that a word of capitals splits (see :func:`_numbers`) counts as its runs too;
    one that may hold a line break opens the gate.
    """
    shapes = cluster_shapes(text)
    if not _FORMAT_SHAPES.isdisjoint(shapes):
        return True
    if "\n" in text.value and any(b" " in found for found in shapes):
        return True  # the shape cannot tell a line break from a space
    if not _FORMAT_SHAPES.isdisjoint(b" ".join(shapes).split(b" ")):
        return True
    runs = [run for found in shapes if b" AA" in found for run in _runs(found)]
    return not _FORMAT_SHAPES.isdisjoint(run.strip(b" -./+") for run in runs)


def _runs(shape: bytes) -> Iterator[bytes]:
    """The parts of a cluster's shape between its words of capitals, as _numbers cuts them."""
    current: list[bytes] = []
    for token in shape.split(b" "):
        if _CAPITAL_TOKEN.match(token):
            if current:
                yield b" ".join(current)
            current = []
        else:
            current.append(token)
    if current:
        yield b" ".join(current)


def _shaped_like_a_format(signature: bytes) -> bool:
    if signature in _FORMAT_SHAPES:
        return True
    return b" " in signature and not _FORMAT_SHAPES.isdisjoint(signature.split(b" "))


def _formatted(text: Text, start: int, end: int) -> bool:
    validators = FORMATS.get(text.shape[start:end])
    if not validators:
        return False
    compact = "".join(text.value[start:end].split()).translate(_SEPARATORS).upper()
    return any(valid(compact) for valid in validators)


def _pieces(text: Text, start: int, end: int) -> list[tuple[int, int]]:
    """The cluster, then each of its space-separated parts unless it is only digit groups."""
    signature = text.shape[start:end]
    pieces = [(start, end)]
    if b" " in signature and not _DIGIT_GROUPS.fullmatch(signature):
        offset = start
        for piece in signature.split(b" "):
            pieces.append((offset, offset + len(piece)))
            offset += len(piece) + 1
    return pieces


def _has_national_number(text: Text) -> bool:
    labelled = may_name_an_identity(text)
    if not labelled and not _may_be_formatted(text):
        return False
    standing, cut = _cluster_spans(text)
    # A cluster cut short is looked at only when a label may name it: the format gate
    # above does not know the cuts.
    return any(_is_national_number(text, start, end, labelled) for start, end in standing) or (
        labelled and any(_is_national_number(text, start, end, True) for start, end in cut)
    )


def _is_national_number(text: Text, start: int, end: int, labelled: bool) -> bool:
    value = text.value
    if start and (value[start - 1] == "+" or _masked_before(value, start)):
        return False
    signature = text.shape[start:end]
    formatted = _shaped_like_a_format(signature)
    if not (formatted or labelled) or text.in_hex_identifier(start, end):
        return False
    if formatted and _has_format(text, start, end, _pieces(text, start, end)):
        return True
    return labelled and _has_labelled_identity(text, start, end, signature)


# The digits a mask leaves visible ("***-**-2388") belong to the masked value.
_MASKED_BEFORE = re.compile(r"[*\u2022#]{2}[- .]?\Z")


def _masked_before(value: str, start: int) -> bool:
    return _MASKED_BEFORE.search(value, max(0, start - 3), start) is not None


def _has_labelled_identity(text: Text, start: int, end: int, signature: bytes) -> bool:
    # The checks of the number's own shape are cheaper than reading words, so they go first.
    if b" " not in signature:  # a single piece: the cluster itself
        if not _shaped_like_an_identity(text, start, end, signature):
            return False
        pieces = [(start, end)]
    else:
        pieces = [
            (begin, stop)
            for begin, stop in _labelled_pieces(_pieces(text, start, end))
            if _shaped_like_an_identity(text, begin, stop, text.shape[begin:stop])
        ]
    return (
        bool(pieces)
        and may_name_one_here(text, start, end)
        and any(names_an_identity(text, begin, stop) for begin, stop in pieces)
    )


def _has_format(text: Text, start: int, end: int, pieces: list[tuple[int, int]]) -> bool:
    shape = text.shape
    formats = [*pieces, (start - 3, end)] if shape.startswith(b"AA ", start - 3) else pieces
    for begin, stop in formats:  # "AB 12 34 56 C" starts before the cluster
        if _formatted(text, begin, stop) and label_around(text, start, end) != BENIGN:
            return True
    return False


def _labelled_pieces(pieces: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The whole cluster when it is digit groups ("123 45 6789"), else its parts."""
    return pieces[:1] if len(pieces) == 1 else pieces[1:]


def _shaped_like_an_identity(text: Text, start: int, end: int, signature: bytes) -> bool:
    if not _numbered(signature):
        return False
    # Dates, amounts, addresses and year ranges all hold a dot, a dash or a slash.
    if b"-" not in signature and b"." not in signature and b"/" not in signature:
        return True
    if _NOT_AN_IDENTIFIER.fullmatch(signature):
        return False
    return signature not in _YEAR_SHAPES or _YEARS.fullmatch(text.value, start, end) is None


def _numbered(signature: bytes) -> bool:
    """Six digits or more, or a short code of capitals and at least two digits (a passport)."""
    if len(signature) < 6:
        return False  # both kinds are six characters or more
    digits = signature.count(b"0")
    if digits >= 6:
        return True
    return (
        digits >= 2
        and 6 <= len(signature) <= 12
        and signature.count(b"A") + digits == len(signature)
    )


_MBI = re.compile(rb"0A[A0]0-?A[A0]0-?AA00")
_MBI_LETTERS = frozenset("ACDEFGHJKMNPQRTUVWXY")
_MRZ = re.compile(r"(?<![A-Z0-9<])[PIACV][A-Z<][A-Z<]{3}[A-Z0-9<]{25,39}(?![A-Z0-9<])")


def _has_mbi(text: Text) -> bool:
    for match in _MBI.finditer(text.shape):
        start, end = match.span()
        if (start and text.shape[start - 1] in _ALNUM) or (
            end < len(text.shape) and text.shape[end] in _ALNUM
        ):
            continue
        letters = [char for char in text.value[start:end] if char.isalpha()]
        if all(char in _MBI_LETTERS for char in letters) and text.value[start] != "0":
            return True
    return False


def has_government_identifier(text: Text) -> bool:
    """An identification number of a person, by format and check digit or by its label."""
    if (
        "<" in text.value
        and "<<" in text.value
        and any("<<" in match.group() for match in _MRZ.finditer(text.value))
    ):
        return True
    if b"0" not in text.shape:
        return False
    if _has_ssn(text) or _has_mbi(text):
        return True
    return text.shape.count(b"0") >= 2 and _has_national_number(text)
