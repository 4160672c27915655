"""The Mnemosyne adapter: its definition matches the manifest and gates select its Tools."""

from __future__ import annotations

import re
from importlib import resources

from mymcp.plugin_api import parse_manifest_bytes
from mymcp.plugins.mnemosyne.configuration.gates import MutationSettings
from mymcp.plugins.mnemosyne.plugin import (
    INSTRUCTIONS,
    build_mnemosyne_contribution,
    build_mnemosyne_registrations,
    mnemosyne_plugin_definition,
)

READS = ["memory_recall", "memory_list", "memory_inspect"]


def test_the_adapter_definition_equals_the_packaged_manifest() -> None:
    source = resources.files("mymcp.plugins.mnemosyne").joinpath("manifest.json").read_bytes()
    assert parse_manifest_bytes(source) == mnemosyne_plugin_definition()


def test_default_gates_select_only_the_read_tools() -> None:
    contribution = build_mnemosyne_contribution(MutationSettings())
    assert [tool.capability.local_id.value for tool in contribution.tools] == READS


def test_registrations_follow_the_gates_in_declaration_order() -> None:
    settings = MutationSettings(forget_enabled=True, remember_enabled=True)
    names = [item.tool["name"] for item in build_mnemosyne_registrations(settings)]
    assert names == [*READS, "memory_remember", "memory_forget"]


def test_every_tool_the_server_instructions_name_is_a_mnemosyne_tool() -> None:
    gates = ("remember_enabled", "revise_enabled", "archive_restore_enabled", "forget_enabled")
    everything = MutationSettings(**dict.fromkeys(gates, True))
    served = {item.tool["name"] for item in build_mnemosyne_registrations(everything)}
    named = set(re.findall(r"memory_[a-z]+", INSTRUCTIONS))
    assert named == served


def test_the_instructions_say_how_to_use_the_server_well() -> None:
    text = INSTRUCTIONS
    assert text.index("memory_recall") < text.index("memory_remember")  # recall first
    assert "approved" in text and "never treat your own judgement as approval" in text
    assert "never secrets" in text
    assert "reference object" in text and "unchanged" in text and "expected_revision" in text
