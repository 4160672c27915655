"""``HostRuntime``: the immutable result of composing plugin Tools behind the host."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from mymcp import plugin_api
from mymcp.mcp.tool_registry import ToolRegistration, ToolRegistry

_GENERATION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._~-]{0,127}")


@dataclass(frozen=True)
class RuntimeGenerationId:
    """An opaque name for one composed runtime; never shown to clients."""

    value: str

    def __post_init__(self) -> None:
        if not isinstance(self.value, str) or not _GENERATION.fullmatch(self.value):
            raise ValueError("invalid runtime generation id")

    @classmethod
    def new(cls) -> RuntimeGenerationId:
        # 128 random bits as 32 hex digits (the uuid module costs a start 3 ms to import).
        return cls(f"generation_{os.urandom(16).hex()}")


@dataclass(frozen=True, kw_only=True)
class HostRuntime(plugin_api.ComposedToolSurface):
    """The Tool registry one app serves, with the trusted metadata behind each Tool.

    A composed surface (its registry, plugin inventory and metadata mappings) named by a
    generation. The mappings are read-only views of copies the runtime owns.
    """

    generation: RuntimeGenerationId = field(default_factory=RuntimeGenerationId.new)

    def __post_init__(self) -> None:
        if not isinstance(self.registry, ToolRegistry) or not isinstance(
            self.generation, RuntimeGenerationId
        ):
            raise ValueError("invalid host runtime")
        object.__setattr__(self, "plugin_inventory", tuple(self.plugin_inventory))
        for name in ("origins", "effects", "consent", "bindings"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))


def build_host_runtime(
    contributions: Iterable[plugin_api.PluginContribution],
    bindings: Iterable[plugin_api.PublicToolBinding],
    host_registration_factory: Callable[[Sequence[Mapping[str, Any]]], ToolRegistration],
    *,
    generation_factory: Callable[[], RuntimeGenerationId | str] = RuntimeGenerationId.new,
) -> HostRuntime:
    """Compose the surface, then name the generation; any failure builds nothing.

    ``generation_factory`` may return a :class:`RuntimeGenerationId` or its plain string
    value; a string is checked by the same rule.
    """
    surface = plugin_api.compose_tool_surface(
        tuple(contributions), tuple(bindings), host_registration_factory
    )
    generation = generation_factory()
    if not isinstance(generation, RuntimeGenerationId):  # a string, checked by the same rule
        generation = RuntimeGenerationId(generation)
    parts = {part.name: getattr(surface, part.name) for part in dataclasses.fields(surface)}
    return HostRuntime(**parts, generation=generation)
