"""``mymcp import`` of MyMCP's own export: the round trip, the dry run, remember's rules."""

from __future__ import annotations

import io
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.memory.storage import files
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore
from mymcp.plugins.mnemosyne.transfer import command, importer, source
from tests.helpers import CANONICAL_ID, canonical_record, place_canonical, write_record
from tests.mnemosyne.transfer.transfer_support import (
    mymcp,
    read_json,
    record_files,
    sample_notebook,
    without_time,
)
from tests.surface import LIMIT_VARIABLE

SECRET = "sk-" + "Q7vX2mP9kL4nR8tY1wZ6"


@pytest.fixture
def exported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> Path:
    """The sample notebook exported to a file; the memory root then points at an empty one."""
    source_root = tmp_path / "source"
    sample_notebook(source_root)
    monkeypatch.setenv("MNEMOSYNE_MEMORY_ROOT", str(source_root))
    document = tmp_path / "notebook.json"
    assert mymcp(capsys, "export", "--output", str(document)).code == 0
    monkeypatch.setenv("MNEMOSYNE_MEMORY_ROOT", str(tmp_path / "memory"))
    return document


@pytest.fixture
def write_document(tmp_path: Path) -> Callable[..., Path]:
    """Write an export document whose records are the given entries."""

    def write(*entries: Any, **top: Any) -> Path:
        document = {
            "format": "mymcp-notebook",
            "format_version": 1,
            "exported_at": "2026-08-01T00:00:00Z",
            "scopes": ["self", "relationship", "preference", "practice", "project", "knowledge"],
            "records": list(entries),
            "skipped": [],
            **top,
        }
        path = tmp_path / "document.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        return path

    return write


def entry(record: dict[str, Any], path: str | None = None) -> dict[str, Any]:
    """The export entry of a version 2 record."""
    collection = record["collection"]
    reference = {
        "schema_version": 2,
        "scope": record["scope"],
        "namespace_id": record["namespace"]["id"],
        "collection_id": None if collection is None else collection["id"],
        "id": record["id"],
    }
    if path is None:
        parts = [record["scope"], record["namespace"]["id"]]
        parts += [] if collection is None else [collection["id"]]
        path = "/".join([*parts, record["id"] + ".json"])
    return {"reference": reference, "path": path, "record": record}


def legacy_entry(path: str, **record: Any) -> dict[str, Any]:
    record = {"schema_version": 1, "id": "note", "content": "A note.", **record}
    reference = {"schema_version": 1, "scope": path.split("/")[0], "id": record["id"]}
    return {"reference": reference, "path": path, "record": record}


# --- the round trip --------------------------------------------------------------------------


def test_export_import_export_gives_the_same_document(
    exported: Path, memory_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = mymcp(capsys, "import", str(exported), "--apply")
    again = tmp_path / "again.json"
    assert mymcp(capsys, "export", "--output", str(again)).code == 0

    assert (ran.code, ran.err) == (0, "")
    assert ran.out.splitlines()[-1] == "imported: 6 created, 0 already there, 0 refused, 0 invalid"
    assert without_time(read_json(again)) == without_time(read_json(exported))
    assert len(read_json(again)["records"]) == 6


def test_the_imported_files_have_the_store_s_modes(
    exported: Path, memory_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mymcp(capsys, "import", str(exported), "--apply")

    for path in [memory_root, *memory_root.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), path


def test_the_dry_run_writes_nothing_and_predicts_the_apply(
    exported: Path, memory_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dry = mymcp(capsys, "import", str(exported))

    assert not memory_root.exists()
    applied = mymcp(capsys, "import", str(exported), "--apply")
    assert dry.code == 0
    lines = dry.out.splitlines()
    assert lines[0] == "dry run: nothing is written; run again with --apply to import"
    assert (
        lines[-1]
        == "dry run: 6 to create, 0 already there, 0 refused, 0 invalid; nothing was written"
    )
    created = [line.replace("created ", "create  ", 1) for line in applied.out.splitlines()[:-1]]
    assert lines[1:-1] == created


def test_a_second_apply_creates_nothing(
    exported: Path, memory_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mymcp(capsys, "import", str(exported), "--apply")
    before = record_files(memory_root)

    ran = mymcp(capsys, "import", str(exported), "--apply")

    assert ran.out.splitlines()[-1] == "imported: 0 created, 6 already there, 0 refused, 0 invalid"
    assert all(line.startswith("exists ") for line in ran.out.splitlines()[:-1])
    assert record_files(memory_root) == before


def test_an_interrupted_import_leaves_whole_records_and_a_rerun_finishes(
    exported: Path,
    memory_root: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    publish = MemoryStore._publish
    calls = iter(range(100))

    def interrupted(self: MemoryStore, *arguments: Any) -> Any:
        if next(calls) == 3:
            raise KeyboardInterrupt
        return publish(self, *arguments)

    monkeypatch.setattr(MemoryStore, "_publish", interrupted)
    stopped = mymcp(capsys, "import", str(exported), "--apply")
    monkeypatch.setattr(MemoryStore, "_publish", publish)
    written = record_files(memory_root)
    finished = mymcp(capsys, "import", str(exported), "--apply")

    assert stopped.code == command.INTERRUPTED
    assert stopped.err.splitlines() == [
        "mymcp import: interrupted after 3 records were created, each one whole",
        "run the same command again: what is already there is skipped",
    ]
    assert len(written) == 3
    assert finished.out.splitlines()[-1] == (
        "imported: 3 created, 3 already there, 0 refused, 0 invalid"
    )


def test_standard_input_can_be_the_file(
    exported: Path, memory_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, err = io.StringIO(), io.StringIO()

    code = command.import_notebook(
        source="-",
        format="mymcp",
        apply=False,
        out=out,
        err=err,
        stdin=io.BytesIO(exported.read_bytes()),
    )

    assert (code, err.getvalue()) == (0, "")
    assert out.getvalue().splitlines()[-1].startswith("dry run: 6 to create")


# --- remember's rules ------------------------------------------------------------------------


def test_an_equal_memory_under_another_id_is_already_there(
    memory_root: Path, write_document: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    place_canonical(memory_root, canonical_record(id="mem_" + "a" * 32, language="de"))
    incoming = canonical_record(tags=["Memory-Domain", "architecture"])

    ran = mymcp(capsys, "import", str(write_document(entry(incoming))), "--apply")

    assert ran.out.splitlines()[0] == (
        f"exists   record 1: project/mnemosyne/decisions/mem_{'a' * 32}.json: an equal memory "
        "is there (the duplicate rule of memory_remember)"
    )
    assert len(record_files(memory_root)) == 1


def test_a_record_with_its_id_taken_by_a_revised_copy_is_kept_as_it_is(
    memory_root: Path, write_document: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    there = place_canonical(
        memory_root,
        canonical_record(content="Revised.", lifecycle={"state": "active", "revision": 2}),
    )
    before = there.read_bytes()

    ran = mymcp(capsys, "import", str(write_document(entry(canonical_record()))), "--apply")

    assert ran.out.splitlines()[0] == (
        f"exists   record 1: project/mnemosyne/decisions/{CANONICAL_ID}.json: a record with "
        "this id is there at revision 2 and differs; it is kept as it is"
    )
    assert there.read_bytes() == before


def test_an_archived_equal_memory_is_named_archived(
    memory_root: Path, write_document: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    place_canonical(
        memory_root,
        canonical_record(id="mem_" + "b" * 32, lifecycle={"state": "archived", "revision": 2}),
    )

    ran = mymcp(capsys, "import", str(write_document(entry(canonical_record()))))

    assert "an equal memory is there (archived)" in ran.out.splitlines()[1]


def test_the_content_policy_refuses_a_record_by_field_and_reason_without_echoing_it(
    memory_root: Path, write_document: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    secret = canonical_record(content=f"The key is {SECRET} for staging.")
    legacy = legacy_entry("self/secret.json", title=f"token {SECRET}")
    document = write_document(entry(secret), legacy, entry(canonical_record(id="mem_" + "c" * 32)))

    ran = mymcp(capsys, "import", str(document), "--apply")

    assert ran.out.splitlines()[:2] == [
        "refused  record 1: content: credential_shape",
        "refused  record 2: title: credential_shape",
    ]
    assert SECRET not in ran.out + ran.err
    assert list(record_files(memory_root)) == [f"project/mnemosyne/decisions/mem_{'c' * 32}.json"]


def test_refusals_alone_never_make_the_memory_root(
    memory_root: Path, write_document: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    document = write_document(entry(canonical_record(content=f"key {SECRET}")))

    ran = mymcp(capsys, "import", str(document), "--apply")

    assert ran.code == 0
    assert not memory_root.exists()


def test_a_scope_is_filled_up_to_the_candidate_bound_and_no_further(
    memory_root: Path, write_document: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    for index in range(files.MAX_CANDIDATES - 1):
        write_record(memory_root, "{}", "project", "filler", f"f{index}.json")
    first = canonical_record(id="mem_" + "1" * 32, content="First.")
    second = canonical_record(id="mem_" + "2" * 32, content="Second.")
    other_scope = legacy_entry("knowledge/note.json")

    ran = mymcp(
        capsys, "import", str(write_document(entry(first), entry(second), other_scope)), "--apply"
    )

    lines = ran.out.splitlines()
    assert lines[0].startswith("created  record 1: ")
    assert lines[1] == (
        "refused  record 2: scope project already holds 1,000 record files "
        "(candidate_limit_exceeded); recall and list would stop working past that"
    )
    assert lines[2] == "created  record 3: knowledge/note.json"


def test_the_bound_of_an_import_is_the_operators_candidate_limit(
    memory_root: Path,
    write_document: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for index in range(files.MAX_CANDIDATES):
        write_record(memory_root, "{}", "project", "filler", f"f{index}.json")
    first = canonical_record(id="mem_" + "1" * 32, content="First.")
    second = canonical_record(id="mem_" + "2" * 32, content="Second.")
    monkeypatch.setenv(LIMIT_VARIABLE, "1001")

    ran = mymcp(capsys, "import", str(write_document(entry(first), entry(second))), "--apply")

    lines = ran.out.splitlines()
    assert lines[0].startswith("created  record 1: ")
    assert lines[1] == (
        "refused  record 2: scope project already holds 1,001 record files "
        "(candidate_limit_exceeded); recall and list would stop working past that"
    )


def test_an_invalid_limit_stops_an_import_with_two_plain_lines(
    memory_root: Path,
    write_document: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(LIMIT_VARIABLE, "lots")

    ran = mymcp(capsys, "import", str(write_document(entry(canonical_record()))), "--apply")

    assert ran.code == 1
    assert ran.err.splitlines() == [
        f"mymcp import: {LIMIT_VARIABLE} must be a whole number from 1000 through 1000000",
        f"{LIMIT_VARIABLE} is set in the server's environment; make it a whole number from "
        "1000 through 1000000, or unset it",
    ]
    assert not memory_root.exists()


def test_a_legacy_record_goes_back_to_its_path_and_a_different_file_there_is_kept(
    memory_root: Path, write_document: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    there = write_record(
        memory_root, {"schema_version": 1, "id": "x", "content": "Mine."}, "self", "taken.json"
    )
    document = write_document(
        legacy_entry("self/a/b/c/d/deep.json", tags=["t"]), legacy_entry("self/taken.json")
    )

    ran = mymcp(capsys, "import", str(document), "--apply")

    assert ran.out.splitlines()[:2] == [
        "created  record 1: self/a/b/c/d/deep.json",
        "exists   record 2: self/taken.json: another record is at this path; it is kept as it is",
    ]
    assert json.loads((memory_root / "self/a/b/c/d/deep.json").read_text())["tags"] == ["t"]
    assert json.loads(there.read_text())["content"] == "Mine."


def test_a_broken_file_at_a_legacy_path_is_kept(
    memory_root: Path, write_document: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    write_record(memory_root, "{broken", "self", "taken.json")

    ran = mymcp(capsys, "import", str(write_document(legacy_entry("self/taken.json"))), "--apply")

    assert ran.out.splitlines()[0] == (
        "exists   record 1: self/taken.json: another file is at this path; it is kept as it is"
    )
    assert (memory_root / "self" / "taken.json").read_text() == "{broken"


# --- entries that break a rule -------------------------------------------------------------


@pytest.mark.parametrize(
    ("broken", "detail"),
    [
        ("not an object", "not a JSON object"),
        ({**entry(canonical_record()), "colour": "red"}, "unknown field 'colour'"),
        ({"reference": {}, "record": {}}, "the field 'path' is missing"),
        (entry(canonical_record(colour="red")), "unknown field 'record.colour'"),
        (
            entry(
                canonical_record(namespace={"kind": "project", "id": "x", "label": None, "n": 1})
            ),
            "unknown field 'record.namespace.n'",
        ),
        (
            entry(canonical_record(kind="attribute")),
            "its record breaks a rule of its schema_version",
        ),
        (
            {**entry(canonical_record()), "reference": {"schema_version": 3}},
            "its reference is not a memory reference",
        ),
        (
            {
                **entry(canonical_record()),
                "reference": {**entry(canonical_record())["reference"], "namespace_id": "other"},
            },
            "its reference does not name its record",
        ),
        (
            entry(canonical_record(), path="project/other/x.json"),
            "its path is not where its scope, namespace, collection and id place it",
        ),
        (
            legacy_entry("self/../escape.json"),
            "its path is not a record file of its scope, at most four folders deep",
        ),
        (
            legacy_entry("self/a/b/c/d/e/too-deep.json"),
            "its path is not a record file of its scope, at most four folders deep",
        ),
        (
            legacy_entry("self/note.txt"),
            "its path is not a record file of its scope, at most four folders deep",
        ),
        ({**legacy_entry("self/n.json"), "path": 7}, "its path is not a string"),
    ],
)
def test_a_broken_entry_is_reported_and_the_others_are_imported(
    broken: Any,
    detail: str,
    memory_root: Path,
    write_document: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    good = canonical_record(id="mem_" + "d" * 32, content="Good one.")

    ran = mymcp(capsys, "import", str(write_document(broken, entry(good))), "--apply")

    assert ran.code == 0
    assert ran.out.splitlines()[:2] == [
        f"invalid  record 1: {detail}",
        f"created  record 2: project/mnemosyne/decisions/mem_{'d' * 32}.json",
    ]


def test_a_record_outside_the_exported_scopes_is_invalid(
    write_document: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    ran = mymcp(capsys, "import", str(write_document(entry(canonical_record()), scopes=["self"])))

    assert (
        ran.out.splitlines()[1]
        == "invalid  record 1: its scope project is not among the exported scopes"
    )


# --- files that are refused whole --------------------------------------------------------------


def refused(ran: Any, memory_root: Path) -> list[str]:
    assert (ran.code, ran.out) == (1, "")
    assert "Traceback" not in ran.err
    assert not memory_root.exists()
    lines: list[str] = ran.err.splitlines()
    assert 1 <= len(lines) <= 2
    return lines


def test_a_file_that_is_not_json_names_the_line_and_column(
    memory_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "format": "mymcp-notebook",\n  "records": [,]\n}\n')

    lines = refused(mymcp(capsys, "import", str(path), "--apply"), memory_root)

    assert lines == [
        f"mymcp import: {path}: line 3, column 15: not JSON (Expecting value); nothing was imported"
    ]


@pytest.mark.parametrize(
    ("top", "problem"),
    [
        (
            {"format_version": 2},
            "a MyMCP export of format version 2, which this MyMCP cannot read (it reads version 1)",
        ),
        (
            {"format_version": "1"},
            "a MyMCP export of an unknown format version, which this MyMCP cannot read "
            "(it reads version 1)",
        ),
        ({"comment": "mine"}, "unknown field 'comment' at the top of the document"),
        ({"exported_at": "yesterday"}, "exported_at is not a timestamp like 2026-01-31T12:00:00Z"),
        ({"scopes": ["projects"]}, "scopes is not a list of scope names"),
        ({"records": {}}, "records is not a list"),
        ({"skipped": [{"path": "x"}]}, "skipped is not a list of objects with a path and a reason"),
        ({"format": "other"}, 'not a MyMCP export (it has no "format": "mymcp-notebook")'),
    ],
)
def test_a_document_of_another_shape_is_refused_whole(
    top: dict[str, Any],
    problem: str,
    memory_root: Path,
    write_document: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = write_document(entry(canonical_record()), **top)

    lines = refused(mymcp(capsys, "import", str(path), "--apply"), memory_root)

    assert lines[0] == f"mymcp import: {path}: {problem}; nothing was imported"


def test_a_missing_top_field_is_named(
    memory_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "partial.json"
    path.write_text(json.dumps({"format": "mymcp-notebook", "format_version": 1}))

    lines = refused(mymcp(capsys, "import", str(path)), memory_root)

    assert lines == [
        f"mymcp import: {path}: the field 'exported_at' is missing at the top of the document; "
        "nothing was imported"
    ]


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b'{"a": 1,\n "b": "\xff"}', "line 2: not UTF-8 (byte 17 of the file)"),
        (b'\xef\xbb\xbf{"format": "mymcp-notebook"}', "line 1: starts with a byte order mark"),
        (
            b'{"format": "mymcp-notebook", "format": "x"}',
            "not strict JSON: an object names one key twice",
        ),
        (
            b'{"format": NaN}',
            "not strict JSON (NaN, Infinity, a number too large or nesting too deep)",
        ),
    ],
)
def test_text_that_is_not_strict_utf8_json_is_refused(
    data: bytes, problem: str, memory_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "odd.json"
    path.write_bytes(data)

    lines = refused(mymcp(capsys, "import", str(path), "--apply"), memory_root)

    assert lines[0] == f"mymcp import: {path}: {problem}; nothing was imported"


def test_a_server_memory_file_given_as_an_export_gets_a_hint(
    memory_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "memory.jsonl"
    path.write_text('{"type":"entity","name":"A","entityType":"person","observations":[]}\n' * 2)

    lines = refused(mymcp(capsys, "import", str(path)), memory_root)

    assert lines[1] == "for the official memory server's memory.jsonl, add --format server-memory"


def test_a_file_over_the_size_bound_is_refused_unread(
    memory_root: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(source, "MAX_SOURCE_BYTES", 100)
    monkeypatch.setattr(command, "MAX_SOURCE_BYTES", 100)
    path = tmp_path / "big.json"
    path.write_bytes(b" " * 101)

    lines = refused(mymcp(capsys, "import", str(path)), memory_root)

    assert lines == [
        f"mymcp import: {path}: larger than 0 MiB, the most an import reads; nothing was imported",
        "export the notebook in parts with mymcp export --scope, and import each part",
    ]


def test_a_file_that_cannot_be_read_is_one_line(
    memory_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = refused(mymcp(capsys, "import", str(tmp_path / "missing.json")), memory_root)

    assert lines == [
        f"mymcp import: cannot read {tmp_path / 'missing.json'} (No such file or directory)"
    ]


def test_a_symlinked_root_is_refused_before_anything_is_read_there(
    exported: Path, memory_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "real").mkdir()
    memory_root.symlink_to(tmp_path / "real")

    ran = mymcp(capsys, "import", str(exported), "--apply")

    assert (ran.code, ran.out) == (1, "")
    assert ran.err.splitlines()[1] == "set MNEMOSYNE_MEMORY_ROOT to the folder it points to"
    assert os.listdir(tmp_path / "real") == []


# --- batches -------------------------------------------------------------------------------


def test_apply_releases_the_lock_between_batches(
    memory_root: Path,
    write_document: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(importer, "BATCH_RECORDS", 2)
    held: list[int] = []
    lock = MemoryStore.lock

    def counted(self: MemoryStore, root: Path, **options: Any) -> Any:
        held.append(1)
        return lock(self, root, **options)

    monkeypatch.setattr(MemoryStore, "lock", counted)
    records = [
        entry(canonical_record(id=f"mem_{n:032x}", content=f"Memory {n}.")) for n in range(5)
    ]

    ran = mymcp(capsys, "import", str(write_document(*records)), "--apply")

    assert ran.out.splitlines()[-1] == "imported: 5 created, 0 already there, 0 refused, 0 invalid"
    assert len(held) == 3


class _ClosedPipe(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError


def test_a_reader_that_stops_reading_the_report_ends_the_import_quietly(
    exported: Path, memory_root: Path
) -> None:
    err = io.StringIO()

    code = command.import_notebook(
        source=str(exported), format="mymcp", apply=False, out=_ClosedPipe(), err=err
    )

    assert (code, err.getvalue()) == (1, "")


def test_a_record_given_twice_is_created_once(
    memory_root: Path, write_document: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    twice = entry(canonical_record())
    legacy = legacy_entry("self/note.json")

    dry = mymcp(capsys, "import", str(write_document(twice, twice, legacy, legacy)))

    path = f"project/mnemosyne/decisions/{CANONICAL_ID}.json"
    assert dry.out.splitlines()[1:5] == [
        f"create   record 1: {path}",
        f"exists   record 2: {path}: the same id came earlier in this file",
        "create   record 3: self/note.json",
        "exists   record 4: self/note.json: the same path came earlier in this file",
    ]


_WORDS = st.text(st.sampled_from("abcdefghij KLMNOP éü"), min_size=1, max_size=40).filter(str.strip)


@st.composite
def _records(draw: st.DrawFn) -> list[dict[str, Any]]:
    from mymcp.plugins.mnemosyne.memory.model.vocabulary import SCOPE_RULES, MemoryKind

    made: list[dict[str, Any]] = []
    for index in range(draw(st.integers(1, 4))):
        rule = SCOPE_RULES[draw(st.sampled_from(sorted(SCOPE_RULES)))]
        kind = draw(st.sampled_from(rule.memory_kinds))
        collection = draw(
            st.none() | st.fixed_dictionaries({"id": st.just("c"), "label": st.none() | _WORDS})
        )
        record = canonical_record(
            id=f"mem_{index:032x}",
            scope=rule.scope.value,
            namespace={
                "kind": draw(st.sampled_from(rule.namespace_kinds)).value,
                "id": "n",
                "label": draw(st.none() | _WORDS),
            },
            collection=collection,
            kind=kind.value,
            title=draw(st.none() | _WORDS),
            content=draw(_WORDS),
            tags=draw(st.lists(_WORDS.map(str.strip), max_size=3, unique_by=str.casefold)),
            lifecycle={
                "state": draw(st.sampled_from(["active", "archived"])),
                "revision": draw(st.integers(1, 9)),
            },
        )
        if kind is MemoryKind.EVENT:
            record["occurred_at"] = "2026-01-02T03:04:05Z"
        made.append(record)
    return made


@settings(max_examples=15, deadline=None)
@given(_records())
def test_any_notebook_comes_back_the_same_from_its_export(records: list[dict[str, Any]]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as workspace:
        base = Path(workspace)
        for record in records:
            place_canonical(base / "source", record)
        documents = []
        for root in ("source", "target"):
            env = {"HOME": str(base), "MNEMOSYNE_MEMORY_ROOT": str(base / root)}
            out, err = io.StringIO(), io.StringIO()
            assert (
                command.export_notebook(
                    output=None, scopes=None, format="json", out=out, err=err, environ=env
                )
                == 0
            )
            documents.append(json.loads(out.getvalue()))
            if root == "source":
                (base / "notebook.json").write_text(out.getvalue())
                env["MNEMOSYNE_MEMORY_ROOT"] = str(base / "target")
                code = command.import_notebook(
                    source=str(base / "notebook.json"),
                    format="mymcp",
                    apply=True,
                    out=io.StringIO(),
                    err=err,
                    environ=env,
                )
                assert (code, err.getvalue()) == (0, "")

    assert without_time(documents[1]) == without_time(documents[0])
    assert len(documents[0]["records"]) == len(records)
