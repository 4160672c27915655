"""The candidate limit as the operator's setting, through the production app.

By default every Tool answers a scope past 1,000 record files exactly as the contract says
(MEMORY_READ §4.1, MEMORY_WRITE §3.5); ``MNEMOSYNE_MEMORY_CANDIDATE_LIMIT`` moves that point
and the messages name the limit that was passed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import McpClient, remember_arguments, write_record
from tests.surface import LIMIT_VARIABLE

LEGACY = {"schema_version": 1, "id": "old-note", "content": "An old note about zebras."}
V1_REFERENCE = {"schema_version": 1, "scope": "project", "id": "old-note"}
SCOPE_MESSAGE = "memory scope contains more than {} candidate files"
LIST_MESSAGE = "selected memory container contains more than {} candidate files"


def _fill(root: Path, count: int) -> None:
    """A scope holding the legacy note and ``count - 1`` junk candidates beside it."""
    write_record(root, LEGACY, "project", "old.json")
    bulk = root / "project" / "bulk"
    bulk.mkdir(parents=True, exist_ok=True)
    for number in range(count - 1):
        (bulk / f"{number}.json").write_bytes(b"{}")


def _answers(client: McpClient, note: str = "One decision.") -> dict[str, Any]:
    """What each Tool that meets the bound answers for the project scope."""
    recall = client.call("memory_recall", {"query": "zebras", "scope": "project"})
    listed = client.call("memory_list", {"scope": "project"})
    inspected = client.call("memory_inspect", {"reference": V1_REFERENCE})
    remembered = client.call("memory_remember", remember_arguments(content=note))
    return {
        "recall": recall.payload,
        "list": listed.payload,
        "inspect": inspected.payload,
        "remember": remembered.payload,
    }


def _refusals(limit: int) -> dict[str, dict[str, str]]:
    def refused(status: str, message: str) -> dict[str, str]:
        text = message.format(limit)
        return {"status": status, "code": "candidate_limit_exceeded", "message": text}

    return {
        "recall": refused("retrieval_error", SCOPE_MESSAGE),
        "list": refused("storage_error", LIST_MESSAGE),
        "inspect": refused("storage_error", SCOPE_MESSAGE),
        "remember": refused("storage_error", SCOPE_MESSAGE),
    }


def _client(
    mcp: Callable[..., McpClient], monkeypatch: pytest.MonkeyPatch, limit: str | None
) -> McpClient:
    """A new production app (so a new store), with the limit variable set or unset."""
    if limit is None:
        monkeypatch.delenv(LIMIT_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(LIMIT_VARIABLE, limit)
    return mcp(remember=True)


def _served(answers: dict[str, Any]) -> None:
    """Each Tool served the scope: the note is found, listed and shown; remember wrote."""
    assert [hit["id"] for hit in answers["recall"]["memories"]] == ["old-note"]
    assert answers["list"]["status"] == "ok"
    assert answers["inspect"]["memory"]["id"] == "old-note"
    assert answers["remember"]["status"] == "remembered"


def test_the_default_limit_answers_exactly_as_the_contract(
    mcp: Callable[..., McpClient], memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Unset and set to 1000 alike: 1,000 files are served, 1,001 refused with the
    # contract's codes and messages by each Tool (the remembered file is the 1,001st).
    _fill(memory_root, 1000)
    _served(_answers(_client(mcp, monkeypatch, None)))
    for limit in (None, "1000"):
        assert _answers(_client(mcp, monkeypatch, limit)) == _refusals(1000)


def test_a_raised_limit_moves_the_point_and_is_named_in_the_refusal(
    mcp: Callable[..., McpClient],
    memory_root: Path,
    hermetic_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _fill(memory_root, 1002)
    _served(_answers(_client(mcp, monkeypatch, "1002")))  # now 1,003 files
    assert _answers(_client(mcp, monkeypatch, "1002")) == _refusals(1002)
    directory = hermetic_home / ".mnemosyne"
    directory.mkdir(mode=0o700)
    (directory / "config.toml").write_text("[memory]\ncandidate_limit = 1003\n")
    (directory / "config.toml").chmod(0o600)
    _served(_answers(_client(mcp, monkeypatch, None), "Another decision."))  # 1,004 files
    assert _answers(_client(mcp, monkeypatch, None)) == _refusals(1003)
