"""Listing cursors: opaque, signed continuation tokens that only this process accepts.

A cursor names the next offset and the page size of one listing, together with two keyed
fingerprints: one of the normalized selector and one of the complete ordered snapshot the
listing was served from. Everything is signed with a key that exists only in this process
(:data:`PROCESS_SECRET`, made once at import and never written anywhere), so a restart
turns every earlier cursor stale.

Reading a cursor follows a fixed order of checks, and which check fails first decides the
outcome: a malformed or tampered token is ``invalid_cursor``; one minted by another process,
or whose snapshot no longer matches the current selection, is ``stale_cursor``.
:func:`open_cursor` runs the checks that need no disk; :meth:`Cursor.resume` the rest.

Token format: ``base64url(payload) "." base64url(signature)``, both unpadded, where the
payload is canonical ASCII JSON ``{"d":…,"o":…,"p":…,"s":…,"v":1,"z":…}``.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NoReturn

from mymcp import jsonvalue
from mymcp.jsonvalue import JsonObject
from mymcp.plugins.mnemosyne.memory.model.errors import Conflict, InvalidRequest

__all__ = [
    "DEFAULT_PAGE_SIZE",
    "MAX_CURSOR_LENGTH",
    "PROCESS_SECRET",
    "Cursor",
    "ProcessSecret",
    "canonical_json",
    "issue_cursor",
    "open_cursor",
    "secret_marker",
    "selector_digest",
    "snapshot_digest",
    "snapshot_digest_of",
]

MAX_CURSOR_LENGTH = 4096
MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 50
_FORMAT_VERSION = 1
_MARKER_LIMIT = 100
_KEYS = frozenset({"v", "p", "s", "d", "o", "z"})

_CURSOR_CONTEXT = b"mnemosyne-memory-list-cursor\0"
_SELECTOR_CONTEXT = b"mnemosyne-memory-list-selector\0"
_SNAPSHOT_CONTEXT = b"mnemosyne-memory-list-snapshot\0"

_BASE64URL_RE = re.compile("[A-Za-z0-9_-]+")
_DIGEST_RE = re.compile("[0-9a-f]{64}")


@dataclass(frozen=True, repr=False)
class ProcessSecret:
    """The signing key and instance marker of one process (never persisted, never logged)."""

    key: bytes
    marker: str

    @classmethod
    def generate(cls) -> ProcessSecret:
        # os.urandom is what secrets and uuid draw from; importing them costs a start 3 ms.
        return cls(os.urandom(32), os.urandom(16).hex())


# Made once, when this module is first imported.
PROCESS_SECRET = ProcessSecret.generate()


def _secret() -> ProcessSecret:
    # Looked up at call time so that a test can stand in for a restarted process.
    return PROCESS_SECRET


def canonical_json(value: object) -> bytes:
    """Sorted keys, no spaces, ASCII only."""
    return jsonvalue.encode(value, sort_keys=True).encode("ascii")


def _keyed_hex(secret: ProcessSecret, context: bytes, data: bytes) -> str:
    import hashlib
    import hmac  # here and below: importing them costs every start 4 ms

    return hmac.new(secret.key, context + data, hashlib.sha256).hexdigest()


def selector_digest(selector: object) -> str:
    """Keyed fingerprint of a normalized selector (any JSON value)."""
    return _keyed_hex(_secret(), _SELECTOR_CONTEXT, canonical_json(selector))


def snapshot_digest(snapshot: bytes) -> str:
    """Keyed fingerprint of a snapshot already rendered as canonical JSON."""
    return snapshot_digest_of((snapshot,))


def snapshot_digest_of(pieces: Iterable[bytes]) -> str:
    """Keyed fingerprint of a snapshot rendered as canonical JSON in ``pieces`` (which,
    joined, are that JSON): a large snapshot never has to be held whole."""
    import hashlib
    import hmac

    keyed = hmac.new(_secret().key, _SNAPSHOT_CONTEXT, hashlib.sha256)
    for piece in pieces:
        keyed.update(piece)
    return keyed.hexdigest()


def secret_marker() -> str:
    """This process's instance marker (a fingerprint is only good while it is the same)."""
    return _secret().marker


def _signature(payload: bytes) -> bytes:
    import hashlib
    import hmac

    return hmac.new(_secret().key, _CURSOR_CONTEXT + payload, hashlib.sha256).digest()


def _encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def issue_cursor(selector: str, snapshot: str, offset: int, page_size: int) -> str:
    """A cursor for the page starting at ``offset`` of the given selector and snapshot."""
    payload = canonical_json(
        {
            "v": _FORMAT_VERSION,
            "p": _secret().marker,
            "s": selector,
            "d": snapshot,
            "o": offset,
            "z": page_size,
        }
    )
    return f"{_encode(payload)}.{_encode(_signature(payload))}"


@dataclass(frozen=True)
class Cursor:
    """A cursor that passed every check not needing the current selection."""

    snapshot: str
    offset: int
    page_size: int

    def resume(self, snapshot: str, total: int) -> int:
        """The offset to serve, once the current selection is known.

        Raises ``stale_cursor`` when the snapshot changed and ``invalid_cursor`` when the
        offset lies beyond the selection.
        """
        import hmac

        if not hmac.compare_digest(snapshot, self.snapshot):
            raise Conflict("stale_cursor")
        if self.offset >= total:
            _invalid()
        return self.offset


def open_cursor(text: object, selector: str) -> Cursor:
    """Checks 1-5 of a cursor against the request's selector digest; touches no disk.

    Raises :class:`InvalidRequest` ``invalid_cursor`` or :class:`Conflict` ``stale_cursor``.
    """
    payload, signature = _split(text)
    fields = _fields(payload)
    if fields["p"] != _secret().marker:
        raise Conflict("stale_cursor")
    import hmac

    if not hmac.compare_digest(signature, _signature(payload)):
        _invalid()
    if not hmac.compare_digest(fields["s"], selector):
        _invalid()
    return Cursor(fields["d"], fields["o"], fields["z"])


def _invalid() -> NoReturn:
    raise InvalidRequest("invalid_cursor", field="cursor")


def _split(text: object) -> tuple[bytes, bytes]:
    if not isinstance(text, str) or not 0 < len(text) <= MAX_CURSOR_LENGTH:
        _invalid()
    parts = text.split(".")
    if len(parts) != 2:
        _invalid()
    return _decode(parts[0]), _decode(parts[1])


def _decode(part: str) -> bytes:
    """Strict unpadded base64url: only the alphabet, and the text must re-encode identically."""
    if not _BASE64URL_RE.fullmatch(part):
        _invalid()
    try:
        data = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    except (binascii.Error, ValueError):
        _invalid()
    if _encode(data) != part:
        _invalid()
    return data


def _fields(payload: bytes) -> JsonObject:
    try:
        value = jsonvalue.decode(payload.decode("ascii"))
    except ValueError:  # not ASCII, or not strict JSON
        _invalid()
    if not isinstance(value, dict) or set(value) != _KEYS or not _well_formed(value):
        _invalid()
    return value


def _is_int(value: object) -> bool:
    return type(value) is int


def _is_digest(value: object) -> bool:
    return isinstance(value, str) and _DIGEST_RE.fullmatch(value) is not None


def _well_formed(fields: JsonObject) -> bool:
    marker, offset, size = fields["p"], fields["o"], fields["z"]
    return (
        _is_int(fields["v"])
        and fields["v"] == _FORMAT_VERSION
        and isinstance(marker, str)
        and 0 < len(marker) <= _MARKER_LIMIT
        and _is_digest(fields["s"])
        and _is_digest(fields["d"])
        and _is_int(offset)
        and offset >= 1
        and _is_int(size)
        and 1 <= size <= MAX_PAGE_SIZE
        and offset % size == 0
    )
