"""Sample manifests and definitions shared by the plugin contract tests.

``mnemosyne_manifest()`` mirrors the bundled Mnemosyne declaration; the tests own this
copy so they do not depend on the packaged resource.
"""

from __future__ import annotations

import json
from typing import Any

from mymcp.plugin_api import (
    ActivatedTool,
    AuthorityDeclaration,
    CapabilityDeclaration,
    CapabilityKind,
    CapabilityLocalId,
    ConfigurationDeclaration,
    ConsentRequirement,
    FilesystemAuthority,
    HostApiRange,
    HostApiVersion,
    ObjectSchemaNode,
    PluginContribution,
    PluginDefinition,
    PluginId,
    PluginVersion,
    QualifiedCapabilityId,
    ToolEffects,
)

READ = ToolEffects(read_only=True, destructive=False, idempotent=True, open_world=False)
WRITE = ToolEffects(read_only=False, destructive=False, idempotent=True, open_world=False)
DESTROY = ToolEffects(read_only=False, destructive=True, idempotent=True, open_world=False)

# (local id, effects, consent) in declaration order.
MNEMOSYNE_CAPABILITIES: tuple[tuple[str, ToolEffects, ConsentRequirement], ...] = (
    ("memory_recall", READ, ConsentRequirement.NONE),
    ("memory_list", READ, ConsentRequirement.NONE),
    ("memory_inspect", READ, ConsentRequirement.NONE),
    ("memory_archive", WRITE, ConsentRequirement.PER_CALL),
    ("memory_restore", WRITE, ConsentRequirement.PER_CALL),
    ("memory_remember", WRITE, ConsentRequirement.PER_CALL),
    ("memory_revise", DESTROY, ConsentRequirement.PER_CALL),
    ("memory_forget", DESTROY, ConsentRequirement.PER_CALL),
)
MNEMOSYNE_ID = PluginId("mnemosyne")
MNEMOSYNE_VERSION = PluginVersion("0.1.0")


def capability_entry(
    local_id: str, effects: ToolEffects = READ, consent: str = "none"
) -> dict[str, Any]:
    return {
        "kind": "tool",
        "id": local_id,
        "version": "1.0.0",
        "read_only": effects.read_only,
        "destructive": effects.destructive,
        "idempotent": effects.idempotent,
        "open_world": effects.open_world,
        "consent": consent,
    }


def mnemosyne_manifest() -> dict[str, Any]:
    """A fresh, valid manifest object equal in content to the bundled Mnemosyne one."""
    return {
        "$schema": "https://mymcp.local/schemas/plugin-manifest-v1.json",
        "manifest_version": 1,
        "id": "mnemosyne",
        "title": "Mnemosyne",
        "description": "User-governed local memory for MyMCP.",
        "version": "0.1.0",
        "requires": {"host_api": {"min": 1, "max": 1}},
        "capabilities": [
            capability_entry(local_id, effects, consent.value)
            for local_id, effects, consent in MNEMOSYNE_CAPABILITIES
        ],
        "configuration": {
            "schema_version": 1,
            "schema": {
                "type": "object",
                "properties": {},
                "required": [],
                "additionalProperties": False,
            },
        },
        "secret_references": [],
        "data_schema_version": 1,
        "authority": {"filesystem": ["data_read", "data_write"], "network": False},
    }


def encode(manifest: object) -> bytes:
    return json.dumps(manifest, indent=2).encode("utf-8")


def mnemosyne_definition() -> PluginDefinition:
    """The definition an adapter would hard-code for the sample manifest."""
    return PluginDefinition(
        manifest_version=1,
        plugin_id=MNEMOSYNE_ID,
        title="Mnemosyne",
        description="User-governed local memory for MyMCP.",
        version=MNEMOSYNE_VERSION,
        requires=HostApiRange(HostApiVersion(1), HostApiVersion(1)),
        capabilities=tuple(
            CapabilityDeclaration(
                CapabilityKind.TOOL,
                CapabilityLocalId(local_id),
                PluginVersion("1.0.0"),
                effects,
                consent,
            )
            for local_id, effects, consent in MNEMOSYNE_CAPABILITIES
        ),
        configuration=ConfigurationDeclaration(1, ObjectSchemaNode()),
        secret_references=(),
        data_schema_version=1,
        authority=AuthorityDeclaration(
            (FilesystemAuthority.DATA_READ, FilesystemAuthority.DATA_WRITE), network=False
        ),
    )


def capability(local_id: str, plugin_id: str = "mnemosyne") -> QualifiedCapabilityId:
    return QualifiedCapabilityId(
        PluginId(plugin_id), CapabilityKind.TOOL, CapabilityLocalId(local_id)
    )


def tool_definition(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"Sample tool {name}.",
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
    }


def echo_handler(arguments: dict[str, Any]) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": "ok"}], "echo": arguments}


def activated(
    local_id: str,
    plugin_id: str = "mnemosyne",
    effects: ToolEffects = READ,
    consent: ConsentRequirement = ConsentRequirement.NONE,
) -> ActivatedTool:
    return ActivatedTool(
        capability(local_id, plugin_id), tool_definition(local_id), echo_handler, effects, consent
    )


def mnemosyne_tools(*local_ids: str) -> tuple[ActivatedTool, ...]:
    """Activated tools with the declared metadata, for the given ids (all when none given)."""
    metadata = {
        local_id: (effects, consent) for local_id, effects, consent in MNEMOSYNE_CAPABILITIES
    }
    chosen = local_ids or tuple(metadata)
    return tuple(activated(local_id, "mnemosyne", *metadata[local_id]) for local_id in chosen)


def mnemosyne_contribution(*local_ids: str) -> PluginContribution:
    return PluginContribution(MNEMOSYNE_ID, MNEMOSYNE_VERSION, mnemosyne_tools(*local_ids))
