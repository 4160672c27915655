"""What a Mnemosyne Tool needs only when it runs is imported on its first call, or before it
on the warm-up thread of the production contribution: never while the server starts."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne import plugin
from mymcp.plugins.mnemosyne.memory.model.vocabulary import Scope
from mymcp.plugins.mnemosyne.memory.recall.ranking import RecallRequest
from mymcp.plugins.mnemosyne.plugin import SERVICE_MODULES, MnemosyneContext
from tests.helpers import canonical_record, place_canonical, snapshot_tree

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "mymcp" / "plugins" / "mnemosyne"
MEMORY = "mymcp.plugins.mnemosyne.memory"
POLICY = f"{MEMORY}.policy"


def _is_package(module: str) -> bool:
    """Whether ``module`` is a folder, whose imported names are modules."""
    return (ROOT / module.replace(".", "/")).is_dir()


def _imports_in_functions(path: Path) -> set[str]:
    """The memory modules ``path`` imports inside a function (its lazy imports)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith(MEMORY):
                    module = inner.module or ""
                    found.update(
                        f"{module}.{alias.name}" if _is_package(module) else module
                        for alias in inner.names
                    )
    return found


def test_the_warm_up_imports_exactly_what_the_handlers_import_lazily() -> None:
    lazy = set().union(
        *(
            _imports_in_functions(path)
            for path in [*PLUGIN.glob("tools/*.py"), PLUGIN / "plugin.py"]
        )
    )
    assert lazy == set(SERVICE_MODULES)


PROBE = textwrap.dedent(
    """
    import sys, threading
    from mymcp.plugins.mnemosyne import plugin
    from mymcp.plugins.mnemosyne.configuration.gates import MutationSettings

    lazy = (*plugin.SERVICE_MODULES, "mymcp.plugins.mnemosyne.memory.policy")
    everything = MutationSettings(remember_enabled=True, revise_enabled=True,
                                  archive_restore_enabled=True, forget_enabled=True)
    plugin.build_mnemosyne_contribution(everything)
    print(sorted(name for name in lazy if name in sys.modules))
    plugin.mnemosyne_contribution()
    [warm_up] = [t for t in threading.enumerate() if t.name == "mnemosyne-warm-up"]
    warm_up.join(60)
    print(sorted(name for name in lazy if name not in sys.modules))
    first = plugin._warm_up_thread
    plugin.mnemosyne_contribution()
    print(plugin._warm_up_thread is first)
    """
)


def test_declaring_the_tools_imports_no_service_and_the_warm_up_imports_them_all(
    tmp_path: Path,
) -> None:
    env = {"PYTHONPATH": str(ROOT), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    completed = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 0, completed.stderr
    declared, missing, threads = completed.stdout.splitlines()
    assert declared == "[]"  # no store, no service, no content policy
    assert missing == "[]"
    assert threads == "True"  # started once per process


def test_a_failing_import_is_left_to_the_call_that_needs_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    modules = (f"{MEMORY}.nonexistent", "colorsys")
    monkeypatch.setattr(plugin, "SERVICE_MODULES", modules)
    plugin.warm_up()
    assert f"{MEMORY}.nonexistent" not in sys.modules
    assert "colorsys" in sys.modules  # the next module was still imported


def test_the_context_makes_its_store_once_however_many_calls_ask_at_once() -> None:
    context = MnemosyneContext()
    barrier = threading.Barrier(8)
    stores: list[object] = []

    def ask() -> None:
        barrier.wait()
        stores.append(context.store)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(stores) == 8
    assert all(store is stores[0] for store in stores)


DATA_PROBE = textwrap.dedent(
    """
    import threading
    from mymcp.plugins.mnemosyne import plugin
    from mymcp.plugins.mnemosyne.memory.recall import meaning

    print(meaning._table is None)
    plugin.warm_up()
    [data] = [t for t in threading.enumerate() if t.name == "mnemosyne-warm-up-data"]
    print(data.daemon)
    data.join(60)
    print(meaning._table is not None)
    """
)


def test_the_warm_up_loads_recalls_meaning_table_on_a_daemon_thread(tmp_path: Path) -> None:
    env = {"PYTHONPATH": str(ROOT), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    completed = subprocess.run(
        [sys.executable, "-c", DATA_PROBE], env=env, capture_output=True, text=True, timeout=120
    )

    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == ["True", "True", "True"]


def _notebook(root: Path, count: int, scope: str = "project") -> None:
    for number in range(count):
        record = canonical_record(id=f"mem_{number:032x}", content=f"tea plan note{number}")
        record["scope"] = scope
        place_canonical(root, record)


class _InProcess:
    """``scan.Workers``, in this process."""

    def __init__(self, count: int) -> None:
        self.count = count

    def warm(self, function: Callable[[Any], object], job: Any) -> None:
        function(job)

    def in_order(
        self, function: Callable[[Any], Any], jobs: Any, _: object, on_handed: Any = None
    ) -> Any:
        if on_handed is not None:
            on_handed()
        return map(function, jobs)

    def close(self, *, wait: bool = True) -> None:
        pass


@pytest.fixture
def large_from_4(monkeypatch: pytest.MonkeyPatch) -> None:
    """A scope of four files or more counts as large (its first scan goes to workers)."""
    from mymcp.plugins.mnemosyne.memory.storage import scan

    monkeypatch.setattr(scan, "BULK_FROM", 4)
    monkeypatch.setattr(scan, "usable_cpus", lambda: 2)


def test_reading_ahead_prepares_only_the_large_scopes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, large_from_4: None
) -> None:
    from mymcp.plugins.mnemosyne.memory.recall import ranking

    root = tmp_path / "memory"
    _notebook(root, 5)
    _notebook(root, 2, "self")
    monkeypatch.setenv("MNEMOSYNE_MEMORY_ROOT", str(root))
    prepared: list[object] = []
    monkeypatch.setattr(ranking, "prepare", lambda store, at, scope: prepared.append(scope))

    plugin.read_ahead(MnemosyneContext(candidate_limit=1000))
    assert prepared == [Scope.PROJECT]

    plugin.read_ahead(MnemosyneContext(candidate_limit=3))  # the limit allows no workers
    assert prepared == [Scope.PROJECT]


def test_reading_ahead_a_scope_over_the_limit_goes_on_with_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, large_from_4: None
) -> None:
    from mymcp.plugins.mnemosyne.memory.recall import ranking
    from mymcp.plugins.mnemosyne.memory.storage import scan

    root = tmp_path / "memory"
    _notebook(root, 9, "practice")
    _notebook(root, 5)
    monkeypatch.setenv("MNEMOSYNE_MEMORY_ROOT", str(root))
    prepared: list[object] = []
    real = ranking.prepare

    def prepare(store: Any, at: Path, scope: Scope) -> None:
        prepared.append(scope)
        real(store, at, scope)

    monkeypatch.setattr(ranking, "prepare", prepare)
    monkeypatch.setattr(scan, "Workers", _InProcess)
    context = MnemosyneContext(candidate_limit=8)

    plugin.read_ahead(context)  # practice holds 9: over the limit

    assert prepared == [Scope.PRACTICE, Scope.PROJECT]
    hits = ranking.recall(context.store, root, RecallRequest("note3", Scope.PROJECT))
    assert hits[0].stored.parts[-1] == f"mem_{3:032x}.json"


@pytest.fixture
def six_on_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, large_from_4: None
) -> tuple[Path, MnemosyneContext]:
    """A notebook of six memories, large enough to be read ahead by workers (in this
    process), and a context for it."""
    from mymcp.plugins.mnemosyne.memory.storage import scan

    monkeypatch.setattr(scan, "Workers", _InProcess)
    root = tmp_path / "memory"
    _notebook(root, 6)
    monkeypatch.setenv("MNEMOSYNE_MEMORY_ROOT", str(root))
    return root, MnemosyneContext(candidate_limit=1000)


def test_a_recall_after_reading_ahead_scans_nothing_again(
    monkeypatch: pytest.MonkeyPatch, six_on_workers: tuple[Path, MnemosyneContext]
) -> None:
    from mymcp.plugins.mnemosyne.memory.recall import ranking
    from mymcp.plugins.mnemosyne.memory.storage import scan

    root, context = six_on_workers
    before = snapshot_tree(root)

    plugin.read_ahead(context)
    monkeypatch.setattr(scan, "_read_run", None)  # calling either would fail: the scan
    monkeypatch.setattr(scan.Scanner, "_read", None)  # reads no file again

    hits = ranking.recall(context.store, root, RecallRequest("note3", Scope.PROJECT))
    assert hits[0].stored.parts[-1] == f"mem_{3:032x}.json"
    assert snapshot_tree(root) == before  # nothing created or changed


def test_reading_ahead_gives_way_once_its_files_are_handed_to_the_workers(
    monkeypatch: pytest.MonkeyPatch, six_on_workers: tuple[Path, MnemosyneContext]
) -> None:
    from mymcp.plugins.mnemosyne.memory.storage import scan

    _, context = six_on_workers
    under_way_at_first_run: list[bool] = []
    read_run = scan._read_run

    def first_run(job: Any) -> Any:
        if job.files:  # not the empty job that starts the workers
            under_way_at_first_run.append(context.read_ahead_under_way.is_set())
        return read_run(job)

    monkeypatch.setattr(scan, "_read_run", first_run)

    plugin.read_ahead(context)

    assert under_way_at_first_run[0]  # the workers' first run came after the word was given


@pytest.mark.parametrize("scopes", [{}, {"project": 2}], ids=["no-root", "small-notebook"])
def test_reading_ahead_with_nothing_to_read_gives_way_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scopes: dict[str, int]
) -> None:
    root = tmp_path / "memory"
    for scope, count in scopes.items():
        _notebook(root, count, scope)
    monkeypatch.setenv("MNEMOSYNE_MEMORY_ROOT", str(root))
    context = MnemosyneContext(candidate_limit=100_000)
    assert not context.read_ahead_under_way.is_set()

    plugin.read_ahead(context)

    assert context.read_ahead_under_way.is_set()


def test_reading_ahead_a_missing_root_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, large_from_4: None
) -> None:
    place = tmp_path / "place"
    place.mkdir()
    monkeypatch.setenv("MNEMOSYNE_MEMORY_ROOT", str(place / "memory"))

    plugin.read_ahead(MnemosyneContext(candidate_limit=1000))

    assert list(place.iterdir()) == []
