"""JsonObject fragments shared by the Mnemosyne Tool declarations, and the words that go with them.

Every published input schema is one flat object (``type``, ``properties``, ``required``,
``additionalProperties: false``) built only from forms that model providers and grammar
converters all take: descriptions, string enums, integer bounds, ``minItems``/``maxItems``,
``maxLength`` without a pattern, anchored patterns made of explicit classes that carry their
own length, and ``anyOf`` below the top level (a value that may be ``null`` is an ``anyOf``
with a ``{"type": "null"}`` branch). There is no ``const``, ``oneOf``, type array or
``uniqueItems``. What such a schema cannot say (a rule across fields, uniqueness, the
non-blank rule, a limit above :data:`PUBLISHED_MAX_LENGTH`) is written in the descriptions;
the server enforces every rule either way.
"""

from __future__ import annotations

from mymcp.jsonvalue import JsonObject
from mymcp.plugins.mnemosyne.memory.model.records import CANONICAL_VERSION, LEGACY_VERSION
from mymcp.plugins.mnemosyne.memory.model.references import CANONICAL_KEYS, LEGACY_KEYS
from mymcp.plugins.mnemosyne.memory.model.values import IDENTIFIER_RE, MAX_TAGS, TAG_LIMIT
from mymcp.plugins.mnemosyne.memory.model.vocabulary import SCOPE_RULES, Scope

# ECMAScript spellings of the rules in ``memory/model/values.py``: the identifier's is its rule
# with plain groups, anchored; for the others, which read looser or Unicode-aware there,
# tests check that they agree.
IDENTIFIER_PATTERN = "^" + IDENTIFIER_RE.pattern.replace("(?:", "(") + "$"
TIMESTAMP_PATTERN = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"
# The length limit of a language tag is not in the pattern; descriptions state it.
LANGUAGE_PATTERN = "^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$"
# Larger limits make grammar converters build huge rules; they are stated in words instead.
PUBLISHED_MAX_LENGTH = 1000

SCOPE_VALUES: list[str] = [scope.value for scope in Scope]


def scope_catalogue() -> str:
    """``self: ...; relationship: ...``: each scope's meaning, in enum order."""
    entries = "; ".join(f"{scope.value}: {SCOPE_RULES[scope].definition}" for scope in Scope)
    return entries


def scope_enum(description: str) -> JsonObject:
    """A string-enum scope property."""
    return {"type": "string", "description": description, "enum": list(SCOPE_VALUES)}


def described(description: str, schema: JsonObject) -> JsonObject:
    """``schema`` with ``description`` as its first key."""
    return {"description": description, **schema}


def nullable(schema: JsonObject) -> JsonObject:
    """``schema`` or JSON ``null``: a property-level ``anyOf`` with a null branch."""
    return {"anyOf": [schema, {"type": "null"}]}


def identifier() -> JsonObject:
    """A namespace or collection ID; the pattern carries the whole rule, length included."""
    return {"type": "string", "pattern": IDENTIFIER_PATTERN}


def pinned(number: int) -> JsonObject:
    """An integer that must be exactly ``number`` (a one-value range, not ``const``)."""
    return {"type": "integer", "minimum": number, "maximum": number}


def text(limit: int) -> JsonObject:
    """A string of 1 to ``limit`` characters (the bound is published up to PUBLISHED_MAX_LENGTH)."""
    schema: JsonObject = {"type": "string", "minLength": 1}
    if limit <= PUBLISHED_MAX_LENGTH:
        schema["maxLength"] = limit
    return schema


def tags_schema(*, min_items: int, description: str) -> JsonObject:
    return {
        "type": "array",
        "description": description,
        "items": text(TAG_LIMIT),
        "minItems": min_items,
        "maxItems": MAX_TAGS,
    }


def canonical_reference() -> JsonObject:
    """The exact version 2 reference taken by inspect and the change Tools.

    A reference is copied from an earlier result, never composed, so it publishes its keys,
    types, pinned version and scope values but no patterns; the server checks every value.
    """
    return _reference(CANONICAL_VERSION, CANONICAL_KEYS)


def legacy_reference() -> JsonObject:
    """The version 1 reference of a legacy record (inspect only)."""
    return _reference(LEGACY_VERSION, LEGACY_KEYS)


def _reference(version: int, keys: tuple[str, ...]) -> JsonObject:
    members: JsonObject = {
        "schema_version": pinned(version),
        "scope": {"type": "string", "enum": list(SCOPE_VALUES)},
        "namespace_id": {"type": "string"},
        "collection_id": nullable({"type": "string"}),
        "id": {"type": "string"},
    }
    return {
        "type": "object",
        "properties": {key: members[key] for key in keys},
        "required": list(keys),
        "additionalProperties": False,
    }
