"""Values a plugin hands to the host: identities, effect metadata, activated Tools.

Every value is immutable and checks itself when it is built, so a bad identity or an
inconsistent effect description fails at the plugin edge with a fixed ``ValueError``
message instead of surfacing later inside the host.

    PluginId, CapabilityLocalId, PluginVersion     validated text identities
    CapabilityKind, ConsentRequirement             closed string enums
    QualifiedCapabilityId                          (plugin, kind, local id), hashable
    ToolEffects                                    what calling a Tool may do
    PublicToolBinding                              capability -> name clients see
    HostToolOrigin                                 marks the host's own Tools
    ActivatedTool, PluginContribution              what a plugin offers at runtime
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from mymcp.jsonvalue import JsonObject
from mymcp.mcp.tool_registry import ToolHandler

__all__ = [
    "ActivatedTool",
    "CapabilityKind",
    "CapabilityLocalId",
    "ConsentRequirement",
    "HostToolOrigin",
    "PluginContribution",
    "PluginId",
    "PluginVersion",
    "PublicToolBinding",
    "QualifiedCapabilityId",
    "ToolEffects",
]

_IDENTITY_MAX = 64
_INSTRUCTIONS_MAX = 1000
_PUBLIC_NAME_MAX = 128
_PLUGIN_ID_RE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_LOCAL_ID_RE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
_NUMERIC = r"(?:0|[1-9][0-9]*)"
_PRERELEASE_PART = r"(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
_SEMVER_RE = re.compile(
    rf"{_NUMERIC}\.{_NUMERIC}\.{_NUMERIC}"
    rf"(?:-{_PRERELEASE_PART}(?:\.{_PRERELEASE_PART})*)?"
    r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"
)
_PUBLIC_NAME_RE = re.compile(r"[A-Za-z0-9_.-]{1,128}")


def _matches(pattern: re.Pattern[str], value: object, limit: int) -> bool:
    return isinstance(value, str) and len(value) <= limit and pattern.fullmatch(value) is not None


@dataclass(frozen=True)
class _Identity:
    """A text identity checked against its type's pattern (at most 64 characters)."""

    value: str
    _pattern: ClassVar[re.Pattern[str]]
    _error: ClassVar[str]

    def __post_init__(self) -> None:
        if not _matches(self._pattern, self.value, _IDENTITY_MAX):
            raise ValueError(self._error)

    def __str__(self) -> str:
        return self.value


class PluginId(_Identity):
    """A plugin's identity: lowercase kebab case, letter first, at most 64 characters."""

    _pattern = _PLUGIN_ID_RE
    _error = "invalid plugin id"


class CapabilityLocalId(_Identity):
    """A capability's name inside its plugin: lowercase snake case, at most 64 characters."""

    _pattern = _LOCAL_ID_RE
    _error = "invalid capability local id"


class PluginVersion(_Identity):
    """A strict SemVer 2.0.0 version (no ``v`` prefix, no leading zeros), at most 64 chars."""

    _pattern = _SEMVER_RE
    _error = "invalid plugin version"


class CapabilityKind(StrEnum):
    """The kinds of capability a plugin may declare; only Tools exist today."""

    TOOL = "tool"


class ConsentRequirement(StrEnum):
    """Whether a client should ask the user before each call of a Tool."""

    NONE = "none"
    PER_CALL = "per_call"


class HostToolOrigin(StrEnum):
    """Origin of a Tool the host itself provides (as opposed to a plugin capability)."""

    HOST = "host"


@dataclass(frozen=True)
class QualifiedCapabilityId:
    """A capability named globally: owning plugin, kind and local id."""

    plugin_id: PluginId
    kind: CapabilityKind
    local_id: CapabilityLocalId

    def __post_init__(self) -> None:
        if not (
            isinstance(self.plugin_id, PluginId)
            and isinstance(self.kind, CapabilityKind)
            and isinstance(self.local_id, CapabilityLocalId)
        ):
            raise ValueError("invalid qualified capability id")

    def __str__(self) -> str:
        return f"{self.plugin_id}/{self.kind}/{self.local_id}"


@dataclass(frozen=True)
class ToolEffects:
    """What calling a Tool may do to the world, as four strict booleans.

    A Tool cannot be both read-only and destructive.
    """

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool

    def __post_init__(self) -> None:
        flags = (self.read_only, self.destructive, self.idempotent, self.open_world)
        if any(type(flag) is not bool for flag in flags):
            raise ValueError("invalid tool effects")
        if self.read_only and self.destructive:
            raise ValueError("invalid tool effects")

    def annotations(self) -> dict[str, bool]:
        """The MCP Tool annotations (behaviour hints) these effects imply."""
        return {
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }


@dataclass(frozen=True)
class PublicToolBinding:
    """Publishes a capability under a client-visible Tool name.

    Names are 1-128 characters from ``A-Z a-z 0-9 _ . -``.
    """

    capability: QualifiedCapabilityId
    public_name: str

    def __post_init__(self) -> None:
        if not isinstance(self.capability, QualifiedCapabilityId) or not _matches(
            _PUBLIC_NAME_RE, self.public_name, _PUBLIC_NAME_MAX
        ):
            raise ValueError("invalid public tool binding")


class ActivatedTool:
    """A capability ready to serve: its MCP Tool definition, handler and metadata.

    The definition is deep-copied on the way in and on every read of ``tool``, so
    neither the plugin nor the host can change it afterwards.
    """

    __slots__ = ("_capability", "_tool", "_handler", "_effects", "_consent")

    _capability: QualifiedCapabilityId
    _tool: JsonObject
    _handler: ToolHandler
    _effects: ToolEffects
    _consent: ConsentRequirement

    def __init__(
        self,
        capability: QualifiedCapabilityId,
        tool: Mapping[str, Any],
        handler: ToolHandler,
        effects: ToolEffects,
        consent: ConsentRequirement,
    ) -> None:
        if not (
            isinstance(capability, QualifiedCapabilityId)
            and isinstance(tool, Mapping)
            and callable(handler)
            and isinstance(effects, ToolEffects)
            and isinstance(consent, ConsentRequirement)
        ):
            raise ValueError("invalid activated tool")
        object.__setattr__(self, "_capability", capability)
        object.__setattr__(self, "_tool", copy.deepcopy(dict(tool)))
        object.__setattr__(self, "_handler", handler)
        object.__setattr__(self, "_effects", effects)
        object.__setattr__(self, "_consent", consent)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __repr__(self) -> str:
        return f"ActivatedTool(capability={self._capability!r})"

    @property
    def capability(self) -> QualifiedCapabilityId:
        return self._capability

    @property
    def tool(self) -> JsonObject:
        """A fresh deep copy of the MCP Tool definition."""
        return copy.deepcopy(self._tool)

    @property
    def handler(self) -> ToolHandler:
        return self._handler

    @property
    def effects(self) -> ToolEffects:
        return self._effects

    @property
    def consent(self) -> ConsentRequirement:
        return self._consent


@dataclass(frozen=True)
class PluginContribution:
    """The Tools one plugin activates, in the order it declares them, and its usage note for
    agents (``instructions``, at most 1,000 characters; empty: none)."""

    plugin_id: PluginId
    version: PluginVersion
    tools: tuple[ActivatedTool, ...]
    instructions: str

    def __init__(
        self,
        plugin_id: PluginId,
        version: PluginVersion,
        tools: Iterable[ActivatedTool],
        instructions: str = "",
    ) -> None:
        snapshot = _tool_snapshot(tools)
        if (
            not isinstance(plugin_id, PluginId)
            or not isinstance(version, PluginVersion)
            or snapshot is None
            or not isinstance(instructions, str)
            or len(instructions) > _INSTRUCTIONS_MAX
        ):
            raise ValueError("invalid plugin contribution")
        object.__setattr__(self, "plugin_id", plugin_id)
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "tools", snapshot)
        object.__setattr__(self, "instructions", instructions)


def _tool_snapshot(tools: object) -> tuple[ActivatedTool, ...] | None:
    if not isinstance(tools, tuple | list):
        return None
    snapshot = tuple(tools)
    if not all(isinstance(tool, ActivatedTool) for tool in snapshot):
        return None
    return snapshot
