"""``mymcp doctor`` on the filesystem of the memory root: space, inodes, read-only, temp files."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.clients.scenario import seed_memory_root
from tests.doctoring import found, private_root, run_unchanged
from tests.surface import GATE_OF
from tests.tmpfs import fill_bytes, fill_inodes, remount, small_tmpfs

GIGABYTE = 10**9
TEMP_NAME = ".mem_0123456789abcdef0123456789abcdef.k3j9x0qa.tmp"
Diagnose = Callable[[], tuple[int, list[str]]]


@pytest.fixture
def root(memory_root: Path) -> Path:
    return private_root(memory_root)


@pytest.fixture
def diagnose(tmp_path: Path) -> Diagnose:
    """Run the doctor in process and check that it changed nothing."""
    return lambda: _without_summary(*run_unchanged(tmp_path))


def _without_summary(code: int, lines: list[str]) -> tuple[int, list[str]]:
    return code, lines[:-1]


def fake_filesystem(
    monkeypatch: pytest.MonkeyPatch,
    *,
    free_bytes: int = 100 * GIGABYTE,
    free_inodes: int = 1_000_000,
    inodes: int = 5_000_000,
    read_only: bool = False,
) -> list[str]:
    """``statvfs`` reports these figures (blocks of 1 kB); returns the paths it was asked."""
    asked: list[str] = []
    flag = os.ST_RDONLY if read_only else 0

    def statvfs(path: str | os.PathLike[str]) -> os.statvfs_result:
        asked.append(os.fspath(path))
        blocks = free_bytes // 1000
        fields = (1000, 1000, 10**9, blocks, blocks, inodes, free_inodes, free_inodes, flag, 255)
        return os.statvfs_result(fields)

    monkeypatch.setattr(os, "statvfs", statvfs)
    return asked


def gates_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(GATE_OF["remember"], "true")


# --- free space and inodes ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gates", "filesystem", "code", "level", "fragments"),
    [
        (False, {}, 0, "ok", ["the filesystem of {root} has 100.0 GB and 1,000,000 inodes"]),
        (True, {"free_bytes": 0}, 1, "fail", ["{root} has 0 bytes", "no space left", "no_space"]),
        (True, {"free_inodes": 0}, 1, "fail", ["and 0 inodes free: no space left"]),
        (False, {"free_bytes": 0}, 0, "warn", ["no space left"]),
        (
            True,
            {"free_inodes": 0, "inodes": 0},
            0,
            "ok",
            ["the filesystem of {root} has 100.0 GB free"],
        ),
    ],
    ids=[
        "a healthy filesystem is ok",
        "a full filesystem fails while a change Tool is on",
        "no inode left fails like no byte left",
        "a full filesystem only warns while every change Tool is off",
        "a filesystem that counts no inodes is judged by its bytes",
    ],
)
def test_the_free_space_and_inodes_of_the_root_s_filesystem(
    diagnose: Diagnose,
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    gates: bool,
    filesystem: dict[str, Any],
    code: int,
    level: str,
    fragments: list[str],
) -> None:
    if gates:
        gates_on(monkeypatch)
    fake_filesystem(monkeypatch, **filesystem)

    diagnosed, lines = diagnose()

    assert diagnosed == code
    assert found(lines, level, *(fragment.format(root=root) for fragment in fragments))


@pytest.mark.parametrize(
    ("free_bytes", "free_inodes", "level"),
    [
        (49_999_999, 1_000_000, "warn"),
        (50_000_000, 1_000_000, "ok"),
        (GIGABYTE, 999, "warn"),
        (GIGABYTE, 1_000, "ok"),
    ],
)
def test_little_space_left_warns_below_50_mb_or_1000_inodes(
    diagnose: Diagnose,
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    free_bytes: int,
    free_inodes: int,
    level: str,
) -> None:
    gates_on(monkeypatch)
    fake_filesystem(monkeypatch, free_bytes=free_bytes, free_inodes=free_inodes)

    _, lines = diagnose()

    [line] = found(lines, level, f"the filesystem of {root} has ")
    assert ("little space left (less than 50 MB or 1,000 inodes)" in line) is (level == "warn")


def test_a_missing_root_is_judged_by_its_nearest_existing_parent(
    diagnose: Diagnose, memory_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gates_on(monkeypatch)
    asked = fake_filesystem(monkeypatch, free_bytes=0)
    monkeypatch.setenv("MNEMOSYNE_MEMORY_ROOT", str(memory_root / "not" / "yet"))

    code, lines = diagnose()

    assert code == 1
    assert asked == [str(memory_root.parent)]
    assert found(lines, "fail", f"the filesystem of {memory_root.parent} has 0 bytes")


# --- a read-only mount --------------------------------------------------------------------------


def test_a_read_only_mount_is_named_as_such_and_not_as_a_permission_problem(
    diagnose: Diagnose, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gates_on(monkeypatch)
    fake_filesystem(monkeypatch, read_only=True)
    monkeypatch.setattr(os, "access", lambda path, mode: mode != os.W_OK)

    code, lines = diagnose()

    assert code == 1
    [line] = found(lines, "fail", f"the filesystem of {root} is mounted read-only")
    assert "cause=read_only" in line and f"findmnt -T {root}" in line
    assert "remount it read-write" in line
    assert not [line for line in lines if "not writable by this user" in line]


def test_a_read_only_mount_is_fine_while_every_change_tool_is_off(
    diagnose: Diagnose, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_filesystem(monkeypatch, read_only=True)

    code, lines = diagnose()

    assert code == 0
    assert found(lines, "ok", "is mounted read-only; reading works")


def test_a_root_without_write_permission_is_still_a_permission_problem(
    diagnose: Diagnose, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gates_on(monkeypatch)
    fake_filesystem(monkeypatch)
    monkeypatch.setattr(os, "access", lambda path, mode: mode != os.W_OK)

    _, lines = diagnose()

    assert found(lines, "warn", "is not writable by this user")
    assert not [line for line in lines if "read-only" in line]


# --- temp files of interrupted writes -----------------------------------------------------------


def test_leftover_temp_files_are_counted_by_folder(diagnose: Diagnose, root: Path) -> None:
    for folder in ("project/mnemosyne", "project/mnemosyne/decisions", "self/me"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "project/mnemosyne" / TEMP_NAME).write_bytes(b"{")
    (root / "project/mnemosyne/decisions" / TEMP_NAME).write_bytes(b"{")
    (root / "project/mnemosyne/decisions" / TEMP_NAME.replace("k3j9", "a1b2")).write_bytes(b"")
    (root / "self/me" / ".not-a-temp.tmp").write_bytes(b"")

    code, lines = diagnose()

    assert code == 0
    assert found(
        lines,
        "warn",
        "3 temp files of interrupted writes in project/mnemosyne/, project/mnemosyne/decisions/:",
        "the next write in that folder removes them",
    )


def test_no_temp_file_means_no_temp_line(diagnose: Diagnose, root: Path) -> None:
    _, lines = diagnose()

    assert not [line for line in lines if "temp file" in line]


# --- a real tmpfs (root only) -------------------------------------------------------------------


@pytest.mark.slow
def test_doctor_on_a_real_full_and_then_read_only_tmpfs(
    diagnose: Diagnose, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gates_on(monkeypatch)
    with small_tmpfs(tmp_path / "fs") as mounted:
        root = mounted / "memory"
        monkeypatch.setenv("MNEMOSYNE_MEMORY_ROOT", str(root))
        seed_memory_root(root)
        filler = fill_bytes(mounted)

        code, lines = diagnose()
        assert code == 1
        assert found(lines, "fail", f"the filesystem of {root} has 0 bytes", "no space left")

        filler.unlink()
        fill_inodes(mounted)
        code, lines = diagnose()
        assert code == 1
        assert found(lines, "fail", "and 0 inodes free: no space left")

        remount(mounted, "ro")
        code, lines = diagnose()
        assert code == 1
        assert found(lines, "fail", f"the filesystem of {root} is mounted read-only")
        assert not [line for line in lines if "not writable by this user" in line]
