"""The listing service's ordered views: one per selection, let go once superseded."""

from __future__ import annotations

import gc
import time
import weakref
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.services import listing
from mymcp.plugins.mnemosyne.memory.services.listing import ListRequest, Selector, list_page
from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore
from tests.helpers import write_record

SCOPE = Selector(Scope.PROJECT)


class _Probe:
    """Something weakly referable to hang on a record, to see when the record is let go."""


def _later() -> int:
    return time.time_ns() + 60 * 10**9


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore(clock=_later)


def _write(root: Path, name: str, content: str) -> Path:
    record = {"schema_version": 1, "id": name, "content": content}
    return write_record(root, record, "project", f"{name}.json")


def test_the_pages_of_one_walk_share_one_view(
    tmp_path: Path, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("a", "b", "c"):
        _write(tmp_path, name, name)
    built: list[object] = []
    real = listing._build_view

    def counting(*args: Any) -> Any:
        built.append(args)
        return real(*args)

    monkeypatch.setattr(listing, "_build_view", counting)
    first = list_page(store, tmp_path, ListRequest(SCOPE, page_size=2))
    assert first.next_cursor is not None
    second = list_page(store, tmp_path, ListRequest(SCOPE, cursor=first.next_cursor))
    again = list_page(store, tmp_path, ListRequest(SCOPE, page_size=2))
    assert [item.stored.record.id for item in first.items + second.items] == ["a", "b", "c"]
    assert again.items == first.items
    assert len(built) == 1  # one view served all three pages


def test_a_superseded_view_is_let_go_at_once(tmp_path: Path, store: MemoryStore) -> None:
    path = _write(tmp_path, "a", "first")
    page = list_page(store, tmp_path, ListRequest(SCOPE))
    probe = _Probe()
    page.items[0].stored.derived["test.probe"] = probe
    watched = weakref.ref(probe)
    del page, probe
    path.write_text(path.read_text().replace("first", "later"))

    page = list_page(store, tmp_path, ListRequest(SCOPE))
    assert page.items[0].stored.record.content == "later"
    gc.collect()
    assert watched() is None


def test_only_so_many_selections_keep_a_view(
    tmp_path: Path, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(listing, "_memo", listing._Memo(1))
    _write(tmp_path, "a", "first")
    namespace = Selector(Scope.PROJECT, namespace_id="ns")
    first = list_page(store, tmp_path, ListRequest(SCOPE))
    list_page(store, tmp_path, ListRequest(namespace))
    assert list_page(store, tmp_path, ListRequest(SCOPE)).items[0] is not first.items[0]
