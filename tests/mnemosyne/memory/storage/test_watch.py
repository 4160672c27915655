"""Change notification: an unchanged scan skips the walk; every change is seen at once."""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.memory.model.errors import CandidateLimitExceeded
from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.storage import discovery, files, scan, watch
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore, StoredRecord
from mymcp.plugins.mnemosyne.memory.storage.watch import ChangeFeed
from tests.helpers import canonical_record, place_canonical, write_record

pytestmark = pytest.mark.skipif(ChangeFeed().mark() is None, reason="no inotify here")

PROJECT = Scope.PROJECT
SECOND_ID = "mem_fedcba9876543210fedcba9876543210"


def legacy(identifier: str, content: str = "tea") -> dict[str, Any]:
    return {"schema_version": 1, "id": identifier, "content": content}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    place_canonical(root, canonical_record())
    write_record(root, legacy("plain"), "project", "notes", "plain.json")
    return root


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts walks: full ones, and those that list again only the folders that changed."""
    counted: list[int] = []
    real, real_rescan = discovery.walk, scan._Rescan.scan

    def counting(*args: Any, **kwargs: Any) -> list[discovery.Candidate]:
        counted.append(1)
        return real(*args, **kwargs)

    def counting_rescan(self: Any, *args: Any, **kwargs: Any) -> Any:
        counted.append(2)
        return real_rescan(self, *args, **kwargs)

    monkeypatch.setattr(discovery, "walk", counting)
    monkeypatch.setattr(scan._Rescan, "scan", counting_rescan)
    return counted


def contents(found: list[StoredRecord]) -> list[str]:
    return sorted(item.record.content for item in found)


def test_an_unchanged_scope_is_answered_without_walking(root: Path, walks: list[int]) -> None:
    store = MemoryStore()
    first = store.recall_scan(root, PROJECT)
    assert store.recall_scan(root, PROJECT) == first
    assert store.list_scan(root, PROJECT, None, "all", None) == first
    assert len(walks) == 1


def test_a_same_size_rewrite_right_after_a_scan_is_seen(root: Path, walks: list[int]) -> None:
    store = MemoryStore()
    store.recall_scan(root, PROJECT)
    write_record(root, legacy("plain", "tee"), "project", "notes", "plain.json")
    assert "tee" in contents(store.recall_scan(root, PROJECT))
    assert len(walks) == 2


@pytest.mark.parametrize("change", ["add", "delete", "rename", "subdirectory", "invalidate"])
def test_every_change_inside_the_scope_is_seen_by_the_next_scan(root: Path, change: str) -> None:
    store = MemoryStore()
    before = contents(store.recall_scan(root, PROJECT))
    notes = root / "project" / "notes"
    if change == "add":
        write_record(root, legacy("more", "coffee"), "project", "notes", "more.json")
    elif change == "delete":
        (notes / "plain.json").unlink()
    elif change == "rename":
        (notes / "plain.json").rename(notes / "plain.txt")
    elif change == "subdirectory":
        write_record(root, legacy("deep", "cocoa"), "project", "notes", "sub", "deep.json")
    else:
        (notes / "plain.json").write_text("{not json")
    after = contents(store.recall_scan(root, PROJECT))
    assert after != before


# --- scans after a change list again only the folders that changed --------------------------


def _seen(store: MemoryStore, root: Path, caplog: pytest.LogCaptureFixture) -> Any:
    """What a scope scan gives: records by path and content, in order, and its warnings."""
    caplog.clear()
    found = store.recall_scan(root, PROJECT)
    warnings = [record.getMessage() for record in caplog.records]
    return [(item.parts, item.record.content) for item in found], warnings


def _change(root: Path, step: int, choice: int) -> None:
    """One change somewhere in the scope: add, edit, break, remove a file, add or remove a
    folder, put a symlink or a folder too deep."""
    folder = root / "project" / ("notes", "ideas", "ideas/later", "deep/a/b/c/d/e")[choice % 4]
    action = choice // 4 % 7
    folder.mkdir(parents=True, exist_ok=True)
    present = sorted(path for path in folder.glob("*.json") if not path.is_symlink())
    if action == 0 or not present:
        write_record(folder, legacy(f"n{step}", f"note {step}"), f"n{step}.json")
    elif action == 1:
        write_record(folder, legacy(present[0].stem, f"edited {step}"), present[0].name)
    elif action == 2:
        present[-1].write_text("{broken")
    elif action == 3:
        present[0].unlink()
    elif action == 4 and not (folder / "link.json").exists():
        (folder / "link.json").symlink_to(root / "project" / "notes")
    elif action == 5:
        (folder / f"sub{step}").mkdir()
    else:
        write_record(folder, legacy(f"z{step}", f"late {step}"), f"sub{step}", f"z{step}.json")


@settings(max_examples=40, deadline=None)
@given(choices=st.lists(st.integers(min_value=0, max_value=27), min_size=1, max_size=12))
def test_a_scan_after_changes_gives_what_a_fresh_walk_gives(
    tmp_path_factory: pytest.TempPathFactory, choices: list[int]
) -> None:
    root = tmp_path_factory.mktemp("rescan") / "memory"
    place_canonical(root, canonical_record())
    write_record(root, legacy("plain"), "project", "notes", "plain.json")
    write_record(root, legacy("idea", "an idea"), "project", "ideas", "idea.json")
    kept = MemoryStore()
    handler = _Messages()
    logging.getLogger("mymcp.memory.store").addHandler(handler)
    try:
        for run_scan in _SCANS:
            run_scan(kept, root)
        for step, choice in enumerate(choices):
            _change(root, step, choice)
            for run_scan in _SCANS:
                handler.messages.clear()
                seen = [(item.parts, item.record.content) for item in run_scan(kept, root)]
                warned = list(handler.messages)
                handler.messages.clear()
                fresh = run_scan(MemoryStore(watch_changes=False), root)
                assert seen == [(item.parts, item.record.content) for item in fresh]
                assert warned == handler.messages
    finally:
        logging.getLogger("mymcp.memory.store").removeHandler(handler)


# A scope-wide scan and the two scans of a namespace that list a folder and its subfolders.
_SCANS: tuple[Any, ...] = (
    lambda store, root: store.recall_scan(root, PROJECT),
    lambda store, root: store.list_scan(root, PROJECT, "ideas", "all", None),
    lambda store, root: store.list_scan(root, PROJECT, "ideas", "none", None),
)


class _Messages(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_a_change_in_one_folder_lists_and_reads_only_that_folder(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for number in range(20):
        write_record(root, legacy(f"q{number}", "quiet"), "project", "quiet", f"q{number}.json")
    store = MemoryStore()
    store.recall_scan(root, PROJECT)
    stats: list[str] = []
    real = files.lstat_at

    def counting(dir_fd: int | None, name: str) -> Any:
        stats.append(name)
        return real(dir_fd, name)

    monkeypatch.setattr(files, "lstat_at", counting)
    write_record(root, legacy("more", "coffee"), "project", "notes", "more.json")
    found = store.recall_scan(root, PROJECT)

    assert sorted(item.record.content for item in found if item.parts[1] == "notes") == [
        "coffee",
        "tea",
    ]
    assert not [name for name in stats if name.startswith("q")]  # the quiet folder: no stat
    assert len(found) == 23


def test_a_scan_after_a_change_stops_at_the_candidate_limit(root: Path) -> None:
    store = MemoryStore(candidate_limit=1000)
    store.recall_scan(root, PROJECT)
    bulk = root / "project" / "bulk"
    bulk.mkdir()
    for number in range(999):
        (bulk / f"{number}.json").write_bytes(b"{}")
    with pytest.raises(CandidateLimitExceeded):
        store.recall_scan(root, PROJECT)


def test_replacing_the_scope_directory_is_seen(root: Path, tmp_path: Path) -> None:
    store = MemoryStore()
    store.recall_scan(root, PROJECT)
    (root / "project").rename(tmp_path / "old-project")
    write_record(root, legacy("fresh", "mate"), "project", "fresh.json")
    assert contents(store.recall_scan(root, PROJECT)) == ["mate"]


def test_replacing_an_ancestor_of_the_root_is_seen(tmp_path: Path) -> None:
    root = tmp_path / "home" / "memory"
    write_record(root, legacy("plain", "tea"), "project", "plain.json")
    store = MemoryStore()
    assert contents(store.recall_scan(root, PROJECT)) == ["tea"]
    (tmp_path / "home").rename(tmp_path / "old-home")
    write_record(root, legacy("plain", "tee"), "project", "plain.json")
    assert contents(store.recall_scan(root, PROJECT)) == ["tee"]


def test_a_replayed_scan_logs_the_walk_warnings_too(
    root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    deep = root / "project" / "a" / "b" / "c" / "d" / "e"
    deep.mkdir(parents=True)
    (root / "project" / "link.json").symlink_to(root / "project" / "notes" / "plain.json")
    store = MemoryStore()
    caplog.set_level(logging.WARNING, logger="mymcp.memory.store")
    store.recall_scan(root, PROJECT)
    first = [record.getMessage() for record in caplog.records]
    caplog.clear()
    store.recall_scan(root, PROJECT)
    assert [record.getMessage() for record in caplog.records] == first
    assert "skipped scope='project' reason='too_deep'" in first
    assert "skipped scope='project' reason='symlink'" in first


def test_a_symlinked_root_always_walks(root: Path, tmp_path: Path, walks: list[int]) -> None:
    link = tmp_path / "link"
    link.symlink_to(root, target_is_directory=True)
    store = MemoryStore()
    store.recall_scan(link, PROJECT)
    store.recall_scan(link, PROJECT)
    assert len(walks) == 2


def _child_scan(root: str, queue: Any) -> None:
    store = _INHERITED["store"]
    write_record(Path(root), legacy("child", "from the child"), "project", "child.json")
    queue.put(contents(store.recall_scan(Path(root), PROJECT)))


_INHERITED: dict[str, MemoryStore] = {}


def test_a_forked_child_never_reads_the_parents_events(root: Path) -> None:
    store = MemoryStore()
    store.recall_scan(root, PROJECT)
    _INHERITED["store"] = store
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child_scan, args=(str(root), queue))
    child.start()
    seen_by_child = queue.get(timeout=20)
    child.join(timeout=20)
    assert "from the child" in seen_by_child
    # The parent still sees the child's file: its own queue was not drained by the child.
    assert "from the child" in contents(store.recall_scan(root, PROJECT))
    write_record(root, legacy("late", "after the fork"), "project", "late.json")
    assert "after the fork" in contents(store.recall_scan(root, PROJECT))


def test_the_feed_reports_nothing_known_when_disabled() -> None:
    feed = ChangeFeed(enabled=False)
    assert feed.mark() is None
    assert not feed.unchanged((), (0, 0))


def test_the_change_feed_sees_a_write_in_a_watched_directory(tmp_path: Path) -> None:
    feed = ChangeFeed()
    since = feed.mark()
    assert since is not None
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        wd = feed.watch(fd)
    finally:
        os.close(fd)
    assert wd is not None
    assert feed.unchanged((wd,), since)
    (tmp_path / "x.json").write_text(json.dumps(legacy("x")))
    assert not feed.unchanged((wd,), since)
    assert feed.unchanged((wd,), feed.mark() or since)


def test_an_edit_through_a_hard_link_outside_the_root_is_seen(root: Path, tmp_path: Path) -> None:
    # The kernel reports a write only to the directory of the path it went through, so a
    # record that shares its inode with a file elsewhere must never be served from events.
    store = MemoryStore()
    record = root / "project" / "notes" / "plain.json"
    outside = tmp_path / "elsewhere.json"
    os.link(record, outside)
    assert "tea" in contents(store.recall_scan(root, PROJECT))
    with open(outside, "wb") as handle:  # in place: the inode stays shared
        handle.write(json.dumps(legacy("plain", "tee")).encode())
    found = contents(store.recall_scan(root, PROJECT))
    assert "tee" in found and "tea" not in found


def test_a_filesystem_not_known_to_report_every_change_always_walks(
    root: Path, walks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Network and FUSE filesystems do not report changes made by other machines.
    monkeypatch.setattr(watch, "LOCAL_FILESYSTEMS", frozenset())
    store = MemoryStore()
    store.recall_scan(root, PROJECT)
    store.recall_scan(root, PROJECT)
    assert len(walks) == 2


def test_the_events_remembered_per_watch_are_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch, "MAX_EVENTFUL_WATCHES", 1)
    feed = ChangeFeed()
    assert feed.mark() is not None  # opens the feed
    watches = []
    for name in ("quiet", "busy", "busier"):
        (tmp_path / name).mkdir()
        fd = os.open(tmp_path / name, os.O_RDONLY | os.O_DIRECTORY)
        try:
            watches.append(feed.watch(fd))
        finally:
            os.close(fd)
    quiet, busy, busier = watches
    assert quiet is not None and busy is not None and busier is not None
    since = feed.mark()
    assert since is not None
    (tmp_path / "busy" / "x.json").write_text("{}")
    assert feed.unchanged((quiet,), since)  # one watch with events fits the bound
    (tmp_path / "busier" / "y.json").write_text("{}")
    # Two do not: the feed forgets them and counts everything as changed once.
    assert not feed.unchanged((quiet,), since)
    assert feed.unchanged((quiet, busy, busier), feed.mark() or since)
