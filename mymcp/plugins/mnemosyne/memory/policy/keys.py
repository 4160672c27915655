"""Private keys and wallet secrets: the finders and validators of their rules.

Armour and key files are found by their literals; key bodies without armour by the fixed
first bytes of DER keys and OpenSSH files; wallet keys by their Base58Check checksum and
version byte; seed phrases as twelve or more BIP-39 words in a row near a word that names
them; a keypair as the JSON array of 32 or 64 bytes that Solana's tools write.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from mymcp.plugins.mnemosyne.memory.policy.assignments import assignments
from mymcp.plugins.mnemosyne.memory.policy.bip39 import WORDS
from mymcp.plugins.mnemosyne.memory.policy.checksums import base58check
from mymcp.plugins.mnemosyne.memory.policy.engine import Text

# The first bytes of DER private keys and OpenSSH key files, as they appear in Base64.
BODY_MARKERS = (
    "IBAAKCAQ", "IBAAKCAg", "IBAAKBgQ",  # PKCS#1 RSA
    "IBADANBgkqhkiG9w0BAQEFAAS",  # PKCS#8 RSA
    "MIGHAgEAMBMGByqGSM49", "MIG2AgEAMBAGByqGSM49",  # PKCS#8 EC
    "MC4CAQAwBQYDK2Vw",  # PKCS#8 Ed25519
    "MHcCAQEEI", "MIGkAgEBBDA",  # SEC1 EC P-256, P-384
    "BgkqhkiG9w0BBQ0w",  # PKCS#8 encrypted (PBES2)
    "b3BlbnNzaC1rZXktdjE",  # "openssh-key-v1"
)  # fmt: skip


def encoded_pem(text: Text) -> Iterator[bytes]:
    """A Base64-encoded PEM block (``LS0tLS1CRUdJTi…``, as in a kubeconfig), decoded."""
    for match in re.finditer(r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{8,}", text.token_text()):
        encoded = match.group()[:96]
        try:
            yield base64.b64decode(encoded[: len(encoded) // 4 * 4])
        except (binascii.Error, ValueError):
            continue


_JWK_PRIVATE = re.compile(r"""["'](?:d|p|q|dp|dq|qi|k)["']\s*:\s*["'][A-Za-z0-9_-]{16,}""")


def private_jwk(text: Text) -> Iterator[str]:
    """The JSON object around each "kty" member, when it holds a private member."""
    value = text.value
    for at in text.at('"kty"'):
        begin, end = value.rfind("{", 0, at), value.find("}", at)
        if begin >= 0 and end >= 0 and _JWK_PRIVATE.search(value, begin, end):
            yield value[begin:end]


_WIF = re.compile(r"[5KLc9][1-9A-HJ-NP-Za-km-z]{50,51}(?![A-Za-z0-9])")


def wallet_import_format(text: Text) -> Iterator[bytes]:
    """The payloads of Base58Check tokens that start as WIF keys do."""
    for prefix in ("5", "K", "L", "c", "9"):
        for at in text.hits.get(prefix, ()):
            match = _WIF.match(text.token_text(), at)
            payload = base58check(match.group()) if match is not None else None
            if payload is not None:
                yield payload


_RAW_KEY = re.compile(r"(?:0x)?[0-9a-fA-F]{64}|[A-Za-z0-9+/]{42,43}=|[1-9A-HJ-NP-Za-km-z]{85,90}")
# "private key: 0x…" within one line and one sentence.
_SAID_KEY = re.compile(
    r"(?:private|secret|wallet|signing)[ _-]?key\b(?:(?![.!?]\s)[^\n]){0,24}?"
    r"(?P<key>(?:0x)?[0-9a-fA-F]{64}|[1-9A-HJ-NP-Za-km-z]{85,90})(?![0-9A-Za-z])",
    re.IGNORECASE,
)


KEY_QUALIFIERS = ("private", "secret", "wallet", "signing")


def raw_keys(text: Text) -> Iterator[str]:
    """A raw key assigned to a private-key name, or written after "private key"."""
    for assignment in assignments(text):
        if assignment.kind == "private" and _RAW_KEY.fullmatch(assignment.value):
            yield assignment.value
    for at in text.spots(KEY_QUALIFIERS):
        if (match := _SAID_KEY.match(text.value, at)) is not None:
            yield match.group("key")


_BYTE_ARRAY = re.compile(r"\[\s*(?:\d{1,3}\s*,\s*){31,63}\d{1,3}\s*\]")


def byte_arrays(text: Text) -> Iterator[list[int]]:
    """JSON arrays of 32 or 64 numbers up to 255 (a keypair file), with varied bytes."""
    if text.value.count(",") >= 31:
        for at in text.at("["):
            if (match := _BYTE_ARRAY.match(text.value, at)) is not None:
                values = [int(part) for part in re.findall(r"\d+", match.group())]
                if len(values) in (32, 64) and max(values) <= 255 and len(set(values)) >= 16:
                    yield values


# --- seed phrases -------------------------------------------------------------------------

SEED_WORDS = (
    "seed seeds mnemonic phrase wallet words bip39 bip metamask trezor electrum ledger".split()
)
_SEED_REACH = 400
_SEED_LENGTH = 12
# What may stand between two words of a phrase: blanks, commas, list numbers ("1.", "2)").
# A colon ends a run, so the label in "seed phrase: …" is not counted as a word.
_RUN = re.compile(r"[a-z][a-z\s\d.,;)(\-]{46,}")
_WORD = re.compile(r"[a-z]+")


def seed_phrases(text: Text) -> Iterator[list[str]]:
    """Runs of twelve or more BIP-39 words near a word that names a wallet secret."""
    lower = text.lower
    for at in text.spots(SEED_WORDS):
        for run in _RUN.findall(lower, max(0, at - _SEED_REACH), at + _SEED_REACH):
            flags = "".join("1" if w in WORDS else "0" for w in _WORD.findall(run))
            if "1" * _SEED_LENGTH in flags:
                yield run.split()
