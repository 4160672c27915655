"""The trusted Mnemosyne adapter: its plugin definition and its gate-selected contribution.

The Tools are declared once each (``tools/``); this module lists them in declaration order,
derives the plugin definition that the packaged ``manifest.json`` must equal, and activates
the Tools whose operator gates are on.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from mymcp.mcp.tool_registry import ToolRegistration
from mymcp.plugin import (
    ActivatedTool,
    AuthorityDeclaration,
    CapabilityDeclaration,
    CapabilityKind,
    CapabilityLocalId,
    ConfigurationDeclaration,
    FilesystemAuthority,
    HostApiRange,
    HostApiVersion,
    ObjectSchemaNode,
    PluginContribution,
    PluginDefinition,
    PluginId,
    PluginVersion,
    QualifiedCapabilityId,
)
from mymcp.plugins.mnemosyne import configuration
from mymcp.plugins.mnemosyne.configuration import MutationSettings
from mymcp.plugins.mnemosyne.memory.store import MemoryStore
from mymcp.plugins.mnemosyne.tools import inspect, lifecycle, listing, recall, remember, revise
from mymcp.plugins.mnemosyne.tools.framework import MemoryTool

PLUGIN_ID = "mnemosyne"
PLUGIN_VERSION = "0.1.0"
CAPABILITY_VERSION = "1.0.0"

# Declaration order: the manifest's order, and so the order of tools/list.
DECLARED_TOOLS: tuple[MemoryTool, ...] = (
    recall.TOOL,
    listing.TOOL,
    inspect.TOOL,
    lifecycle.ARCHIVE,
    lifecycle.RESTORE,
    remember.TOOL,
    revise.TOOL,
    lifecycle.FORGET,
)


class MnemosyneContext:
    """What every Mnemosyne Tool call shares: one store (and its cache) for the process."""

    def __init__(self, store: MemoryStore) -> None:
        self._store = store

    @property
    def store(self) -> MemoryStore:
        return self._store

    def memory_root(self) -> Path:
        return configuration.resolve_memory_root()


def mnemosyne_plugin_definition() -> PluginDefinition:
    """The definition the packaged manifest must match exactly."""
    capabilities = tuple(
        CapabilityDeclaration(
            CapabilityKind.TOOL,
            CapabilityLocalId(tool.name),
            PluginVersion(CAPABILITY_VERSION),
            tool.effects,
            tool.consent,
        )
        for tool in DECLARED_TOOLS
    )
    return PluginDefinition(
        manifest_version=1,
        plugin_id=PluginId(PLUGIN_ID),
        title="Mnemosyne",
        description="User-governed local memory for MyMCP.",
        version=PluginVersion(PLUGIN_VERSION),
        requires=HostApiRange(HostApiVersion(1), HostApiVersion(1)),
        capabilities=capabilities,
        configuration=ConfigurationDeclaration(1, ObjectSchemaNode()),
        secret_references=(),
        data_schema_version=1,
        authority=AuthorityDeclaration(
            (FilesystemAuthority.DATA_READ, FilesystemAuthority.DATA_WRITE), False
        ),
    )


def mnemosyne_contribution() -> PluginContribution:
    """The contribution for this process: operator gates are resolved here, once."""
    return build_mnemosyne_contribution(configuration.load_mutation_settings())


def build_mnemosyne_contribution(
    settings: MutationSettings, *, store: MemoryStore | None = None
) -> PluginContribution:
    """The always-on read Tools plus each mutation Tool whose gate is enabled."""
    context = MnemosyneContext(store or MemoryStore())
    tools = [
        ActivatedTool(
            QualifiedCapabilityId(
                PluginId(PLUGIN_ID), CapabilityKind.TOOL, CapabilityLocalId(tool.name)
            ),
            tool.definition(),
            partial(tool.invoke, context=context),
            tool.effects,
            tool.consent,
        )
        for tool in DECLARED_TOOLS
        if tool.gate is None or settings.enabled(tool.gate)
    ]
    return PluginContribution(PluginId(PLUGIN_ID), PluginVersion(PLUGIN_VERSION), tools)


def build_mnemosyne_registrations(
    settings: MutationSettings, *, store: MemoryStore | None = None
) -> tuple[ToolRegistration, ...]:
    """The gate-selected Tools as plain registrations, named by their capability ids."""
    contribution = build_mnemosyne_contribution(settings, store=store)
    return tuple(ToolRegistration(tool.tool, tool.handler) for tool in contribution.tools)
