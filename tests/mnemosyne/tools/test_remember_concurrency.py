"""Racing identical memory_remember calls (threads and processes) write exactly one record."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import McpClient

pytestmark = pytest.mark.slow  # several processes

TOOL = "memory_remember"
THREADS = 8
PROCESSES = 2
REPOSITORY = Path(__file__).resolve().parents[3]

# A separate server process: build the production app, warm it up, say "ready", wait for
# "go" on stdin, make the call and print the Tool payload.
RACER = """
import sys
sys.path.insert(0, sys.argv[1])
from starlette.testclient import TestClient
from mymcp.app import create_production_app

client = TestClient(create_production_app(), base_url="http://127.0.0.1:8000")
headers = {"content-type": "application/json"}
client.post("/mcp", content='{"jsonrpc":"2.0","id":0,"method":"tools/list"}', headers=headers)
print("ready", flush=True)
sys.stdin.readline()
response = client.post("/mcp", content=sys.argv[2], headers=headers)
print(response.json()["result"]["content"][0]["text"], flush=True)
"""


def draft(content: str) -> dict[str, Any]:
    return {
        "scope": "project",
        "namespace": {"kind": "project", "id": "mnemosyne", "label": None},
        "collection": {"id": "races", "label": None},
        "kind": "decision",
        "language": "en",
        "title": None,
        "content": content,
        "tags": ["race"],
        "origin": "user_approved_proposal",
    }


def start_racer(script: Path, arguments: dict[str, Any]) -> subprocess.Popen[str]:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": TOOL, "arguments": arguments},
        }
    )
    racer = subprocess.Popen(
        [sys.executable, str(script), str(REPOSITORY), body],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
        text=True,
    )
    assert racer.stdout is not None
    assert racer.stdout.readline().strip() == "ready"
    return racer


def race_threads(
    client: McpClient, arguments: dict[str, Any], count: int, go: Callable[[], None]
) -> list[dict[str, Any]]:
    barrier = threading.Barrier(count + 1)
    results: list[dict[str, Any]] = []
    failures: list[BaseException] = []

    def racer() -> None:
        try:
            barrier.wait(timeout=10)
            results.append(client.call(TOOL, arguments).payload)
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            failures.append(exc)

    threads = [threading.Thread(target=racer) for _ in range(count)]
    for thread in threads:
        thread.start()
    barrier.wait(timeout=10)
    go()
    for thread in threads:
        thread.join(timeout=30)
    assert not failures, failures
    return results


def assert_one_winner(root: Path, results: list[dict[str, Any]], racers: int) -> None:
    assert len(results) == racers
    statuses = Counter(result["status"] for result in results)
    assert statuses == {"remembered": 1, "already_exists": racers - 1}, statuses
    assert len({result["reference"]["id"] for result in results}) == 1
    written = [path for path in root.rglob("*") if path.is_file()]
    assert [path.name for path in written] == [results[0]["reference"]["id"] + ".json"]


def test_racing_threads_and_processes_write_one_record(
    mcp: Callable[..., McpClient], memory_root: Path, tmp_path: Path
) -> None:
    client = mcp(remember=True)
    client.tool_names()  # warm up the app before the race
    arguments = draft("Racers agree on one shared memory.")
    script = tmp_path / "racer.py"
    script.write_text(RACER)
    racers = [start_racer(script, arguments) for _ in range(PROCESSES)]

    def release_processes() -> None:
        for racer in racers:
            assert racer.stdin is not None
            racer.stdin.write("go\n")
            racer.stdin.flush()

    try:
        results = race_threads(client, arguments, THREADS, release_processes)
        for racer in racers:
            output, _ = racer.communicate(timeout=30)
            assert racer.returncode == 0
            results.append(json.loads(output))
    finally:
        for racer in racers:
            if racer.poll() is None:
                racer.kill()
                racer.wait()
    assert_one_winner(memory_root, results, THREADS + PROCESSES)


@pytest.mark.parametrize("round_number", range(5))
def test_racing_threads_write_one_record_per_draft(
    mcp: Callable[..., McpClient], memory_root: Path, round_number: int
) -> None:
    client = mcp(remember=True)
    client.tool_names()
    results = race_threads(client, draft(f"Round {round_number}."), THREADS, lambda: None)
    assert_one_winner(memory_root, results, THREADS)
