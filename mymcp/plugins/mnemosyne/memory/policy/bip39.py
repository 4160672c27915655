"""The 2,048 words of the English BIP-39 word list.

Wallet seed phrases are 12 to 24 of these words. The list is a published standard; it ships
beside this module as ``bip39-english.txt``, one word per line in the standard's order,
byte for byte the published file (SHA-256 :data:`LIST_SHA256`), and is read once, at import.
"""

from __future__ import annotations

import hashlib
from importlib import resources

LIST_FILE = "bip39-english.txt"
LIST_SHA256 = "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"

_LIST = resources.files(__package__).joinpath(LIST_FILE).read_text(encoding="ascii").split()
WORDS: frozenset[str] = frozenset(_LIST)
_INDEX = {word: index for index, word in enumerate(_LIST)}


def checksum_holds(words: list[str]) -> bool:
    """Whether ``words`` (12 to 24, a multiple of three) are a phrase whose last bits are
    the first bits of the SHA-256 of the rest, as every BIP-39 phrase's are."""
    if len(words) not in (12, 15, 18, 21, 24) or not all(word in _INDEX for word in words):
        return False
    number = 0
    for word in words:
        number = number << 11 | _INDEX[word]
    size = len(words) // 3  # checksum bits: one per 33 bits of the phrase
    entropy = (number >> size).to_bytes((len(words) * 11 - size) // 8, "big")
    return hashlib.sha256(entropy).digest()[0] >> (8 - size) == number & ((1 << size) - 1)
