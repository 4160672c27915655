"""Inert declarations of what a plugin is, as opposed to what it does at runtime.

A ``PluginDefinition`` is what a manifest says and what a plugin adapter hard-codes; the
host compares the two for exact, order-sensitive equality before activating anything.
Declarations carry no handlers, Tool schemas, public names, configuration values or
granted authority. They are plain frozen values: the manifest reader
(``plugin/manifest.py``) checks every rule before it builds one, and an adapter's
hard-coded definition is checked against the manifest's.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

from mymcp.plugin_api.contracts import (
    CapabilityKind,
    CapabilityLocalId,
    ConsentRequirement,
    PluginId,
    PluginVersion,
    ToolEffects,
)

__all__ = [
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
]


@dataclass(frozen=True, order=True)
class HostApiVersion:
    """A version of the host's plugin API: an integer from 1 to 255."""

    value: int


@dataclass(frozen=True)
class HostApiRange:
    """The inclusive range of host API versions a plugin supports."""

    minimum: HostApiVersion
    maximum: HostApiVersion

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


@dataclass(frozen=True)
class ArraySchemaNode:
    """A configuration array whose items all follow one node."""

    items: ConfigurationSchemaNode

    @property
    def type(self) -> SchemaType:
        return SchemaType.ARRAY


@dataclass(frozen=True)
class ObjectSchemaNode:
    """A closed configuration object: named properties in order, no additional ones.

    ``properties`` is a tuple of ``(name, node)`` pairs so that order takes part in
    equality.
    """

    properties: tuple[tuple[str, ConfigurationSchemaNode], ...] = ()
    required: tuple[str, ...] = ()

    @property
    def type(self) -> SchemaType:
        return SchemaType.OBJECT

    @property
    def additional_properties(self) -> bool:
        return False


ConfigurationSchemaNode: TypeAlias = ScalarSchemaNode | ArraySchemaNode | ObjectSchemaNode


@dataclass(frozen=True)
class ConfigurationDeclaration:
    """The shape of a plugin's operator configuration (never its values)."""

    schema_version: int
    schema: ObjectSchemaNode


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
