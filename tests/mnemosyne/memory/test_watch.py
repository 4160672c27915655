"""Change notification: an unchanged scan skips the walk; every change is seen at once."""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.memory import discovery
from mymcp.plugins.mnemosyne.memory import store as store_module
from mymcp.plugins.mnemosyne.memory import watch as watch_module
from mymcp.plugins.mnemosyne.memory.store import MemoryStore
from mymcp.plugins.mnemosyne.memory.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.watch import ChangeFeed
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
    """Counts full walks."""
    counted: list[int] = []
    real = discovery.walk

    def counting(*args: Any, **kwargs: Any) -> list[discovery.Candidate]:
        counted.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(discovery, "walk", counting)
    return counted


def contents(found: list[store_module.StoredRecord]) -> list[str]:
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
    monkeypatch.setattr(watch_module, "LOCAL_FILESYSTEMS", frozenset())
    store = MemoryStore()
    store.recall_scan(root, PROJECT)
    store.recall_scan(root, PROJECT)
    assert len(walks) == 2


def test_the_events_remembered_per_watch_are_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch_module, "MAX_EVENTFUL_WATCHES", 1)
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
