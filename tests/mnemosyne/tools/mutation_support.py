"""Shared helpers of the revise / archive / restore / forget tests."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import canonical_record, place_canonical
from tests.surface import ALL_LISTED, READ_LISTED

REFUSAL_MESSAGE = (
    "memory field resembles content that Mnemosyne does not store; review the named field "
    "and retry only if the user confirms that the formatting is benign"
)
FIXED_NOW = datetime(2026, 7, 21, 8, 30, 15, 999_000, tzinfo=UTC)
FIXED_STAMP = "2026-07-21T08:30:15Z"
OTHER_ID = "mem_fedcba9876543210fedcba9876543210"
ALL_TOOLS = list(ALL_LISTED)
READ_TOOLS = list(READ_LISTED)


def reference_of(record: dict[str, Any]) -> dict[str, Any]:
    """The version 2 reference of a record dict."""
    collection = record["collection"]
    return {
        "schema_version": 2,
        "scope": record["scope"],
        "namespace_id": record["namespace"]["id"],
        "collection_id": None if collection is None else collection["id"],
        "id": record["id"],
    }


def existing(root: Path, **overrides: Any) -> dict[str, Any]:
    """Place a valid record (helpers.canonical_record with overrides) and return its dict."""
    record = canonical_record(**overrides)
    place_canonical(root, record)
    return record


def record_path(root: Path, record: dict[str, Any]) -> Path:
    parts = [record["scope"], record["namespace"]["id"]]
    if record["collection"] is not None:
        parts.append(record["collection"]["id"])
    return root.joinpath(*parts, f"{record['id']}.json")


def on_disk(root: Path, record: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(record_path(root, record).read_bytes())
    return data


def fix_clock(monkeypatch: pytest.MonkeyPatch, now: datetime = FIXED_NOW) -> None:
    monkeypatch.setattr("mymcp.plugins.mnemosyne.memory.services.lifecycle._utc_now", lambda: now)


def forbid_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_clock() -> datetime:
        raise AssertionError("the clock must not be read")

    monkeypatch.setattr("mymcp.plugins.mnemosyne.memory.services.lifecycle._utc_now", no_clock)


def tool_events(caplog: pytest.LogCaptureFixture, tool: str) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == f"mcp.{tool}"]


# --- the racing worker of test_mutation_concurrency (importable by spawned processes) ---------

RACE_OPS = (
    ("memory_revise", 40),
    ("memory_archive", 25),
    ("memory_restore", 25),
    ("memory_forget", 10),
)


def race_choice(seed: int, worker: int, round_number: int, rounds: int) -> str:
    """The Tool a worker calls in a round (reproducible from the seed).

    Forget joins in only for the last rounds, so the records live long enough to race.
    """
    import random

    rng = random.Random(f"{seed}:{worker}:{round_number}")
    ops = [op for op in RACE_OPS if op[0] != "memory_forget" or round_number >= rounds * 3 // 5]
    return rng.choices([name for name, _ in ops], weights=[weight for _, weight in ops])[0]


def race_arguments(
    op: str, reference: dict[str, Any], revision: int, content: str
) -> dict[str, Any]:
    arguments: dict[str, Any] = {"reference": reference, "expected_revision": revision}
    if op == "memory_revise":
        arguments.update(
            namespace_label="Mnemosyne",
            collection_label="Decisions",
            title="Raced",
            content=content,
            tags=["race"],
        )
    return arguments


def race_worker(
    worker: int,
    environment: dict[str, str],
    references: list[dict[str, Any]],
    rounds: int,
    seed: int,
    barrier: Any,
    results: Any,
) -> None:
    """Build the production app and race the other workers, one round at a time.

    In each round every worker reads the current revision of the same record, waits for
    the others, then calls its Tool with that revision. Each call's outcome goes back to
    the parent as a plain dict.
    """
    import logging
    import os
    import time

    os.environ.update(environment)
    from starlette.testclient import TestClient

    from mymcp.app import create_production_app
    from tests.helpers import McpClient

    outcomes: list[dict[str, Any]] = []
    app = create_production_app()
    logging.disable(logging.WARNING)  # the parent checks every outcome; keep stderr quiet
    with TestClient(app, base_url="http://127.0.0.1:8000") as http:
        client = McpClient(http)
        started = time.monotonic()
        for round_number in range(rounds):
            reference = references[round_number % len(references)]
            barrier.wait(timeout=60)
            seen = client.call("memory_inspect", {"reference": reference}).payload
            revision = seen["memory"]["lifecycle"]["revision"] if seen["status"] == "ok" else 1
            op = race_choice(seed, worker, round_number, rounds)
            content = f"worker {worker} round {round_number}"
            barrier.wait(timeout=60)
            reply = client.call(op, race_arguments(op, reference, revision, content))
            outcomes.append(
                {
                    "worker": worker,
                    "round": round_number,
                    "id": reference["id"],
                    "op": op,
                    "expected": revision,
                    "content": content,
                    "payload": reply.payload,
                }
            )
    results.put((outcomes, time.monotonic() - started))
