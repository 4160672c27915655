"""Inert declarations of what a plugin is, as opposed to what it does at runtime.

A ``PluginDefinition`` is what a manifest says and what a plugin adapter hard-codes; the
host compares the two for exact, order-sensitive equality before activating anything.
Declarations carry no handlers, Tool schemas, public names, configuration values or
granted authority. Every value is frozen and checks its own shape when it is built.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

from mymcp.plugin.contracts import (
    CapabilityKind,
    CapabilityLocalId,
    ConsentRequirement,
    PluginId,
    PluginVersion,
    ToolEffects,
)

__all__ = [
    "CONFIGURATION_SCHEMA_VERSION",
    "DESCRIPTION_MAX_LENGTH",
    "MANIFEST_VERSION",
    "MAX_CAPABILITIES",
    "MAX_SCHEMA_DEPTH",
    "MAX_SCHEMA_PROPERTIES",
    "MAX_SECRET_REFERENCES",
    "SMALL_VERSION_MAX",
    "TITLE_MAX_LENGTH",
    "ArraySchemaNode",
    "AuthorityDeclaration",
    "CapabilityDeclaration",
    "ConfigurationDeclaration",
    "ConfigurationSchemaNode",
    "FilesystemAuthority",
    "HostApiRange",
    "HostApiVersion",
    "ObjectSchemaNode",
    "PluginDefinition",
    "ScalarSchemaNode",
    "SchemaType",
    "is_display_text",
]

MANIFEST_VERSION = 1
CONFIGURATION_SCHEMA_VERSION = 1
SMALL_VERSION_MAX = 255
MAX_CAPABILITIES = 64
MAX_SECRET_REFERENCES = 32
MAX_SCHEMA_PROPERTIES = 32
MAX_SCHEMA_DEPTH = 4
TITLE_MAX_LENGTH = 128
DESCRIPTION_MAX_LENGTH = 4096

# C0 controls and DEL, C1 controls, LRM/RLM, line/paragraph separators and the bidi
# embedding/override/isolate controls: none of them belongs in a one-line display string.
_FORBIDDEN_TEXT_CHARS = frozenset(
    [chr(code) for code in range(0x20)]
    + [chr(code) for code in range(0x7F, 0xA0)]
    + ["\u200e", "\u200f", "\u2028", "\u2029"]
    + [chr(code) for code in range(0x202A, 0x202F)]
    + [chr(code) for code in range(0x2066, 0x206A)]
)


def is_display_text(value: object, limit: int) -> bool:
    """True for a string of 1..limit characters that is safe to show on one line."""
    return (
        isinstance(value, str)
        and 0 < len(value) <= limit
        and _FORBIDDEN_TEXT_CHARS.isdisjoint(value)
    )


def _is_small_version(value: object) -> bool:
    return type(value) is int and 1 <= value <= SMALL_VERSION_MAX


@dataclass(frozen=True, order=True)
class HostApiVersion:
    """A version of the host's plugin API: an integer from 1 to 255."""

    value: int

    def __post_init__(self) -> None:
        if not _is_small_version(self.value):
            raise ValueError("invalid host api version")


@dataclass(frozen=True)
class HostApiRange:
    """The inclusive range of host API versions a plugin supports."""

    minimum: HostApiVersion
    maximum: HostApiVersion

    def __post_init__(self) -> None:
        if not (
            isinstance(self.minimum, HostApiVersion)
            and isinstance(self.maximum, HostApiVersion)
            and self.minimum <= self.maximum
        ):
            raise ValueError("invalid host api range")

    def __contains__(self, version: object) -> bool:
        return isinstance(version, HostApiVersion) and self.minimum <= version <= self.maximum


@dataclass(frozen=True)
class CapabilityDeclaration:
    """One declared capability with the effect and consent metadata it promises."""

    kind: CapabilityKind
    local_id: CapabilityLocalId
    version: PluginVersion
    effects: ToolEffects
    consent: ConsentRequirement

    def __post_init__(self) -> None:
        if not (
            isinstance(self.kind, CapabilityKind)
            and isinstance(self.local_id, CapabilityLocalId)
            and isinstance(self.version, PluginVersion)
            and isinstance(self.effects, ToolEffects)
            and isinstance(self.consent, ConsentRequirement)
        ):
            raise ValueError("invalid capability declaration")


class SchemaType(StrEnum):
    """JSON types a configuration schema node may name."""

    OBJECT = "object"
    ARRAY = "array"
    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    NULL = "null"


@dataclass(frozen=True)
class ScalarSchemaNode:
    """A configuration value of one scalar JSON type."""

    type: SchemaType

    def __post_init__(self) -> None:
        if not isinstance(self.type, SchemaType) or self.type in (
            SchemaType.OBJECT,
            SchemaType.ARRAY,
        ):
            raise ValueError("invalid configuration schema")

    @property
    def depth(self) -> int:
        return 1


@dataclass(frozen=True)
class ArraySchemaNode:
    """A configuration array whose items all follow one node."""

    items: ConfigurationSchemaNode

    def __post_init__(self) -> None:
        if not isinstance(self.items, _SCHEMA_NODE_TYPES):
            raise ValueError("invalid configuration schema")

    @property
    def type(self) -> SchemaType:
        return SchemaType.ARRAY

    @property
    def depth(self) -> int:
        return 1 + self.items.depth


@dataclass(frozen=True)
class ObjectSchemaNode:
    """A closed configuration object: named properties in order, no additional ones.

    ``properties`` is a tuple of ``(name, node)`` pairs so that order takes part in
    equality; a mapping given here is converted in its iteration order.
    """

    properties: tuple[tuple[str, ConfigurationSchemaNode], ...] = ()
    required: tuple[str, ...] = ()

    def __init__(
        self,
        properties: Mapping[str, ConfigurationSchemaNode]
        | Iterable[tuple[str, ConfigurationSchemaNode]] = (),
        required: Iterable[str] = (),
    ) -> None:
        pairs = tuple(properties.items() if isinstance(properties, Mapping) else properties)
        names = tuple(required)
        object.__setattr__(self, "properties", pairs)
        object.__setattr__(self, "required", names)
        if not _valid_object_node(pairs, names):
            raise ValueError("invalid configuration schema")

    @property
    def type(self) -> SchemaType:
        return SchemaType.OBJECT

    @property
    def additional_properties(self) -> bool:
        return False

    @property
    def depth(self) -> int:
        return 1 + max((node.depth for _, node in self.properties), default=0)


ConfigurationSchemaNode: TypeAlias = ScalarSchemaNode | ArraySchemaNode | ObjectSchemaNode
_SCHEMA_NODE_TYPES = (ScalarSchemaNode, ArraySchemaNode, ObjectSchemaNode)


def _valid_object_node(
    pairs: tuple[tuple[str, ConfigurationSchemaNode], ...], required: tuple[str, ...]
) -> bool:
    if len(pairs) > MAX_SCHEMA_PROPERTIES:
        return False
    names = []
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2):
            return False
        name, node = pair
        if not (isinstance(name, str) and name and isinstance(node, _SCHEMA_NODE_TYPES)):
            return False
        names.append(name)
    declared = set(names)
    return (
        len(declared) == len(names)
        and all(isinstance(name, str) and name in declared for name in required)
        and len(set(required)) == len(required)
    )


@dataclass(frozen=True)
class ConfigurationDeclaration:
    """The shape of a plugin's operator configuration (never its values)."""

    schema_version: int
    schema: ObjectSchemaNode

    def __post_init__(self) -> None:
        if not (
            type(self.schema_version) is int
            and self.schema_version == CONFIGURATION_SCHEMA_VERSION
            and isinstance(self.schema, ObjectSchemaNode)
            and self.schema.depth <= MAX_SCHEMA_DEPTH
        ):
            raise ValueError("invalid configuration declaration")


class FilesystemAuthority(StrEnum):
    """Kinds of filesystem access a plugin may ask the operator for."""

    DATA_READ = "data_read"
    DATA_WRITE = "data_write"
    STATE_READ = "state_read"
    STATE_WRITE = "state_write"
    CACHE_READ = "cache_read"
    CACHE_WRITE = "cache_write"


@dataclass(frozen=True)
class AuthorityDeclaration:
    """The access a plugin says it needs: distinct filesystem kinds, in order, and network."""

    filesystem: tuple[FilesystemAuthority, ...]
    network: bool

    def __init__(self, filesystem: Iterable[FilesystemAuthority], network: bool) -> None:
        kinds = tuple(filesystem)
        object.__setattr__(self, "filesystem", kinds)
        object.__setattr__(self, "network", network)
        if (
            not all(isinstance(kind, FilesystemAuthority) for kind in kinds)
            or len(set(kinds)) != len(kinds)
            or type(network) is not bool
        ):
            raise ValueError("invalid authority declaration")


@dataclass(frozen=True)
class PluginDefinition:
    """Everything a plugin declares about itself, compared field by field and in order."""

    manifest_version: int
    plugin_id: PluginId
    title: str
    description: str
    version: PluginVersion
    requires: HostApiRange
    capabilities: tuple[CapabilityDeclaration, ...]
    configuration: ConfigurationDeclaration
    secret_references: tuple[str, ...]
    data_schema_version: int
    authority: AuthorityDeclaration

    def __post_init__(self) -> None:
        object.__setattr__(self, "capabilities", _as_tuple(self.capabilities))
        object.__setattr__(self, "secret_references", _as_tuple(self.secret_references))
        if not (self._valid_identity() and self._valid_contents()):
            raise ValueError("invalid plugin definition")

    def _valid_identity(self) -> bool:
        return (
            type(self.manifest_version) is int
            and self.manifest_version == MANIFEST_VERSION
            and isinstance(self.plugin_id, PluginId)
            and is_display_text(self.title, TITLE_MAX_LENGTH)
            and is_display_text(self.description, DESCRIPTION_MAX_LENGTH)
            and isinstance(self.version, PluginVersion)
            and isinstance(self.requires, HostApiRange)
        )

    def _valid_contents(self) -> bool:
        return (
            _valid_capabilities(self.capabilities)
            and isinstance(self.configuration, ConfigurationDeclaration)
            and _valid_secret_references(self.secret_references)
            and _is_small_version(self.data_schema_version)
            and isinstance(self.authority, AuthorityDeclaration)
        )


def _as_tuple(values: object) -> object:
    return tuple(values) if isinstance(values, list | tuple) else values


def _valid_capabilities(capabilities: object) -> bool:
    if not isinstance(capabilities, tuple) or not 1 <= len(capabilities) <= MAX_CAPABILITIES:
        return False
    if not all(isinstance(item, CapabilityDeclaration) for item in capabilities):
        return False
    keys = {(item.kind, item.local_id) for item in capabilities}
    return len(keys) == len(capabilities)


def _valid_secret_references(references: object) -> bool:
    if not isinstance(references, tuple) or len(references) > MAX_SECRET_REFERENCES:
        return False
    if not all(_is_local_id(reference) for reference in references):
        return False
    return len(set(references)) == len(references)


def _is_local_id(value: object) -> bool:
    try:
        CapabilityLocalId(value)  # type: ignore[arg-type]
    except ValueError:
        return False
    return True
