"""Composing contributions and bindings into the served Tool surface (HOST_AND_PROTOCOL §10.1)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from mymcp.mcp.tool_registry import ToolRegistration
from mymcp.plugin_api import contracts
from mymcp.plugin_api.composition import (
    ComposedToolSurface,
    HostToolOrigin,
    compose_tool_surface,
)
from tests.helpers import tool_names
from tests.plugin_api.samples import (
    READ,
    WRITE,
    activated,
    capability,
    echo_handler,
    tool_definition,
)

LIST_TOOLS = {
    "name": "list_tools",
    "description": "Lists the Tools.",
    "inputSchema": {"type": "object", "properties": {}},
}
OPEN = contracts.ToolEffects(read_only=False, destructive=False, idempotent=False, open_world=True)


class RecordingFactory:
    """A host registration factory that remembers what it was given."""

    def __init__(self) -> None:
        self.calls: list[tuple[dict[str, Any], ...]] = []

    def __call__(self, definitions: tuple[dict[str, Any], ...]) -> ToolRegistration:
        self.calls.append(definitions)
        names = ["list_tools", *(definition["name"] for definition in definitions)]
        return ToolRegistration(LIST_TOOLS, lambda _arguments: {"names": names})


def _alpha() -> contracts.PluginContribution:
    return contracts.PluginContribution(
        contracts.PluginId("alpha"),
        contracts.PluginVersion("1.2.3"),
        (
            activated("search", "alpha", READ, contracts.ConsentRequirement.NONE),
            activated("store", "alpha", WRITE, contracts.ConsentRequirement.PER_CALL),
        ),
    )


def _beta() -> contracts.PluginContribution:
    return contracts.PluginContribution(
        contracts.PluginId("beta-tools"),
        contracts.PluginVersion("0.0.1-rc.1"),
        (activated("fetch", "beta-tools", OPEN, contracts.ConsentRequirement.PER_CALL),),
    )


def _bindings() -> list[contracts.PublicToolBinding]:
    # Deliberately not in contribution order.
    return [
        contracts.PublicToolBinding(capability("fetch", "beta-tools"), "beta.fetch"),
        contracts.PublicToolBinding(capability("store", "alpha"), "alpha_store"),
        contracts.PublicToolBinding(capability("search", "alpha"), "alpha-search"),
    ]


def _compose(factory: Any = None) -> ComposedToolSurface:
    return compose_tool_surface([_alpha(), _beta()], _bindings(), factory or RecordingFactory())


# --- a synthetic two-plugin composition ----------------------------------------------------


def test_tools_follow_contribution_order_behind_list_tools() -> None:
    surface = _compose()
    assert tool_names(surface.registry) == (
        "list_tools",
        "alpha-search",
        "alpha_store",
        "beta.fetch",
    )


def test_plugin_inventory_lists_contributions_in_order() -> None:
    assert _compose().plugin_inventory == (
        (contracts.PluginId("alpha"), contracts.PluginVersion("1.2.3")),
        (contracts.PluginId("beta-tools"), contracts.PluginVersion("0.0.1-rc.1")),
    )


def test_origins_name_the_host_or_the_capability() -> None:
    surface = _compose()
    assert list(surface.origins.items()) == [
        ("list_tools", HostToolOrigin.HOST),
        ("alpha-search", capability("search", "alpha")),
        ("alpha_store", capability("store", "alpha")),
        ("beta.fetch", capability("fetch", "beta-tools")),
    ]


def test_metadata_is_keyed_by_qualified_capability() -> None:
    surface = _compose()
    search, store, fetch = (
        capability("search", "alpha"),
        capability("store", "alpha"),
        capability("fetch", "beta-tools"),
    )
    assert dict(surface.effects) == {search: READ, store: WRITE, fetch: OPEN}
    assert dict(surface.consent) == {
        search: contracts.ConsentRequirement.NONE,
        store: contracts.ConsentRequirement.PER_CALL,
        fetch: contracts.ConsentRequirement.PER_CALL,
    }
    assert list(surface.bindings.items()) == [
        (search, "alpha-search"),
        (store, "alpha_store"),
        (fetch, "beta.fetch"),
    ]


def test_projection_renames_in_place_and_adds_annotations() -> None:
    surface = _compose()
    tools = {tool["name"]: tool for tool in surface.registry.tools}
    fetch = tools["beta.fetch"]
    assert list(fetch) == ["name", "description", "inputSchema", "annotations"]
    assert fetch["description"] == tool_definition("fetch")["description"]
    assert fetch["inputSchema"] == tool_definition("fetch")["inputSchema"]
    assert fetch["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": True,
    }
    assert tools["alpha-search"]["annotations"]["readOnlyHint"] is True


def test_name_key_keeps_its_position() -> None:
    definition = {"description": "d", "name": "internal", "inputSchema": {"type": "object"}}
    tool = contracts.ActivatedTool(
        capability("search", "alpha"),
        definition,
        echo_handler,
        READ,
        contracts.ConsentRequirement.NONE,
    )
    contribution = contracts.PluginContribution(
        contracts.PluginId("alpha"), contracts.PluginVersion("1.0.0"), (tool,)
    )
    binding = contracts.PublicToolBinding(capability("search", "alpha"), "find")
    surface = compose_tool_surface([contribution], [binding], RecordingFactory())
    assert list(surface.registry.tools[1]) == ["description", "name", "inputSchema", "annotations"]


def test_host_factory_receives_the_projected_definitions() -> None:
    factory = RecordingFactory()
    surface = _compose(factory)
    assert len(factory.calls) == 1
    (received,) = factory.calls
    assert isinstance(received, tuple)
    assert list(received) == surface.registry.tools[1:]


def test_host_definition_is_published_as_the_factory_built_it() -> None:
    surface = _compose()
    assert surface.registry.tools[0] == LIST_TOOLS


def test_factory_cannot_alter_the_plugin_definitions() -> None:
    def meddling(definitions: tuple[dict[str, Any], ...]) -> ToolRegistration:
        for definition in definitions:
            definition["inputSchema"]["properties"].clear()
            definition["name"] = "changed"
        return ToolRegistration(LIST_TOOLS, lambda _arguments: {})

    surface = _compose(meddling)
    assert surface.registry.tools[1]["inputSchema"] == tool_definition("search")["inputSchema"]
    assert tool_names(surface.registry)[1] == "alpha-search"


def test_plugin_handlers_answer_under_public_names() -> None:
    surface = _compose()
    result = surface.registry.call_tool("alpha_store", {"q": "x"})
    assert result is not None
    assert result["echo"] == {"q": "x"}
    assert surface.registry.call_tool("store", {}) is None
    assert surface.registry.call_tool("list_tools", {}) == {
        "names": ["list_tools", "alpha-search", "alpha_store", "beta.fetch"]
    }


def test_empty_composition_serves_only_list_tools() -> None:
    surface = compose_tool_surface([], [], RecordingFactory())
    assert tool_names(surface.registry) == ("list_tools",)
    assert surface.plugin_inventory == ()
    assert dict(surface.origins) == {"list_tools": HostToolOrigin.HOST}


def test_contribution_without_tools_still_appears_in_the_inventory() -> None:
    empty = contracts.PluginContribution(
        contracts.PluginId("gamma"), contracts.PluginVersion("1.0.0"), ()
    )
    surface = compose_tool_surface([empty], [], RecordingFactory())
    assert surface.plugin_inventory == (
        (contracts.PluginId("gamma"), contracts.PluginVersion("1.0.0")),
    )


def test_generators_are_accepted_as_inputs() -> None:
    surface = compose_tool_surface(
        (item for item in [_alpha(), _beta()]), iter(_bindings()), RecordingFactory()
    )
    assert len(tool_names(surface.registry)) == 4


# --- immutability --------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["origins", "effects", "consent", "bindings"])
def test_surface_mappings_are_read_only(field: str) -> None:
    surface = _compose()
    mapping: Any = getattr(surface, field)
    key = next(iter(mapping))
    with pytest.raises(TypeError):
        mapping[key] = None
    with pytest.raises(TypeError):
        del mapping[key]


def test_surface_is_frozen() -> None:
    surface = _compose()
    with pytest.raises(dataclasses.FrozenInstanceError):
        surface.registry = None  # type: ignore[misc, assignment]


def test_registry_tools_are_fresh_copies() -> None:
    surface = _compose()
    surface.registry.tools[1]["annotations"]["readOnlyHint"] = False
    assert surface.registry.tools[1]["annotations"]["readOnlyHint"] is True


# --- rejected compositions -------------------------------------------------------------------


def _binding(local_id: str, name: str, plugin_id: str = "alpha") -> contracts.PublicToolBinding:
    return contracts.PublicToolBinding(capability(local_id, plugin_id), name)


def _contribution(plugin_id: str, *tools: Any) -> contracts.PluginContribution:
    return contracts.PluginContribution(
        contracts.PluginId(plugin_id), contracts.PluginVersion("1.0.0"), tools
    )


Case = tuple[Any, Any]

_REJECTIONS: list[tuple[str, Callable[[], Case], str]] = [
    ("contribution item", lambda: ([_alpha(), "beta"], _bindings()), "invalid plugin contribution"),
    ("contributions not iterable", lambda: (5, _bindings()), "invalid plugin contribution"),
    ("contributions a string", lambda: ("alpha", []), "invalid plugin contribution"),
    ("binding item", lambda: ([_alpha()], [("search", "x")]), "invalid public tool binding"),
    ("bindings a mapping", lambda: ([], {}), "invalid public tool binding"),
    ("duplicate plugin", lambda: ([_alpha(), _alpha()], _bindings()), "duplicate plugin id"),
    (
        "capability of another plugin",
        lambda: ([_contribution("alpha", activated("search", "beta-tools"))], []),
        "capability plugin mismatch",
    ),
    (
        "capability selected twice",
        lambda: (
            [_contribution("alpha", activated("search", "alpha"), activated("search", "alpha"))],
            [],
        ),
        "duplicate qualified capability",
    ),
    (
        "capability bound twice",
        lambda: ([_alpha()], [_binding("search", "a"), _binding("search", "b")]),
        "duplicate capability binding",
    ),
    (
        "binding for unselected capability",
        lambda: ([_alpha()], [_binding("delete", "alpha_delete")]),
        "unknown capability binding",
    ),
    (
        "reserved list_tools",
        lambda: ([_alpha()], [_binding("search", "list_tools")]),
        "reserved public tool name",
    ),
    (
        "reserved prefix",
        lambda: ([_alpha()], [_binding("search", "mymcp_search")]),
        "reserved public tool name",
    ),
    (
        "reserved prefix upper",
        lambda: ([_alpha()], [_binding("search", "MyMCP_search")]),
        "reserved public tool name",
    ),
    (
        "reserved name upper",
        lambda: ([_alpha()], [_binding("search", "LIST_TOOLS")]),
        "reserved public tool name",
    ),
    (
        "public name taken",
        lambda: ([_alpha()], [_binding("search", "same"), _binding("store", "same")]),
        "duplicate public tool name",
    ),
    (
        "capability unbound",
        lambda: ([_alpha()], [_binding("search", "alpha_search")]),
        "missing capability binding",
    ),
]


@pytest.mark.parametrize(
    ("case", "message"),
    [(case, message) for _, case, message in _REJECTIONS],
    ids=[name for name, _, _ in _REJECTIONS],
)
def test_rejected_compositions_build_nothing(case: Callable[[], Case], message: str) -> None:
    contributions, bindings = case()
    factory = RecordingFactory()
    with pytest.raises(ValueError, match=f"^{message}$"):
        compose_tool_surface(contributions, bindings, factory)
    assert factory.calls == []


def test_names_differing_only_in_case_are_distinct() -> None:
    bindings = [_binding("search", "Find"), _binding("store", "find")]
    surface = compose_tool_surface([_alpha()], bindings, RecordingFactory())
    assert tool_names(surface.registry) == ("list_tools", "Find", "find")


# Each stage breaks one rule; combined with all later stages, the earliest message wins.
_STAGE_MESSAGES = [
    "invalid plugin contribution",
    "invalid public tool binding",
    "duplicate plugin id",
    "capability plugin mismatch",
    "duplicate qualified capability",
    "duplicate capability binding",
    "unknown capability binding",
    "reserved public tool name",
    "duplicate public tool name",
    "missing capability binding",
]


def _stage_case(stage: int) -> Case:
    contributions: list[Any] = [_alpha()]
    if stage <= 2:
        contributions.append(_contribution("alpha"))
    gamma_tools: list[Any] = [activated("x", "gamma")]
    if stage <= 3:
        gamma_tools.insert(0, activated("stray", "beta-tools"))
    if stage <= 4:
        gamma_tools.append(activated("x", "gamma"))
    contributions.append(_contribution("gamma", *gamma_tools))
    if stage <= 0:
        contributions.append("not a contribution")
    bindings: list[Any] = [_binding("search", "alpha_search"), _binding("x", "gamma_x", "gamma")]
    if stage <= 5:
        bindings.append(_binding("search", "mymcp_again"))
    if stage <= 6:
        bindings.append(_binding("unknown", "mymcp_unknown"))
    if stage <= 7:
        bindings.append(_binding("store", "mymcp_store"))
    if stage <= 8:
        bindings.append(_binding("store", "alpha_search"))
    if stage <= 1:
        bindings.append(None)
    return contributions, bindings


@pytest.mark.parametrize("stage", range(len(_STAGE_MESSAGES)), ids=_STAGE_MESSAGES)
def test_composition_checks_run_in_order(stage: int) -> None:
    contributions, bindings = _stage_case(stage)
    with pytest.raises(ValueError, match=f"^{_STAGE_MESSAGES[stage]}$"):
        compose_tool_surface(contributions, bindings, RecordingFactory())


@pytest.mark.parametrize(
    "result",
    [
        None,
        LIST_TOOLS,
        ToolRegistration({**LIST_TOOLS, "name": "tools"}, lambda _arguments: {}),
        ToolRegistration({"description": "no name"}, lambda _arguments: {}),
    ],
    ids=["none", "bare definition", "wrong name", "no name"],
)
def test_host_factory_must_return_the_list_tools_registration(result: Any) -> None:
    with pytest.raises(ValueError, match="^invalid host tool registration$"):
        compose_tool_surface([_alpha()], _bindings()[1:], lambda _definitions: result)


def test_registry_errors_propagate() -> None:
    broken = contracts.ActivatedTool(
        capability("search", "alpha"),
        {"name": "search", "description": "no input schema"},
        echo_handler,
        READ,
        contracts.ConsentRequirement.NONE,
    )
    with pytest.raises(ValueError, match="^invalid tool registration$"):
        compose_tool_surface(
            [_contribution("alpha", broken)], [_binding("search", "search")], RecordingFactory()
        )


def test_names_resembling_reserved_ones_are_allowed() -> None:
    def factory(_definitions: tuple[dict[str, Any], ...]) -> ToolRegistration:
        return ToolRegistration(LIST_TOOLS, lambda _arguments: {})

    bindings = [_binding("search", "list-tools"), _binding("store", "alpha_store")]
    surface = compose_tool_surface([_alpha()], bindings, factory)
    assert tool_names(surface.registry) == ("list_tools", "list-tools", "alpha_store")


def test_the_usage_notes_of_the_plugins_are_joined_in_contribution_order() -> None:
    version = contracts.PluginVersion("1.0.0")
    notes = [
        contracts.PluginContribution(contracts.PluginId(name), version, (), note)
        for name, note in (("alpha", "Use alpha."), ("beta", ""), ("gamma", "Then gamma."))
    ]

    surface = compose_tool_surface(notes, [], RecordingFactory())

    assert surface.instructions == "Use alpha.\n\nThen gamma."
