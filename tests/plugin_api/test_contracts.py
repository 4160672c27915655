"""Value rules of the plugin-facing contract types (HOST_AND_PROTOCOL §10)."""

from __future__ import annotations

import dataclasses
import inspect
from types import ModuleType
from typing import Any

import pytest

import mymcp.plugin_api
from mymcp.plugin_api import composition, contracts, definition, manifest, pages
from mymcp.plugin_api.contracts import (
    ActivatedTool,
    CapabilityKind,
    CapabilityLocalId,
    ConsentRequirement,
    HostToolOrigin,
    PluginContribution,
    PluginId,
    PluginVersion,
    PublicToolBinding,
    QualifiedCapabilityId,
    ToolEffects,
)
from tests.plugin_api.samples import READ, activated, capability, echo_handler, tool_definition


@pytest.mark.parametrize("value", ["my-plugin", "a", "mnemosyne", "a1-b2-c3", "x" * 64])
def test_plugin_id_accepts_lowercase_kebab(value: str) -> None:
    assert PluginId(value).value == value
    assert str(PluginId(value)) == value


@pytest.mark.parametrize(
    "value",
    ["my_plugin", "my--plugin", "x-", "-x", "1abc", "", "My-plugin", "x" * 65, "é", "a\n", None, 5],
)
def test_plugin_id_rejects_other_values(value: Any) -> None:
    with pytest.raises(ValueError, match="^invalid plugin id$"):
        PluginId(value)


@pytest.mark.parametrize("value", ["memory_recall", "a", "a1_b2", "x" * 64])
def test_capability_local_id_accepts_lowercase_snake(value: str) -> None:
    assert CapabilityLocalId(value).value == value


@pytest.mark.parametrize(
    "value",
    ["memory-recall", "_x", "x_", "a__b", "1a", "", "Memory", "x" * 65, "a\n", None, 1],
)
def test_capability_local_id_rejects_other_values(value: Any) -> None:
    with pytest.raises(ValueError, match="^invalid capability local id$"):
        CapabilityLocalId(value)


@pytest.mark.parametrize(
    "value",
    [
        "0.1.0",
        "1.0.0",
        "10.20.30",
        "1.0.0-alpha.1",
        "1.0.0-0.3.7",
        "1.0.0-x-y-z.--",
        "1.0.0+build.5",
        "1.0.0-rc.1+sha.abc",
        "1.0.0-0a",
    ],
)
def test_plugin_version_accepts_strict_semver(value: str) -> None:
    assert PluginVersion(value).value == value


@pytest.mark.parametrize(
    "value",
    [
        "v1.0.0",
        "01.0.0",
        "1.00.0",
        "1.0",
        "1.0.0-01",
        "1.0.0-",
        "1.0.0+",
        "1.0.0-a..b",
        "1.0.0\n",
        " 1.0.0",
        "\u0661.0.0",
        "1.0.0-" + "a" * 59,
        "",
        1,
        None,
    ],
)
def test_plugin_version_rejects_other_values(value: Any) -> None:
    with pytest.raises(ValueError, match="^invalid plugin version$"):
        PluginVersion(value)


def test_plugin_version_accepts_exactly_64_characters() -> None:
    assert len(PluginVersion("1.0.0-" + "a" * 58).value) == 64


def test_capability_kind_has_only_tool() -> None:
    assert [kind.value for kind in CapabilityKind] == ["tool"]
    with pytest.raises(ValueError):
        CapabilityKind("resource")


def test_consent_requirement_values() -> None:
    assert [item.value for item in ConsentRequirement] == ["none", "per_call"]
    with pytest.raises(ValueError):
        ConsentRequirement("always")


def test_host_tool_origin_has_a_single_value() -> None:
    assert [item.value for item in HostToolOrigin] == ["host"]
    assert HostToolOrigin("host") is HostToolOrigin.HOST


def test_qualified_capability_id_is_a_hashable_value() -> None:
    first = capability("memory_recall")
    second = capability("memory_recall")
    assert first == second
    assert hash(first) == hash(second)
    assert {first: 1}[second] == 1
    assert first != capability("memory_recall", "other")


@pytest.mark.parametrize(
    ("plugin_id", "kind", "local_id"),
    [
        ("mnemosyne", CapabilityKind.TOOL, CapabilityLocalId("x")),
        (PluginId("mnemosyne"), "tool", CapabilityLocalId("x")),
        (PluginId("mnemosyne"), CapabilityKind.TOOL, "x"),
    ],
)
def test_qualified_capability_id_requires_typed_parts(
    plugin_id: Any, kind: Any, local_id: Any
) -> None:
    with pytest.raises(ValueError, match="^invalid qualified capability id$"):
        QualifiedCapabilityId(plugin_id, kind, local_id)


@pytest.mark.parametrize(
    "flags",
    [(1, False, True, False), (False, 0, True, False), (False, False, None, False)],
)
def test_tool_effects_require_strict_booleans(flags: tuple[Any, ...]) -> None:
    with pytest.raises(ValueError, match="^invalid tool effects$"):
        ToolEffects(*flags)


def test_tool_effects_reject_read_only_and_destructive_together() -> None:
    with pytest.raises(ValueError, match="^invalid tool effects$"):
        ToolEffects(read_only=True, destructive=True, idempotent=True, open_world=False)


def test_tool_effects_project_to_mcp_annotations() -> None:
    effects = ToolEffects(read_only=False, destructive=True, idempotent=False, open_world=True)
    assert effects.annotations() == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }
    assert list(effects.annotations()) == [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ]


@pytest.mark.parametrize("name", ["memory_recall", "a", "Tool.v2-beta", "x" * 128, "9"])
def test_public_tool_binding_accepts_portable_names(name: str) -> None:
    assert PublicToolBinding(capability("memory_recall"), name).public_name == name


@pytest.mark.parametrize(
    "name", ["", "has space", "x" * 129, "naïve", "tab\there", "line\n", "a/b", None, 5]
)
def test_public_tool_binding_rejects_other_names(name: Any) -> None:
    with pytest.raises(ValueError, match="^invalid public tool binding$"):
        PublicToolBinding(capability("memory_recall"), name)


def test_public_tool_binding_requires_a_typed_capability() -> None:
    with pytest.raises(ValueError, match="^invalid public tool binding$"):
        PublicToolBinding("mnemosyne/tool/memory_recall", "memory_recall")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "field",
    ["capability", "tool", "handler", "effects", "consent"],
)
def test_activated_tool_rejects_untyped_parts(field: str) -> None:
    parts: dict[str, Any] = {
        "capability": capability("memory_recall"),
        "tool": tool_definition("memory_recall"),
        "handler": echo_handler,
        "effects": READ,
        "consent": ConsentRequirement.NONE,
    }
    parts[field] = "none"
    with pytest.raises(ValueError, match="^invalid activated tool$"):
        ActivatedTool(**parts)


def test_activated_tool_snapshots_its_definition() -> None:
    source = tool_definition("memory_recall")
    tool = ActivatedTool(
        capability("memory_recall"), source, echo_handler, READ, ConsentRequirement.NONE
    )
    source["inputSchema"]["properties"]["q"]["type"] = "integer"
    copy_one = tool.tool
    copy_one["name"] = "changed"
    assert tool.tool == tool_definition("memory_recall")
    assert tool.tool is not tool.tool


def test_activated_tool_is_immutable() -> None:
    tool = activated("memory_recall")
    with pytest.raises(AttributeError):
        tool.handler = echo_handler  # type: ignore[misc]
    with pytest.raises(AttributeError):
        tool._tool = {}
    with pytest.raises(AttributeError):
        del tool.effects


def test_plugin_contribution_snapshots_tools_in_order() -> None:
    tools = [activated("memory_recall"), activated("memory_list")]
    contribution = PluginContribution(PluginId("mnemosyne"), PluginVersion("0.1.0"), tools)
    tools.reverse()
    assert isinstance(contribution.tools, tuple)
    assert [tool.capability.local_id.value for tool in contribution.tools] == [
        "memory_recall",
        "memory_list",
    ]


@pytest.mark.parametrize(
    ("plugin_id", "version", "tools"),
    [
        ("mnemosyne", PluginVersion("0.1.0"), ()),
        (PluginId("mnemosyne"), "0.1.0", ()),
        (PluginId("mnemosyne"), PluginVersion("0.1.0"), ("memory_recall",)),
        (PluginId("mnemosyne"), PluginVersion("0.1.0"), None),
        (PluginId("mnemosyne"), PluginVersion("0.1.0"), "memory_recall"),
    ],
)
def test_plugin_contribution_rejects_untyped_parts(
    plugin_id: Any, version: Any, tools: Any
) -> None:
    with pytest.raises(ValueError, match="^invalid plugin contribution$"):
        PluginContribution(plugin_id, version, tools)


@pytest.mark.parametrize(
    ("value", "field"),
    [
        (PluginId("x"), "value"),
        (capability("memory_recall"), "kind"),
        (READ, "read_only"),
        (PublicToolBinding(capability("memory_recall"), "x"), "public_name"),
        (PluginContribution(PluginId("x"), PluginVersion("1.0.0"), ()), "tools"),
    ],
)
def test_contract_values_are_frozen(value: object, field: str) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field, None)


def _defined_public_names(module: object) -> set[str]:
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and value.__module__ == getattr(module, "__name__", None)
    }


def test_contracts_all_lists_exactly_its_public_definitions() -> None:
    assert sorted(contracts.__all__) == sorted(_defined_public_names(contracts))
    assert all(hasattr(contracts, name) for name in contracts.__all__)


@pytest.mark.parametrize("module", [contracts, definition, manifest, composition])
def test_every_module_defines_all_its_public_names(module: ModuleType) -> None:
    exported = set(module.__all__)
    assert _defined_public_names(module) <= exported
    assert all(hasattr(module, name) for name in exported)


def test_package_reexports_the_public_names_of_its_modules() -> None:
    names = set().union(
        *(set(module.__all__) for module in (contracts, definition, manifest, composition, pages))
    )
    assert set(mymcp.plugin_api.__all__) == names
    for name in names:
        assert getattr(mymcp.plugin_api, name) is not None


@pytest.mark.parametrize("instructions", [None, 5, "x" * 1001])
def test_plugin_contribution_refuses_a_usage_note_that_is_not_short_text(
    instructions: Any,
) -> None:
    with pytest.raises(ValueError, match=r"^invalid plugin contribution$"):
        PluginContribution(PluginId("alpha"), PluginVersion("1.0.0"), (), instructions)
