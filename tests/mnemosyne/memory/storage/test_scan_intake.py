"""A run of files read by the workers goes into the scope's cache at once when it can.

Taken at once or file by file, a run must leave the cache exactly alike: the same
outcomes under the same paths, the same directories, the same times it let go of
everything, and its follower told of the same losses, whatever the cache held before (a
file of the run loaded singly meanwhile, a cache cleared before, one that reaches its
bound in the middle of the run).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.memory.storage import scan

PATHS: list[tuple[str, ...]] = [
    ("project", folder, f"mem_{n}.json") for folder in ("atlas", "beacon") for n in range(4)
]
PATHS += [("project", "atlas", "drafts", "old.json")]


class _Follower:
    def __init__(self) -> None:
        self.told: list[tuple[str, Any]] = []

    def added(self, stored: Any, record: Any) -> None:
        self.told.append(("added", stored.parts))

    def removed(self, stored: Any) -> None:
        self.told.append(("removed", stored.parts))

    def cleared(self) -> None:
        self.told.append(("cleared", None))


def _stored(parts: tuple[str, ...], title: str) -> scan.StoredRecord:
    return scan.StoredRecord.of((title, None, None, "legacy", None), parts, bytes(32), None)


def _entry(parts: tuple[str, ...], outcome: str) -> scan._Entry:
    kept = _stored(parts, outcome) if outcome != "skipped" else "too_large"
    return scan._Entry(bytes(48), True, None, kept)


def _cache(before: list[tuple[str, ...]], *, cleared: bool) -> tuple[scan._ScopeCache, _Follower]:
    cache = scan._ScopeCache(1000, scan._WholeRecords())
    follower = _Follower()
    cache.follower = follower  # type: ignore[assignment]
    for parts in before:
        cache.put(parts, _entry(parts, "before"))
    if cleared:
        cache.put(PATHS[0], None)
        cache._clear()
    return cache, follower


def _outcome(outcome: scan.Outcome) -> object:
    if isinstance(outcome, scan.StoredRecord):
        return outcome.title, outcome.parts
    return outcome


def _seen(cache: scan._ScopeCache, follower: _Follower) -> tuple[object, ...]:
    entries = [(parts, _outcome(entry.outcome)) for parts, entry in cache.entries.items()]
    return entries, cache.directories, cache.cleared, follower.told


@settings(max_examples=150, deadline=None)
@given(
    before=st.lists(st.sampled_from(PATHS), unique=True, max_size=5),
    run=st.lists(
        st.tuples(st.sampled_from(PATHS), st.sampled_from(("run", "skipped", None))),
        unique_by=lambda item: item[0],
        min_size=1,
    ),
    bound=st.integers(min_value=1, max_value=12),
    cleared=st.booleans(),
)
def test_a_run_taken_at_once_leaves_the_cache_as_taking_each_file(
    before: list[tuple[str, ...]],
    run: list[tuple[tuple[str, ...], str | None]],
    bound: int,
    cleared: bool,
) -> None:
    taken = [(parts, None if kind is None else _entry(parts, kind)) for parts, kind in run]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scan, "MAX_ENTRIES_PER_SCOPE", bound)
        one_by_one, told_singly = _cache(before, cleared=cleared)
        for parts, entry in taken:
            one_by_one.put(parts, entry)
        at_once, told_at_once = _cache(before, cleared=cleared)
        at_once.put_run(taken)

    assert _seen(at_once, told_at_once) == _seen(one_by_one, told_singly)


def test_a_run_the_cache_holds_nothing_of_goes_in_whole() -> None:
    cache, follower = _cache([PATHS[0]], cleared=False)
    taken = [(parts, _entry(parts, "run")) for parts in PATHS[1:]]

    cache.put_run(taken)

    assert [cache.entries[parts] for parts, _ in taken] == [entry for _, entry in taken]
    assert cache.directories[("project", "atlas")] == set(PATHS[:4])
    assert cache.directories[("project", "atlas", "drafts")] == {PATHS[-1]}
    assert follower.told == []
