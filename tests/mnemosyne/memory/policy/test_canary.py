"""Canary: a refused secret never comes back, in the answer or in any log line.

Each canary is a unique, freshly generated sensitive value of one reason. It is sent through
``POST /mcp`` to memory_remember and memory_revise in every inspected field; the whole HTTP
body of the answer and every captured log record (message and arguments, any logger, any
level) must be free of it, of any part of it, and of the name of the detector or the
offset. The refusal itself keeps its exact shape.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import (
    McpClient,
    canonical_record,
    place_canonical,
    remember_arguments,
    snapshot_tree,
)
from tests.mnemosyne.memory.policy.policy_corpus import github_token, luhn_complete
from tests.mnemosyne.tools.mutation_support import reference_of

REFUSAL_KEYS = ["status", "code", "field", "reason", "message"]


def _canaries() -> dict[str, str]:
    unique = str(secrets.randbelow(9 * 10**15) + 10**15)
    return {
        "private_key_shape": f"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE{unique}",
        "credential_shape": github_token(),
        "compact_token_shape": f"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ{unique}In0.{unique}",
        "government_identifier_shape": f"SSN 219-{10 + secrets.randbelow(89)}-{unique[:4]}",
        "payment_card_shape": luhn_complete("4", 16),
    }


def _pieces(secret: str) -> list[str]:
    """The secret and each run of eight of its characters that carries a digit or a letter."""
    runs = [secret[i : i + 8] for i in range(0, max(1, len(secret) - 7), 4)]
    return [secret, *(run for run in runs if any(char.isalnum() for char in run.strip()))]


def _assert_no_trace(secret: str, body: str, caplog: pytest.LogCaptureFixture) -> None:
    logged = [record.getMessage() for record in caplog.records]
    logged += [repr(record.args) for record in caplog.records]
    logged += [str(record.exc_text or "") for record in caplog.records]
    for piece in _pieces(secret):
        assert piece not in body
        assert all(piece not in line for line in logged)
    for leak in ("has_", "detector", "offset", "pattern", "regex"):
        assert leak not in body
        assert all(leak not in line for line in logged)


def _remember_arguments(field: str, secret: str) -> dict[str, Any]:
    arguments = remember_arguments(
        namespace={"kind": "project", "id": "canary", "label": "Canary"},
        collection={"id": "notes", "label": "Notes"},
        title="A note",
        content="Nothing to see here.",
        tags=["canary"],
    )
    if field == "tags":
        arguments["tags"] = ["canary", secret[:50]]
    elif field in ("namespace", "collection"):
        arguments[field]["label"] = secret[:100]
    else:
        arguments[field] = f"note: {secret} end"
    return arguments


CANARIES = _canaries()
REMEMBER_FIELDS = ["namespace", "collection", "title", "content", "tags"]


# A tag holds at most 50 characters, so only the short canaries go into a tag.
CASES = [
    (reason, field)
    for reason in sorted(CANARIES)
    for field in REMEMBER_FIELDS
    if field != "tags" or len(CANARIES[reason]) <= 50
]


@pytest.mark.parametrize(("reason", "field"), CASES)
def test_remember_refusal_carries_no_trace_of_the_secret(
    mcp: Callable[..., McpClient],
    memory_root: Path,
    caplog: pytest.LogCaptureFixture,
    field: str,
    reason: str,
) -> None:
    secret = CANARIES[reason]
    client = mcp(remember=True)
    caplog.set_level(logging.DEBUG)
    before = snapshot_tree(memory_root.parent)
    reply = client.call("memory_remember", _remember_arguments(field, secret))
    assert reply.is_error
    assert list(reply.payload) == REFUSAL_KEYS
    assert (reply.payload["status"], reply.payload["code"]) == ("refused", "disallowed_content")
    assert (reply.payload["field"], reply.payload["reason"]) == (field, reason)
    _assert_no_trace(secret, json.dumps(reply.raw), caplog)
    assert snapshot_tree(memory_root.parent) == before


@pytest.mark.parametrize("reason", sorted(CANARIES))
def test_revise_refusal_carries_no_trace_of_the_secret(
    mcp: Callable[..., McpClient],
    memory_root: Path,
    caplog: pytest.LogCaptureFixture,
    reason: str,
) -> None:
    record = canonical_record()
    place_canonical(memory_root, record)
    client = mcp(revise=True)
    caplog.set_level(logging.DEBUG)
    before = snapshot_tree(memory_root)
    secret = CANARIES[reason]
    arguments = {
        "reference": reference_of(record),
        "expected_revision": record["lifecycle"]["revision"],
        "namespace_label": None,
        "collection_label": None,
        "title": "A note",
        "content": f"revised: {secret}",
        "tags": [],
    }
    reply = client.call("memory_revise", arguments)
    assert reply.is_error
    assert reply.payload["status"] == "refused"
    assert (reply.payload["field"], reply.payload["reason"]) == ("content", reason)
    _assert_no_trace(secret, json.dumps(reply.raw), caplog)
    assert snapshot_tree(memory_root) == before
