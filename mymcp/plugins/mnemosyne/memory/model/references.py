"""Memory references: how a client names one stored memory, and the one parser of them.

A version 2 reference names one exact file by scope, namespace, collection (or none) and
ID. A version 1 reference names a legacy ID within a scope, for ``memory_inspect`` only.
Results render a record's reference with :func:`reference_dict`, and the Tools that take
one read it back with :func:`parse_reference` (or :func:`parse_change_target`, which also
reads the revision the caller saw), reporting the first broken rule in the contract's
order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal, NoReturn, TypeAlias, overload

from mymcp.jsonvalue import JsonObject
from mymcp.plugins.mnemosyne.memory.model.errors import InvalidRequest
from mymcp.plugins.mnemosyne.memory.model.records import (
    CANONICAL_VERSION,
    LEGACY_VERSION,
    CanonicalRecord,
    LegacyRecord,
    Record,
)
from mymcp.plugins.mnemosyne.memory.model.values import is_canonical_id, is_identifier, is_legacy_id
from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope

__all__ = [
    "CANONICAL_KEYS",
    "EXPECTED_REVISION",
    "LEGACY_KEYS",
    "REFERENCE",
    "CanonicalReference",
    "LegacyReference",
    "Reference",
    "parse_change_target",
    "parse_reference",
    "reference_dict",
]

# The argument names under which Tools take a reference and the revision the caller saw.
REFERENCE: Final = "reference"
EXPECTED_REVISION: Final = "expected_revision"

# The keys of each version's reference, in the order results show them.
CANONICAL_KEYS: Final = ("schema_version", "scope", "namespace_id", "collection_id", "id")
LEGACY_KEYS: Final = ("schema_version", "scope", "id")
_KEY_SETS: Final = {
    CANONICAL_VERSION: frozenset(CANONICAL_KEYS),
    LEGACY_VERSION: frozenset(LEGACY_KEYS),
}
_SCOPES: Final = {scope.value: scope for scope in Scope}


@dataclass(frozen=True)
class CanonicalReference:
    """Where a version 2 record lives: its scope, namespace, collection (or none) and ID."""

    scope: Scope
    namespace_id: str
    collection_id: str | None
    id: str
    schema_version: ClassVar[int] = CANONICAL_VERSION

    @classmethod
    def of(cls, record: CanonicalRecord) -> CanonicalReference:
        collection_id = record.collection_id
        return cls(record.scope, record.namespace.id, collection_id, record.id)

    def as_dict(self) -> JsonObject:
        return {
            "schema_version": CANONICAL_VERSION,
            "scope": self.scope.value,
            "namespace_id": self.namespace_id,
            "collection_id": self.collection_id,
            "id": self.id,
        }


@dataclass(frozen=True)
class LegacyReference:
    """A version 1 record: the scope it was found in and its legacy ID."""

    scope: Scope
    id: str
    schema_version: ClassVar[int] = LEGACY_VERSION

    def as_dict(self) -> JsonObject:
        return {"schema_version": LEGACY_VERSION, "scope": self.scope.value, "id": self.id}


Reference: TypeAlias = CanonicalReference | LegacyReference


def reference_dict(record: Record, scope: Scope) -> JsonObject:
    """The versioned reference a client passes back to name ``record`` (found in ``scope``)."""
    if isinstance(record, LegacyRecord):
        return LegacyReference(scope, record.id).as_dict()
    return CanonicalReference.of(record).as_dict()


def _invalid(field: str = REFERENCE) -> NoReturn:
    raise InvalidRequest("invalid_reference", field=field)


@overload
def parse_reference(value: object, *, legacy: Literal[False] = False) -> CanonicalReference: ...
@overload
def parse_reference(value: object, *, legacy: bool) -> Reference: ...


def parse_reference(value: object, *, legacy: bool = False) -> Reference:
    """The reference ``value`` holds; version 1 only with ``legacy``.

    Raises ``invalid_reference`` for the first broken rule: an object, its schema version,
    exactly its version's keys, then scope, namespace, collection and ID in that order.
    """
    if not isinstance(value, dict):
        _invalid()
    version = value.get("schema_version")
    if type(version) is not int or version not in _KEY_SETS:
        _invalid()
    if version != CANONICAL_VERSION and not legacy:
        _invalid()
    if value.keys() != _KEY_SETS[version]:
        _invalid()
    scope = _SCOPES.get(value["scope"]) if isinstance(value["scope"], str) else None
    if scope is None:
        _invalid("reference.scope")
    if version == LEGACY_VERSION:
        if not is_legacy_id(value["id"]):
            _invalid("reference.id")
        return LegacyReference(scope, value["id"])
    return _canonical(scope, value)


def _canonical(scope: Scope, value: Mapping[str, Any]) -> CanonicalReference:
    namespace_id, collection_id = value["namespace_id"], value["collection_id"]
    if not is_identifier(namespace_id):
        _invalid("reference.namespace_id")
    if collection_id is not None and not is_identifier(collection_id):
        _invalid("reference.collection_id")
    if not is_canonical_id(value["id"]):
        _invalid("reference.id")
    return CanonicalReference(scope, namespace_id, collection_id, value["id"])


def parse_change_target(arguments: Mapping[str, Any]) -> tuple[CanonicalReference, int]:
    """The reference and expected revision of a change, each rule in the contract's order.

    A missing reference is reported first, then a missing expected revision, then the
    reference's own rules, then an expected revision that is not an integer of at least 1
    (``true`` and ``1.0`` are not integers).
    """
    if REFERENCE not in arguments:
        _invalid()
    if EXPECTED_REVISION not in arguments:
        _invalid_expected_revision()
    reference = parse_reference(arguments[REFERENCE])
    expected_revision = arguments[EXPECTED_REVISION]
    if type(expected_revision) is not int or expected_revision < 1:
        _invalid_expected_revision()
    return reference, expected_revision


def _invalid_expected_revision() -> NoReturn:
    raise InvalidRequest("invalid_expected_revision", field=EXPECTED_REVISION)
