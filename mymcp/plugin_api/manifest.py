"""Strict reader for manifest v1 and the parity check between manifest, adapter and runtime.

``parse_manifest_bytes`` turns the bytes of a ``manifest.json`` into a ``PluginDefinition``;
``parse_manifest_mapping`` does the same from an already decoded JSON object.
``validate_plugin_contract`` then checks that the adapter's hard-coded definition, the
manifest and the Tools the plugin actually activates all agree.

Every failure is a ``PluginContractError`` carrying a stable ``code`` and a fixed message
that never repeats the input. Checks run in a fixed order and the first failure wins. The
module performs no I/O.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any, NoReturn, ParamSpec, TypeGuard, TypeVar

from mymcp import jsonvalue
from mymcp.plugin_api.contracts import (
    CapabilityKind,
    CapabilityLocalId,
    ConsentRequirement,
    PluginContribution,
    PluginId,
    PluginVersion,
    ToolEffects,
)
from mymcp.plugin_api.definition import (
    ArraySchemaNode,
    AuthorityDeclaration,
    CapabilityDeclaration,
    ConfigurationDeclaration,
    ConfigurationSchemaNode,
    FilesystemAuthority,
    HostApiRange,
    HostApiVersion,
    ObjectSchemaNode,
    PluginDefinition,
    ScalarSchemaNode,
    SchemaType,
)

__all__ = [
    "CONFIGURATION_SCHEMA_VERSION",
    "DESCRIPTION_MAX_LENGTH",
    "MANIFEST_MAX_BYTES",
    "MANIFEST_VERSION",
    "MAX_CAPABILITIES",
    "MAX_SCHEMA_DEPTH",
    "MAX_SCHEMA_PROPERTIES",
    "MAX_SECRET_REFERENCES",
    "SMALL_VERSION_MAX",
    "TITLE_MAX_LENGTH",
    "PluginContractError",
    "PluginContractErrorCode",
    "is_display_text",
    "parse_manifest_bytes",
    "parse_manifest_mapping",
    "validate_plugin_contract",
]

MANIFEST_MAX_BYTES = 65536
MANIFEST_VERSION = 1
CONFIGURATION_SCHEMA_VERSION = 1
SMALL_VERSION_MAX = 255
MAX_CAPABILITIES = 64
MAX_SECRET_REFERENCES = 32
MAX_SCHEMA_PROPERTIES = 32
MAX_SCHEMA_DEPTH = 4
TITLE_MAX_LENGTH = 128
DESCRIPTION_MAX_LENGTH = 4096
_SCHEMA_IDENTIFIER_MAX = 2048

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


class PluginContractErrorCode(StrEnum):
    """Stable codes for every way a manifest or a plugin contract can be rejected."""

    MANIFEST_RESOURCE_INVALID = "manifest_resource_invalid"
    MANIFEST_RESOURCE_TOO_LARGE = "manifest_resource_too_large"
    MANIFEST_RESOURCE_INVALID_UTF8 = "manifest_resource_invalid_utf8"
    MANIFEST_RESOURCE_DUPLICATE_KEY = "manifest_resource_duplicate_key"
    MANIFEST_RESOURCE_INVALID_JSON = "manifest_resource_invalid_json"
    MANIFEST_ROOT_INVALID = "manifest_root_invalid"
    MANIFEST_UNKNOWN_FIELD = "manifest_unknown_field"
    MANIFEST_MISSING_FIELD = "manifest_missing_field"
    MANIFEST_INVALID_FIELD = "manifest_invalid_field"
    MANIFEST_VERSION_UNSUPPORTED = "manifest_version_unsupported"
    MANIFEST_CAPABILITY_KIND_UNSUPPORTED = "manifest_capability_kind_unsupported"
    MANIFEST_DUPLICATE_CAPABILITY = "manifest_duplicate_capability"
    MANIFEST_CONFIGURATION_SCHEMA_INVALID = "manifest_configuration_schema_invalid"
    MANIFEST_DUPLICATE_SECRET_REFERENCE = "manifest_duplicate_secret_reference"
    MANIFEST_AUTHORITY_INVALID = "manifest_authority_invalid"
    DEFINITION_MANIFEST_MISMATCH = "definition_manifest_mismatch"
    HOST_API_INCOMPATIBLE = "host_api_incompatible"
    CONTRIBUTION_PLUGIN_MISMATCH = "contribution_plugin_mismatch"
    CONTRIBUTION_VERSION_MISMATCH = "contribution_version_mismatch"
    DUPLICATE_SELECTED_CAPABILITY = "duplicate_selected_capability"
    UNDECLARED_CAPABILITY = "undeclared_capability"
    CAPABILITY_METADATA_MISMATCH = "capability_metadata_mismatch"
    CAPABILITY_ORDER_MISMATCH = "capability_order_mismatch"


_Code = PluginContractErrorCode
_CONTAINS = "plugin manifest contains "

_DEFAULT_MESSAGES: dict[PluginContractErrorCode, str] = {
    _Code.MANIFEST_RESOURCE_INVALID: "plugin manifest resource must be bytes",
    _Code.MANIFEST_RESOURCE_TOO_LARGE: "plugin manifest resource is too large",
    _Code.MANIFEST_RESOURCE_INVALID_UTF8: "plugin manifest resource is not valid UTF-8",
    _Code.MANIFEST_RESOURCE_DUPLICATE_KEY: "plugin manifest resource contains a duplicate key",
    _Code.MANIFEST_RESOURCE_INVALID_JSON: "plugin manifest resource is not valid JSON",
    _Code.MANIFEST_ROOT_INVALID: "plugin manifest root must be an object",
    _Code.MANIFEST_UNKNOWN_FIELD: _CONTAINS + "an unknown field",
    _Code.MANIFEST_MISSING_FIELD: "plugin manifest is missing a required field",
    _Code.MANIFEST_INVALID_FIELD: _CONTAINS + "an invalid field",
    _Code.MANIFEST_VERSION_UNSUPPORTED: "plugin manifest version is unsupported",
    _Code.MANIFEST_CAPABILITY_KIND_UNSUPPORTED: (
        "plugin manifest declares an unsupported capability kind"
    ),
    _Code.MANIFEST_DUPLICATE_CAPABILITY: _CONTAINS + "a duplicate capability",
    _Code.MANIFEST_CONFIGURATION_SCHEMA_INVALID: _CONTAINS + "an invalid configuration schema",
    _Code.MANIFEST_DUPLICATE_SECRET_REFERENCE: _CONTAINS + "a duplicate secret reference",
    _Code.MANIFEST_AUTHORITY_INVALID: _CONTAINS + "an invalid authority declaration",
    _Code.DEFINITION_MANIFEST_MISMATCH: "plugin definition does not match manifest",
    _Code.HOST_API_INCOMPATIBLE: "plugin does not support the host API",
    _Code.CONTRIBUTION_PLUGIN_MISMATCH: "plugin contribution identity does not match definition",
    _Code.CONTRIBUTION_VERSION_MISMATCH: "plugin contribution version does not match definition",
    _Code.DUPLICATE_SELECTED_CAPABILITY: (
        "plugin contribution selects a capability more than once"
    ),
    _Code.UNDECLARED_CAPABILITY: "plugin contribution selects an undeclared capability",
    _Code.CAPABILITY_METADATA_MISMATCH: "selected capability metadata does not match definition",
    _Code.CAPABILITY_ORDER_MISMATCH: "selected capability order does not match definition",
}

# Finer wordings of manifest_invalid_field, naming which kind of value was wrong.
_INVALID_OBJECT = _CONTAINS + "an invalid object"
_INVALID_ARRAY = _CONTAINS + "an invalid array"
_INVALID_BOOLEAN = _CONTAINS + "an invalid boolean"
_INVALID_CAPABILITY_FIELD = _CONTAINS + "an invalid capability field"
_INVALID_SCHEMA_IDENTIFIER = _CONTAINS + "an invalid schema identifier"
_INVALID_SECRET_REFERENCE = _CONTAINS + "an invalid secret reference"


class PluginContractError(ValueError):
    """A manifest or plugin contract was rejected; ``code`` says why.

    The message is one of a fixed set of sentences and never contains input or paths.
    """

    def __init__(self, code: PluginContractErrorCode, message: str | None = None) -> None:
        self.code = PluginContractErrorCode(code)
        self.message = _DEFAULT_MESSAGES[self.code] if message is None else message
        super().__init__(self.message)

    def __reduce__(self) -> tuple[type[PluginContractError], tuple[str, str]]:
        return (type(self), (self.code, self.message))


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _contract_boundary(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Let contract errors leave the public functions with no chained cause or context."""

    @functools.wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return function(*args, **kwargs)
        except PluginContractError as error:
            error.__cause__ = None
            error.__context__ = None
            error.__suppress_context__ = True
            raise

    return wrapper


def _fail(code: PluginContractErrorCode, message: str | None = None) -> NoReturn:
    raise PluginContractError(code, message)


# --- bytes -------------------------------------------------------------------------------


def _decode_json(text: str) -> object:
    # Overflowing numbers pass here; no manifest field takes a float.
    try:
        return jsonvalue.decode(text, unique_keys=True, allow_overflow=True)
    except jsonvalue.DuplicateKey:
        _fail(_Code.MANIFEST_RESOURCE_DUPLICATE_KEY)
    except jsonvalue.JsonError:
        _fail(_Code.MANIFEST_RESOURCE_INVALID_JSON)


@_contract_boundary
def parse_manifest_bytes(source: bytes) -> PluginDefinition:
    """Parse the raw bytes of a manifest v1 resource into a ``PluginDefinition``.

    The bytes must be strict UTF-8 JSON of at most 64 KiB, with no duplicate keys, no
    byte order mark and no non-finite number literals, and the root must be an object.
    """
    if not isinstance(source, bytes):
        _fail(_Code.MANIFEST_RESOURCE_INVALID)
    if len(source) > MANIFEST_MAX_BYTES:
        _fail(_Code.MANIFEST_RESOURCE_TOO_LARGE)
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError:
        _fail(_Code.MANIFEST_RESOURCE_INVALID_UTF8)
    document = _decode_json(text)
    if not isinstance(document, dict):
        _fail(_Code.MANIFEST_ROOT_INVALID)
    return parse_manifest_mapping(document)


# --- generic shapes ----------------------------------------------------------------------


def _is_object(value: object) -> TypeGuard[Mapping[str, Any]]:
    return isinstance(value, Mapping) and all(isinstance(key, str) for key in value)


def _closed_object(
    value: object,
    required: tuple[str, ...],
    *,
    optional: tuple[str, ...] = (),
    code: PluginContractErrorCode = _Code.MANIFEST_INVALID_FIELD,
    message: str | None = _INVALID_OBJECT,
) -> Mapping[str, Any]:
    """Check ``value`` is an object whose keys are exactly the allowed ones."""
    if not _is_object(value):
        _fail(code, message)
    allowed = required + optional
    if any(key not in allowed for key in value):
        _fail(_Code.MANIFEST_UNKNOWN_FIELD)
    if any(key not in value for key in required):
        _fail(_Code.MANIFEST_MISSING_FIELD)
    return value


def _array(value: object, message: str = _INVALID_ARRAY) -> list[Any]:
    if not isinstance(value, list):
        _fail(_Code.MANIFEST_INVALID_FIELD, message)
    return value


def _is_integer(value: object) -> TypeGuard[int]:
    return type(value) is int


def _typed(factory: Callable[[Any], _R], value: object, message: str | None = None) -> _R:
    """Build a validated value, turning its ValueError into manifest_invalid_field."""
    try:
        return factory(value)
    except ValueError:
        _fail(_Code.MANIFEST_INVALID_FIELD, message)


# --- fields ------------------------------------------------------------------------------

_ROOT_FIELDS = (
    "manifest_version",
    "id",
    "title",
    "description",
    "version",
    "requires",
    "capabilities",
    "configuration",
    "secret_references",
    "data_schema_version",
    "authority",
)
_EFFECT_FIELDS = ("read_only", "destructive", "idempotent", "open_world")
_CAPABILITY_FIELDS = ("kind", "id", "version", *_EFFECT_FIELDS, "consent")
_CONSENT_VALUES = tuple(member.value for member in ConsentRequirement)
_FILESYSTEM_VALUES = tuple(member.value for member in FilesystemAuthority)
_SCHEMA_TYPE_VALUES = tuple(member.value for member in SchemaType)
_SCHEMA_NODE_KEYS = ("type", "properties", "required", "additionalProperties", "items")


def _check_schema_identifier(manifest: Mapping[str, Any]) -> None:
    value = manifest.get("$schema")
    if value is None:
        return
    valid = (
        isinstance(value, str)
        and 0 < len(value) <= _SCHEMA_IDENTIFIER_MAX
        and all(" " <= char != "\x7f" for char in value)
    )
    if not valid:
        _fail(_Code.MANIFEST_INVALID_FIELD, _INVALID_SCHEMA_IDENTIFIER)


def _check_manifest_version(value: object) -> None:
    if not (_is_integer(value) and value == MANIFEST_VERSION):
        _fail(_Code.MANIFEST_VERSION_UNSUPPORTED)


def _host_api_shape(value: object) -> Mapping[str, Any]:
    requires = _closed_object(value, ("host_api",))
    return _closed_object(requires["host_api"], ("min", "max"))


def _host_api_range(host_api: Mapping[str, Any]) -> HostApiRange:
    minimum = HostApiVersion(_small_version(host_api["min"]))
    maximum = HostApiVersion(_small_version(host_api["max"]))
    if minimum > maximum:
        _fail(_Code.MANIFEST_INVALID_FIELD)
    return HostApiRange(minimum, maximum)


def _capability(value: object) -> CapabilityDeclaration:
    item = _closed_object(value, _CAPABILITY_FIELDS)
    if item["kind"] != CapabilityKind.TOOL.value:
        _fail(_Code.MANIFEST_CAPABILITY_KIND_UNSUPPORTED)
    local_id = _typed(CapabilityLocalId, item["id"], _INVALID_CAPABILITY_FIELD)
    version = _typed(PluginVersion, item["version"], _INVALID_CAPABILITY_FIELD)
    flags = [item[name] for name in _EFFECT_FIELDS]
    if any(not isinstance(flag, bool) for flag in flags):
        _fail(_Code.MANIFEST_INVALID_FIELD, _INVALID_BOOLEAN)
    effects = _typed(lambda values: ToolEffects(*values), flags, _INVALID_CAPABILITY_FIELD)
    consent = item["consent"]
    if not (isinstance(consent, str) and consent in _CONSENT_VALUES):
        _fail(_Code.MANIFEST_INVALID_FIELD, _INVALID_CAPABILITY_FIELD)
    return CapabilityDeclaration(
        CapabilityKind.TOOL, local_id, version, effects, ConsentRequirement(consent)
    )


def _capabilities(value: object) -> tuple[CapabilityDeclaration, ...]:
    declarations = tuple(_capability(item) for item in _array(value))
    keys = {(declaration.kind, declaration.local_id) for declaration in declarations}
    if len(keys) != len(declarations):
        _fail(_Code.MANIFEST_DUPLICATE_CAPABILITY)
    return declarations


def _secret_references(value: object) -> tuple[str, ...]:
    references = tuple(
        _typed(CapabilityLocalId, item, _INVALID_SECRET_REFERENCE).value for item in _array(value)
    )
    if len(set(references)) != len(references):
        _fail(_Code.MANIFEST_DUPLICATE_SECRET_REFERENCE)
    return references


def _display_text(value: object, limit: int) -> str:
    if not (isinstance(value, str) and is_display_text(value, limit)):
        _fail(_Code.MANIFEST_INVALID_FIELD)
    return value


def _small_version(value: object) -> int:
    """A host API or data schema version: an integer (not a boolean) from 1 to 255."""
    if not (_is_integer(value) and 1 <= value <= SMALL_VERSION_MAX):
        _fail(_Code.MANIFEST_INVALID_FIELD)
    return value


def _authority(value: object) -> AuthorityDeclaration:
    authority = _closed_object(
        value, ("filesystem", "network"), code=_Code.MANIFEST_AUTHORITY_INVALID, message=None
    )
    filesystem = authority["filesystem"]
    network = authority["network"]
    valid = (
        isinstance(filesystem, list)
        and all(isinstance(item, str) and item in _FILESYSTEM_VALUES for item in filesystem)
        and len(set(filesystem)) == len(filesystem)
        and isinstance(network, bool)
    )
    if not valid:
        _fail(_Code.MANIFEST_AUTHORITY_INVALID)
    return AuthorityDeclaration(
        tuple(FilesystemAuthority(item) for item in filesystem), bool(network)
    )


def _check_counts(capabilities: tuple[object, ...], secret_references: tuple[object, ...]) -> None:
    if not 1 <= len(capabilities) <= MAX_CAPABILITIES:
        _fail(_Code.MANIFEST_INVALID_FIELD, _INVALID_ARRAY)
    if len(secret_references) > MAX_SECRET_REFERENCES:
        _fail(_Code.MANIFEST_INVALID_FIELD, _INVALID_ARRAY)


# --- configuration schema ----------------------------------------------------------------

_SCHEMA_INVALID = _Code.MANIFEST_CONFIGURATION_SCHEMA_INVALID


def _configuration(value: object) -> ConfigurationDeclaration:
    configuration = _closed_object(value, ("schema_version", "schema"))
    schema_version = configuration["schema_version"]
    if not (_is_integer(schema_version) and schema_version == CONFIGURATION_SCHEMA_VERSION):
        _fail(_SCHEMA_INVALID)
    root = _schema_node(configuration["schema"], level=1)
    if not isinstance(root, ObjectSchemaNode):
        _fail(_SCHEMA_INVALID)
    return ConfigurationDeclaration(CONFIGURATION_SCHEMA_VERSION, root)


def _schema_node(value: object, *, level: int) -> ConfigurationSchemaNode:
    if level > MAX_SCHEMA_DEPTH or not _is_object(value):
        _fail(_SCHEMA_INVALID)
    if any(key not in _SCHEMA_NODE_KEYS for key in value):
        _fail(_Code.MANIFEST_UNKNOWN_FIELD)
    if "type" not in value:
        _fail(_Code.MANIFEST_MISSING_FIELD)
    kind = value["type"]
    if not (isinstance(kind, str) and kind in _SCHEMA_TYPE_VALUES):
        _fail(_SCHEMA_INVALID)
    if kind == SchemaType.OBJECT:
        return _object_node(value, level)
    if kind == SchemaType.ARRAY:
        _only_keys(value, ("type", "items"))
        if "items" not in value:
            _fail(_SCHEMA_INVALID)
        return ArraySchemaNode(_schema_node(value["items"], level=level + 1))
    _only_keys(value, ("type",))
    return ScalarSchemaNode(SchemaType(kind))


def _only_keys(node: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    if any(key not in allowed for key in node):
        _fail(_Code.MANIFEST_UNKNOWN_FIELD)


def _object_node(node: Mapping[str, Any], level: int) -> ObjectSchemaNode:
    _only_keys(node, ("type", "properties", "required", "additionalProperties"))
    if "properties" not in node or "additionalProperties" not in node:
        _fail(_SCHEMA_INVALID)
    properties = node["properties"]
    if not (
        _is_object(properties)
        and len(properties) <= MAX_SCHEMA_PROPERTIES
        and all(name for name in properties)
    ):
        _fail(_SCHEMA_INVALID)
    if node["additionalProperties"] is not False:
        _fail(_SCHEMA_INVALID)
    required = node.get("required", [])
    if not (
        isinstance(required, list)
        and all(isinstance(name, str) and name in properties for name in required)
        and len(set(required)) == len(required)
    ):
        _fail(_SCHEMA_INVALID)
    children = tuple(
        (name, _schema_node(child, level=level + 1)) for name, child in properties.items()
    )
    return ObjectSchemaNode(children, tuple(required))


# --- the whole manifest ------------------------------------------------------------------


@_contract_boundary
def parse_manifest_mapping(mapping: Mapping[str, Any]) -> PluginDefinition:
    """Validate a decoded manifest v1 object and build its ``PluginDefinition``.

    Arrays must be lists; checks run in the documented precedence order.
    """
    if not _is_object(mapping):
        _fail(_Code.MANIFEST_ROOT_INVALID)
    manifest = _closed_object(mapping, _ROOT_FIELDS, optional=("$schema",))
    _check_schema_identifier(manifest)
    _check_manifest_version(manifest["manifest_version"])
    host_api = _host_api_shape(manifest["requires"])
    capabilities = _capabilities(manifest["capabilities"])
    secret_references = _secret_references(manifest["secret_references"])
    plugin_id = _typed(PluginId, manifest["id"])
    title = _display_text(manifest["title"], TITLE_MAX_LENGTH)
    description = _display_text(manifest["description"], DESCRIPTION_MAX_LENGTH)
    version = _typed(PluginVersion, manifest["version"])
    requires = _host_api_range(host_api)
    configuration = _configuration(manifest["configuration"])
    data_schema_version = _small_version(manifest["data_schema_version"])
    authority = _authority(manifest["authority"])
    _check_counts(capabilities, secret_references)
    return PluginDefinition(
        manifest_version=MANIFEST_VERSION,
        plugin_id=plugin_id,
        title=title,
        description=description,
        version=version,
        requires=requires,
        capabilities=capabilities,
        configuration=configuration,
        secret_references=secret_references,
        data_schema_version=data_schema_version,
        authority=authority,
    )


# --- parity ------------------------------------------------------------------------------


@_contract_boundary
def validate_plugin_contract(
    *,
    manifest_definition: PluginDefinition,
    adapter_definition: PluginDefinition,
    contribution: PluginContribution,
    supported_host_api: HostApiVersion,
) -> None:
    """Check that manifest, adapter and activated Tools describe the same plugin.

    Returns None when they agree; otherwise raises the first ``PluginContractError`` in
    the documented order. Tool definitions and schemas are not compared.
    """
    if not (
        isinstance(manifest_definition, PluginDefinition)
        and isinstance(adapter_definition, PluginDefinition)
        and manifest_definition == adapter_definition
    ):
        _fail(_Code.DEFINITION_MANIFEST_MISMATCH)
    definition = manifest_definition
    if supported_host_api not in definition.requires:
        _fail(_Code.HOST_API_INCOMPATIBLE)
    if not (
        isinstance(contribution, PluginContribution)
        and contribution.plugin_id == definition.plugin_id
    ):
        _fail(_Code.CONTRIBUTION_PLUGIN_MISMATCH)
    if contribution.version != definition.version:
        _fail(_Code.CONTRIBUTION_VERSION_MISMATCH)
    selected = [tool.capability for tool in contribution.tools]
    if len(set(selected)) != len(selected):
        _fail(_Code.DUPLICATE_SELECTED_CAPABILITY)
    _check_selected_tools(definition, contribution)


def _check_selected_tools(definition: PluginDefinition, contribution: PluginContribution) -> None:
    positions = {
        (declaration.kind, declaration.local_id): index
        for index, declaration in enumerate(definition.capabilities)
    }
    order: list[int] = []
    for tool in contribution.tools:
        capability = tool.capability
        index = positions.get((capability.kind, capability.local_id))
        if capability.plugin_id != definition.plugin_id or index is None:
            _fail(_Code.UNDECLARED_CAPABILITY)
        declaration = definition.capabilities[index]
        if tool.effects != declaration.effects or tool.consent != declaration.consent:
            _fail(_Code.CAPABILITY_METADATA_MISMATCH)
        order.append(index)
    if order != sorted(order):
        _fail(_Code.CAPABILITY_ORDER_MISMATCH)
