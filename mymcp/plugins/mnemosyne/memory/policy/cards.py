"""Payment card numbers (reason ``payment_card_shape``).

Candidates are found as the contract's base rule finds them: runs of 13 to 19 digits with
at most one space or hyphen after each digit, taken greedily from left to right. A candidate whose
digits fail the Luhn check is also tried group by group, as card numbers are written (fours,
or 4-6-5), so a card followed by another number is still found.

A Luhn-valid number is a card when a card network issues numbers of that prefix and length,
or when a card word labels it; it is stored when a label says it is something else (an
order, an ISBN…), when it follows a ``+`` (a phone number), when all its digits are equal
(a placeholder) or when it is a valid ISBN-13.
"""

from __future__ import annotations

import re

from mymcp.plugins.mnemosyne.memory.policy.checksums import ean13, luhn
from mymcp.plugins.mnemosyne.memory.policy.identifiers import cluster_shapes
from mymcp.plugins.mnemosyne.memory.policy.labels import BENIGN, CARD, label_around
from mymcp.plugins.mnemosyne.memory.policy.text import Text

__all__ = ["has_card_number", "issued_by_a_network"]

# On the shape every white-space character is a space, so a match there is a region that
# holds the base rule's candidates; the base rule's own pattern then finds them in the value.
# The lookahead is implied by the repeat (each of its first 12 steps takes a character from
# the class); it only lets a short number fail at once.
_REGION = re.compile(rb"0(?=[ 0-]{12})(?:[ -]?0){12,18}(?!0)")
_CANDIDATE = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")
_GROUP = re.compile(r"\d+")
_SEPARATOR = re.compile(r"[ -]")


def _within(value: int, low: int, high: int) -> bool:
    return low <= value <= high


def issued_by_a_network(digits: str) -> bool:
    """True when a major card network issues numbers with this prefix and length."""
    size = len(digits)
    two, three, four, six = (int(digits[:n]) for n in (2, 3, 4, 6))
    checks = (
        (digits[0] == "4", size in (13, 16, 19)),  # Visa
        (_within(two, 51, 55) or _within(four, 2221, 2720), size == 16),  # Mastercard
        (two in (34, 37), size == 15),  # American Express
        (
            four == 6011 or _within(three, 644, 649) or two == 65 or _within(six, 622126, 622925),
            16 <= size <= 19,
        ),  # Discover
        (_within(three, 300, 305) or four == 3095 or two in (36, 38, 39), 14 <= size <= 19),
        (_within(four, 3528, 3589), 16 <= size <= 19),  # JCB
        (two in (62, 81), 16 <= size <= 19),  # UnionPay
        (two == 50 or _within(two, 56, 69), 12 <= size <= 19),  # Maestro
        (_within(four, 2200, 2204), 16 <= size <= 19),  # Mir
        (two in (60, 65, 81, 82) or three == 508, size == 16),  # RuPay
        (four == 9792, size == 16),  # Troy
        (digits[0] == "1", size == 15),  # UATP
    )
    return any(prefix and length for prefix, length in checks)


def _isbn13(digits: str) -> bool:
    return digits[:3] in ("978", "979") and ean13(digits)


def _is_card(text: Text, start: int, end: int, digits: str) -> bool:
    if start and text.value[start - 1] == "+":
        return False
    label = label_around(text, start, end)
    if label == BENIGN or len(set(digits)) == 1:
        return False
    if label == CARD:
        return True
    return not _isbn13(digits) and issued_by_a_network(digits)


def _card_layout(sizes: list[int]) -> bool:
    if len(sizes) == 1:
        return True
    if sizes in ([4, 6, 5], [4, 6, 4]):
        return True
    return all(size == 4 for size in sizes[:-1]) and 1 <= sizes[-1] <= 4


def _groups_hold_a_card(text: Text, start: int, end: int) -> bool:
    value = text.value
    groups = [match.span() for match in _GROUP.finditer(value, start, end)]
    sizes = [stop - begin for begin, stop in groups]
    for first in range(len(groups)):
        total = 0
        for last in range(first, len(groups)):
            total += sizes[last]
            if total > 19:
                break  # every longer run of groups is longer still
            if total < 13 or not _card_layout(sizes[first : last + 1]):
                continue
            digits = "".join(value[begin:stop] for begin, stop in groups[first : last + 1])
            begin, stop = groups[first][0], groups[last][1]
            if luhn(digits) and _is_card(text, begin, stop, digits):
                return True
    return False


def has_card_number(text: Text) -> bool:
    """A payment card number with a valid Luhn check that a network would issue."""
    shape = text.shape
    if shape.count(b"0") < 13:
        return False
    # Every region lies inside a cluster of the identifier detector (digits with single
    # separators), so a text whose clusters hold none has none. No region can take a "|",
    # so one search over the clusters joined by it looks in each of them.
    if _REGION.search(b"|".join(cluster_shapes(text))) is None:
        return False
    at = 0
    while (region := _REGION.search(shape, at)) is not None:
        start, end = region.span()
        if start and shape[start - 1] == 48:
            at = start + 1
            continue
        for match in _CANDIDATE.finditer(text.value, start, end):
            if _refused(text, match.start(), match.end()):
                return True
        at = end
    return False


def _refused(text: Text, start: int, end: int) -> bool:
    if text.in_hex_identifier(start, end):
        return False
    digits = text.value[start:end].replace(" ", "").replace("-", "")
    if luhn(digits) and _written_as_a_card(text, start, end):
        return _is_card(text, start, end, digits)
    return _groups_hold_a_card(text, start, end)


def _written_as_a_card(text: Text, start: int, end: int) -> bool:
    """Unbroken, in a card's groups (4-4-4-4, 4-6-5…), or after a card word.

    Two numbers side by side ("10 2321661931417") can pass Luhn together by chance.
    """
    sizes = [len(group) for group in _SEPARATOR.split(text.value[start:end])]
    return _card_layout(sizes) or label_around(text, start, end) == CARD
