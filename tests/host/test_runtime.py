"""The composed host runtime and its generation id (HOST_AND_PROTOCOL §10.2)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

import pytest

from mymcp.host.runtime import HostRuntime, RuntimeGenerationId, build_host_runtime
from mymcp.mcp import list_tools
from mymcp.mcp.tool_registry import ToolRegistry
from mymcp.plugin_api import (
    ConsentRequirement,
    HostToolOrigin,
    PluginId,
    PluginVersion,
    PublicToolBinding,
)
from tests.helpers import tool_names
from tests.plugin_api.samples import READ, capability, mnemosyne_contribution

DEFAULT_GENERATION = re.compile(r"generation_[0-9a-f]{32}")
MAPPINGS = ("origins", "effects", "consent", "bindings")


# --- RuntimeGenerationId ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "a",
        "Z",
        "7",
        "generation_0123456789abcdef0123456789abcdef",
        "A.b_c~d-e",
        "x" * 128,
        "0" + "._~-" * 20,
    ],
)
def test_generation_ids_accept_the_allowed_shapes(value: str) -> None:
    assert RuntimeGenerationId(value).value == value


@pytest.mark.parametrize(
    "value",
    [
        "",
        "x" * 129,
        "_leading",
        ".leading",
        "~leading",
        "-leading",
        "has space",
        "slash/inside",
        "colon:inside",
        "trailing\n",
        "caf\u00e9",
        "\uff21fullwidth",
        "nul\x00",
    ],
)
def test_generation_ids_refuse_other_shapes(value: str) -> None:
    with pytest.raises(ValueError) as caught:
        RuntimeGenerationId(value)
    assert str(caught.value) == "invalid runtime generation id"


@pytest.mark.parametrize("value", [None, 7, b"generation", ["a"]])
def test_generation_ids_must_be_strings(value: Any) -> None:
    with pytest.raises(ValueError, match="^invalid runtime generation id$"):
        RuntimeGenerationId(value)


def test_the_default_generation_id_is_a_fresh_random_hex_name() -> None:
    first, second = RuntimeGenerationId.new(), RuntimeGenerationId.new()
    assert DEFAULT_GENERATION.fullmatch(first.value)
    assert DEFAULT_GENERATION.fullmatch(second.value)
    assert first != second


def test_generation_ids_are_frozen_values() -> None:
    generation = RuntimeGenerationId("same")
    assert generation == RuntimeGenerationId("same")
    assert hash(generation) == hash(RuntimeGenerationId("same"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        generation.value = "other"  # type: ignore[misc]


# --- HostRuntime ------------------------------------------------------------------------------


def _registry() -> ToolRegistry:
    return ToolRegistry([list_tools.registration([])])


def _fields(**overrides: Any) -> dict[str, Any]:
    recall = capability("memory_recall")
    fields: dict[str, Any] = {
        "registry": _registry(),
        "plugin_inventory": [(PluginId("mnemosyne"), PluginVersion("0.1.0"))],
        "origins": {"list_tools": HostToolOrigin.HOST, "memory_recall": recall},
        "effects": {recall: READ},
        "consent": {recall: ConsentRequirement.NONE},
        "bindings": {recall: "memory_recall"},
    }
    fields.update(overrides)
    return fields


def test_host_runtime_keeps_what_it_was_given() -> None:
    fields = _fields(generation=RuntimeGenerationId("g1"))
    runtime = HostRuntime(**fields)
    assert runtime.registry is fields["registry"]
    assert runtime.plugin_inventory == ((PluginId("mnemosyne"), PluginVersion("0.1.0")),)
    assert isinstance(runtime.plugin_inventory, tuple)
    for name in MAPPINGS:
        assert dict(getattr(runtime, name)) == fields[name]
    assert runtime.generation == RuntimeGenerationId("g1")


def test_host_runtime_names_a_fresh_generation_by_default() -> None:
    first, second = HostRuntime(**_fields()), HostRuntime(**_fields())
    assert DEFAULT_GENERATION.fullmatch(first.generation.value)
    assert first.generation != second.generation


def test_host_runtime_is_keyword_only() -> None:
    fields = _fields()
    with pytest.raises(TypeError):
        HostRuntime(*fields.values())  # type: ignore[call-arg]


@pytest.mark.parametrize(
    "overrides",
    [
        {"registry": None},
        {"registry": [list_tools.registration([])]},
        {"registry": object()},
        {"generation": "generation_0123456789abcdef0123456789abcdef"},
        {"generation": None},
    ],
    ids=["registry-none", "registry-list", "registry-object", "generation-str", "generation-none"],
)
def test_host_runtime_refuses_wrong_registry_or_generation_types(overrides: Any) -> None:
    with pytest.raises(ValueError) as caught:
        HostRuntime(**_fields(**overrides))
    assert str(caught.value) == "invalid host runtime"


def test_host_runtime_is_frozen() -> None:
    runtime = HostRuntime(**_fields())
    with pytest.raises(dataclasses.FrozenInstanceError):
        runtime.registry = _registry()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        runtime.generation = RuntimeGenerationId("other")  # type: ignore[misc]


@pytest.mark.parametrize("name", MAPPINGS)
def test_host_runtime_mappings_are_read_only(name: str) -> None:
    mapping: Any = getattr(HostRuntime(**_fields()), name)
    with pytest.raises(TypeError):
        mapping["added"] = "value"
    with pytest.raises(TypeError):
        del mapping[next(iter(mapping))]


@pytest.mark.parametrize("name", MAPPINGS)
def test_host_runtime_copies_its_mappings(name: str) -> None:
    fields = _fields()
    runtime = HostRuntime(**fields)
    before = dict(getattr(runtime, name))
    fields[name]["added"] = "later"
    fields[name].pop(next(iter(before)))
    assert dict(getattr(runtime, name)) == before


def test_runtimes_built_from_one_source_share_no_containers() -> None:
    fields = _fields()
    first, second = HostRuntime(**fields), HostRuntime(**fields)
    fields["plugin_inventory"].append((PluginId("other"), PluginVersion("1.0.0")))
    for name in MAPPINGS:
        fields[name].clear()
        assert getattr(first, name) == getattr(second, name)
        assert len(getattr(first, name)) > 0
    assert len(first.plugin_inventory) == len(second.plugin_inventory) == 1


def test_runtimes_are_not_changed_through_each_other() -> None:
    first = HostRuntime(**_fields())
    second = HostRuntime(
        **{name: getattr(first, name) for name in ("registry", *MAPPINGS)},
        plugin_inventory=first.plugin_inventory,
    )
    for name in MAPPINGS:
        assert getattr(second, name) is not getattr(first, name)
        assert getattr(second, name) == getattr(first, name)


# --- build_host_runtime -----------------------------------------------------------------------


class GenerationFactory:
    """Counts its calls and hands out the given id (or whatever it is told to return)."""

    def __init__(self, result: Any = None) -> None:
        self.calls = 0
        self.result = RuntimeGenerationId("built-1") if result is None else result

    def __call__(self) -> Any:
        self.calls += 1
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


def _bindings(*local_ids: str) -> list[PublicToolBinding]:
    return [PublicToolBinding(capability(local_id), local_id) for local_id in local_ids]


def _build(
    generation_factory: Callable[[], Any], local_ids: tuple[str, ...] = ("memory_recall",)
) -> HostRuntime:
    return build_host_runtime(
        [mnemosyne_contribution(*local_ids)],
        _bindings(*local_ids),
        list_tools.registration,
        generation_factory=generation_factory,
    )


def test_build_host_runtime_composes_and_names_the_generation() -> None:
    factory = GenerationFactory()
    runtime = _build(factory, ("memory_recall", "memory_list"))
    assert factory.calls == 1
    assert runtime.generation == RuntimeGenerationId("built-1")
    assert tool_names(runtime.registry) == ("list_tools", "memory_recall", "memory_list")
    assert runtime.plugin_inventory == ((PluginId("mnemosyne"), PluginVersion("0.1.0")),)
    assert runtime.origins["list_tools"] is HostToolOrigin.HOST
    assert runtime.origins["memory_list"] == capability("memory_list")
    assert dict(runtime.bindings) == {
        capability("memory_recall"): "memory_recall",
        capability("memory_list"): "memory_list",
    }
    assert runtime.effects[capability("memory_recall")] == READ
    assert runtime.consent[capability("memory_list")] is ConsentRequirement.NONE


def test_build_host_runtime_uses_a_random_generation_by_default() -> None:
    first, second = (
        build_host_runtime(
            [mnemosyne_contribution("memory_recall")],
            _bindings("memory_recall"),
            list_tools.registration,
        )
        for _ in range(2)
    )
    assert DEFAULT_GENERATION.fullmatch(first.generation.value)
    assert first.generation != second.generation


def test_build_host_runtime_gives_each_runtime_its_own_containers() -> None:
    first, second = _build(GenerationFactory()), _build(GenerationFactory())
    assert first.registry is not second.registry
    for name in MAPPINGS:
        assert getattr(first, name) == getattr(second, name)
        assert getattr(first, name) is not getattr(second, name)


@pytest.mark.parametrize(
    "bindings",
    [
        [],  # missing capability binding
        _bindings("memory_recall", "memory_recall"),  # bound twice
        [PublicToolBinding(capability("memory_recall"), "list_tools")],  # reserved name
        ["memory_recall"],  # not a binding at all
    ],
    ids=["missing", "duplicate", "reserved", "wrong-type"],
)
def test_a_failing_composition_never_names_a_generation(bindings: list[Any]) -> None:
    factory = GenerationFactory()
    with pytest.raises(ValueError):
        build_host_runtime(
            [mnemosyne_contribution("memory_recall")],
            bindings,
            list_tools.registration,
            generation_factory=factory,
        )
    assert factory.calls == 0


def test_a_failing_host_registration_never_names_a_generation() -> None:
    factory = GenerationFactory()

    def broken_host(_definitions: Any) -> Any:
        return None

    with pytest.raises(ValueError, match="^invalid host tool registration$"):
        build_host_runtime(
            [mnemosyne_contribution("memory_recall")],
            _bindings("memory_recall"),
            broken_host,
            generation_factory=factory,
        )
    assert factory.calls == 0


@pytest.mark.parametrize(
    "value",
    ["generation_0123456789abcdef0123456789abcdef", "route-test-generation", "A", "a" * 128],
)
def test_a_generation_factory_may_return_the_id_as_a_valid_string(value: str) -> None:
    runtime = _build(lambda: value)
    assert runtime.generation == RuntimeGenerationId(value)
    assert isinstance(runtime.generation, RuntimeGenerationId)


@pytest.mark.parametrize(
    "value", ["", "not a valid id", "-leading-dash", "a" * 129, "caf\u00e9", "tab\there"]
)
def test_a_generation_factory_returning_an_invalid_string_fails_the_build(value: str) -> None:
    factory = GenerationFactory(value)
    with pytest.raises(ValueError) as caught:
        _build(factory)
    assert str(caught.value) == "invalid runtime generation id"
    assert factory.calls == 1


def test_a_generation_factory_returning_an_id_object_is_used_as_it_is() -> None:
    generation = RuntimeGenerationId("given-object")
    assert _build(lambda: generation).generation is generation


@pytest.mark.parametrize(
    "result",
    [None, 42, object(), b"generation-bytes", ["generation"]],
    ids=["none", "int", "object", "bytes", "list"],
)
def test_a_generation_factory_returning_no_id_fails_the_build(result: Any) -> None:
    def factory() -> Any:
        return result

    with pytest.raises(ValueError) as caught:
        _build(factory)
    assert str(caught.value) == "invalid runtime generation id"


def test_a_generation_factory_refusing_an_id_fails_the_build() -> None:
    def factory() -> RuntimeGenerationId:
        return RuntimeGenerationId("not a valid id")

    with pytest.raises(ValueError, match="^invalid runtime generation id$"):
        _build(factory)


def test_a_generation_factory_error_propagates_unchanged() -> None:
    error = RuntimeError("generation source broken")
    with pytest.raises(RuntimeError) as caught:
        _build(GenerationFactory(error))
    assert caught.value is error
