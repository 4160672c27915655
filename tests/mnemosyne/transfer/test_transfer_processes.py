"""``mymcp import --apply`` as a real process: killed halfway, and beside a running server."""

from __future__ import annotations

import io
import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.memory.model.records import parse_record_bytes
from mymcp.plugins.mnemosyne.transfer import command
from tests.helpers import canonical_record, place_canonical, tea_preference
from tests.processes import child_environment, mymcp_command
from tests.surface import GATE_OF

pytestmark = pytest.mark.slow  # real processes

RECORDS = 400


def exported_notebook(tmp_path: Path, home: Path) -> Path:
    """A notebook of RECORDS records over two scopes, exported to a file."""
    source = tmp_path / "source"
    for index in range(RECORDS):
        scope = ("project", "knowledge")[index % 2]
        kind, namespace_kind = (
            ("decision", "project") if scope == "project" else ("summary", "topic")
        )
        place_canonical(
            source,
            canonical_record(
                id=f"mem_{index:032x}",
                scope=scope,
                kind=kind,
                namespace={"kind": namespace_kind, "id": f"n{index % 7}", "label": None},
                content=f"Memory number {index}.",
            ),
        )
    document = tmp_path / "notebook.json"
    out, err = io.StringIO(), io.StringIO()
    env = child_environment(home, source)
    code = command.export_notebook(
        output=str(document), scopes=None, format="json", out=out, err=err, environ=env
    )
    assert (code, err.getvalue()) == (0, "")
    return document


def start_import(document: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        mymcp_command("import", str(document), "--apply"),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def record_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.json")) if root.exists() else []


@pytest.fixture
def exported(tmp_path: Path, hermetic_home: Path) -> tuple[Path, Path, dict[str, str]]:
    """An exported notebook, an empty target root, and the environment that names that root."""
    target = tmp_path / "memory"
    document = exported_notebook(tmp_path, hermetic_home)
    return document, target, child_environment(hermetic_home, target)


def test_a_killed_import_leaves_whole_records_and_the_next_run_finishes(
    exported: tuple[Path, Path, dict[str, str]],
) -> None:
    document, target, env = exported

    running = start_import(document, env)
    deadline = time.monotonic() + 60
    while len(record_files(target)) < 50 and running.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    running.kill()
    running.communicate()

    assert running.returncode == -9  # stopped halfway, not finished
    written = record_files(target)
    assert 50 <= len(written) < RECORDS
    for path in written:
        parse_record_bytes(path.read_bytes())
    out, err = io.StringIO(), io.StringIO()
    code = command.import_notebook(
        source=str(document), format="mymcp", apply=True, out=out, err=err, environ=env
    )
    assert (code, err.getvalue()) == (0, "")
    assert out.getvalue().splitlines()[-1] == (
        f"imported: {RECORDS - len(written)} created, {len(written)} already there, "
        "0 refused, 0 invalid"
    )
    assert len(record_files(target)) == RECORDS


def _call(server: subprocess.Popen[bytes], number: int, arguments: dict[str, Any]) -> str:
    assert server.stdin is not None and server.stdout is not None
    message = {
        "jsonrpc": "2.0",
        "id": number,
        "method": "tools/call",
        "params": {"name": "memory_remember", "arguments": arguments},
    }
    server.stdin.write(json.dumps(message).encode() + b"\n")
    server.stdin.flush()
    answer = json.loads(server.stdout.readline())
    status: str = json.loads(answer["result"]["content"][0]["text"])["status"]
    return status


def test_an_import_beside_a_running_server_lets_its_tools_work_meanwhile(
    exported: tuple[Path, Path, dict[str, str]],
) -> None:
    document, target, env = exported
    server = subprocess.Popen(
        mymcp_command("stdio"),
        env={**env, GATE_OF["remember"]: "true"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert _call(server, 0, tea_preference("Warm-up.")) == "remembered"
        running = start_import(document, env)
        answered_meanwhile = 0
        for number in range(1, 21):
            assert _call(server, number, tea_preference(f"Tea {number}.")) == "remembered"
            answered_meanwhile += running.poll() is None
        out, _ = running.communicate(timeout=120)
    finally:
        server.kill()
        server.communicate()

    assert running.returncode == 0
    assert out.decode().splitlines()[-1] == (
        f"imported: {RECORDS} created, 0 already there, 0 refused, 0 invalid"
    )
    assert answered_meanwhile > 0
    assert len(record_files(target)) == RECORDS + 21
