"""Schema fragments shared by the Mnemosyne Tool declarations.

Published schemas are portable: every ``pattern`` is anchored ``^...$`` and uses no
backslash shorthand class, and no ``maxLength`` exceeds 1,000 (larger limits are stated in
descriptions and enforced by the server).
"""

from __future__ import annotations

from typing import Any

from mymcp.plugins.mnemosyne.memory.vocabulary import SCOPE_RULES, Scope

Schema = dict[str, Any]

IDENTIFIER_PATTERN = "^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$"
CANONICAL_ID_PATTERN = "^mem_[0-9a-f]{32}$"
LEGACY_ID_PATTERN = "^[A-Za-z0-9._-]{1,100}$"
# "Contains at least one character that is not white space", spelled without shorthand classes:
# any characters (``.`` plus the line terminators it skips), one character outside the
# ECMAScript white-space set, any characters.
_ANY = "(.|\\n|\\r|\\u2028|\\u2029)*"
_NOT_SPACE = (
    "[^ \\t\\n\\r\\f\\v\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]"
)
NONBLANK_PATTERN = f"^{_ANY}{_NOT_SPACE}{_ANY}$"
TIMESTAMP_PATTERN = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"
LANGUAGE_PATTERN = "^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$"
PUBLISHED_MAX_LENGTH = 1000

SCOPE_VALUES: list[str] = [scope.value for scope in Scope]


def scope_catalogue() -> str:
    """``Allowed values: self: ...; relationship: ...`` in enum order."""
    entries = "; ".join(f"{scope.value}: {SCOPE_RULES[scope].definition}" for scope in Scope)
    return f"Allowed values: {entries}"


def scope_enum(description: str) -> Schema:
    """A string-enum scope property."""
    return {"type": "string", "description": description, "enum": list(SCOPE_VALUES)}


def scope_consts() -> Schema:
    """A scope as a ``oneOf`` of consts, each carrying its one-line definition."""
    return {
        "oneOf": [
            {"const": scope.value, "description": SCOPE_RULES[scope].definition} for scope in Scope
        ]
    }


def identifier(*, bounded: bool = False) -> Schema:
    schema: Schema = {"type": "string"}
    if bounded:
        schema.update(minLength=1, maxLength=64)
    schema["pattern"] = IDENTIFIER_PATTERN
    return schema


def nullable_identifier() -> Schema:
    return {"oneOf": [identifier(), {"type": "null"}]}


def text(limit: int) -> Schema:
    """A non-blank string of at most ``limit`` characters (published bound capped)."""
    schema: Schema = {"type": "string", "minLength": 1}
    if limit <= PUBLISHED_MAX_LENGTH:
        schema["maxLength"] = limit
    schema["pattern"] = NONBLANK_PATTERN
    return schema


def tags_schema(*, min_items: int) -> Schema:
    return {
        "type": "array",
        "items": text(50),
        "minItems": min_items,
        "maxItems": 10,
        "uniqueItems": True,
    }


def canonical_reference() -> Schema:
    """The exact version-2 reference used by inspect and the lifecycle Tools."""
    return {
        "type": "object",
        "properties": {
            "schema_version": {"const": 2},
            "scope": scope_consts(),
            "namespace_id": identifier(),
            "collection_id": nullable_identifier(),
            "id": {"type": "string", "pattern": CANONICAL_ID_PATTERN},
        },
        "required": ["schema_version", "scope", "namespace_id", "collection_id", "id"],
        "additionalProperties": False,
    }


def legacy_reference() -> Schema:
    return {
        "type": "object",
        "properties": {
            "schema_version": {"const": 1},
            "scope": scope_consts(),
            "id": {"type": "string", "pattern": LEGACY_ID_PATTERN},
        },
        "required": ["schema_version", "scope", "id"],
        "additionalProperties": False,
    }
