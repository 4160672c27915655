"""``mymcp export``: the versioned JSON document, the Markdown notebook, read-only, consistent."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import stat
import threading
from pathlib import Path

import pytest

from mymcp.plugins.mnemosyne.memory.model.records import CanonicalRecord, parse_record_object
from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.storage import files
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore
from mymcp.plugins.mnemosyne.transfer import command
from mymcp.plugins.mnemosyne.transfer.document import FORMAT, FORMAT_VERSION
from mymcp.plugins.mnemosyne.transfer.snapshot import read_snapshot
from tests.helpers import canonical_record, place_canonical, snapshot_tree, write_record
from tests.mnemosyne.transfer.transfer_support import (
    ACTIVE_ID,
    ARCHIVED_ID,
    EVENT_ID,
    PERSON_ID,
    mymcp,
    read_json,
    sample_notebook,
)

SCOPES = [str(scope) for scope in Scope]


@pytest.fixture
def notebook(memory_root: Path) -> Path:
    sample_notebook(memory_root)
    return memory_root


def export(capsys: pytest.CaptureFixture[str], *options: str) -> dict[str, object]:
    ran = mymcp(capsys, "export", *options)
    assert (ran.code, ran.err) == (0, "")
    document: dict[str, object] = json.loads(ran.out)
    return document


def test_the_document_names_its_format_version_time_and_scopes(
    notebook: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = export(capsys)

    assert list(document) == [
        "format",
        "format_version",
        "exported_at",
        "scopes",
        "records",
        "skipped",
    ]
    assert (document["format"], document["format_version"]) == (FORMAT, FORMAT_VERSION)
    assert document["scopes"] == SCOPES
    assert isinstance(document["exported_at"], str) and document["exported_at"].endswith("Z")


def test_every_valid_record_is_there_with_its_place_in_notebook_order(
    notebook: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = export(capsys)["records"]

    assert isinstance(records, list)
    assert [entry["path"] for entry in records] == [
        "self/notes/2019/old.json",
        f"relationship/alice/{PERSON_ID}.json",
        "preference/green-tea.json",
        f"project/mymcp/{EVENT_ID}.json",
        f"project/mymcp/decisions/{ACTIVE_ID}.json",
        f"project/mymcp/decisions/{ARCHIVED_ID}.json",
    ]
    assert records[4]["reference"] == {
        "schema_version": 2,
        "scope": "project",
        "namespace_id": "mymcp",
        "collection_id": "decisions",
        "id": ACTIVE_ID,
    }
    assert records[0]["reference"] == {"schema_version": 1, "scope": "self", "id": "old"}


def test_a_canonical_record_is_exported_as_the_record_parser_reads_it(
    memory_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stored = canonical_record(title="  Padded title ", language="EN", lifecycle=None)
    stored["lifecycle"] = {"state": "archived", "revision": 4}
    place_canonical(memory_root, stored)

    records = export(capsys)["records"]

    assert isinstance(records, list) and len(records) == 1
    record = records[0]["record"]
    assert list(record) == list(stored)
    assert (record["title"], record["language"]) == ("Padded title", "en")
    assert record["lifecycle"] == {"state": "archived", "revision": 4}
    assert parse_record_object(record) == parse_record_object(stored)


def test_a_legacy_record_keeps_its_values_and_keys_exactly(
    notebook: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = export(capsys)["records"]

    assert isinstance(records, list)
    assert records[0]["record"] == {
        "schema_version": 1,
        "id": "old",
        "tags": ["x"],
        "content": "  kept verbatim  ",
    }
    assert list(records[2]["record"]) == ["schema_version", "id", "title", "tags", "content"]


def test_every_skipped_file_is_named_by_its_path_and_reason(
    memory_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_record(memory_root, "{not json", "project", "demo", "broken.json")
    write_record(memory_root, b"\xff\xfe", "project", "demo", "latin.json")
    write_record(memory_root, {"schema_version": 3}, "project", "demo", "future.json")
    misplaced = canonical_record()
    write_record(memory_root, misplaced, "project", "elsewhere", f"{misplaced['id']}.json")
    write_record(memory_root, b" " * (files.MAX_RECORD_BYTES + 1), "knowledge", "big.json")
    write_record(memory_root, {"schema_version": 1}, "self", "a", "b", "c", "d", "e", "x.json")
    os.symlink(memory_root / "project", memory_root / "practice")
    (memory_root / "notes").mkdir()

    skipped = export(capsys)["skipped"]

    assert skipped == [
        {"path": "knowledge/big.json", "reason": "oversized"},
        {"path": "notes/", "reason": "not_a_scope"},
        {"path": "practice/", "reason": "symlink"},
        {"path": "project/demo/broken.json", "reason": "invalid_json"},
        {"path": "project/demo/future.json", "reason": "invalid_record"},
        {"path": "project/demo/latin.json", "reason": "invalid_encoding"},
        {"path": f"project/elsewhere/{misplaced['id']}.json", "reason": "path_mismatch"},
        {"path": "self/a/b/c/d/e/", "reason": "too_deep"},
    ]


def test_a_scope_past_the_candidate_bound_is_still_exported_whole(
    memory_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    legacy = {"schema_version": 1, "id": "n", "content": "note"}
    for index in range(files.MAX_CANDIDATES + 1):
        write_record(memory_root, {**legacy, "id": f"n{index}"}, "knowledge", f"n{index}.json")

    records = export(capsys)["records"]

    assert isinstance(records, list) and len(records) == files.MAX_CANDIDATES + 1


def test_scope_options_export_only_those_scopes_in_scope_order(
    notebook: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (notebook / "notes").mkdir()

    document = export(capsys, "--scope", "project", "--scope", "self")

    assert document["scopes"] == ["self", "project"]
    records = document["records"]
    assert isinstance(records, list)
    assert {entry["reference"]["scope"] for entry in records} == {"self", "project"}
    assert document["skipped"] == []  # entries outside the scopes belong to a whole export


def test_an_unknown_scope_is_a_usage_error(
    notebook: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = mymcp(capsys, "export", "--scope", "projects")

    assert ran.code == 2
    assert ran.out == ""
    assert ran.err.splitlines() == [
        "mymcp export: unknown scope 'projects'; the scopes are "
        "self, relationship, preference, practice, project, knowledge"
    ]


def test_a_missing_root_is_an_empty_notebook_and_stays_missing(
    memory_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = export(capsys)

    assert (document["records"], document["skipped"]) == ([], [])
    assert not memory_root.exists()


def test_a_root_that_is_a_file_stops_the_export_in_one_line(
    memory_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory_root.write_text("not a folder")

    ran = mymcp(capsys, "export")

    assert (ran.code, ran.out) == (1, "")
    [line] = ran.err.splitlines()
    assert line.startswith("mymcp export: the memory root ") and "regular file" in line


def test_export_changes_nothing_below_the_root(
    notebook: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    before = snapshot_tree(notebook)

    export(capsys)
    assert mymcp(capsys, "export", "--format", "markdown").code == 0
    assert mymcp(capsys, "export", "--output", str(tmp_path / "out.json")).code == 0

    assert snapshot_tree(notebook) == before


def test_the_output_file_is_private_and_replaces_an_old_one_whole(
    notebook: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "exports" / "notebook.json"
    target.parent.mkdir()
    target.write_text("old")
    target.chmod(0o644)

    ran = mymcp(capsys, "export", "--output", str(target))

    assert (ran.code, ran.err) == (0, "")
    assert ran.out == f"exported 6 records to {target}\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert read_json(target)["format"] == FORMAT
    assert sorted(os.listdir(target.parent)) == ["notebook.json"]


def test_an_output_that_cannot_be_written_is_one_line_and_exit_1(
    notebook: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ran = mymcp(capsys, "export", "--output", str(tmp_path / "missing" / "notebook.json"))

    assert (ran.code, ran.out) == (1, "")
    [line] = ran.err.splitlines()
    assert line.startswith("mymcp export: cannot write ") and "No such file" in line


def test_markdown_has_one_section_per_scope_namespace_and_collection(
    notebook: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = mymcp(capsys, "export", "--format", "markdown")

    assert ran.code == 0
    headings = [line for line in ran.out.splitlines() if line.startswith("#")]
    assert headings == [
        "# Mnemosyne notebook",
        "## self",
        "### Version 1 records",
        "#### (untitled)",
        "## relationship",
        "### alice (person)",
        "#### Without a collection",
        "##### Alice",
        "## preference",
        "### Version 1 records",
        "#### Morning tea",
        "## practice",
        "## project",
        "### mymcp: MyMCP (project)",
        "#### Without a collection",
        "##### (untitled)",
        "#### Collection decisions: Decisions",
        "##### Records are plain JSON files",
        "##### Index database",
        "## knowledge",
    ]


def test_markdown_quotes_content_so_that_it_cannot_break_the_outline(
    memory_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    place_canonical(memory_root, canonical_record(content="# Not a heading\n\n- a list item"))
    write_record(memory_root, "{", "project", "broken.json")

    text = mymcp(capsys, "export", "--format", "markdown").out

    assert "> # Not a heading\n>\n> - a list item\n" in text
    assert "active, revision 1" in text
    assert text.endswith("## Skipped files\n\n- `project/broken.json`: invalid_json\n")


def test_an_export_under_concurrent_writes_holds_only_whole_records(
    memory_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for index in range(10):
        place_canonical(memory_root, canonical_record(id=f"mem_{index:032x}"))
    store = MemoryStore(watch_changes=False)
    stop = threading.Event()

    def revise_continuously() -> None:
        while not stop.is_set():
            for current in store.recall_scan(memory_root, Scope.PROJECT):
                record = current.record
                assert isinstance(record, CanonicalRecord)
                grown = record.content + " and more" if len(record.content) < 3000 else "short"
                new = dataclasses.replace(record, revision=record.revision + 1, content=grown)
                store.replace(memory_root, current, new)

    writer = threading.Thread(target=revise_continuously)
    writer.start()
    try:
        for _ in range(10):
            document = export(capsys)
            assert document["skipped"] == []
            records = document["records"]
            assert isinstance(records, list) and len(records) == 10
            for entry in records:
                parse_record_object(entry["record"])
    finally:
        stop.set()
        writer.join()


def test_an_export_waits_for_a_write_in_progress_and_then_shows_it(memory_root: Path) -> None:
    record = canonical_record()
    place_canonical(memory_root, record)
    store = MemoryStore(watch_changes=False)
    exported: list[int] = []
    exporting = threading.Thread(
        target=lambda: exported.append(len(read_snapshot(store, memory_root, Scope).records))
    )

    with store.lock(memory_root):  # a writer in the middle of its change
        exporting.start()
        exporting.join(timeout=0.3)
        assert exporting.is_alive() and exported == []
        place_canonical(memory_root, canonical_record(id="mem_" + "1" * 32))
    exporting.join(timeout=10)

    assert exported == [2]


class _ClosedPipe(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError


def test_a_reader_that_stops_reading_ends_the_export_quietly(notebook: Path) -> None:
    err = io.StringIO()

    code = command.export_notebook(
        output=None, scopes=None, format="json", out=_ClosedPipe(), err=err
    )

    assert (code, err.getvalue()) == (1, "")
