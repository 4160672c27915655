"""Compact tokens (reason ``compact_token_shape``).

- JWS and JWT: a Base64url JSON header (``eyJ`` is ``{"``) of at least 11 characters, a
  dot, and two more non-empty segments (the contract's base rule), or an unsigned JWT
  whose payload is JSON too and whose signature is empty;
- JWE: the header and four more segments, the second of which may be empty;
- PASETO (``v4.local.…``, ``v2.public.…``) and Fernet tokens (``gAAAAA…``).
"""

from __future__ import annotations

import re

from mymcp.plugins.mnemosyne.memory.policy.text import Text

__all__ = ["has_compact_token"]

_SEGMENT = "[A-Za-z0-9_-]"
_JOSE = re.compile(
    rf"eyJ{_SEGMENT}{{8,}}\."
    rf"(?:{_SEGMENT}+\.{_SEGMENT}+|eyJ{_SEGMENT}+\.|(?:{_SEGMENT}*\.){{3}}{_SEGMENT}+)"
    rf"(?!{_SEGMENT})"
)
_JOSE_BEFORE = re.compile(_SEGMENT)
# The literal comes first and the boundary before it is checked after it, so the engine
# jumps from one "v" or "gAAAAA" to the next.
_PASETO = re.compile(rf"v(?<![A-Za-z0-9]v)[1-4]\.(?:local|public)\.{_SEGMENT}{{40,}}")
_FERNET = re.compile(rf"gAAAAA(?<![A-Za-z0-9]gAAAAA){_SEGMENT}{{80,}}={{0,2}}")


def _positions(value: str, needle: str) -> list[int]:
    found = []
    at = value.find(needle)
    while at >= 0:
        found.append(at)
        at = value.find(needle, at + 1)
    return found


def has_compact_token(text: Text) -> bool:
    """A JOSE compact serialization, a PASETO token or a Fernet token."""
    value = text.value
    for at in _positions(value, "eyJ") if "J" in value else ():
        if at and _JOSE_BEFORE.match(value[at - 1]):
            continue
        if _JOSE.match(value, at):
            return True
    if text.mentions(_PASETO_WORDS) and _PASETO.search(value):
        return True
    return "gAAAAA" in value and _FERNET.search(text.chunk_text()) is not None


_PASETO_WORDS = frozenset({b"local", b"public"})
