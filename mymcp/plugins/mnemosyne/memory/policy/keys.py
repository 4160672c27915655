"""Private keys and wallet secrets (reason ``private_key_shape``).

- PEM and similar armour: a ``BEGIN`` or ``END`` line naming a private or secret key, in any
  case, with four or five dashes (PKCS#1/#8, EC, DSA, OpenSSH, encrypted, PGP, SSH2);
- the Base64 body of such a key without its armour, recognised by the fixed bytes every
  DER private key and every OpenSSH key file starts with, and a Base64-encoded PEM block
  (``LS0tLS1CRUdJTi…``, as in a kubeconfig) that decodes to a private key;
- PuTTY key files, JSON Web Keys with a private member, encrypted wallet key files,
  ``age`` and Nostr secret keys, extended wallet keys (``xprv…``), WIF keys with a valid
  checksum, and a raw hexadecimal or Base64 key assigned to a name such as ``PRIVATE_KEY``
  or written after the words "private key";
- wallet seed phrases: 12 or more consecutive words of the BIP-39 list near a word such
  as "seed", "mnemonic", "phrase" or "wallet".
"""

from __future__ import annotations

import base64
import binascii
import re

from mymcp.plugins.mnemosyne.memory.policy.bip39 import WORDS
from mymcp.plugins.mnemosyne.memory.policy.checksums import base58check
from mymcp.plugins.mnemosyne.memory.policy.context import assignments
from mymcp.plugins.mnemosyne.memory.policy.text import Text

__all__ = ["has_key_material", "has_private_key", "has_seed_phrase"]

# Patterns that open with a literal (here "----", then a fifth dash or not) let the engine
# jump from one occurrence of it to the next instead of trying every position.
_ARMOUR = re.compile(
    r"-----? ?(?:BEGIN|END) (?:[A-Z0-9]+ ){0,3}(?:PRIVATE|SECRET) KEY(?: BLOCK)? ?-{4,5}",
    re.IGNORECASE,
)
# The first bytes of DER private keys and OpenSSH key files, as they appear in Base64.
_BODY_MARKERS = (
    "IBAAKCAQ",  # PKCS#1 RSA
    "IBAAKCAg",
    "IBAAKBgQ",
    "IBADANBgkqhkiG9w0BAQEFAAS",  # PKCS#8 RSA
    "MIGHAgEAMBMGByqGSM49",  # PKCS#8 EC
    "MIG2AgEAMBAGByqGSM49",
    "MC4CAQAwBQYDK2Vw",  # PKCS#8 Ed25519
    "MHcCAQEEI",  # SEC1 EC P-256
    "MIGkAgEBBDA",  # SEC1 EC P-384
    "BgkqhkiG9w0BBQ0w",  # PKCS#8 encrypted (PBES2)
    "b3BlbnNzaC1rZXktdjE",  # "openssh-key-v1"
)
_ENCODED_PEM = re.compile(r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{8,}")
_JWK_PRIVATE = re.compile(r"""["'](?:d|p|q|dp|dq|qi|k)["']\s*:\s*["'][A-Za-z0-9_-]{16,}""")
_BECH32_SECRET = re.compile(
    r"AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}|(?<![a-z0-9])nsec1[02-9ac-hj-np-z]{58}"
)
_EXTENDED = re.compile(r"(?<![A-Za-z0-9])[xtyzuv]prv[1-9A-HJ-NP-Za-km-z]{100,112}")
# The first character is read first (the engine then skips to the next 5, K, L or c), the
# boundary before it is checked second.
_WIF = re.compile(
    r"[5KLc](?<![A-Za-z0-9].)"
    r"(?:(?<=5)[HJK][1-9A-HJ-NP-Za-km-z]{49}|(?<=[KLc])[1-9A-HJ-NP-Za-km-z]{51})(?![A-Za-z0-9])"
)
_RAW_KEY = re.compile(r"(?:0x)?[0-9a-fA-F]{64}|[A-Za-z0-9+/]{42,43}=|[1-9A-HJ-NP-Za-km-z]{85,90}")
# "private key: 0x…" within one line and one sentence.
_SAID_KEY = re.compile(
    r"(?:private|secret|wallet|signing)[ _-]?key\b(?:(?![.!?]\s)[^\n]){0,24}?"
    r"(?P<key>(?:0x)?[0-9a-fA-F]{64})\b",
    re.IGNORECASE,
)


def has_private_key(text: Text) -> bool:
    """Armour, an armourless key body, or a private key file format."""
    value = text.value
    if "-" in value and "----" in value and _ARMOUR.search(value):
        return True
    if text.mentions(_FILE_WORDS):
        if "PuTTY-User-Key-File-" in value or b"ciphertext" in text.words and b"kdf" in text.words:
            return True
        if b"kty" in text.words and any(_jwk_is_private(value, at) for at in text.positions("kty")):
            return True
    return _has_key_body(text)


_FILE_WORDS = frozenset({b"putty", b"ciphertext", b"kty"})


def _jwk_is_private(value: str, at: int) -> bool:
    """A private member in the JSON object around a "kty" member."""
    begin = value.rfind("{", 0, at)
    end = value.find("}", at)
    if begin < 0 or end < 0:
        return False
    return _JWK_PRIVATE.search(value, begin, end) is not None


def _has_key_body(text: Text) -> bool:
    chunks = text.chunk_text(24)
    if not chunks:
        return False
    if any(marker in chunks for marker in _BODY_MARKERS):
        return True
    if "prv" in chunks and _EXTENDED.search(chunks):
        return True
    if "LS0tLS1CRUdJTi" in chunks and _encoded_private_pem(chunks):
        return True
    if ("AGE-SECRET-KEY-1" in chunks or "nsec1" in chunks) and _BECH32_SECRET.search(chunks):
        return True
    return any(base58check(match.group()) for match in _WIF.finditer(chunks))


def _encoded_private_pem(chunk: str) -> bool:
    for match in _ENCODED_PEM.finditer(chunk):
        encoded = match.group()[:96]
        try:
            decoded = base64.b64decode(encoded[: len(encoded) // 4 * 4])
        except (binascii.Error, ValueError):
            continue
        if b"PRIVATE KEY" in decoded or b"SECRET KEY" in decoded:
            return True
    return False


def has_key_material(text: Text) -> bool:
    """A raw key assigned to a private-key name or written after "private key"."""
    for assignment in assignments(text):
        if assignment.kind == "private" and _RAW_KEY.fullmatch(assignment.value):
            return True
    if b"key" not in text.words:
        return False
    return any(
        _SAID_KEY.match(text.value, at)
        for word in text.words & _KEY_QUALIFIERS
        for at in text.positions(word.decode())
    )


_KEY_QUALIFIERS = frozenset({b"private", b"secret", b"wallet", b"signing"})


_SEED_WORDS = frozenset(
    b"seed seeds mnemonic phrase wallet words bip39 bip metamask trezor electrum".split()
)
_SEED_REACH = 400
_WORD = re.compile(r"[a-z]+")
# What may stand between two words of a phrase: spaces, commas, list numbers ("1.", "2)").
# A colon ends a run, so the label in "seed phrase: …" is not counted as a word.
_GAP = r"\s\d.,;)(\-"
# A stretch of words and gaps: two words are in a run only if they are in one stretch.
_STRETCH = re.compile(f"[a-z{_GAP}]++")
_SEED_LENGTH = 12
# Twelve words of three letters or more and the eleven gaps between them.
_SHORTEST_RUN = _SEED_LENGTH * min(map(len, WORDS)) + _SEED_LENGTH - 1
_ALL_LISTED = b"\x01" * _SEED_LENGTH


def has_seed_phrase(text: Text) -> bool:
    """Twelve or more consecutive BIP-39 words near a word that names a wallet secret."""
    spans: list[tuple[int, int]] = []
    for word in text.words & _SEED_WORDS:
        for at in text.positions(word.decode()):
            spans.append((max(0, at - _SEED_REACH), min(len(text), at + _SEED_REACH)))
    return any(_has_word_run(text.lower, start, end) for start, end in _merged(spans))


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _has_word_run(lower: str, start: int, end: int) -> bool:
    for stretch in _STRETCH.findall(lower, start, end):
        if len(stretch) < _SHORTEST_RUN:
            continue
        words = _WORD.findall(stretch)
        if len(words) >= _SEED_LENGTH and _ALL_LISTED in bytes(map(WORDS.__contains__, words)):
            return True
    return False
