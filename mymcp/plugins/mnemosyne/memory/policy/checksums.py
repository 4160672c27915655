"""Check digits: python-stdnum for the national numbers it knows, the rest here.

:func:`stdnum` validates with a python-stdnum module (imported on first use, so a text
without a national number never pays for the import). The functions below cover what
stdnum does not: payment cards (Luhn), ISBN-13, Base58Check wallet keys, and the national
numbers of the United Kingdom, Singapore, Hong Kong, Taiwan, Russia, the United Arab
Emirates and Australia. Each takes the number without its separators, letters in upper
case, and only answers whether it is well formed.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Sequence

Validator = Callable[[str], bool]

# Each digit doubled, less 9 when that makes two digits: what Luhn adds for every second one.
_DOUBLED = bytes.maketrans(b"0123456789", b"0246813579")


def luhn(digits: str) -> bool:
    """The Luhn (mod 10) check of payment cards, on ASCII digits."""
    raw = digits.encode()
    # Every byte counts 48 too much: the digits' sum is the bytes' sum less 48 each.
    return (sum(raw[-1::-2]) + sum(raw[-2::-2].translate(_DOUBLED)) - 48 * len(raw)) % 10 == 0


def _weighted(digits: str, weights: Sequence[int]) -> int:
    return sum((ord(char) - 48) * weight for char, weight in zip(digits, weights, strict=False))


def ean13(digits: str) -> bool:
    """The EAN-13 check (ISBN-13): weights 1 and 3 in turn."""
    return len(digits) == 13 and _weighted(digits, (1, 3) * 6 + (1,)) % 10 == 0


_BASE58 = {
    char: index
    for index, char in enumerate("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
}


def base58check(text: str) -> bytes | None:
    """The payload of Base58 text whose last four bytes are its double SHA-256, or None."""
    number = 0
    for char in text:
        if char not in _BASE58:
            return None
        number = number * 58 + _BASE58[char]
    raw = b"\x00" * (len(text) - len(text.lstrip("1"))) + number.to_bytes(
        (number.bit_length() + 7) // 8, "big"
    )
    body, check = raw[:-4], raw[-4:]
    ok = len(raw) > 4 and hashlib.sha256(hashlib.sha256(body).digest()).digest()[:4] == check
    return body if ok else None


def stdnum(module: str) -> Validator:
    """The ``is_valid`` of ``stdnum.<module>`` (imported when first called), which takes the
    number as written: each module knows its own separators."""

    def valid(number: str) -> bool:
        checker = importlib.import_module(f"stdnum.{module}")
        try:
            return bool(checker.is_valid(number))
        except Exception:  # noqa: BLE001 - a bug of the library is no valid number
            return False  # (cn.ric raises KeyError for a region its data does not hold)

    return valid


_SEPARATORS = str.maketrans("", "", "-./+ ()")


def _compact(check: Validator) -> Validator:
    return lambda number: check(number.translate(_SEPARATORS))


def _nino(number: str) -> bool:  # United Kingdom, National Insurance
    first, second = number[0], number[1]
    return (
        first in "ABCEGHJKLMNOPRSTWXYZ"
        and second in "ABCEGHJKLMNPRSTWXYZ"
        and number[:2] not in {"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"}
        and (len(number) == 8 or number[8] in "ABCD")
    )


_NRIC = {"S": (0, "JZIHGFEDCBA"), "T": (4, "JZIHGFEDCBA"), "F": (0, "XWUTRQPNMLK"),
         "G": (4, "XWUTRQPNMLK"), "M": (3, "KLJNPQRTUWX")}  # fmt: skip


def _singapore(number: str) -> bool:  # NRIC and FIN
    offset, letters = _NRIC.get(number[0], (0, ""))
    total = _weighted(number[1:8], (2, 7, 6, 5, 4, 3, 2)) + offset
    return bool(letters) and letters[total % 11] == number[8]


def _hong_kong(number: str) -> bool:  # HKID, "A123456(3)"
    number = number.replace("(", "").replace(")", "")
    letters = (number[:-7] if len(number) == 9 else number[:1]).rjust(2, " ")
    total = sum((36 if c == " " else ord(c) - 55) * w for c, w in zip(letters, (9, 8), strict=True))
    check = (11 - (total + _weighted(number[-7:-1], (7, 6, 5, 4, 3, 2))) % 11) % 11
    return number[-1] == ("A" if check == 10 else str(check))


def _taiwan(number: str) -> bool:
    code = "ABCDEFGHJKLMNPQRSTUVXYWZIO".find(number[0]) + 10
    if code < 10 or number[1] not in "12":
        return False
    return (
        code // 10 + code % 10 * 9 + _weighted(number[1:], (8, 7, 6, 5, 4, 3, 2, 1, 1))
    ) % 10 == 0


def _snils(number: str) -> bool:  # Russia
    return f"{_weighted(number, range(9, 0, -1)) % 101 % 100:02d}" == number[9:]


def _uae(number: str) -> bool:  # Emirates ID
    return number.startswith("784") and luhn(number)


def _medicare(number: str) -> bool:  # Australia
    return number[0] in "23456" and number[8] == str(
        _weighted(number, (1, 3, 7, 9, 1, 3, 7, 9)) % 10
    )


def _denmark(number: str) -> bool:  # the date (stdnum) and the old modulus 11 check
    return stdnum("dk.cpr")(number) and _weighted(number, (4, 3, 2, 7, 6, 5, 4, 3, 2, 1)) % 11 == 0


def _korea(number: str) -> bool:  # nobody alive was born in the 1800s (digits 9 and 0)
    return number[6] not in "90" and stdnum("kr.rrn")(number)


_USCIS_CENTRES = ("EAC", "WAC", "LIN", "SRC", "MSC", "NBC", "IOE", "YSC")


def _uscis(number: str) -> bool:  # a USCIS receipt number names the centre that issued it
    return number[:3] in _USCIS_CENTRES


# The validators of the national numbers that python-stdnum does not cover (or, for
# Denmark and Korea, covers more loosely than a number written without a label needs).
NATIONAL: dict[str, Validator] = {
    name: _compact(check)
    for name, check in {
        "gb.nino": _nino,
        "sg.nric": _singapore,
        "hk.hkid": _hong_kong,
        "tw.id": _taiwan,
        "ru.snils": _snils,
        "ae.eid": _uae,
        "au.medicare": _medicare,
        "dk.cpr": _denmark,
        "kr.rrn": _korea,
        "us.uscis": _uscis,
    }.items()
}
