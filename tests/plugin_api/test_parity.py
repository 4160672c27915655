"""Parity between manifest, adapter definition and activated Tools (HOST_AND_PROTOCOL §11.5)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from mymcp.plugin_api import (
    ConsentRequirement,
    HostApiRange,
    HostApiVersion,
    PluginContractError,
    PluginContractErrorCode,
    PluginContribution,
    PluginId,
    PluginVersion,
    validate_plugin_contract,
)
from tests.plugin_api.samples import (
    DESTROY,
    MNEMOSYNE_ID,
    MNEMOSYNE_VERSION,
    READ,
    WRITE,
    activated,
    mnemosyne_contribution,
    mnemosyne_definition,
    mnemosyne_tools,
)

Code = PluginContractErrorCode


def _inputs(**overrides: Any) -> dict[str, Any]:
    inputs: dict[str, Any] = {
        "manifest_definition": mnemosyne_definition(),
        "adapter_definition": mnemosyne_definition(),
        "contribution": mnemosyne_contribution(),
        "supported_host_api": HostApiVersion(1),
    }
    inputs.update(overrides)
    return inputs


def _failure(inputs: dict[str, Any]) -> PluginContractError:
    with pytest.raises(PluginContractError) as caught:
        validate_plugin_contract(**inputs)
    return caught.value


def _contribution(*tools: Any, plugin_id: str = "mnemosyne", version: str = "0.1.0") -> Any:
    return PluginContribution(PluginId(plugin_id), PluginVersion(version), tools)


def test_matching_contract_passes() -> None:
    assert validate_plugin_contract(**_inputs()) is None


@pytest.mark.parametrize(
    "selected",
    [
        (),
        ("memory_recall", "memory_list", "memory_inspect"),
        ("memory_list", "memory_remember", "memory_forget"),
        ("memory_forget",),
    ],
)
def test_any_subset_in_declaration_order_passes(selected: tuple[str, ...]) -> None:
    contribution = PluginContribution(MNEMOSYNE_ID, MNEMOSYNE_VERSION, mnemosyne_tools(*selected))
    assert validate_plugin_contract(**_inputs(contribution=contribution)) is None


def test_tool_definitions_are_not_compared() -> None:
    tools = mnemosyne_tools("memory_recall")
    other = type(tools[0])(
        tools[0].capability,
        {"name": "anything", "inputSchema": {"type": "object"}},
        tools[0].handler,
        tools[0].effects,
        tools[0].consent,
    )
    assert validate_plugin_contract(**_inputs(contribution=_contribution(other))) is None


def test_range_bounds_are_inclusive() -> None:
    definition = dataclasses.replace(
        mnemosyne_definition(), requires=HostApiRange(HostApiVersion(2), HostApiVersion(4))
    )
    for version in (2, 3, 4):
        inputs = _inputs(
            manifest_definition=definition,
            adapter_definition=definition,
            supported_host_api=HostApiVersion(version),
        )
        assert validate_plugin_contract(**inputs) is None


Scenario = Callable[[], dict[str, Any]]


def _other_title() -> dict[str, Any]:
    return _inputs(adapter_definition=dataclasses.replace(mnemosyne_definition(), title="Other"))


def _reordered_definition() -> dict[str, Any]:
    definition = mnemosyne_definition()
    capabilities = definition.capabilities
    swapped = (capabilities[1], capabilities[0], *capabilities[2:])
    return _inputs(manifest_definition=dataclasses.replace(definition, capabilities=swapped))


_FAILURES: list[tuple[str, Scenario, PluginContractErrorCode, str]] = [
    (
        "adapter differs",
        _other_title,
        Code.DEFINITION_MANIFEST_MISMATCH,
        "plugin definition does not match manifest",
    ),
    (
        "capability order differs",
        _reordered_definition,
        Code.DEFINITION_MANIFEST_MISMATCH,
        "plugin definition does not match manifest",
    ),
    (
        "manifest not a definition",
        lambda: _inputs(manifest_definition={"id": "mnemosyne"}),
        Code.DEFINITION_MANIFEST_MISMATCH,
        "plugin definition does not match manifest",
    ),
    (
        "adapter not a definition",
        lambda: _inputs(adapter_definition=None),
        Code.DEFINITION_MANIFEST_MISMATCH,
        "plugin definition does not match manifest",
    ),
    (
        "host api above range",
        lambda: _inputs(supported_host_api=HostApiVersion(2)),
        Code.HOST_API_INCOMPATIBLE,
        "plugin does not support the host API",
    ),
    (
        "host api not a version",
        lambda: _inputs(supported_host_api=1),
        Code.HOST_API_INCOMPATIBLE,
        "plugin does not support the host API",
    ),
    (
        "other plugin",
        lambda: _inputs(contribution=_contribution(plugin_id="other")),
        Code.CONTRIBUTION_PLUGIN_MISMATCH,
        "plugin contribution identity does not match definition",
    ),
    (
        "contribution not typed",
        lambda: _inputs(contribution=mnemosyne_tools()),
        Code.CONTRIBUTION_PLUGIN_MISMATCH,
        "plugin contribution identity does not match definition",
    ),
    (
        "other version",
        lambda: _inputs(contribution=_contribution(version="0.2.0")),
        Code.CONTRIBUTION_VERSION_MISMATCH,
        "plugin contribution version does not match definition",
    ),
    (
        "selected twice",
        lambda: _inputs(contribution=_contribution(*mnemosyne_tools("memory_recall") * 2)),
        Code.DUPLICATE_SELECTED_CAPABILITY,
        "plugin contribution selects a capability more than once",
    ),
    (
        "undeclared local id",
        lambda: _inputs(contribution=_contribution(activated("memory_dream"))),
        Code.UNDECLARED_CAPABILITY,
        "plugin contribution selects an undeclared capability",
    ),
    (
        "capability of another plugin",
        lambda: _inputs(contribution=_contribution(activated("memory_recall", "other"))),
        Code.UNDECLARED_CAPABILITY,
        "plugin contribution selects an undeclared capability",
    ),
    (
        "effects differ",
        lambda: _inputs(contribution=_contribution(activated("memory_recall", effects=WRITE))),
        Code.CAPABILITY_METADATA_MISMATCH,
        "selected capability metadata does not match definition",
    ),
    (
        "consent differs",
        lambda: _inputs(
            contribution=_contribution(
                activated("memory_recall", consent=ConsentRequirement.PER_CALL)
            )
        ),
        Code.CAPABILITY_METADATA_MISMATCH,
        "selected capability metadata does not match definition",
    ),
    (
        "order differs",
        lambda: _inputs(
            contribution=_contribution(*mnemosyne_tools("memory_list", "memory_recall"))
        ),
        Code.CAPABILITY_ORDER_MISMATCH,
        "selected capability order does not match definition",
    ),
]


@pytest.mark.parametrize(
    ("scenario", "code", "message"),
    [(scenario, code, message) for _, scenario, code, message in _FAILURES],
    ids=[name for name, _, _, _ in _FAILURES],
)
def test_parity_failures(scenario: Scenario, code: PluginContractErrorCode, message: str) -> None:
    error = _failure(scenario())
    assert error.code == code
    assert str(error) == message


# Each stage below breaks one check; together with every later stage, the earliest wins.
def _stage_inputs(stage: int) -> dict[str, Any]:
    definition = mnemosyne_definition()
    adapter = dataclasses.replace(definition, title="Other") if stage <= 0 else definition
    host_api = HostApiVersion(2) if stage <= 1 else HostApiVersion(1)
    plugin_id = "other" if stage <= 2 else "mnemosyne"
    version = "9.9.9" if stage <= 3 else "0.1.0"
    tools: list[Any] = []
    if stage <= 4:
        tools += mnemosyne_tools("memory_forget") * 2
    if stage <= 5:
        tools.append(activated("memory_dream"))
    if stage <= 6:
        tools.append(activated("memory_revise", effects=READ))
    tools += mnemosyne_tools("memory_list", "memory_recall")
    return {
        "manifest_definition": definition,
        "adapter_definition": adapter,
        "contribution": _contribution(*tools, plugin_id=plugin_id, version=version),
        "supported_host_api": host_api,
    }


_ORDER = [
    Code.DEFINITION_MANIFEST_MISMATCH,
    Code.HOST_API_INCOMPATIBLE,
    Code.CONTRIBUTION_PLUGIN_MISMATCH,
    Code.CONTRIBUTION_VERSION_MISMATCH,
    Code.DUPLICATE_SELECTED_CAPABILITY,
    Code.UNDECLARED_CAPABILITY,
    Code.CAPABILITY_METADATA_MISMATCH,
    Code.CAPABILITY_ORDER_MISMATCH,
]


@pytest.mark.parametrize("stage", range(len(_ORDER)), ids=[code.value for code in _ORDER])
def test_parity_checks_run_in_order(stage: int) -> None:
    assert _failure(_stage_inputs(stage)).code == _ORDER[stage]


def test_tools_are_checked_one_after_another() -> None:
    metadata_first = _contribution(activated("memory_recall", effects=WRITE), activated("x_y"))
    assert _failure(_inputs(contribution=metadata_first)).code == Code.CAPABILITY_METADATA_MISMATCH
    undeclared_first = _contribution(activated("x_y"), activated("memory_recall", effects=WRITE))
    assert _failure(_inputs(contribution=undeclared_first)).code == Code.UNDECLARED_CAPABILITY


def test_destructive_metadata_must_match_exactly() -> None:
    revise = activated("memory_revise", effects=DESTROY, consent=ConsentRequirement.PER_CALL)
    assert validate_plugin_contract(**_inputs(contribution=_contribution(revise))) is None
    lenient = activated("memory_revise", effects=WRITE, consent=ConsentRequirement.PER_CALL)
    error = _failure(_inputs(contribution=_contribution(lenient)))
    assert error.code == Code.CAPABILITY_METADATA_MISMATCH


def test_parity_errors_have_no_chained_context() -> None:
    try:
        raise RuntimeError("caller state")
    except RuntimeError:
        error = _failure(_inputs(supported_host_api=HostApiVersion(3)))
    assert error.__context__ is None
    assert error.__cause__ is None
    assert isinstance(error, ValueError)
