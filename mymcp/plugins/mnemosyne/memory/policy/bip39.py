"""The 2,048 words of the English BIP-39 word list.

Wallet seed phrases are 12 to 24 of these words. The list is a published standard; it ships
beside this module as ``bip39-english.txt``, one word per line in the standard's order,
byte for byte the published file (SHA-256 :data:`LIST_SHA256`), and is read once, at import.
"""

from __future__ import annotations

from importlib import resources

LIST_FILE = "bip39-english.txt"
LIST_SHA256 = "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"

WORDS: frozenset[str] = frozenset(
    resources.files(__package__).joinpath(LIST_FILE).read_text(encoding="ascii").split()
)
