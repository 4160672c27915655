"""The check-digit schemes the policy validates candidates with.

Every function takes ASCII digits (or, where named, letters too) and only answers whether
the check holds; none of them raises on a well-formed input of the right length.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import date

__all__ = [
    "base58check",
    "ean13",
    "iso7064_mod11_2",
    "iso7064_mod11_10",
    "luhn",
    "real_date",
    "verhoeff",
    "weighted",
]


# Each digit doubled, less 9 when that makes two digits: what Luhn adds for every second one.
_DOUBLED = bytes.maketrans(b"0123456789", b"0246813579")
_EAN13_WEIGHTS = (1, 3) * 6 + (1,)


def luhn(digits: str) -> bool:
    """The Luhn (mod 10) check used by payment cards and several national numbers."""
    if digits.isascii() and digits.isdigit():
        raw = digits.encode()
        # Every byte counts 48 too much: the digits' sum is the bytes' sum less 48 each.
        total = sum(raw[-1::-2]) + sum(raw[-2::-2].translate(_DOUBLED)) - 48 * len(raw)
        return total % 10 == 0
    total = 0
    for position, char in enumerate(reversed(digits)):
        digit = ord(char) - 48
        if position % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def ean13(digits: str) -> bool:
    """The EAN-13 check (ISBN-13, Switzerland's AHV number): weights 1 and 3 in turn."""
    return len(digits) == 13 and weighted(digits, _EAN13_WEIGHTS) % 10 == 0


def weighted(digits: str, weights: Sequence[int]) -> int:
    """The sum of each digit times its weight (the digits beyond the weights are ignored)."""
    return sum((ord(char) - 48) * weight for char, weight in zip(digits, weights, strict=False))


_VERHOEFF_D = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    (1, 2, 3, 4, 0, 6, 7, 8, 9, 5),
    (2, 3, 4, 0, 1, 7, 8, 9, 5, 6),
    (3, 4, 0, 1, 2, 8, 9, 5, 6, 7),
    (4, 0, 1, 2, 3, 9, 5, 6, 7, 8),
    (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
    (6, 5, 9, 8, 7, 1, 0, 4, 3, 2),
    (7, 6, 5, 9, 8, 2, 1, 0, 4, 3),
    (8, 7, 6, 5, 9, 3, 2, 1, 0, 4),
    (9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
)
_VERHOEFF_P = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    (1, 5, 7, 6, 2, 8, 3, 0, 9, 4),
    (5, 8, 0, 3, 7, 9, 6, 1, 4, 2),
    (8, 9, 1, 6, 0, 4, 3, 5, 2, 7),
    (9, 4, 5, 3, 1, 2, 6, 8, 7, 0),
    (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
    (2, 7, 9, 3, 8, 0, 6, 4, 1, 5),
    (7, 0, 4, 6, 9, 1, 3, 2, 5, 8),
)


def verhoeff(digits: str) -> bool:
    """The Verhoeff dihedral-group check (India's Aadhaar numbers)."""
    check = 0
    for position, char in enumerate(reversed(digits)):
        check = _VERHOEFF_D[check][_VERHOEFF_P[position % 8][ord(char) - 48]]
    return check == 0


def iso7064_mod11_2(text: str) -> bool:
    """ISO 7064 MOD 11-2 over digits with a final digit or ``X`` (China's resident ID)."""
    total = 0
    for char in text[:-1]:
        total = (total + ord(char) - 48) * 2
    check = (12 - total % 11) % 11
    return text[-1] == ("X" if check == 10 else str(check))


def iso7064_mod11_10(digits: str) -> bool:
    """ISO 7064 MOD 11,10 (Croatia's OIB, Germany's tax identification number)."""
    product = 10
    for char in digits[:-1]:
        total = (ord(char) - 48 + product) % 10 or 10
        product = total * 2 % 11
    return (11 - product) % 10 == ord(digits[-1]) - 48


_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BASE58_INDEX = {char: index for index, char in enumerate(_BASE58)}


def base58check(text: str) -> bool:
    """True when ``text`` is Base58 whose last four bytes are its double SHA-256 check."""
    number = 0
    for char in text:
        index = _BASE58_INDEX.get(char)
        if index is None:
            return False
        number = number * 58 + index
    size = (number.bit_length() + 7) // 8
    leading = len(text) - len(text.lstrip("1"))
    raw = b"\x00" * leading + number.to_bytes(size, "big")
    if len(raw) < 5:
        return False
    body, check = raw[:-4], raw[-4:]
    return hashlib.sha256(hashlib.sha256(body).digest()).digest()[:4] == check


def real_date(year: int, month: int, day: int) -> bool:
    """True for a calendar date (no range beyond what ``datetime.date`` accepts)."""
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True
