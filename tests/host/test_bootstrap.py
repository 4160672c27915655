"""The production bootstrap of the bundled Mnemosyne plugin (HOST_AND_PROTOCOL §11.7)."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from starlette.testclient import TestClient

from mymcp.app import create_app
from mymcp.host import bootstrap
from mymcp.host.runtime import HostRuntime, RuntimeGenerationId, build_host_runtime
from mymcp.mcp import list_tools
from mymcp.plugin_api import (
    HostToolOrigin,
    PluginContractError,
    PluginContractErrorCode,
    PluginId,
    PluginVersion,
)
from mymcp.plugins.mnemosyne import plugin
from mymcp.plugins.mnemosyne.configuration import gates
from mymcp.plugins.mnemosyne.configuration.gates import Settings
from tests.helpers import McpClient, snapshot_tree, tool_names
from tests.plugin_api.samples import MNEMOSYNE_CAPABILITIES, capability
from tests.surface import GATE_OF, READ_TOOLS, TOOL_ORDER

# The contract's Tool order, typed here once: every other test reads tests/surface.py.
PINNED_ORDER = (
    "memory_recall",
    "memory_list",
    "memory_inspect",
    "memory_archive",
    "memory_restore",
    "memory_remember",
    "memory_revise",
    "memory_forget",
)
GATED: dict[str, tuple[str, tuple[str, ...]]] = {
    "remember": (GATE_OF["remember"], ("memory_remember",)),
    "archive_restore": (
        GATE_OF["archive_restore"],
        ("memory_archive", "memory_restore"),
    ),
    "forget": (GATE_OF["forget"], ("memory_forget",)),
    "revise": (GATE_OF["revise"], ("memory_revise",)),
}
PACKAGED_MANIFEST = (
    resources.files("mymcp.plugins.mnemosyne").joinpath("manifest.json").read_bytes()
)


def _set_gates(monkeypatch: pytest.MonkeyPatch, *enabled: str) -> None:
    for gate, (variable, _tools) in GATED.items():
        monkeypatch.setenv(variable, "true" if gate in enabled else "false")


def _expected_tools(*enabled: str) -> tuple[str, ...]:
    selected = set(READ_TOOLS)
    for gate in enabled:
        selected.update(GATED[gate][1])
    return tuple(name for name in PINNED_ORDER if name in selected)


def test_the_tools_other_tests_read_are_the_pinned_order_and_gates() -> None:
    assert TOOL_ORDER == PINNED_ORDER
    assert READ_TOOLS == ("memory_recall", "memory_list", "memory_inspect")
    assert set(GATED) == set(GATE_OF)


@pytest.fixture
def settings_reads(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every call to the settings resolver, with what it resolved (or the error it raised)."""
    reads: list[Any] = []
    original = gates.load_settings

    def counting(*args: Any, **kwargs: Any) -> Settings:
        try:
            settings = original(*args, **kwargs)
        except Exception as error:
            reads.append(error)
            raise
        reads.append(settings)
        return settings

    monkeypatch.setattr(gates, "load_settings", counting)
    return reads


@pytest.fixture
def manifest_reads(monkeypatch: pytest.MonkeyPatch) -> Callable[[Any], list[tuple[str, str]]]:
    """Serve the bootstrap a manifest resource of our choosing; returns the reads made."""

    def install(content: Any) -> list[tuple[str, str]]:
        reads: list[tuple[str, str]] = []

        def files(package: str) -> Any:
            def joinpath(name: str) -> Any:
                def read_bytes() -> Any:
                    reads.append((package, name))
                    if isinstance(content, BaseException):
                        raise content
                    return content

                return SimpleNamespace(read_bytes=read_bytes)

            return SimpleNamespace(joinpath=joinpath)

        monkeypatch.setattr(bootstrap, "resources", SimpleNamespace(files=files))
        return reads

    return install


class GenerationFactory:
    def __init__(self, value: str = "custom-generation") -> None:
        self.calls = 0
        self.generation = RuntimeGenerationId(value)

    def __call__(self) -> RuntimeGenerationId:
        self.calls += 1
        return self.generation


def _manifest_with(**changes: Any) -> bytes:
    manifest = json.loads(PACKAGED_MANIFEST)
    manifest.update(changes)
    return json.dumps(manifest).encode()


def _poison_settings(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Make any settings read fail: an invalid gate value and a broken settings file."""
    monkeypatch.setenv(GATE_OF["remember"], "yes")
    directory = home / ".mnemosyne"
    directory.mkdir(mode=0o700)
    (directory / "config.toml").write_bytes(b"not = [valid")
    os.chmod(directory / "config.toml", 0o600)


# --- the packaged manifest --------------------------------------------------------------------


def test_the_packaged_manifest_resource_is_read(
    manifest_reads: Callable[[Any], list[tuple[str, str]]],
) -> None:
    reads = manifest_reads(PACKAGED_MANIFEST)
    runtime = bootstrap.build_production_runtime()
    assert isinstance(runtime, HostRuntime)
    assert reads == [("mymcp.plugins.mnemosyne", "manifest.json")]


BAD_MANIFESTS = [
    pytest.param("{}", PluginContractErrorCode.MANIFEST_RESOURCE_INVALID, id="str"),
    pytest.param(
        bytearray(PACKAGED_MANIFEST), PluginContractErrorCode.MANIFEST_RESOURCE_INVALID, id="array"
    ),
    pytest.param(b" " * 65537, PluginContractErrorCode.MANIFEST_RESOURCE_TOO_LARGE, id="too-large"),
    pytest.param(
        b'{"id": "\xff"}', PluginContractErrorCode.MANIFEST_RESOURCE_INVALID_UTF8, id="utf8"
    ),
    pytest.param(
        b'{"id": 1, "id": 2}', PluginContractErrorCode.MANIFEST_RESOURCE_DUPLICATE_KEY, id="dup"
    ),
    pytest.param(b"{", PluginContractErrorCode.MANIFEST_RESOURCE_INVALID_JSON, id="json"),
    pytest.param(
        b"\xef\xbb\xbf" + PACKAGED_MANIFEST,
        PluginContractErrorCode.MANIFEST_RESOURCE_INVALID_JSON,
        id="bom",
    ),
    pytest.param(b"NaN", PluginContractErrorCode.MANIFEST_RESOURCE_INVALID_JSON, id="nan"),
    pytest.param(b"[]", PluginContractErrorCode.MANIFEST_ROOT_INVALID, id="root"),
    pytest.param(b"{}", PluginContractErrorCode.MANIFEST_MISSING_FIELD, id="missing"),
    pytest.param(
        _manifest_with(extra=True), PluginContractErrorCode.MANIFEST_UNKNOWN_FIELD, id="unknown"
    ),
    pytest.param(
        _manifest_with(manifest_version=2),
        PluginContractErrorCode.MANIFEST_VERSION_UNSUPPORTED,
        id="version",
    ),
]


@pytest.mark.parametrize(("content", "code"), BAD_MANIFESTS)
def test_a_bad_manifest_fails_before_any_settings_are_read(
    content: Any,
    code: PluginContractErrorCode,
    manifest_reads: Callable[[Any], list[tuple[str, str]]],
    settings_reads: list[Any],
    hermetic_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    manifest_reads(content)
    _poison_settings(monkeypatch, hermetic_home)
    generation = GenerationFactory()
    with pytest.raises(PluginContractError) as caught:
        bootstrap.build_production_runtime(generation_factory=generation)
    assert caught.value.code is code
    assert caught.value.__cause__ is None
    assert settings_reads == []
    assert generation.calls == 0


def test_an_unreadable_manifest_propagates_unchanged(
    manifest_reads: Callable[[Any], list[tuple[str, str]]],
    settings_reads: list[Any],
    hermetic_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    error = PermissionError(13, "denied")
    manifest_reads(error)
    _poison_settings(monkeypatch, hermetic_home)
    with pytest.raises(PermissionError) as caught:
        bootstrap.build_production_runtime()
    assert caught.value is error
    assert settings_reads == []


def test_a_failing_adapter_definition_stops_before_the_settings(
    settings_reads: list[Any], hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    error = RuntimeError("definition unavailable")

    def broken() -> Any:
        raise error

    monkeypatch.setattr(plugin, "mnemosyne_plugin_definition", broken)
    _poison_settings(monkeypatch, hermetic_home)
    with pytest.raises(RuntimeError) as caught:
        bootstrap.build_production_runtime()
    assert caught.value is error
    assert settings_reads == []


# --- parity between manifest, definition and contribution ------------------------------------


_ADAPTER_DEFINITION = plugin.mnemosyne_plugin_definition


def _retitled_definition() -> Any:
    return dataclasses.replace(_ADAPTER_DEFINITION(), title="Not Mnemosyne")


def test_a_definition_that_differs_from_the_manifest_fails_the_build(
    settings_reads: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plugin, "mnemosyne_plugin_definition", _retitled_definition)
    generation = GenerationFactory()
    with pytest.raises(PluginContractError) as caught:
        bootstrap.build_production_runtime(generation_factory=generation)
    assert caught.value.code is PluginContractErrorCode.DEFINITION_MANIFEST_MISMATCH
    assert str(caught.value) == "plugin definition does not match manifest"
    assert generation.calls == 0
    # Parity is checked at step 5, after the one settings read of step 4.
    assert len(settings_reads) == 1


def test_settings_are_resolved_before_the_parity_check(
    settings_reads: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plugin, "mnemosyne_plugin_definition", _retitled_definition)
    monkeypatch.setenv(GATE_OF["forget"], "on")
    with pytest.raises(ValueError) as caught:
        bootstrap.build_production_runtime()
    assert not isinstance(caught.value, PluginContractError)
    assert str(caught.value) == f"{GATE_OF['forget']} must be 'true' or 'false'"
    assert len(settings_reads) == 1


def test_a_contribution_that_disagrees_with_the_definition_fails_the_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = plugin.mnemosyne_contribution

    def reversed_contribution() -> Any:
        contribution = original()
        return type(contribution)(
            contribution.plugin_id, contribution.version, tuple(reversed(contribution.tools))
        )

    monkeypatch.setattr(plugin, "mnemosyne_contribution", reversed_contribution)
    generation = GenerationFactory()
    with pytest.raises(PluginContractError) as caught:
        bootstrap.build_production_runtime(generation_factory=generation)
    assert caught.value.code is PluginContractErrorCode.CAPABILITY_ORDER_MISMATCH
    assert generation.calls == 0


def test_the_production_build_accepts_a_generation_factory_returning_a_string() -> None:
    runtime = bootstrap.build_production_runtime(generation_factory=lambda: "route-test-generation")
    assert runtime.generation == RuntimeGenerationId("route-test-generation")


@pytest.mark.parametrize("value", ["route test generation", None])
def test_the_production_build_refuses_an_invalid_generation_after_composition(value: Any) -> None:
    composed: list[bool] = []

    def factory() -> Any:  # called only once composition has succeeded
        composed.append(True)
        return value

    with pytest.raises(ValueError, match="^invalid runtime generation id$"):
        bootstrap.build_production_runtime(generation_factory=factory)
    assert composed == [True]


# --- settings, bindings and the composed runtime ---------------------------------------------


def test_gates_are_resolved_exactly_once_per_build(
    settings_reads: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    _set_gates(monkeypatch, "remember")
    first = bootstrap.build_production_runtime()
    assert len(settings_reads) == 1
    _set_gates(monkeypatch, "forget")
    second = bootstrap.build_production_runtime()
    assert len(settings_reads) == 2
    assert "memory_remember" in first.registry and "memory_forget" not in first.registry
    assert "memory_forget" in second.registry and "memory_remember" not in second.registry


def test_a_settings_file_decides_the_gates_the_environment_leaves_unset(
    settings_reads: list[Any], hermetic_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = hermetic_home / ".mnemosyne"
    directory.mkdir(mode=0o700)
    settings_file = directory / "config.toml"
    settings_file.write_text("[memory]\nrevise_enabled = true\nforget_enabled = true\n")
    os.chmod(settings_file, 0o600)
    monkeypatch.setenv(GATE_OF["forget"], "false")
    runtime = bootstrap.build_production_runtime()
    assert tool_names(runtime.registry) == ("list_tools", *READ_TOOLS, "memory_revise")
    assert len(settings_reads) == 1


GATE_SETS = [(), ("remember",), ("archive_restore", "forget"), ("revise",), tuple(GATED)]


@pytest.mark.parametrize("enabled", GATE_SETS, ids=lambda gates: "+".join(gates) or "none")
def test_bindings_follow_the_pinned_order_for_the_selected_tools(
    enabled: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    captured: list[tuple[Any, ...]] = []
    original = build_host_runtime

    def recording(contributions: Any, bindings: Any, factory: Any, **kwargs: Any) -> HostRuntime:
        captured.append((list(contributions), list(bindings), factory))
        return original(contributions, bindings, factory, **kwargs)

    monkeypatch.setattr(bootstrap, "build_host_runtime", recording)
    _set_gates(monkeypatch, *reversed(enabled))
    runtime = bootstrap.build_production_runtime()
    expected = _expected_tools(*enabled)
    [(contributions, bindings, factory)] = captured
    assert [contribution.plugin_id for contribution in contributions] == [PluginId("mnemosyne")]
    assert [(binding.capability, binding.public_name) for binding in bindings] == [
        (capability(name), name) for name in expected
    ]
    assert factory is list_tools.registration
    assert tool_names(runtime.registry) == ("list_tools", *expected)
    assert list(runtime.bindings.values()) == list(expected)


def test_list_tools_names_itself_and_the_selected_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    _set_gates(monkeypatch, "remember", "revise")
    runtime = bootstrap.build_production_runtime()
    expected = ("list_tools", *_expected_tools("remember", "revise"))
    answer = runtime.registry.call_tool("list_tools", {})
    assert answer == {"content": [{"type": "text", "text": list_tools.summary(expected)}]}
    assert runtime.registry.tools[0] == list_tools.DEFINITION


def test_the_runtime_carries_the_declared_metadata(monkeypatch: pytest.MonkeyPatch) -> None:
    _set_gates(monkeypatch, *GATED)
    runtime = bootstrap.build_production_runtime()
    assert runtime.plugin_inventory == ((PluginId("mnemosyne"), PluginVersion("0.1.0")),)
    assert runtime.origins["list_tools"] is HostToolOrigin.HOST
    for name, effects, consent in MNEMOSYNE_CAPABILITIES:
        assert runtime.origins[name] == capability(name)
        assert runtime.effects[capability(name)] == effects
        assert runtime.consent[capability(name)] is consent
        assert runtime.bindings[capability(name)] == name


def test_a_custom_generation_factory_names_the_runtime() -> None:
    generation = GenerationFactory("operator.chosen~1")
    runtime = bootstrap.build_production_runtime(generation_factory=generation)
    assert runtime.generation is generation.generation
    assert generation.calls == 1


def test_each_build_gets_a_fresh_default_generation() -> None:
    first = bootstrap.build_production_runtime()
    second = bootstrap.build_production_runtime()
    assert first.generation != second.generation
    assert first.generation.value.startswith("generation_")


def test_a_settings_failure_names_no_generation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(GATE_OF["revise"], "TRUE")
    generation = GenerationFactory()
    with pytest.raises(ValueError, match=f"^{GATE_OF['revise']} must be"):
        bootstrap.build_production_runtime(generation_factory=generation)
    assert generation.calls == 0


def test_building_creates_nothing_on_disk(
    hermetic_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    monkeypatch.setenv("MNEMOSYNE_MEMORY_ROOT", str(root))
    directory = hermetic_home / ".mnemosyne"
    directory.mkdir(mode=0o700)
    (directory / "config.toml").write_text("[memory]\nremember_enabled = true\n")
    os.chmod(directory / "config.toml", 0o600)
    before = snapshot_tree(tmp_path)
    runtime = bootstrap.build_production_runtime()
    assert "memory_remember" in runtime.registry
    assert snapshot_tree(tmp_path) == before
    assert not root.exists()


def test_building_with_defaults_creates_no_application_directory(hermetic_home: Path) -> None:
    before = snapshot_tree(hermetic_home)
    bootstrap.build_production_runtime()
    assert snapshot_tree(hermetic_home) == before
    assert not (hermetic_home / ".mnemosyne").exists()


def test_the_generation_is_never_served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MNEMOSYNE_MEMORY_ROOT", str(tmp_path / "memory"))
    marker = "zz9-plural-z-alpha"
    runtime = bootstrap.build_production_runtime(generation_factory=GenerationFactory(marker))
    with TestClient(create_app(runtime), base_url="http://127.0.0.1:8000") as http:
        client = McpClient(http)
        bodies = [
            json.dumps(client.rpc("initialize", {"protocolVersion": "2025-11-25"})),
            json.dumps(client.rpc("tools/list")),
            json.dumps(client.rpc("tools/call", {"name": "list_tools", "arguments": {}})),
            json.dumps(client.call("memory_list", {"scope": "project"}).raw),
            http.get("/health").text,
            http.get("/version").text,
        ]
    for body in bodies:
        assert marker not in body


WARM_PROBE = """
import sys
from mymcp.host import bootstrap
from mymcp.plugins.mnemosyne import plugin
from mymcp.plugins.mnemosyne.memory.recall import meaning

bootstrap.build_production_runtime()
bootstrap.wait_until_warm()
print(sorted(name for name in plugin.SERVICE_MODULES if name not in sys.modules))
print(meaning._table is not None)
"""


def test_waiting_until_warm_returns_once_the_services_and_their_data_are_loaded(
    tmp_path: Path,
) -> None:
    # What mymcp serve waits for before it listens: no request races the warm-up.
    root = Path(__file__).resolve().parents[2]
    env = {"PYTHONPATH": str(root), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    completed = subprocess.run(
        [sys.executable, "-c", WARM_PROBE], env=env, capture_output=True, text=True, timeout=120
    )

    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == ["[]", "True"]
