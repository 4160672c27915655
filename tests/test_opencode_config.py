"""The repository's opencode.json: the server entry and the permission rules, in order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CONFIG_PATH = Path(__file__).resolve().parents[1] / "opencode.json"

# OpenCode applies the last matching rule: the broad deny must come first.
EXPECTED_RULES = [
    ("mymcp_*", "deny"),
    ("mymcp_list_tools", "allow"),
    ("mymcp_memory_recall", "allow"),
    ("mymcp_memory_inspect", "allow"),
    ("mymcp_memory_list", "allow"),
    ("mymcp_memory_remember", "ask"),
    ("mymcp_memory_revise", "ask"),
    ("mymcp_memory_archive", "ask"),
    ("mymcp_memory_restore", "ask"),
    ("mymcp_memory_forget", "ask"),
]


def _config() -> dict[str, Any]:
    config: dict[str, Any] = json.loads(CONFIG_PATH.read_text(encoding="utf-8"))
    return config


def test_opencode_config_declares_the_local_remote_server() -> None:
    config = _config()
    assert list(config) == ["$schema", "mcp", "permission", "agent"]
    assert config["$schema"] == "https://opencode.ai/config.json"
    assert config["mcp"] == {
        "mymcp": {"type": "remote", "url": "http://127.0.0.1:8000/mcp", "enabled": True}
    }


def test_opencode_top_level_permissions_deny_first_then_allow_reads_and_ask_mutations() -> None:
    assert list(_config()["permission"].items()) == EXPECTED_RULES


def test_opencode_mymcp_agent_repeats_the_same_permissions_in_order() -> None:
    agents = _config()["agent"]
    assert list(agents) == ["mymcp"]
    assert list(agents["mymcp"]) == ["permission"]
    assert list(agents["mymcp"]["permission"].items()) == EXPECTED_RULES


def test_opencode_permissions_cover_every_tool_of_the_manifest() -> None:
    manifest_path = CONFIG_PATH.parent / "mymcp" / "plugins" / "mnemosyne" / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    expected = {
        f"mymcp_{capability['id']}": "allow" if capability["read_only"] else "ask"
        for capability in manifest["capabilities"]
    }
    expected["mymcp_list_tools"] = "allow"
    rules = dict(EXPECTED_RULES[1:])
    assert rules == expected
