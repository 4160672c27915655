"""National identification numbers that have a check digit or a fixed structure.

Each validator takes the number without its separators (letters in upper case) and
answers whether it is well formed: the right length, a real date where the number holds
one, and a matching check digit. They are written from the published rules of each
scheme; :data:`FORMATS` says how each is written in text, as a :class:`Text` shape
(``0`` a digit, ``A`` a capital letter, punctuation as itself).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from mymcp.plugins.mnemosyne.memory.policy.checksums import (
    ean13,
    iso7064_mod11_2,
    iso7064_mod11_10,
    luhn,
    real_date,
    verhoeff,
    weighted,
)

__all__ = ["FORMATS", "Validator"]

Validator = Callable[[str], bool]


def _two(text: str, at: int) -> int:
    return int(text[at : at + 2])


def _cpf(number: str) -> bool:  # Brazil
    if len(set(number)) == 1:
        return False
    first = weighted(number, range(10, 1, -1)) * 10 % 11 % 10
    second = weighted(number, range(11, 1, -1)) * 10 % 11 % 10
    return number[9:] == f"{first}{second}"


def _korea_rrn(number: str) -> bool:
    century = {"1": 1900, "2": 1900, "5": 1900, "6": 1900, "3": 2000, "4": 2000, "7": 2000}
    base = century.get(number[6], 1800 if number[6] in "90" else 2000)
    if not real_date(base + _two(number, 0), _two(number, 2), _two(number, 4)):
        return False
    check = (11 - weighted(number, (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5)) % 11) % 10
    return number[12] == str(check)


def _sweden(number: str) -> bool:
    digits = number[-10:]
    return real_date(2000 + _two(digits, 0), _two(digits, 2), _two(digits, 4) % 60) and luhn(digits)


def _denmark(number: str) -> bool:
    if not real_date(2000 + _two(number, 4), _two(number, 2), _two(number, 0)):
        return False
    return weighted(number, (4, 3, 2, 7, 6, 5, 4, 3, 2, 1)) % 11 == 0


def _iceland(number: str) -> bool:
    if not real_date(2000 + _two(number, 4), _two(number, 2), _two(number, 0) % 40):
        return False
    check = (11 - weighted(number, (3, 2, 7, 6, 5, 4, 3, 2)) % 11) % 11
    return check != 10 and number[8] == str(check)


_FINLAND_CHECKS = "0123456789ABCDEFHJKLMNPRSTUVWXY"


def _finland(number: str) -> bool:
    if not real_date(2000 + _two(number, 4), _two(number, 2), _two(number, 0)):
        return False
    # The century sign is a letter (kept) or "-"/"+" (dropped with the separators).
    rest = number[7:] if len(number) == 11 else number[6:]
    serial = number[:6] + rest[:3]
    return serial.isdigit() and _FINLAND_CHECKS[int(serial) % 31] == rest[3]


def _czech(number: str) -> bool:
    month = _two(number, 2) % 50 % 20
    if not real_date(2000 + _two(number, 0), month, _two(number, 4)):
        return False
    return (
        len(number) == 9
        or int(number) % 11 == 0
        or (int(number[:9]) % 11 == 10 and number[9] == "0")
    )


def _latvia(number: str) -> bool:
    if number.startswith("32"):
        return True
    if not real_date(2000 + _two(number, 4), _two(number, 2), _two(number, 0)):
        return False
    check = (1101 - weighted(number, (1, 6, 3, 7, 9, 10, 5, 8, 4, 2))) % 11
    return str(check % 10) == number[10]


def _snils(number: str) -> bool:  # Russia
    total = weighted(number, range(9, 0, -1)) % 101
    return f"{total % 100:02d}" == number[9:]


def _ahv(number: str) -> bool:  # Switzerland, an EAN-13
    return number.startswith("756") and ean13(number)


def _belgium(number: str) -> bool:
    check = int(number[9:])
    return 97 - int(number[:9]) % 97 == check or 97 - int("2" + number[:9]) % 97 == check


def _uae(number: str) -> bool:
    return number.startswith("784") and luhn(number)


def _rut(number: str) -> bool:  # Chile
    body, check = number[:-1], number[-1]
    total = sum(int(digit) * (2 + index % 6) for index, digit in enumerate(reversed(body)))
    expected = 11 - total % 11
    return check == {10: "K", 11: "0"}.get(expected, str(expected))


def _cuit(number: str) -> bool:  # Argentina
    if number[:2] not in {"20", "23", "24", "27", "30", "33", "34"}:
        return False
    check = (11 - weighted(number, (5, 4, 3, 2, 7, 6, 5, 4, 3, 2)) % 11) % 11
    return number[10] == str(9 if check == 10 else check)


def _malaysia(number: str) -> bool:
    return real_date(2000 + _two(number, 0), _two(number, 2), _two(number, 4))


def _thailand(number: str) -> bool:
    check = (11 - weighted(number, range(13, 1, -1)) % 11) % 10
    return number[0] != "0" and number[12] == str(check)


def _aadhaar(number: str) -> bool:  # India
    return number[0] not in "01" and verhoeff(number)


def _my_number(number: str) -> bool:  # Japan
    total = weighted(number[10::-1], (2, 3, 4, 5, 6, 7, 2, 3, 4, 5, 6))
    check = 0 if total % 11 <= 1 else 11 - total % 11
    return number[11] == str(check)


_NIR_DEPARTMENTS = {"2A": "19", "2B": "18"}


def _france(number: str) -> bool:
    body = number[:5] + _NIR_DEPARTMENTS.get(number[5:7], number[5:7]) + number[7:13]
    if number[0] not in "1278" or not body.isdigit():
        return False
    return 97 - int(body) % 97 == int(number[13:])


def _medicare(number: str) -> bool:  # Australia
    check = weighted(number, (1, 3, 7, 9, 1, 3, 7, 9)) % 10
    return number[0] in "23456" and number[8] == str(check)


def _norway(number: str) -> bool:
    if not real_date(2000 + _two(number, 4), _two(number, 2) % 40, _two(number, 0) % 40):
        return False
    first = (11 - weighted(number, (3, 7, 6, 1, 8, 9, 4, 5, 2)) % 11) % 11
    second = (11 - weighted(number, (5, 4, 3, 2, 7, 6, 5, 4, 3, 2)) % 11) % 11
    return number[9:] == f"{first}{second}"


def _germany_tax(number: str) -> bool:
    # In the first ten digits exactly one digit repeats (twice or three times).
    repeated = [count for count in Counter(number[:10]).values() if count > 1]
    return number[0] != "0" and repeated in ([2], [3]) and iso7064_mod11_10(number)


def _south_africa(number: str) -> bool:
    if number[10] not in "012":
        return False
    return real_date(2000 + _two(number, 0), _two(number, 2), _two(number, 4)) and luhn(number)


def _china(number: str) -> bool:
    if number[:2] not in _CHINA_REGIONS:
        return False
    year, month, day = int(number[6:10]), _two(number, 10), _two(number, 12)
    return 1900 <= year <= 2100 and real_date(year, month, day) and iso7064_mod11_2(number)


_CHINA_REGIONS = frozenset(
    "11 12 13 14 15 21 22 23 31 32 33 34 35 36 37 41 42 43 44 45 46 50 51 52 53 54 61 62 63 "
    "64 65 71 81 82".split()
)

# --- letters and digits ------------------------------------------------------------------

_NINO_FIRST = set("ABCEGHJKLMNOPRSTWXYZ")
_NINO_SECOND = set("ABCEGHJKLMNPRSTWXYZ")
_NINO_BAD = {"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"}


def _nino(number: str) -> bool:  # United Kingdom
    return (
        number[0] in _NINO_FIRST
        and number[1] in _NINO_SECOND
        and number[:2] not in _NINO_BAD
        and (len(number) == 8 or number[8] in "ABCD")
    )


_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def _spain_dni(number: str) -> bool:
    return _DNI_LETTERS[int(number[:8]) % 23] == number[8]


def _spain_nie(number: str) -> bool:
    prefix = "XYZ".find(number[0])
    return prefix >= 0 and _DNI_LETTERS[int(str(prefix) + number[1:8]) % 23] == number[8]


_NRIC_LETTERS = {"ST": "JZIHGFEDCBA", "FG": "XWUTRQPNMLK", "M": "KLJNPQRTUWX"}


def _singapore(number: str) -> bool:
    total = weighted(number[1:8], (2, 7, 6, 5, 4, 3, 2))
    if number[0] in "TG":
        total += 4
    elif number[0] == "M":
        total += 3
    for prefixes, letters in _NRIC_LETTERS.items():
        if number[0] in prefixes:
            return letters[total % 11] == number[8]
    return False


_CF_ODD = dict(
    zip(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        (1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20,
         11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23),
        strict=True,
    )
)  # fmt: skip


def _italy(number: str) -> bool:
    total = 0
    for index, char in enumerate(number[:15]):
        if index % 2 == 0:
            total += _CF_ODD[char]
        else:
            total += int(char) if char.isdigit() else ord(char) - 65
    return chr(65 + total % 26) == number[15]


_PAN_HOLDERS = set("PCHFATBLJG")


def _india_pan(number: str) -> bool:
    return number[3] in _PAN_HOLDERS


_CURP_ALPHABET = "0123456789ABCDEFGHIJKLMN\u00d1OPQRSTUVWXYZ"


def _mexico_curp(number: str) -> bool:
    if number[10] not in "HMX" or not real_date(
        2000 + _two(number, 4), _two(number, 6), _two(number, 8)
    ):
        return False
    total = sum(_CURP_ALPHABET.find(char) * (18 - index) for index, char in enumerate(number[:17]))
    return str((10 - total % 10) % 10) == number[17]


def _hong_kong(number: str) -> bool:
    letters = number[:-7] if len(number) == 9 else number[:1]
    letters = letters.rjust(2, " ")
    values = [36 if char == " " else ord(char) - 55 for char in letters]
    total = values[0] * 9 + values[1] * 8 + weighted(number[-7:-1], (7, 6, 5, 4, 3, 2))
    check = (11 - total % 11) % 11
    return number[-1] == ("A" if check == 10 else str(check))


_TAIWAN_LETTERS = "ABCDEFGHJKLMNPQRSTUVXYWZIO"


def _taiwan(number: str) -> bool:
    if number[1] not in "12":
        return False
    code = _TAIWAN_LETTERS.index(number[0]) + 10
    total = code // 10 + code % 10 * 9 + weighted(number[1:9], (8, 7, 6, 5, 4, 3, 2, 1))
    return (total + int(number[9])) % 10 == 0


# Shape as written -> validators of the compact number. Digits-only shapes without any
# separator are left out: a bare run of digits counts only when a label names it.
FORMATS: dict[bytes, tuple[Validator, ...]] = {
    b"000.000.000-00": (_cpf,),
    b"000000-0000000": (_korea_rrn,),
    b"000000-0000": (_sweden, _denmark, _iceland, _finland),
    b"000000+0000": (_sweden,),
    b"00000000-0000": (_sweden,),
    b"000000-000A": (_finland,),
    b"000000A000A": (_finland,),
    b"000000A0000": (_finland,),
    b"000000/0000": (_czech,),
    b"000000/000": (_czech,),
    b"000000-00000": (_latvia,),
    b"000-000-000 00": (_snils,),
    b"000-000-000-00": (_snils,),
    b"000.0000.0000.00": (_ahv,),
    b"00.00.00-000.00": (_belgium,),
    b"00000-0000000-0": (lambda number: True,),
    b"000-0000-0000000-0": (_uae,),
    b"00.000.000-0": (_rut,),
    b"0.000.000-0": (_rut,),
    b"00.000.000-A": (_rut,),
    b"0.000.000-A": (_rut,),
    b"00-00000000-0": (_cuit,),
    b"000000-00-0000": (_malaysia,),
    b"0-0000-00000-00-0": (_thailand,),
    b"0000 0000 0000": (_aadhaar, _my_number),
    b"0000-0000-0000": (_aadhaar,),
    b"0 00 00 00 000 000 00": (_france,),
    b"0 00 00 0A 000 000 00": (_france,),
    b"0000 00000 0": (_medicare,),
    b"000000 00000": (_norway,),
    b"00 000 000 000": (_germany_tax,),
    b"000000 0000 000": (_south_africa,),
    b"00000000000000000A": (_china,),
    # letters and digits
    b"AA000000A": (_nino,),
    b"AA 00 00 00 A": (_nino,),
    b"00000000A": (_spain_dni,),
    b"00000000-A": (_spain_dni,),
    b"A0000000A": (_spain_nie, _singapore),
    b"A-0000000-A": (_spain_nie,),
    b"AAAAAA00A00A000A": (_italy,),
    b"AAAAA0000A": (_india_pan,),
    b"AAAA000000AAAAAA00": (_mexico_curp,),
    b"AAAA000000AAAAAAA0": (_mexico_curp,),
    b"A000000(0)": (_hong_kong,),
    b"A000000(A)": (_hong_kong,),
    b"AA000000(0)": (_hong_kong,),
    b"AA000000(A)": (_hong_kong,),
    b"A000000000": (_taiwan,),
}
