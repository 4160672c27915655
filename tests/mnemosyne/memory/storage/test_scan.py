"""The scanner's caches: each bounded, each letting go of what a newer scan superseded."""

from __future__ import annotations

import gc
import os
import weakref
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.storage import discovery, files, scan
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore, StoredRecord
from mymcp.plugins.mnemosyne.memory.storage.watch import ChangeFeed
from tests.helpers import settled_clock, write_record

PROJECT = Scope.PROJECT


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The record files read, by their names."""
    seen: list[tuple[str, ...]] = []
    real = files.read_file_at

    def counting(dir_fd: int, name: str) -> files.FileContent:
        seen.append((name,))
        return real(dir_fd, name)

    monkeypatch.setattr(files, "read_file_at", counting)
    return seen


class _Probe:
    """Something weakly referable to hang on a record, to see when the record is let go."""


def _probe(stored: StoredRecord) -> weakref.ref[_Probe]:
    probe = _Probe()
    stored.derived["test.probe"] = probe
    return weakref.ref(probe)


def _released(probe: weakref.ref[_Probe]) -> bool:
    gc.collect()
    return probe() is None


def _legacy(root: Path, content: str, *parts: str) -> Path:
    return write_record(root, {"schema_version": 1, "id": parts[-1], "content": content}, *parts)


def _edit(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text().replace(old, new))


def _contents(found: list[StoredRecord]) -> list[str]:
    return [item.record.content for item in found]


# --- letting go of what was superseded ----------------------------------------------------


def test_a_changed_file_lets_go_of_its_old_record(root: Path, store: MemoryStore) -> None:
    path = _legacy(root, "first", "project", "a.json")
    probe = _probe(store.recall_scan(root, PROJECT)[0])
    _edit(path, "first", "later")

    assert _contents(store.recall_scan(root, PROJECT)) == ["later"]
    assert _released(probe)


def test_a_change_seen_by_one_scan_frees_the_record_from_the_others(
    root: Path, store: MemoryStore
) -> None:
    path = _legacy(root, "first", "project", "ns", "a.json")
    _legacy(root, "other", "project", "ns", "b.json")
    (namespace_level,) = [
        s for s in store.list_scan(root, PROJECT, "ns", "none", None) if s.record.id == "a.json"
    ]
    probe = _probe(namespace_level)
    assert store.recall_scan(root, PROJECT)[0] is namespace_level  # one record object, shared
    del namespace_level
    _edit(path, "first", "later")

    assert _contents(store.recall_scan(root, PROJECT)) == ["later", "other"]
    assert _released(probe)


def test_a_removed_file_is_forgotten_by_the_next_walk_of_its_directory(
    root: Path, store: MemoryStore
) -> None:
    path = _legacy(root, "gone soon", "project", "ns", "a.json")
    probe = _probe(store.list_scan(root, PROJECT, "ns", "none", None)[0])
    path.unlink()

    assert store.list_scan(root, PROJECT, "ns", "none", None) == []
    assert _released(probe)


def test_a_walk_forgets_only_what_was_within_its_reach(
    root: Path, store: MemoryStore, reads: list[tuple[str, ...]]
) -> None:
    _legacy(root, "top", "project", "ns", "a.json")
    _legacy(root, "below", "project", "ns", "sub", "b.json")
    store.recall_scan(root, PROJECT)
    reads.clear()

    # The namespace-level walk does not reach ns/sub, so b.json stays cached.
    store.list_scan(root, PROJECT, "ns", "none", None)
    assert _contents(store.recall_scan(root, PROJECT)) == ["top", "below"]
    assert reads == []


# --- the bounds -------------------------------------------------------------------------------


def test_the_read_cache_of_a_scope_is_bounded(
    root: Path, reads: list[tuple[str, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = MemoryStore(clock=settled_clock, watch_changes=False)
    for name in ("a.json", "b.json", "c.json"):
        _legacy(root, name, "project", name)
    store.recall_scan(root, PROJECT)
    assert len(reads) == 3
    reads.clear()
    store.recall_scan(root, PROJECT)
    assert reads == []

    monkeypatch.setattr(scan, "MAX_ENTRIES_PER_SCOPE", 2)
    _edit(root / "project" / "a.json", "a.json", "x.json")  # the next scan must read
    store.recall_scan(root, PROJECT)
    reads.clear()
    store.recall_scan(root, PROJECT)
    assert reads  # three files cannot all stay cached in room for two


def test_only_so_many_scopes_keep_a_cache(
    root: Path, store: MemoryStore, reads: list[tuple[str, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scan, "MAX_SCOPES", 1)
    _legacy(root, "one", "project", "a.json")
    _legacy(root, "two", "knowledge", "b.json")
    for _ in range(2):
        store.recall_scan(root, Scope.PROJECT)
        store.recall_scan(root, Scope.KNOWLEDGE)
    assert reads == [("a.json",), ("b.json",)] * 2

    monkeypatch.setattr(scan, "MAX_SCOPES", 2)
    reads.clear()
    for _ in range(2):
        store.recall_scan(root, Scope.PROJECT)
        store.recall_scan(root, Scope.KNOWLEDGE)
    assert reads == [("a.json",)]  # the knowledge scope was still cached


@pytest.mark.parametrize("bound", ["MAX_LISTINGS", "MAX_LISTED_NAMES"])
def test_directory_listings_are_bounded(
    root: Path, monkeypatch: pytest.MonkeyPatch, bound: str
) -> None:
    _legacy(root, "one", "project", "a", "x.json")
    _legacy(root, "two", "project", "b", "y.json")
    listed: list[object] = []
    real = os.scandir

    def counting(path: Any) -> Any:
        listed.append(path)
        return real(path)

    monkeypatch.setattr(os, "scandir", counting)

    def listed_by_a_second_scan() -> int:
        store = MemoryStore(clock=settled_clock, watch_changes=False)
        store.recall_scan(root, PROJECT)
        listed.clear()
        store.recall_scan(root, PROJECT)
        return len(listed)

    assert listed_by_a_second_scan() == 0
    monkeypatch.setattr(scan, bound, 1)
    assert listed_by_a_second_scan() >= 2  # room for one listing (or one name) only


@pytest.mark.skipif(ChangeFeed().mark() is None, reason="no inotify here")
def test_only_so_many_snapshots_are_kept_per_scope(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    walks: list[int] = []
    real = discovery.walk

    def counting(*args: Any, **kwargs: Any) -> list[discovery.Candidate]:
        walks.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(discovery, "walk", counting)
    monkeypatch.setattr(scan, "MAX_SNAPSHOTS_PER_SCOPE", 1)
    store = MemoryStore(clock=settled_clock)
    _legacy(root, "one", "project", "a", "x.json")
    _legacy(root, "two", "project", "b", "y.json")

    def selection(namespace: str) -> list[str]:
        return _contents(store.list_scan(root, PROJECT, namespace, "none", None))

    assert selection("a") == selection("a") == ["one"]
    assert len(walks) == 1  # the second scan replayed the snapshot without walking
    assert selection("b") == ["two"]
    assert selection("a") == ["one"]
    assert len(walks) == 3  # a's snapshot gave way to b's
