"""The examples of docs/EXPORT_AND_IMPORT.md are what the commands print and write."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.docs.markdown import ROOT, Block, blocks, matches
from tests.helpers import canonical_record, write_record
from tests.mnemosyne.transfer.transfer_support import mymcp

PAGE = ROOT / "docs" / "EXPORT_AND_IMPORT.md"


def marked(marker: str) -> Block:
    [block] = [block for block in blocks(PAGE) if block.marker == marker]
    return block


def _entry(record: dict[str, Any], path: str) -> dict[str, Any]:
    reference = {
        "schema_version": 2,
        "scope": record["scope"],
        "namespace_id": record["namespace"]["id"],
        "collection_id": record["collection"]["id"],
        "id": record["id"],
    }
    return {"reference": reference, "path": path, "record": record}


def test_the_dry_run_example_is_what_the_dry_run_prints(
    memory_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tea = {"schema_version": 1, "id": "green-tea", "content": "Prefers green tea."}
    write_record(memory_root, tea, "preference", "green-tea.json")
    new = canonical_record(
        id="mem_3f0c9b1e5d7a4c2b8e6f1a0d9c8b7a65",
        namespace={"kind": "project", "id": "mymcp", "label": "MyMCP"},
    )
    secret = canonical_record(id="mem_" + "5" * 32, content="Token: sk-" + "Q7vX2mP9kL4nR8tY1wZ6")
    coloured = canonical_record(id="mem_" + "6" * 32, colour="red")
    document = {
        "format": "mymcp-notebook",
        "format_version": 1,
        "exported_at": "2026-01-31T12:00:00Z",
        "scopes": ["preference", "project"],
        "records": [
            _entry(new, f"project/mymcp/decisions/{new['id']}.json"),
            {
                "reference": {"schema_version": 1, "scope": "preference", "id": "green-tea"},
                "path": "preference/green-tea.json",
                "record": tea,
            },
            _entry(secret, f"project/mnemosyne/decisions/{secret['id']}.json"),
            _entry(coloured, f"project/mnemosyne/decisions/{coloured['id']}.json"),
        ],
        "skipped": [],
    }
    path = tmp_path / "notebook.json"
    path.write_text(json.dumps(document))

    assert mymcp(capsys, "import", str(path)).out == marked("import dry run").text


def test_the_server_memory_example_gives_the_documented_dry_run_and_record(
    memory_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "memory.jsonl"
    path.write_text(marked("server-memory file").text)

    dry = mymcp(capsys, "import", str(path), "--format", "server-memory")
    mymcp(capsys, "import", str(path), "--format", "server-memory", "--apply")

    assert dry.out == marked("server-memory dry run").text
    [written] = list(memory_root.rglob("*.json"))
    assert matches(json.loads(marked("server-memory record").text), json.loads(written.read_text()))
