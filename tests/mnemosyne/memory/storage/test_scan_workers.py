"""A scan that finds many files it never read hands them to worker processes in runs.

Whatever the workers read, the scan must come out exactly as if it had read every file
itself: the same records in the same order, the same skips logged, the same cache (a
changed file is read again, an unchanged one is not) and the same search index, so that
recall answers alike. Here the workers are this process (each job and each result goes
through ``pickle`` as it would between processes); ``test_workers.py`` starts real ones.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne.memory.model.errors import CandidateLimitExceeded
from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.recall import ranking
from mymcp.plugins.mnemosyne.memory.recall.ranking import RecallRequest
from mymcp.plugins.mnemosyne.memory.recall.search_index import PARTS, SearchIndex
from mymcp.plugins.mnemosyne.memory.storage import discovery, files, scan
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore, StoredRecord
from tests.helpers import canonical_record, place_canonical, settled_clock, write_record

PROJECT = Scope.PROJECT
STORE_LOG = "mymcp.memory.store"
WORDS = ("alpha", "beta", "plan", "release", "tea", "q1", "c++", "on-line", "Ünïcode", "naïve")
QUERIES = (
    "alpha plan",
    "release",
    "online",
    "c++",
    "unicode",
    "naive tea",
    "q1 beta",
    f"{101:032x}",
)


def _pickled(value: Any) -> Any:
    return pickle.loads(pickle.dumps(value))


class _Here:
    """``workers.Workers`` in this process, each job and result pickled on the way."""

    count = 2

    def __init__(self, count: int) -> None:
        self.closed = False

    def warm(self, function: Callable[[Any], object], job: Any) -> None:
        _pickled(function(_pickled(job)))

    def in_order(
        self,
        function: Callable[[Any], Any],
        jobs: Sequence[Any],
        fallback: Callable[[Any], Any],
        on_handed: Callable[[], None] | None = None,
    ) -> Iterator[Any]:
        if on_handed is not None:
            on_handed()
        for number, job in enumerate(jobs):
            yield fallback(job) if self.fails(number) else _pickled(function(_pickled(job)))

    def fails(self, number: int) -> bool:
        return False

    def close(self, *, wait: bool = True) -> None:
        self.closed = True


class _EveryOtherFails(_Here):
    def fails(self, number: int) -> bool:
        return number % 2 == 1


@pytest.fixture
def workers(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Make every scan of two files or more hand them to (stand-in) workers."""

    def use(kind: type[_Here] = _Here, run: int = 2) -> None:
        _hand_over(monkeypatch, kind, run)

    return use


def _hand_over(patch: pytest.MonkeyPatch, kind: type[_Here], run: int) -> None:
    patch.setattr(scan, "BULK_FROM", 2)
    patch.setattr(scan, "MIN_RUN", run)
    patch.setattr(scan, "usable_cpus", lambda: 2)
    patch.setattr(scan, "Workers", kind)


def _record(number: int, namespace: str, collection: str | None, **fields: Any) -> dict[str, Any]:
    record = canonical_record(id=f"mem_{number:032x}", **fields)
    record["namespace"] = {"kind": "project", "id": namespace, "label": None}
    record["collection"] = None if collection is None else {"id": collection, "label": None}
    return record


def _odd_files(root: Path) -> None:
    """Files every scan must skip, or read as legacy records."""
    legacy = {"schema_version": 1, "id": "old-1", "title": "Old plan", "content": "tea release"}
    write_record(root, legacy, "project", "notes", "old.json")
    write_record(root, "{", "project", "atlas", f"mem_{1:032x}.json")
    write_record(root, '{"id": 1, "id": 2}', "project", "atlas", f"mem_{2:032x}.json")
    write_record(root, b"\xff\xfe", "project", "atlas", f"mem_{3:032x}.json")
    write_record(root, b" " * 70_000, "project", "atlas", f"mem_{4:032x}.json")
    elsewhere = _record(5, "beacon", None, content="alpha")
    write_record(root, elsewhere, "project", "atlas", f"mem_{5:032x}.json")  # off its path
    archived = _record(6, "atlas", None, content="alpha plan")
    archived["lifecycle"] = {"state": "archived", "revision": 2}
    place_canonical(root, archived)
    os.symlink(root / "project" / "notes" / "old.json", root / "project" / "atlas" / "link.json")


def _notebook(root: Path, texts: Sequence[tuple[str, str, tuple[str, ...]]]) -> None:
    for number, (title, content, tags) in enumerate(texts, start=100):
        namespace = ("atlas", "beacon")[number % 2]
        collection = None if number % 3 else "drafts"
        fields = {"title": title or None, "content": content or "x", "tags": list(tags)}
        place_canonical(root, _record(number, namespace, collection, **fields))
    _odd_files(root)


def _seen(store: MemoryStore, root: Path) -> list[tuple[object, ...]]:
    """What a scan of the scope gives, fact by fact, and the whole records."""
    return [
        (s.parts, s.digest, s.title, s.kind, s.state, s.legacy_id, s.duplicate, s.record)
        for s in store.recall_scan(root, PROJECT)
    ]


def _lists(index: SearchIndex) -> list[dict[str, list[tuple[str, ...]]]]:
    """Every list of the index, each record by its path (numbers may differ)."""
    with index.lock:
        return [
            {word: [index.record(n).parts for n in numbers] for word, numbers in table.items()}
            for table in (index.table(tier, part) for tier in (0, 1) for part in PARTS)
        ]


def _answers(store: MemoryStore, root: Path) -> list[list[tuple[object, ...]]]:
    requests = [RecallRequest(query, PROJECT) for query in QUERIES]
    requests += [
        RecallRequest("tea", PROJECT, ("alpha",)),
        RecallRequest("plan", PROJECT, namespace_id="beacon"),
    ]
    return [
        [(h.stored.parts, h.score, h.terms, h.tags, h.near, h.meaning) for h in hits]
        for hits in (ranking.recall(store, root, request) for request in requests)
    ]


def _everything(store: MemoryStore, root: Path) -> tuple[object, ...]:
    index = store.followed_scope(root, PROJECT, ranking._new_index)
    assert index is not None
    with index.lock:
        languages = index.languages()
        folders = [index.in_folder_names(name) for name in ("atlas", "beacon", "draft", "note")]
    lists, served, mentions = _lists(index), index.served, index.mentions()
    return lists, served, mentions, languages, folders, _answers(store, root), _seen(store, root)


TEXTS = [
    ("Alpha plan", "The release plan, on-line.", ("alpha",)),
    ("", "Tea and q1 beta; c++ notes", ("tea", "Beta")),
    ("Ünïcode", "naïve words, Ünïcode too", ()),
    ("Release", "alpha beta plan release tea", ("q1",)),
    ("Notes", "nothing here but notes", ()),
]


@pytest.mark.parametrize("watch", [True, False], ids=["change-feed", "stat-only"])
def test_workers_read_a_scope_as_the_scan_reads_it_itself(
    tmp_path: Path,
    workers: Callable[..., None],
    caplog: pytest.LogCaptureFixture,
    watch: bool,
) -> None:
    root = tmp_path / "memory"
    _notebook(root, TEXTS * 3)
    caplog.set_level(logging.WARNING, logger=STORE_LOG)
    itself = _everything(MemoryStore(clock=settled_clock, watch_changes=watch), root)
    logged_itself = [r.getMessage() for r in caplog.records if r.name == STORE_LOG]
    caplog.clear()

    workers()
    read_by_workers = _everything(MemoryStore(clock=settled_clock, watch_changes=watch), root)

    assert read_by_workers == itself
    assert [r.getMessage() for r in caplog.records if r.name == STORE_LOG] == logged_itself
    assert len(logged_itself) >= 7  # every odd file, and the scan of the second call


def test_runs_the_workers_could_not_read_are_read_by_the_scan(
    tmp_path: Path, workers: Callable[..., None]
) -> None:
    root = tmp_path / "memory"
    _notebook(root, TEXTS * 2)
    itself = _everything(MemoryStore(clock=settled_clock), root)

    workers(_EveryOtherFails)

    assert _everything(MemoryStore(clock=settled_clock), root) == itself


def test_a_file_changed_after_the_workers_read_it_is_read_again(
    tmp_path: Path, workers: Callable[..., None]
) -> None:
    workers()
    root = tmp_path / "memory"
    _notebook(root, TEXTS)
    store = MemoryStore(clock=settled_clock)
    assert ranking.recall(store, root, RecallRequest("zebra", PROJECT)) == []
    path = root / "project" / "beacon" / f"mem_{101:032x}.json"
    record = json.loads(path.read_text())
    path.write_text(json.dumps({**record, "content": "a zebra now"}))

    (hit,) = ranking.recall(store, root, RecallRequest("zebra", PROJECT))

    assert hit.stored.parts[-1] == path.name
    assert hit.whole.content == "a zebra now"


def test_an_unchanged_file_read_by_the_workers_is_not_read_again(
    tmp_path: Path, workers: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    workers()
    root = tmp_path / "memory"
    _notebook(root, TEXTS)
    store = MemoryStore(clock=settled_clock, watch_changes=False)
    first = store.recall_scan(root, PROJECT)
    monkeypatch.setattr(scan, "_read_run", None)  # no worker may read now
    monkeypatch.setattr(files, "read_file_at", None)  # nor the scan itself

    assert store.recall_scan(root, PROJECT) == first


def test_a_cache_that_lets_go_midway_still_tells_the_index_what_it_holds(
    tmp_path: Path, workers: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    _notebook(root, TEXTS * 3)
    monkeypatch.setattr(scan, "MAX_ENTRIES_PER_SCOPE", 5)  # 5 files: the cache starts again
    itself = _everything(MemoryStore(clock=settled_clock), root)

    workers(run=8)

    assert _everything(MemoryStore(clock=settled_clock), root) == itself


WORD_TEXTS = st.lists(st.sampled_from(WORDS), max_size=5).map(" ".join)
NOTEBOOKS = st.lists(
    st.tuples(
        WORD_TEXTS, WORD_TEXTS, st.lists(st.sampled_from(WORDS[:4]), max_size=2, unique=True)
    ),
    min_size=2,
    max_size=30,
)


@settings(max_examples=25, deadline=None)
@given(texts=NOTEBOOKS, run=st.integers(min_value=1, max_value=9))
def test_any_notebook_read_by_workers_in_any_runs_is_indexed_alike(
    texts: list[tuple[str, str, list[str]]], run: int
) -> None:
    with tempfile.TemporaryDirectory() as directory, pytest.MonkeyPatch.context() as patch:
        root = Path(directory) / "memory"
        _notebook(root, [(title, content, tuple(tags)) for title, content, tags in texts])
        itself = _everything(MemoryStore(clock=settled_clock), root)
        _hand_over(patch, _Here, run)

        assert _everything(MemoryStore(clock=settled_clock), root) == itself


def test_a_scope_of_few_files_is_read_by_the_scan_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scan, "Workers", None)  # calling it would fail
    root = tmp_path / "memory"
    _notebook(root, TEXTS)

    found = MemoryStore(clock=settled_clock).recall_scan(root, PROJECT)

    assert len(found) == len(TEXTS) + 2  # and the legacy record, and the archived one


def test_stored_records_made_of_facts_answer_as_those_made_of_records() -> None:
    record = _record(7, "atlas", "drafts", title="T", content="c", tags=["A", "b"])
    from mymcp.plugins.mnemosyne.memory.model.records import parse_record_object

    parsed = parse_record_object(record)
    parts = ("project", "atlas", "drafts", f"mem_{7:032x}.json")
    made = StoredRecord(parsed, parts, bytes(32))
    of_facts = StoredRecord.of(_pickled(scan.facts_of(parsed)), parts, bytes(32), None, parsed)

    fields = ("title", "kind", "state", "legacy_id", "duplicate", "id", "record")
    assert [getattr(of_facts, f) for f in fields] == [getattr(made, f) for f in fields]


def test_a_record_the_workers_read_that_shares_its_inode_is_never_served_from_events(
    tmp_path: Path, workers: Callable[..., None]
) -> None:
    # The walk takes no identities when workers read every file: their reads must still
    # tell that a file has a second hard link, which a write can go through unwatched.
    workers()
    root = tmp_path / "memory"
    _notebook(root, TEXTS)
    record = root / "project" / "atlas" / f"mem_{100:032x}.json"
    outside = tmp_path / "elsewhere.json"
    os.link(record, outside)
    store = MemoryStore(clock=settled_clock)
    assert ranking.recall(store, root, RecallRequest("zebra", PROJECT)) == []
    edited = record.read_bytes().replace(b"Alpha plan", b"Zebra plan")
    with open(outside, "wb") as handle:  # in place: the inode stays shared
        handle.write(edited)

    (hit,) = ranking.recall(store, root, RecallRequest("zebra", PROJECT))

    assert hit.stored.parts[-1] == record.name


def test_a_file_the_filesystem_refuses_is_a_failed_read_either_way(
    tmp_path: Path,
    workers: Callable[..., None],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = tmp_path / "memory"
    _notebook(root, TEXTS)
    refused = f"mem_{101:032x}.json"
    real = files.read_file_at

    def refusing(dir_fd: int, name: str) -> files.FileContent:
        if name == refused:
            raise files.EntrySkipped(files.UNREADABLE) from PermissionError(13, "denied")
        return real(dir_fd, name)

    monkeypatch.setattr(files, "read_file_at", refusing)
    caplog.set_level(logging.WARNING, logger=STORE_LOG)
    itself = _seen(MemoryStore(clock=settled_clock), root)
    logged_itself = [r.getMessage() for r in caplog.records if r.name == STORE_LOG]
    caplog.clear()

    workers()

    assert _seen(MemoryStore(clock=settled_clock), root) == itself
    logged = [r.getMessage() for r in caplog.records if r.name == STORE_LOG]
    assert logged == logged_itself
    assert any("EACCES" in message for message in logged)


class _Held(_Here):
    """Stand-in workers whose runs wait until the test lets them go; counts the runs."""

    arrived = threading.Event()
    release = threading.Event()
    runs: list[int] = []

    def in_order(self, *arguments: Any) -> Iterator[Any]:
        self.arrived.set()
        assert self.release.wait(30)
        self.runs.append(len(arguments[1]))  # the jobs
        yield from super().in_order(*arguments)


@pytest.fixture
def held(workers: Callable[..., None]) -> Iterator[type[_Held]]:
    fresh = {"arrived": threading.Event(), "release": threading.Event(), "runs": []}
    kind = cast(type[_Held], type("Held", (_Held,), fresh))
    workers(kind)
    yield kind
    kind.release.set()


def _in_thread(function: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    done: list[object] = []
    thread = threading.Thread(target=lambda: done.append(function()), daemon=True)
    thread.start()
    return thread, done


def test_a_scan_of_a_scope_being_read_on_workers_waits_and_reads_nothing_again(
    tmp_path: Path, held: type[_Held], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    _notebook(root, TEXTS * 2)
    store = MemoryStore(clock=settled_clock)
    first, first_done = _in_thread(lambda: ranking.prepare(store, root, PROJECT))
    assert held.arrived.wait(30)  # the first scan is on the workers now
    read: list[str] = []
    real = scan.Scanner._read

    def counted(self: scan.Scanner, *args: Any) -> Any:
        read.append(args[-2])
        return real(self, *args)

    monkeypatch.setattr(scan.Scanner, "_read", counted)  # the scan's own reads
    second, second_done = _in_thread(lambda: store.recall_scan(root, PROJECT))
    second.join(0.3)
    assert second.is_alive()  # waiting for the first scan

    held.release.set()
    first.join(30)
    second.join(30)

    assert first_done == [None]
    assert second_done == [store.recall_scan(root, PROJECT)]
    assert len(held.runs) == 1  # one scan read the files, on the workers
    assert read == []  # and the waiting scan read none itself


def test_a_scan_of_another_scope_does_not_wait_for_a_scope_being_read(
    tmp_path: Path, held: type[_Held]
) -> None:
    root = tmp_path / "memory"
    _notebook(root, TEXTS * 2)
    write_record(root, {"schema_version": 1, "id": "me", "content": "tea"}, "self", "me.json")
    store = MemoryStore(clock=settled_clock)
    first, _ = _in_thread(lambda: ranking.prepare(store, root, PROJECT))
    assert held.arrived.wait(30)

    other, other_done = _in_thread(lambda: store.recall_scan(root, Scope.SELF))
    other.join(30)

    assert not other.is_alive()
    assert len(cast(list[StoredRecord], other_done[0])) == 1
    held.release.set()
    first.join(30)


def test_the_large_scopes_are_those_whose_first_scan_goes_to_workers(
    tmp_path: Path, workers: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "memory"
    _notebook(root, TEXTS)
    write_record(root, {"schema_version": 1, "id": "me", "content": "tea"}, "self", "me.json")
    store = MemoryStore(clock=settled_clock, candidate_limit=1000)
    assert store.large_scopes(root) == []  # BULK_FROM is above the limit

    workers()

    assert store.large_scopes(root) == [PROJECT]
    assert store.large_scopes(tmp_path / "nowhere") == []
    monkeypatch.setattr(scan, "usable_cpus", lambda: 1)
    assert store.large_scopes(root) == []  # one processor: no workers, nothing ahead


def test_a_scope_over_the_limit_lets_its_workers_go_and_starts_none_the_next_time(
    tmp_path: Path, workers: Callable[..., None]
) -> None:
    started: list[_Here] = []

    class Counted(_Here):
        def __init__(self, count: int) -> None:
            super().__init__(count)
            started.append(self)

    workers(Counted)
    root = tmp_path / "memory"
    _notebook(root, TEXTS)
    store = MemoryStore(clock=settled_clock, candidate_limit=4)

    for _ in range(3):
        with pytest.raises(CandidateLimitExceeded):
            store.recall_scan(root, PROJECT)

    assert len(started) == 1  # started as counting reached two files, before it went on
    assert started[0].closed


def test_workers_start_once_counting_reaches_two_files_and_the_walk_counts_the_rest(
    tmp_path: Path, workers: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    counted: list[int] = []
    real = discovery.count_candidates

    def count(fd: int, depth: int, limit: int, summary: Any) -> int:
        counted.append(limit)
        return real(fd, depth, limit, summary)

    class Noted(_Here):
        def __init__(self, count: int) -> None:
            super().__init__(count)
            counted.append(0)  # a start

    monkeypatch.setattr(discovery, "count_candidates", count)
    workers(Noted)
    root = tmp_path / "memory"
    _notebook(root, TEXTS)

    MemoryStore(clock=settled_clock).recall_scan(root, PROJECT)

    assert counted == [1, 0]  # up to two files, then the start: no count of the whole
