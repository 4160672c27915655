"""Compose plugin contributions and public bindings into the one Tool surface a host serves.

``compose_tool_surface`` checks every contribution and binding first, in a fixed order,
and builds nothing unless all of them pass. Each selected Tool is then published under
its public name, with MCP annotations derived from its declared effects, behind the
host's own ``list_tools`` Tool.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import NoReturn, TypeVar

from mymcp.jsonvalue import JsonObject
from mymcp.mcp import list_tools
from mymcp.mcp.tool_registry import ToolRegistration, ToolRegistry
from mymcp.plugin_api.contracts import (
    ActivatedTool,
    ConsentRequirement,
    HostToolOrigin,
    PluginContribution,
    PluginId,
    PluginVersion,
    PublicToolBinding,
    QualifiedCapabilityId,
    ToolEffects,
)

__all__ = [
    "HOST_TOOL_NAME",
    "RESERVED_NAME_PREFIX",
    "ActivatedTool",
    "ComposedToolSurface",
    "HostRegistrationFactory",
    "HostToolOrigin",
    "PluginContribution",
    "ToolOrigin",
    "ToolRegistration",
    "compose_tool_surface",
]

HOST_TOOL_NAME = list_tools.NAME
RESERVED_NAME_PREFIX = "mymcp_"

ToolOrigin = HostToolOrigin | QualifiedCapabilityId
HostRegistrationFactory = Callable[[tuple[JsonObject, ...]], ToolRegistration]

_T = TypeVar("_T")


@dataclass(frozen=True, kw_only=True)
class ComposedToolSurface:
    """The composed result: registry, plugin inventory and read-only metadata views.

    ``origins`` maps every public Tool name to the host or to a capability;
    ``effects``, ``consent`` and ``bindings`` (public name) are keyed by capability.
    """

    registry: ToolRegistry
    plugin_inventory: tuple[tuple[PluginId, PluginVersion], ...]
    origins: Mapping[str, ToolOrigin]
    effects: Mapping[QualifiedCapabilityId, ToolEffects]
    consent: Mapping[QualifiedCapabilityId, ConsentRequirement]
    bindings: Mapping[QualifiedCapabilityId, str]
    instructions: str = ""


def _fail(message: str) -> NoReturn:
    raise ValueError(message)


def _snapshot(items: object, item_type: type[_T], message: str) -> tuple[_T, ...]:
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Iterable):
        _fail(message)
    snapshot = tuple(items)
    if not all(isinstance(item, item_type) for item in snapshot):
        _fail(message)
    return snapshot


def _selected_tools(contributions: tuple[PluginContribution, ...]) -> list[ActivatedTool]:
    plugin_ids: set[PluginId] = set()
    capabilities: set[QualifiedCapabilityId] = set()
    selected: list[ActivatedTool] = []
    for contribution in contributions:
        if contribution.plugin_id in plugin_ids:
            _fail("duplicate plugin id")
        plugin_ids.add(contribution.plugin_id)
        for tool in contribution.tools:
            if tool.capability.plugin_id != contribution.plugin_id:
                _fail("capability plugin mismatch")
            if tool.capability in capabilities:
                _fail("duplicate qualified capability")
            capabilities.add(tool.capability)
            selected.append(tool)
    return selected


def _is_reserved(name: str) -> bool:
    # Compared case-insensitively so look-alike names cannot shadow the host's namespace.
    folded = name.lower()
    return folded == HOST_TOOL_NAME or folded.startswith(RESERVED_NAME_PREFIX)


def _public_names(
    bindings: tuple[PublicToolBinding, ...], selected: list[ActivatedTool]
) -> dict[QualifiedCapabilityId, str]:
    selectable = {tool.capability for tool in selected}
    names: dict[QualifiedCapabilityId, str] = {}
    for binding in bindings:
        if binding.capability in names:
            _fail("duplicate capability binding")
        if binding.capability not in selectable:
            _fail("unknown capability binding")
        if _is_reserved(binding.public_name):
            _fail("reserved public tool name")
        if binding.public_name in names.values():
            _fail("duplicate public tool name")
        names[binding.capability] = binding.public_name
    if len(names) != len(selectable):
        _fail("missing capability binding")
    return names


def _projected(tool: ActivatedTool, public_name: str) -> JsonObject:
    definition = tool.tool
    definition["name"] = public_name
    definition["annotations"] = tool.effects.annotations()
    return definition


def _host_registration(
    factory: HostRegistrationFactory, projected: list[JsonObject]
) -> ToolRegistration:
    registration = factory(tuple(copy.deepcopy(projected)))
    if not (
        isinstance(registration, ToolRegistration)
        and isinstance(registration.tool, Mapping)
        and registration.tool.get("name") == HOST_TOOL_NAME
    ):
        _fail("invalid host tool registration")
    return registration


def compose_tool_surface(
    contributions: Iterable[PluginContribution],
    bindings: Iterable[PublicToolBinding],
    host_registration_factory: HostRegistrationFactory,
) -> ComposedToolSurface:
    """Check and compose plugin Tools into one surface, ``list_tools`` first.

    Plugin Tools follow in contribution order (not binding order), each under its bound
    public name. ``host_registration_factory`` receives the projected plugin definitions
    and must return the ``list_tools`` registration. Any failure raises ``ValueError``
    before the factory is called or anything is built.
    """
    contribution_items = _snapshot(contributions, PluginContribution, "invalid plugin contribution")
    binding_items = _snapshot(bindings, PublicToolBinding, "invalid public tool binding")
    selected = _selected_tools(contribution_items)
    names = _public_names(binding_items, selected)

    projected = [_projected(tool, names[tool.capability]) for tool in selected]
    host = _host_registration(host_registration_factory, projected)
    plugin_registrations = [
        ToolRegistration(definition, tool.handler)
        for definition, tool in zip(projected, selected, strict=True)
    ]
    registry = ToolRegistry((host, *plugin_registrations))

    origins: dict[str, ToolOrigin] = {HOST_TOOL_NAME: HostToolOrigin.HOST}
    origins.update((names[tool.capability], tool.capability) for tool in selected)
    return ComposedToolSurface(
        registry=registry,
        plugin_inventory=tuple((item.plugin_id, item.version) for item in contribution_items),
        origins=MappingProxyType(origins),
        effects=MappingProxyType({tool.capability: tool.effects for tool in selected}),
        consent=MappingProxyType({tool.capability: tool.consent for tool in selected}),
        bindings=MappingProxyType({tool.capability: names[tool.capability] for tool in selected}),
        instructions="\n\n".join(
            item.instructions for item in contribution_items if item.instructions
        ),
    )
