"""Filesystem primitives: candidate names, bounded reads, temp files, directories."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mymcp.plugins.mnemosyne.memory.storage import files
from tests.helpers import touch


def _read(path: Path) -> files.FileContent:
    fd = files.open_directory(path.parent)
    with files.closing_fd(fd):
        return files.read_file_at(fd, path.name)


# --- candidate names -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("x.json", True),
        (".hidden.json", True),
        ("a.b.json", True),
        (".json", False),
        ("x.JSON", False),
        ("x.json.tmp", False),
        (".mem_0123.abcdefgh.tmp", False),
        ("x.json.", False),
        ("json", False),
    ],
)
def test_candidate_names_need_a_final_json_suffix(name: str, expected: bool) -> None:
    assert files.is_candidate_name(name) is expected


# --- reading -------------------------------------------------------------------------------


def test_read_accepts_exactly_the_size_limit(start: Path) -> None:
    path = touch(start / "x.json", b"a" * files.MAX_RECORD_BYTES)
    content = _read(path)
    assert len(content.data) == files.MAX_RECORD_BYTES
    assert content.identity == files.identity_of(path.lstat())


def test_read_refuses_an_oversized_file_before_reading_it(
    start: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = touch(start / "x.json", b"a" * (files.MAX_RECORD_BYTES + 1))
    reads: list[int] = []
    real_read = os.read

    def counting_read(fd: int, size: int) -> bytes:
        reads.append(size)
        return real_read(fd, size)

    monkeypatch.setattr(os, "read", counting_read)
    with pytest.raises(files.EntrySkipped) as skipped:
        _read(path)
    assert skipped.value.reason == "oversized"
    assert skipped.value.identity == files.identity_of(path.lstat())
    assert reads == []


def test_read_stops_one_byte_past_the_limit_when_the_file_grows(
    start: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = touch(start / "x.json", b"a" * (3 * files.MAX_RECORD_BYTES))
    real_fstat = os.fstat
    reads: list[int] = []
    real_read = os.read

    def stale_fstat(fd: int) -> os.stat_result:
        values = list(real_fstat(fd))
        values[stat.ST_SIZE] = 10
        return os.stat_result(values)

    def counting_read(fd: int, size: int) -> bytes:
        data = real_read(fd, size)
        reads.append(len(data))
        return data

    monkeypatch.setattr(os, "fstat", stale_fstat)
    monkeypatch.setattr(os, "read", counting_read)
    with pytest.raises(files.EntrySkipped) as skipped:
        _read(path)
    assert skipped.value.reason == "oversized"
    assert sum(reads) == files.MAX_RECORD_BYTES + 1


def test_read_never_follows_a_symlink(start: Path) -> None:
    target = touch(start / "target.txt")
    (start / "link.json").symlink_to(target)
    with pytest.raises(files.EntrySkipped) as skipped:
        _read(start / "link.json")
    assert skipped.value.reason == "symlink"


def test_read_refuses_a_symlinked_directory_component(start: Path, tmp_path: Path) -> None:
    touch(tmp_path / "outside" / "x.json")
    (start / "ns").symlink_to(tmp_path / "outside", target_is_directory=True)
    fd = files.open_directory(start)
    with files.closing_fd(fd), pytest.raises(files.EntrySkipped) as skipped:
        files.read_candidate(fd, ("ns", "x.json"))
    assert skipped.value.reason == "symlink"


def test_read_of_a_fifo_is_unreadable_and_does_not_block(start: Path) -> None:
    os.mkfifo(start / "pipe.json")
    with pytest.raises(files.EntrySkipped) as skipped:
        _read(start / "pipe.json")
    assert skipped.value.reason == "unreadable"
    assert skipped.value.identity is None


def test_read_of_a_missing_file_is_unreadable(start: Path) -> None:
    with pytest.raises(files.EntrySkipped) as skipped:
        _read(start / "gone.json")
    assert skipped.value.reason == "unreadable"


# --- writing -------------------------------------------------------------------------------


def test_write_temp_creates_a_hidden_private_file(start: Path) -> None:
    old_umask = os.umask(0)
    try:
        fd = files.open_directory(start)
        with files.closing_fd(fd):
            name = files.write_temp(fd, "mem_x", b"payload")
    finally:
        os.umask(old_umask)

    assert name.startswith(".mem_x.") and name.endswith(".tmp")
    assert len(name) == len(".mem_x.") + 8 + len(".tmp")
    assert stat.S_IMODE((start / name).stat().st_mode) == 0o600
    assert (start / name).read_bytes() == b"payload"
    assert not files.is_candidate_name(name)


def test_write_temp_removes_its_file_when_writing_fails(
    start: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", fail)
    fd = files.open_directory(start)
    with files.closing_fd(fd), pytest.raises(OSError):
        files.write_temp(fd, "mem_x", b"payload")
    assert list(start.iterdir()) == []


def test_leftover_cleanup_removes_only_temp_files(start: Path) -> None:
    memory_id = "mem_" + "0123456789abcdef" * 2
    touch(start / f".{memory_id}.a1b2c3d4.tmp")
    touch(start / f".{memory_id}.zzzzzzzz.tmp")
    keep = [
        "record.json",
        "notes.tmp",
        f".{memory_id}.short.tmp",
        f".{memory_id}.ABCDEFGH.tmp",
        ".notes.abcdefgh.tmp",
        f"{memory_id}.abcdefgh.tmp",
    ]
    for name in keep:
        touch(start / name)
    (start / f".{memory_id}.dir00000.tmp").mkdir()
    (start / f".{memory_id}.link0000.tmp").symlink_to(start / "record.json")

    fd = files.open_directory(start)
    with files.closing_fd(fd):
        files.remove_leftover_temps(fd)

    remaining = sorted(path.name for path in start.iterdir())
    expected = [*keep, f".{memory_id}.dir00000.tmp", f".{memory_id}.link0000.tmp"]
    assert remaining == sorted(expected)


# --- directories -----------------------------------------------------------------------------


def test_directory_chain_creates_private_directories_and_syncs_parents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    monkeypatch.setattr(files, "_fsync_directory", synced.append)
    existing = tmp_path / "existing"
    existing.mkdir(mode=0o755)
    os.chmod(existing, 0o755)
    root = existing / "a" / "b" / "memory"

    files.make_directory_chain(str(root))

    assert stat.S_IMODE(existing.stat().st_mode) == 0o755
    for path in (existing / "a", existing / "a" / "b", root):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700 & ~_umask()
    assert len(synced) == 3
    files.make_directory_chain(str(root))
    assert len(synced) == 3


def test_directory_chain_refuses_symlinks_and_files(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    touch(tmp_path / "file")

    for path in ("link", "dangling/memory", "file", "file/memory"):
        with pytest.raises(OSError):
            files.make_directory_chain(str(tmp_path / path))


def test_directory_chain_accepts_a_symlinked_ancestor(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    files.make_directory_chain(str(tmp_path / "link" / "memory"))
    assert (real / "memory").is_dir()


def test_subdirectory_is_created_once_and_existing_ones_are_left_alone(start: Path) -> None:
    (start / "kept").mkdir(mode=0o755)
    os.chmod(start / "kept", 0o755)
    (start / "link").symlink_to(start / "kept", target_is_directory=True)
    touch(start / "file")
    fd = files.open_directory(start)
    with files.closing_fd(fd):
        os.close(files.open_or_make_subdirectory(fd, "kept"))
        os.close(files.open_or_make_subdirectory(fd, "new"))
        for name in ("link", "file"):
            with pytest.raises(OSError):
                files.open_or_make_subdirectory(fd, name)

    assert stat.S_IMODE((start / "kept").stat().st_mode) == 0o755
    assert stat.S_IMODE((start / "new").stat().st_mode) == 0o700 & ~_umask()


def test_a_mkdir_race_is_accepted_only_for_a_real_directory(
    start: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_mkdir = os.mkdir

    def racing_mkdir(name: str, mode: int = 0o777, *, dir_fd: int | None = None) -> None:
        if name == "won":
            real_mkdir(name, mode, dir_fd=dir_fd)
        else:
            os.symlink("/", name, dir_fd=dir_fd)
        raise FileExistsError(name)

    monkeypatch.setattr(os, "mkdir", racing_mkdir)
    fd = files.open_directory(start)
    with files.closing_fd(fd):
        os.close(files.open_or_make_subdirectory(fd, "won"))
        with pytest.raises(OSError):
            files.open_or_make_subdirectory(fd, "lost")


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
