"""MemoryStore through its Python API: discovery, container rules, the cache, writes, the lock."""

from __future__ import annotations

import dataclasses
import errno
import json
import logging
import multiprocessing
import os
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.memory.model.errors import (
    CandidateLimitExceeded,
    Conflict,
    InvalidRequest,
    MnemosyneError,
    NotFound,
    OutcomeUncertain,
    SourceUnavailable,
)
from mymcp.plugins.mnemosyne.memory.model.records import (
    CanonicalRecord,
    LegacyRecord,
    parse_record_object,
    serialize_canonical,
)
from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.storage import files
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore, StoredRecord
from tests.helpers import (
    CANONICAL_ID,
    canonical_record,
    place_canonical,
    settled_clock,
    write_record,
)

PROJECT = Scope.PROJECT
OTHER_ID = "mem_fedcba9876543210fedcba9876543210"
RECORD_PARTS = ("project", "mnemosyne", "decisions", f"{CANONICAL_ID}.json")
LOGGER = "mymcp.memory.store"


@pytest.fixture
def warnings(caplog: pytest.LogCaptureFixture) -> Callable[[], list[str]]:
    caplog.set_level(logging.WARNING, logger=LOGGER)

    def messages() -> list[str]:
        found = [r.getMessage() for r in caplog.records if r.name == LOGGER]
        caplog.clear()
        return found

    return messages


def _skipped(*reasons: str, scope: str = "project") -> list[str]:
    return [f"skipped scope='{scope}' reason='{reason}'" for reason in reasons]


def _legacy(memory_id: str = "legacy-1", content: str = "legacy content") -> dict[str, Any]:
    return {"schema_version": 1, "id": memory_id, "content": content}


def _ids(found: list[StoredRecord]) -> list[str]:
    return [item.record.id for item in found]


def _load(store: MemoryStore, root: Path, memory_id: str = CANONICAL_ID) -> StoredRecord | None:
    return store.load_canonical(root, PROJECT, "mnemosyne", "decisions", memory_id)


def _revised(current: StoredRecord, **changes: Any) -> CanonicalRecord:
    record = current.record
    assert isinstance(record, CanonicalRecord)
    values: dict[str, Any] = {"revision": record.revision + 1, "updated_at": "2026-07-19T08:00:00Z"}
    values.update(changes)
    return dataclasses.replace(record, **values)


def _new_record(memory_id: str = OTHER_ID, collection: bool = True) -> CanonicalRecord:
    stored_dict = canonical_record(id=memory_id)
    if not collection:
        stored_dict["collection"] = None
    record = parse_record_object(stored_dict)
    assert isinstance(record, CanonicalRecord)
    return record


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


# --- discovery -------------------------------------------------------------------------------


def test_scans_return_valid_records_in_discovery_order(root: Path, store: MemoryStore) -> None:
    place_canonical(root, canonical_record())
    write_record(root, _legacy("deep"), "project", "a", "b", "c", "d", "x.json")
    write_record(root, _legacy("top"), "project", "top.json")
    write_record(root, _legacy("canonical-looking"), *RECORD_PARTS[:-1], "mem_legacy.json")

    found = store.recall_scan(root, PROJECT)
    assert _ids(found) == ["deep", CANONICAL_ID, "canonical-looking", "top"]
    assert _ids(store.inspect_legacy_scan(root, PROJECT)) == _ids(found)
    assert _ids(store.list_scan(root, PROJECT, None, "all", None)) == _ids(found)
    assert found[1].parts == RECORD_PARTS
    assert found[1].scope_path == f"mnemosyne/decisions/{CANONICAL_ID}.json"
    assert isinstance(found[1].record, CanonicalRecord)
    assert isinstance(found[2].record, LegacyRecord)


def test_v2_records_must_sit_at_their_canonical_path(
    root: Path, store: MemoryStore, warnings: Callable[[], list[str]]
) -> None:
    misplaced = canonical_record()
    write_record(root, misplaced, "project", "mnemosyne", f"{CANONICAL_ID}.json")
    write_record(root, misplaced, "project", "mnemosyne", "decisions", "other.json")
    write_record(root, canonical_record(scope="knowledge"), *RECORD_PARTS)

    assert store.recall_scan(root, PROJECT) == []
    assert warnings() == _skipped("invalid_record", "path_mismatch", "path_mismatch")


def test_every_skip_reason_is_logged_without_anything_else(
    root: Path,
    store: MemoryStore,
    warnings: Callable[[], list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scope = root / "project"
    write_record(root, b"\xff\xfe", "project", "a-encoding.json")
    write_record(root, b"{", "project", "b-json.json")
    write_record(root, b"\xef\xbb\xbf" + json.dumps(_legacy()).encode(), "project", "c-bom.json")
    write_record(root, {"schema_version": 3}, "project", "d-record.json")
    write_record(root, b" " * (files.MAX_RECORD_BYTES + 1), "project", "e-big.json")
    write_record(root, b"[" * 60_000, "project", "f-nested.json")
    write_record(root, _legacy(), "project", "g-locked.json")
    write_record(root, canonical_record(), "project", "h-mismatch.json")
    (scope / "i-link.json").symlink_to(scope / "b-json.json")
    real_open = os.open

    def guarded_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if path == "g-locked.json":
            raise PermissionError(errno.EACCES, "denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded_open)
    assert store.recall_scan(root, PROJECT) == []
    unreadable = "skipped scope='project' reason='unreadable' cause='permission' errno='EACCES'"
    assert warnings() == [
        *_skipped(
            "symlink",
            "invalid_encoding",
            "invalid_json",
            "invalid_json",
            "invalid_record",
            "oversized",
            "invalid_json",
        ),
        f"{unreadable} directory='project'",
        *_skipped("path_mismatch"),
    ]


def test_walk_warnings_precede_load_warnings(
    root: Path, store: MemoryStore, warnings: Callable[[], list[str]]
) -> None:
    write_record(root, b"not json", "project", "a.json")
    write_record(root, _legacy(), "project", "n", "b", "c", "d", "e", "deep.json")
    (root / "project" / "z").symlink_to(root / "project" / "n", target_is_directory=True)

    store.recall_scan(root, PROJECT)
    assert warnings() == _skipped("too_deep", "symlink", "invalid_json")


def test_exactly_the_size_limit_is_a_valid_record(root: Path, store: MemoryStore) -> None:
    data = json.dumps(_legacy()).encode()
    data += b" " * (files.MAX_RECORD_BYTES - len(data))
    write_record(root, data, "project", "full.json")
    write_record(root, data + b" ", "project", "over.json")
    assert [item.parts[-1] for item in store.recall_scan(root, PROJECT)] == ["full.json"]


def test_scope_depth_is_four_below_the_scope(
    root: Path, store: MemoryStore, warnings: Callable[[], list[str]]
) -> None:
    write_record(root, _legacy("in"), "project", "a", "b", "c", "d", "in.json")
    write_record(root, _legacy("out"), "project", "a", "b", "c", "d", "e", "out.json")
    assert _ids(store.recall_scan(root, PROJECT)) == ["in"]
    assert warnings() == _skipped("too_deep")
    assert _ids(store.list_scan(root, PROJECT, None, "all", None)) == ["in"]
    assert warnings() == _skipped("too_deep")


def _fill(directory: Path, count: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for index in range(count):
        (directory / f"{index:04}.json").write_bytes(b"junk")


def test_candidate_limit_counts_junk_and_allows_exactly_one_thousand(
    root: Path, store: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.CRITICAL, logger=LOGGER)
    _fill(root / "project" / "ns", 1000)
    assert store.recall_scan(root, PROJECT) == []
    assert store.list_scan(root, PROJECT, "ns", "all", None) == []

    (root / "project" / "other" / "extra.json").parent.mkdir()
    (root / "project" / "other" / "extra.json").write_bytes(b"junk")
    scans: list[Callable[[], object]] = [
        lambda: store.recall_scan(root, PROJECT),
        lambda: store.inspect_legacy_scan(root, PROJECT),
        lambda: store.list_scan(root, PROJECT, None, "all", None),
    ]
    for scan in scans:
        with pytest.raises(CandidateLimitExceeded):
            scan()
    # A narrower list selector only counts its own start directory.
    assert store.list_scan(root, PROJECT, "other", "all", None) == []


def test_list_selectors_choose_start_directory_and_depth(
    root: Path, store: MemoryStore, warnings: Callable[[], list[str]]
) -> None:
    place_canonical(root, canonical_record())
    loose = canonical_record(id=OTHER_ID, collection=None)
    place_canonical(root, loose)
    write_record(root, _legacy("ns-level"), "project", "mnemosyne", "legacy.json")
    write_record(root, _legacy("deeper"), "project", "mnemosyne", "decisions", "sub", "x.json")

    everything = store.list_scan(root, PROJECT, "mnemosyne", "all", None)
    assert _ids(everything) == [CANONICAL_ID, "ns-level", OTHER_ID]
    assert warnings() == _skipped("too_deep")

    level = store.list_scan(root, PROJECT, "mnemosyne", "none", None)
    assert _ids(level) == ["ns-level", OTHER_ID]
    exact = store.list_scan(root, PROJECT, "mnemosyne", "exact", "decisions")
    assert _ids(exact) == [CANONICAL_ID]
    assert warnings() == []
    assert store.list_scan(root, PROJECT, "mnemosyne", "exact", "missing") == []
    with pytest.raises(ValueError):
        store.list_scan(root, PROJECT, None, "none", None)


def test_load_canonical_reads_one_exact_path(
    root: Path, store: MemoryStore, warnings: Callable[[], list[str]]
) -> None:
    place_canonical(root, canonical_record())
    stored = _load(store, root)
    assert stored is not None and stored.parts == RECORD_PARTS
    assert _load(store, root, OTHER_ID) is None
    assert store.load_canonical(root, PROJECT, "mnemosyne", None, CANONICAL_ID) is None

    write_record(root, _legacy(OTHER_ID), *RECORD_PARTS[:-1], f"{OTHER_ID}.json")
    assert _load(store, root, OTHER_ID) is None
    assert warnings() == []
    write_record(root, b"{", *RECORD_PARTS[:-1], f"{OTHER_ID}.json")
    assert _load(store, root, OTHER_ID) is None
    assert warnings() == _skipped("invalid_json")


def test_load_canonical_refuses_symlinks_at_the_file(root: Path, store: MemoryStore) -> None:
    path = place_canonical(root, canonical_record())
    path.rename(path.with_name("target"))
    path.symlink_to(path.with_name("target"))
    with pytest.raises(SourceUnavailable):
        _load(store, root)
    path.unlink()
    os.mkfifo(path)
    assert _load(store, root) is None


# --- the container table (MEMORY_READ §4.3) -----------------------------------------------

RAISES = "raises"
SYMLINK_WARNING = "symlink-warning"


def _scenario(root: Path, situation: str) -> None:
    tmp = root.parent
    real = tmp / "real-root"
    record_dict = canonical_record()
    place_canonical(real, record_dict)
    write_record(real, _legacy("legacy-one"), "project", "legacy.json")
    if situation == "normal":
        real.rename(root)
    elif situation == "root-missing":
        pass
    elif situation == "root-symlink":
        root.symlink_to(real, target_is_directory=True)
    elif situation == "root-file":
        root.write_text("x")
    elif situation == "scope-missing":
        root.mkdir()
    elif situation == "scope-symlink":
        root.mkdir()
        (root / "project").symlink_to(real / "project", target_is_directory=True)
    elif situation == "scope-file":
        root.mkdir()
        (root / "project").write_text("x")
    elif situation == "namespace-missing":
        (root / "project").mkdir(parents=True)
        write_record(root, _legacy("legacy-one"), "project", "legacy.json")
    elif situation == "namespace-symlink":
        (root / "project").mkdir(parents=True)
        write_record(root, _legacy("legacy-one"), "project", "legacy.json")
        (root / "project" / "mnemosyne").symlink_to(
            real / "project" / "mnemosyne", target_is_directory=True
        )
    elif situation == "namespace-file":
        (root / "project").mkdir(parents=True)
        write_record(root, _legacy("legacy-one"), "project", "legacy.json")
        (root / "project" / "mnemosyne").write_text("x")
    elif situation == "collection-symlink":
        real.rename(root)
        collection = root / "project" / "mnemosyne" / "decisions"
        collection.rename(collection.with_name("elsewhere"))
        collection.symlink_to(collection.with_name("elsewhere"), target_is_directory=True)
    else:  # pragma: no cover
        raise AssertionError(situation)


def _outcome(call: Callable[[], Any], warnings: Callable[[], list[str]]) -> Any:
    try:
        result = call()
    except SourceUnavailable:
        return RAISES
    if warnings():
        return SYMLINK_WARNING
    if isinstance(result, StoredRecord):
        return result.record.id
    if result is None:
        return None
    return sorted(_ids(result))


BOTH = sorted([CANONICAL_ID, "legacy-one"])

# situation: (recall, inspect v1, inspect v2, list scope-wide, list namespace, list collection)
CONTAINER_TABLE = {
    "normal": (BOTH, BOTH, CANONICAL_ID, BOTH, [CANONICAL_ID], [CANONICAL_ID]),
    "root-missing": ([], [], None, [], [], []),
    "root-symlink": (BOTH, BOTH, CANONICAL_ID, RAISES, RAISES, RAISES),
    "root-file": ([], [], None, RAISES, RAISES, RAISES),
    "scope-missing": ([], [], None, [], [], []),
    "scope-symlink": (SYMLINK_WARNING, SYMLINK_WARNING, RAISES, RAISES, RAISES, RAISES),
    "scope-file": (RAISES, RAISES, None, RAISES, RAISES, RAISES),
    "namespace-missing": (["legacy-one"], ["legacy-one"], None, ["legacy-one"], [], []),
    "namespace-symlink": (
        SYMLINK_WARNING,
        SYMLINK_WARNING,
        RAISES,
        SYMLINK_WARNING,
        RAISES,
        RAISES,
    ),
    "namespace-file": (["legacy-one"], ["legacy-one"], None, ["legacy-one"], RAISES, RAISES),
    "collection-symlink": (
        SYMLINK_WARNING,
        SYMLINK_WARNING,
        RAISES,
        SYMLINK_WARNING,
        SYMLINK_WARNING,
        RAISES,
    ),
}


@pytest.mark.parametrize("situation", sorted(CONTAINER_TABLE))
def test_container_checks_follow_the_table_for_each_operation(
    situation: str,
    root: Path,
    store: MemoryStore,
    warnings: Callable[[], list[str]],
) -> None:
    _scenario(root, situation)
    calls: list[Callable[[], Any]] = [
        lambda: store.recall_scan(root, PROJECT),
        lambda: store.inspect_legacy_scan(root, PROJECT),
        lambda: _load(store, root),
        lambda: store.list_scan(root, PROJECT, None, "all", None),
        lambda: store.list_scan(root, PROJECT, "mnemosyne", "all", None),
        lambda: store.list_scan(root, PROJECT, "mnemosyne", "exact", "decisions"),
    ]
    outcomes = tuple(_outcome(call, warnings) for call in calls)
    assert outcomes == CONTAINER_TABLE[situation]


def test_a_symlinked_scope_logs_one_symlink_warning(
    root: Path, store: MemoryStore, warnings: Callable[[], list[str]]
) -> None:
    _scenario(root, "scope-symlink")
    assert store.recall_scan(root, PROJECT) == []
    assert warnings() == _skipped("symlink")


# --- the cache -------------------------------------------------------------------------------


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the ``.json`` files opened from now on."""
    names: list[str] = []
    real_open = os.open

    def counting_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith(".json"):
            names.append(os.path.basename(str(path)))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", counting_open)
    return names


def test_unchanged_files_are_not_reopened(
    root: Path, store: MemoryStore, opened: list[str]
) -> None:
    place_canonical(root, canonical_record())
    for index in range(20):
        write_record(root, _legacy(f"l{index}"), "project", "legacy", f"{index:02}.json")

    first = store.recall_scan(root, PROJECT)
    assert len(opened) == 21
    opened.clear()
    second = store.recall_scan(root, PROJECT)
    listed = store.list_scan(root, PROJECT, None, "all", None)
    loaded = _load(store, root)
    assert opened == []
    assert [id(item) for item in second] == [id(item) for item in first]
    assert [id(item) for item in listed] == [id(item) for item in first]
    assert loaded is first[-1]


def test_every_kind_of_change_is_seen_by_the_next_scan(
    root: Path, store: MemoryStore, opened: list[str]
) -> None:
    edited = write_record(root, _legacy("a", "one"), "project", "a.json")
    renamed = write_record(root, _legacy("b", "two"), "project", "b.json")
    deleted = write_record(root, _legacy("c", "three"), "project", "c.json")
    store.recall_scan(root, PROJECT)
    opened.clear()

    write_record(root, _legacy("a", "one, edited"), "project", "a.json")
    staged = write_record(root, _legacy("b", "two, renamed"), "project", "staged.tmp")
    staged.replace(renamed)
    deleted.unlink()
    write_record(root, _legacy("d", "new"), "project", "d.json")

    found = store.recall_scan(root, PROJECT)
    contents = [item.record.content for item in found]
    assert contents == ["one, edited", "two, renamed", "new"]
    assert sorted(opened) == ["a.json", "b.json", "d.json"]
    assert edited.exists()


def test_a_same_size_rewrite_within_one_clock_tick_is_seen(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Coarse timestamps: pretend every stat reports the same times, so the identity of a
    # file rewritten in place with the same size does not change at all.
    frozen = time.time_ns()
    monkeypatch.setattr(
        files,
        "identity_of",
        lambda st: (st.st_dev, st.st_ino, st.st_size, frozen, frozen, st.st_nlink),
    )
    path = write_record(root, _legacy("a", "first"), "project", "a.json")
    store = MemoryStore()  # the real clock: this read is too close to the last change

    assert [item.record.content for item in store.recall_scan(root, PROJECT)] == ["first"]
    with path.open("r+b") as handle:
        handle.write(path.read_bytes().replace(b"first", b"later"))
    assert [item.record.content for item in store.recall_scan(root, PROJECT)] == ["later"]

    trusting = MemoryStore(clock=settled_clock)
    assert [item.record.content for item in trusting.recall_scan(root, PROJECT)] == ["later"]
    with path.open("r+b") as handle:
        handle.write(path.read_bytes().replace(b"later", b"again"))
    # A read taken long after the last change is trusted while the identity holds.
    assert [item.record.content for item in trusting.recall_scan(root, PROJECT)] == ["later"]


def test_a_racy_reread_with_the_same_bytes_keeps_the_memo(root: Path, opened: list[str]) -> None:
    write_record(root, _legacy(), "project", "a.json")
    store = MemoryStore(watch_changes=False)  # stat identities only, no change notification
    (first,) = store.recall_scan(root, PROJECT)
    first.derived["tokens"] = {"legacy"}
    (second,) = store.recall_scan(root, PROJECT)
    assert len(opened) == 2  # re-read, since the file changed less than 2 s ago
    assert second is first and second.derived == {"tokens": {"legacy"}}


def test_a_changed_file_gets_a_fresh_memo(root: Path, store: MemoryStore) -> None:
    write_record(root, _legacy(content="old"), "project", "a.json")
    (first,) = store.recall_scan(root, PROJECT)
    first.derived["tokens"] = {"old"}
    write_record(root, _legacy(content="new, longer"), "project", "a.json")
    (second,) = store.recall_scan(root, PROJECT)
    assert second is not first and second.derived == {}


def test_invalid_files_are_cached_but_warned_on_every_scan(
    root: Path, store: MemoryStore, opened: list[str], warnings: Callable[[], list[str]]
) -> None:
    write_record(root, b"{", "project", "bad.json")
    write_record(root, b" " * (files.MAX_RECORD_BYTES + 1), "project", "big.json")
    for _ in range(3):
        assert store.recall_scan(root, PROJECT) == []
        assert warnings() == _skipped("invalid_json", "oversized")
    assert opened == ["bad.json", "big.json"]


def test_reads_write_nothing(root: Path, store: MemoryStore) -> None:
    place_canonical(root, canonical_record())
    write_record(root, b"{", "project", "bad.json")
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    store.recall_scan(root, PROJECT)
    store.list_scan(root, PROJECT, "mnemosyne", "all", None)
    _load(store, root)
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before


# --- create ----------------------------------------------------------------------------------


def test_create_publishes_a_private_file_in_new_private_directories(
    root: Path, store: MemoryStore
) -> None:
    record = _new_record()
    stored = store.create(root.joinpath("nested", "deeper"), record)
    base = root / "nested" / "deeper"

    assert stored.record == record
    assert stored.parts == ("project", "mnemosyne", "decisions", f"{OTHER_ID}.json")
    path = base.joinpath(*stored.parts)
    assert path.read_bytes() == serialize_canonical(record)
    assert _mode(path) == 0o600
    for directory in (root, root / "nested", base, base / "project", path.parent):
        assert _mode(directory) == 0o700 & ~_umask()
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_create_legacy_puts_a_version_1_record_back_at_its_path(
    root: Path, store: MemoryStore
) -> None:
    record = parse_record_object({"schema_version": 1, "id": "old", "content": " as written "})
    assert isinstance(record, LegacyRecord)
    parts = ("self", "notes", "2019", "old.json")

    stored = store.create_legacy(root, parts, record)

    assert (stored.record, stored.parts) == (record, parts)
    path = root.joinpath(*parts)
    assert parse_record_object(json.loads(path.read_text())) == record
    assert _mode(path) == 0o600 and _mode(path.parent) == 0o700 & ~_umask()
    assert sorted(p.name for p in path.parent.iterdir()) == ["old.json"]
    with pytest.raises(Conflict):
        store.create_legacy(root, parts, record)


def test_an_interrupted_legacy_write_leaves_a_temp_file_the_next_write_cleans(
    root: Path, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = parse_record_object({"schema_version": 1, "id": "a", "content": "A."})
    assert isinstance(record, LegacyRecord)

    def crash(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(files, "link_no_clobber", crash)
    with pytest.raises(KeyboardInterrupt):
        store.create_legacy(root, ("self", "a.json"), record)
    monkeypatch.undo()
    store.create_legacy(root, ("self", "b.json"), record)

    assert sorted(p.name for p in (root / "self").iterdir()) == ["b.json"]


def test_load_file_reads_a_record_of_either_version_at_its_path(
    root: Path, store: MemoryStore
) -> None:
    write_record(root, _legacy(), "project", "deep", "note.json")
    place_canonical(root, canonical_record())
    write_record(root, "{", "project", "broken.json")

    legacy = store.load_file(root, ("project", "deep", "note.json"))
    canonical = store.load_file(root, RECORD_PARTS)

    assert legacy is not None and legacy.record.id == "legacy-1"
    assert canonical is not None and canonical.record.id == CANONICAL_ID
    assert store.load_file(root, ("project", "broken.json")) is None
    assert store.load_file(root, ("project", "missing", "x.json")) is None


def test_candidate_count_counts_like_the_bound_and_stops_past_it(
    root: Path, store: MemoryStore
) -> None:
    assert store.candidate_count(root, PROJECT) == 0
    for index in range(files.MAX_CANDIDATES):
        write_record(root, "{}", "project", f"n{index // 100}", f"{index}.json")
    assert store.candidate_count(root, PROJECT) == files.MAX_CANDIDATES
    write_record(root, "{}", "project", "one-more.json")

    assert store.candidate_count(root, PROJECT) == files.MAX_CANDIDATES + 1
    with pytest.raises(CandidateLimitExceeded):
        store.check_candidate_bound(root, PROJECT)


def test_create_leaves_existing_directories_untouched(root: Path, store: MemoryStore) -> None:
    (root / "project" / "mnemosyne").mkdir(parents=True)
    for directory in (root, root / "project", root / "project" / "mnemosyne"):
        os.chmod(directory, 0o755)
    stored = store.create(root, _new_record(collection=False))
    assert stored.parts == ("project", "mnemosyne", f"{OTHER_ID}.json")
    for directory in (root, root / "project", root / "project" / "mnemosyne"):
        assert _mode(directory) == 0o755


def test_create_makes_new_directories_durable(
    root: Path, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    monkeypatch.setattr(files, "_fsync_directory", synced.append)
    store.create(root, _new_record())
    # root's parent, root, scope, namespace (for the new collection), and the collection.
    assert len(synced) == 5


def test_create_never_overwrites(root: Path, store: MemoryStore) -> None:
    existing = place_canonical(root, canonical_record(id=OTHER_ID, title="kept"))
    before = existing.read_bytes()
    with pytest.raises(Conflict) as conflict:
        store.create(root, _new_record())
    assert conflict.value.code == "write_conflict"
    assert existing.read_bytes() == before
    assert sorted(p.name for p in existing.parent.iterdir()) == [existing.name]


def test_create_reports_a_failed_directory_sync_but_the_record_is_published(
    root: Path, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "project" / "mnemosyne" / "decisions").mkdir(parents=True)

    def fail(_: int) -> None:
        raise OSError("fsync failed")

    monkeypatch.setattr(files, "_fsync_directory", fail)
    with pytest.raises(SourceUnavailable):
        store.create(root, _new_record())
    directory = root / "project" / "mnemosyne" / "decisions"
    assert [p.name for p in directory.iterdir()] == [f"{OTHER_ID}.json"]


def test_create_refuses_symlinks_and_files_in_the_chain(
    root: Path, store: MemoryStore, tmp_path: Path
) -> None:
    real = tmp_path / "real"
    (real / "mnemosyne").mkdir(parents=True)
    root.symlink_to(real, target_is_directory=True)
    with pytest.raises(SourceUnavailable):
        store.create(root, _new_record())
    root.unlink()
    root.mkdir()
    (root / "project").symlink_to(real, target_is_directory=True)
    with pytest.raises(SourceUnavailable):
        store.create(root, _new_record())
    (root / "project").unlink()
    (root / "project").mkdir()
    (root / "project" / "mnemosyne").write_text("x")
    with pytest.raises(SourceUnavailable):
        store.create(root, _new_record())
    assert list((real / "mnemosyne").iterdir()) == []


def test_create_cleans_temp_leftovers_which_never_count_as_records(
    root: Path, store: MemoryStore, warnings: Callable[[], list[str]]
) -> None:
    directory = root / "project" / "mnemosyne" / "decisions"
    leftover = write_record(
        root, canonical_record(), *RECORD_PARTS[:-1], f".{CANONICAL_ID}.a1b2c3d4.tmp"
    )
    assert store.recall_scan(root, PROJECT) == []
    assert warnings() == []
    store.create(root, _new_record())
    assert not leftover.exists()
    assert [p.name for p in directory.iterdir()] == [f"{OTHER_ID}.json"]


def test_create_refuses_a_record_that_does_not_round_trip_or_fit(
    root: Path, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    not_normalized = dataclasses.replace(_new_record(), tags=("a", "A"))
    with pytest.raises(InvalidRequest) as invalid:
        store.create(root, not_normalized)
    assert (invalid.value.code, invalid.value.field) == ("invalid_record", "memory")

    # Valid records cannot reach the size limit; shrink it to exercise the check.
    monkeypatch.setattr(files, "MAX_RECORD_BYTES", 100)
    with pytest.raises(InvalidRequest) as invalid:
        store.create(root, _new_record())
    assert (invalid.value.code, invalid.value.field) == ("invalid_record", "memory")
    assert not root.exists()


def _no_links(*_: Any, **__: Any) -> None:
    raise OSError("hard links unsupported")


def test_create_removes_its_temp_file_and_new_folders_when_linking_fails(
    root: Path, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "link_no_clobber", _no_links)
    with pytest.raises(SourceUnavailable):
        store.create(root, _new_record())
    assert list(root.iterdir()) == []


def test_create_that_fails_keeps_the_folders_that_were_there(
    root: Path, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "project" / "mnemosyne").mkdir(parents=True)
    place_canonical(root, canonical_record(id=OTHER_ID, collection=None))
    monkeypatch.setattr(files, "link_no_clobber", _no_links)
    with pytest.raises(SourceUnavailable):
        store.create(root, _new_record())
    assert [p.name for p in (root / "project" / "mnemosyne").iterdir()] == [f"{OTHER_ID}.json"]


# --- replace ---------------------------------------------------------------------------------


@pytest.fixture
def current(root: Path, store: MemoryStore) -> StoredRecord:
    place_canonical(root, canonical_record())
    stored = _load(store, root)
    assert stored is not None
    return stored


def test_replace_swaps_in_the_next_revision(
    root: Path, store: MemoryStore, current: StoredRecord
) -> None:
    new = _revised(current, content="Updated content.")
    stored = store.replace(root, current, new)
    path = root.joinpath(*RECORD_PARTS)
    assert stored.record == new and stored.parts == RECORD_PARTS
    assert path.read_bytes() == serialize_canonical(new)
    assert _mode(path) == 0o600
    assert [p.name for p in path.parent.iterdir()] == [path.name]
    loaded = _load(store, root)
    assert loaded is not None and loaded.record == new


def test_replace_checks_revisions(root: Path, store: MemoryStore, current: StoredRecord) -> None:
    for new in (_revised(current, revision=3), _revised(current, revision=1)):
        with pytest.raises(Conflict) as conflict:
            store.replace(root, current, new)
        assert conflict.value.code == "revision_conflict"
    winner = store.replace(root, current, _revised(current, content="first writer"))
    with pytest.raises(Conflict) as conflict:
        store.replace(root, current, _revised(current, content="second writer"))
    assert conflict.value.code == "revision_conflict"
    assert _load(store, root) is not None
    assert isinstance(winner.record, CanonicalRecord)
    assert root.joinpath(*RECORD_PARTS).read_bytes() == serialize_canonical(winner.record)


@pytest.mark.parametrize(
    "change",
    [
        {"language": "de"},
        {"kind": "constraint"},
        {"created_at": "2026-07-18T11:00:00Z"},
        {"origin": "user_approved_proposal"},
        {"recorded_via": "import"},
    ],
)
def test_replace_refuses_to_change_fixed_fields(
    root: Path, store: MemoryStore, current: StoredRecord, change: dict[str, Any]
) -> None:
    record = current.record
    assert isinstance(record, CanonicalRecord)
    values = {key: type(getattr(record, key))(value) for key, value in change.items()}
    with pytest.raises(Conflict) as conflict:
        store.replace(root, current, _revised(current, **values))
    assert conflict.value.code == "write_conflict"


def test_replace_refuses_when_the_bytes_changed_since_loading(
    root: Path, store: MemoryStore, current: StoredRecord
) -> None:
    path = root.joinpath(*RECORD_PARTS)
    edited = canonical_record(title="Edited by hand")
    write_record(root, edited, *RECORD_PARTS)
    with pytest.raises(Conflict) as conflict:
        store.replace(root, current, _revised(current))
    assert conflict.value.code == "write_conflict"
    assert json.loads(path.read_bytes())["title"] == "Edited by hand"
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_replace_of_a_vanished_record_is_not_found(
    root: Path, store: MemoryStore, current: StoredRecord
) -> None:
    root.joinpath(*RECORD_PARTS).unlink()
    with pytest.raises(NotFound):
        store.replace(root, current, _revised(current))


def test_replace_refuses_a_symlinked_file(
    root: Path, store: MemoryStore, current: StoredRecord
) -> None:
    path = root.joinpath(*RECORD_PARTS)
    path.rename(path.with_name("elsewhere.txt"))
    path.symlink_to(path.with_name("elsewhere.txt"))
    with pytest.raises(SourceUnavailable):
        store.replace(root, current, _revised(current))


def test_replace_keeps_the_old_file_when_the_rename_fails(
    root: Path, store: MemoryStore, current: StoredRecord, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(*_: Any) -> None:
        raise OSError("rename failed")

    monkeypatch.setattr(files, "rename_over", fail)
    path = root.joinpath(*RECORD_PARTS)
    before = path.read_bytes()
    with pytest.raises(SourceUnavailable):
        store.replace(root, current, _revised(current))
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_replace_with_a_failed_directory_sync_is_uncertain(
    root: Path, store: MemoryStore, current: StoredRecord, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(_: int) -> None:
        raise OSError("fsync failed")

    monkeypatch.setattr(files, "_fsync_directory", fail)
    new = _revised(current)
    with pytest.raises(OutcomeUncertain) as uncertain:
        store.replace(root, current, new)
    assert uncertain.value.code == "replacement_outcome_uncertain"
    assert root.joinpath(*RECORD_PARTS).read_bytes() == serialize_canonical(new)


# --- delete ----------------------------------------------------------------------------------


def test_delete_removes_only_the_file(
    root: Path, store: MemoryStore, current: StoredRecord
) -> None:
    store.delete(root, current)
    assert not root.joinpath(*RECORD_PARTS).exists()
    assert root.joinpath(*RECORD_PARTS[:-1]).is_dir()
    assert _load(store, root) is None
    assert store.recall_scan(root, PROJECT) == []


def test_delete_refuses_changed_or_vanished_files(
    root: Path, store: MemoryStore, current: StoredRecord
) -> None:
    path = root.joinpath(*RECORD_PARTS)
    write_record(root, canonical_record(title="changed"), *RECORD_PARTS)
    with pytest.raises(Conflict) as conflict:
        store.delete(root, current)
    assert conflict.value.code == "write_conflict"
    assert path.exists()
    path.unlink()
    with pytest.raises(Conflict) as conflict:
        store.delete(root, current)
    assert conflict.value.code == "write_conflict"


def test_delete_refuses_a_symlinked_file(
    root: Path, store: MemoryStore, current: StoredRecord
) -> None:
    path = root.joinpath(*RECORD_PARTS)
    path.rename(path.with_name("elsewhere.txt"))
    path.symlink_to(path.with_name("elsewhere.txt"))
    with pytest.raises(SourceUnavailable):
        store.delete(root, current)
    assert path.is_symlink()


def test_delete_with_a_failed_directory_sync_is_uncertain(
    root: Path, store: MemoryStore, current: StoredRecord, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(_: int) -> None:
        raise OSError("fsync failed")

    monkeypatch.setattr(files, "_fsync_directory", fail)
    with pytest.raises(OutcomeUncertain) as uncertain:
        store.delete(root, current)
    assert uncertain.value.code == "deletion_outcome_uncertain"
    assert not root.joinpath(*RECORD_PARTS).exists()


def test_delete_reports_other_unlink_failures_as_unavailable(
    root: Path, store: MemoryStore, current: StoredRecord, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(*_: Any) -> None:
        raise PermissionError("read-only")

    monkeypatch.setattr(files, "unlink", fail)
    with pytest.raises(SourceUnavailable):
        store.delete(root, current)


# --- the lock --------------------------------------------------------------------------------


def test_lock_creates_a_missing_root_and_leaves_nothing_inside(
    root: Path, store: MemoryStore
) -> None:
    with store.lock(root / "a" / "b"):
        pass
    assert (root / "a" / "b").is_dir()
    assert list((root / "a" / "b").iterdir()) == []
    assert _mode(root) == 0o700 & ~_umask()


def test_lock_refuses_a_symlinked_or_file_root(root: Path, store: MemoryStore) -> None:
    real = root.parent / "real"
    real.mkdir()
    root.symlink_to(real, target_is_directory=True)
    with pytest.raises(SourceUnavailable), store.lock(root):
        pass  # pragma: no cover
    root.unlink()
    root.write_text("x")
    with pytest.raises(SourceUnavailable), store.lock(root):
        pass  # pragma: no cover


def test_lock_is_reentrant_in_one_thread(root: Path, store: MemoryStore) -> None:
    with store.lock(root), store.lock(root / "."), store.lock(root):
        stored = store.create(root, _new_record())
    assert stored.record.id == OTHER_ID


def test_lock_excludes_other_threads(root: Path) -> None:
    stores = [MemoryStore(), MemoryStore()]
    inside = threading.Event()
    events: list[str] = []

    def holder() -> None:
        with stores[0].lock(root):
            events.append("first in")
            inside.set()
            time.sleep(0.2)
            events.append("first out")

    thread = threading.Thread(target=holder)
    thread.start()
    inside.wait(5)
    with stores[1].lock(root):
        events.append("second in")
    thread.join()
    assert events == ["first in", "first out", "second in"]


def _increment_many(root: str, counter: str, times: int) -> None:
    store = MemoryStore()
    for _ in range(times):
        with store.lock(Path(root)):
            value = int(Path(counter).read_text())
            Path(counter).write_text(str(value + 1))


def test_lock_excludes_other_processes(root: Path, tmp_path: Path) -> None:
    counter = tmp_path / "counter"
    counter.write_text("0")
    context = multiprocessing.get_context("fork")
    workers = [
        context.Process(target=_increment_many, args=(str(root), str(counter), 100))
        for _ in range(3)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    assert [worker.exitcode for worker in workers] == [0, 0, 0]
    assert counter.read_text() == "300"


def test_create_fails_with_an_internal_error_if_the_file_vanishes(
    root: Path, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_publish_sync = files.sync_directory

    def sync_then_vanish(fd: int) -> None:
        real_publish_sync(fd)
        try:
            os.unlink(f"{OTHER_ID}.json", dir_fd=fd)
        except FileNotFoundError:
            pass

    monkeypatch.setattr(files, "sync_directory", sync_then_vanish)
    with pytest.raises(MnemosyneError) as error:
        store.create(root, _new_record())
    assert error.value.status == "internal_error"


def test_racing_replacements_end_with_one_winner_and_one_conflict(
    root: Path, current: StoredRecord
) -> None:
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def revise(content: str) -> None:
        store = MemoryStore()
        barrier.wait(5)
        try:
            store.replace(root, current, _revised(current, content=content))
            outcomes.append("revised")
        except Conflict as conflict:
            outcomes.append(conflict.code)

    threads = [threading.Thread(target=revise, args=(text,)) for text in ("one", "two")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(outcomes) == ["revised", "revision_conflict"]


@pytest.mark.parametrize("bad", ["..", ".", "a/b", ""])
def test_path_parts_must_be_plain_names(root: Path, store: MemoryStore, bad: str) -> None:
    with pytest.raises(ValueError):
        store.load_canonical(root, PROJECT, bad, None, CANONICAL_ID)
    with pytest.raises(ValueError):
        store.list_scan(root, PROJECT, bad, "all", None)


# --- filesystem failures ---------------------------------------------------------------------


def test_a_directory_that_cannot_be_listed_makes_every_read_unavailable(
    root: Path, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_record(root, _legacy(), "project", "ns", "a.json")

    def refuse(_: object) -> None:
        raise PermissionError("denied")

    monkeypatch.setattr(os, "scandir", refuse)
    for read in (
        lambda: store.recall_scan(root, PROJECT),
        lambda: store.list_scan(root, PROJECT, None, "all", None),
        lambda: store.list_scan(root, PROJECT, "ns", "none", None),
        lambda: store.check_candidate_bound(root, PROJECT),
    ):
        with pytest.raises(SourceUnavailable):
            read()


def test_create_refuses_a_symlink_that_wins_a_mkdir_race(
    root: Path, store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "project").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    real_mkdir = os.mkdir

    def racing_mkdir(name: Any, mode: int = 0o777, *, dir_fd: int | None = None) -> None:
        if name != "mnemosyne":
            real_mkdir(name, mode, dir_fd=dir_fd)
            return
        os.symlink(outside, name, dir_fd=dir_fd)
        raise FileExistsError(name)

    monkeypatch.setattr(os, "mkdir", racing_mkdir)
    with pytest.raises(SourceUnavailable):
        store.create(root, _new_record())
    assert list(outside.iterdir()) == []


def test_any_other_filesystem_failure_below_the_store_is_unavailable(
    root: Path, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    place_canonical(root, canonical_record())
    current = _load(store, root)
    assert current is not None

    def out_of_descriptors(parent_fd: int, name: str) -> int:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(files, "open_subdirectory", out_of_descriptors)
    for call in (
        lambda: _load(store, root),
        lambda: store.list_scan(root, PROJECT, "mnemosyne", "exact", "decisions"),
        lambda: store.create(root, _new_record()),
        lambda: store.replace(root, current, _revised(current, content="new")),
        lambda: store.delete(root, current),
    ):
        with pytest.raises(SourceUnavailable):
            call()
    monkeypatch.undo()
    assert _load(store, root) is not None
    assert _load(store, root, OTHER_ID) is None
