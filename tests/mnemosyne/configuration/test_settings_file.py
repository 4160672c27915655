"""Tests for configuration/settings_file.py: the checks before, while and after reading."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.configuration.gates import (
    load_mutation_settings,
)
from mymcp.plugins.mnemosyne.configuration.settings_file import SettingsError
from tests.mnemosyne.configuration.settings_support import (
    ALL_OFF,
    MESSAGES,
    VALID_FILE,
    app_dir,
    before_directory_open,
    expect_error,
    write_settings,
)

# --- the settings file: path and type checks --------------------------------------------


def test_symlinked_application_directory_is_unsafe(home: Path, tmp_path: Path) -> None:
    real = tmp_path / "real-app"
    real.mkdir(mode=0o700)
    (real / "config.toml").write_bytes(VALID_FILE)
    (home / ".mnemosyne").symlink_to(real)
    expect_error("unsafe_path")


def test_application_directory_that_is_a_file_is_unsafe(home: Path) -> None:
    (home / ".mnemosyne").write_text("")
    expect_error("unsafe_path")


def test_home_that_is_a_file_is_unsafe(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "home-file"
    not_a_dir.write_text("")
    expect_error("unsafe_path", environ={}, home=not_a_dir)


@pytest.mark.parametrize("mode", [0o777, 0o757, 0o770, 0o702, 0o720])
def test_writable_application_directory_is_unsafe(home: Path, mode: int) -> None:
    write_settings(home, VALID_FILE)
    app_dir(home, mode)
    expect_error("unsafe_permissions")


def test_directory_permissions_are_checked_before_the_file(home: Path) -> None:
    (app_dir(home) / "config.toml").mkdir()
    app_dir(home, 0o777)
    expect_error("unsafe_permissions")


def test_symlinked_settings_file_is_unsafe(home: Path) -> None:
    target = app_dir(home) / "real.toml"
    target.write_bytes(VALID_FILE)
    (home / ".mnemosyne" / "config.toml").symlink_to(target)
    expect_error("unsafe_path")


def test_dangling_symlinked_settings_file_is_unsafe(home: Path) -> None:
    (app_dir(home) / "config.toml").symlink_to(home / "nowhere.toml")
    expect_error("unsafe_path")


def test_fifo_settings_file_is_not_regular(home: Path) -> None:
    os.mkfifo(app_dir(home) / "config.toml", 0o600)
    expect_error("not_regular")


def test_directory_named_like_the_settings_file_is_not_regular(home: Path) -> None:
    (app_dir(home) / "config.toml").mkdir()
    expect_error("not_regular")


@pytest.mark.parametrize("mode", [0o666, 0o646, 0o620, 0o602])
def test_writable_settings_file_is_unsafe(home: Path, mode: int) -> None:
    write_settings(home, VALID_FILE, mode=mode)
    expect_error("unsafe_permissions")


def test_permissions_are_checked_before_size(home: Path) -> None:
    write_settings(home, b"#" * 20000, mode=0o666)
    expect_error("unsafe_permissions")


def test_file_one_byte_over_the_limit_is_too_large(home: Path) -> None:
    padding = 16385 - len(VALID_FILE) - 1
    write_settings(home, VALID_FILE + b"#" * padding + b"\n")
    expect_error("too_large")


# --- the settings file: descriptor re-checks (objects swapped after the lstat checks) -----


def test_directory_swapped_for_another_directory_is_unsafe(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_settings(home, VALID_FILE)
    replacement = home / "replacement"
    replacement.mkdir(mode=0o700)
    # A hard link keeps the file identity, so only the directory identity differs.
    (replacement / "config.toml").hardlink_to(path)

    def swap() -> None:
        (home / ".mnemosyne").rename(home / "old")
        replacement.rename(home / ".mnemosyne")

    before_directory_open(monkeypatch, swap)
    expect_error("unsafe_path")


def test_directory_swapped_for_a_symlink_is_unsafe(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_settings(home, VALID_FILE)

    def swap() -> None:
        (home / ".mnemosyne").rename(home / "old")
        (home / ".mnemosyne").symlink_to(home / "old")

    before_directory_open(monkeypatch, swap)
    expect_error("unsafe_path")


def test_directory_loosened_after_the_check_is_unsafe(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_settings(home, VALID_FILE)
    before_directory_open(monkeypatch, lambda: (home / ".mnemosyne").chmod(0o777))
    expect_error("unsafe_permissions")


def test_directory_vanished_after_the_check_means_all_false(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_settings(home, VALID_FILE)
    before_directory_open(monkeypatch, lambda: (home / ".mnemosyne").rename(home / "gone"))
    assert load_mutation_settings() == ALL_OFF


def test_file_vanished_after_the_check_means_all_false(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_settings(home, VALID_FILE)
    before_directory_open(monkeypatch, path.unlink)
    assert load_mutation_settings() == ALL_OFF


def test_file_swapped_for_another_file_is_unsafe(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_settings(home, VALID_FILE)
    other = path.with_name("other.toml")
    other.write_bytes(VALID_FILE)
    other.chmod(0o600)
    before_directory_open(monkeypatch, lambda: other.replace(path))
    expect_error("unsafe_path")


def test_file_swapped_for_a_symlink_is_unsafe(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_settings(home, VALID_FILE)

    def swap() -> None:
        path.rename(path.with_name("moved.toml"))
        path.symlink_to(path.with_name("moved.toml"))

    before_directory_open(monkeypatch, swap)
    expect_error("unsafe_path")


def test_file_swapped_for_a_fifo_is_not_regular(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_settings(home, VALID_FILE)

    def swap() -> None:
        path.unlink()
        os.mkfifo(path, 0o600)

    before_directory_open(monkeypatch, swap)
    expect_error("not_regular")


def test_file_loosened_after_the_check_is_unsafe(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_settings(home, VALID_FILE)
    before_directory_open(monkeypatch, lambda: path.chmod(0o666))
    expect_error("unsafe_permissions")


def test_file_grown_after_the_check_is_too_large(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_settings(home, VALID_FILE)

    def grow() -> None:
        with path.open("ab") as handle:
            handle.write(b"#" * 20000)

    before_directory_open(monkeypatch, grow)
    expect_error("too_large")


def test_file_grown_while_being_read_is_too_large(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_settings(home, VALID_FILE)
    real_fstat = os.fstat

    def fstat_then_grow(fd: int) -> os.stat_result:
        result = real_fstat(fd)
        if stat.S_ISREG(result.st_mode):
            with path.open("ab") as handle:
                handle.write(b"#" * 20000)
        return result

    monkeypatch.setattr(os, "fstat", fstat_then_grow)
    expect_error("too_large")


@pytest.mark.parametrize(
    ("error_number", "code"),
    [
        (errno.ELOOP, "unsafe_path"),
        (errno.ENOTDIR, "unsafe_path"),
        (errno.EISDIR, "not_regular"),
        (errno.EACCES, "unreadable"),
        (errno.EIO, "unreadable"),
    ],
)
def test_os_errors_on_open_map_to_codes(
    home: Path, monkeypatch: pytest.MonkeyPatch, error_number: int, code: str
) -> None:
    write_settings(home, VALID_FILE)
    real_open = os.open

    def failing(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fsdecode(path) == "config.toml":
            raise OSError(error_number, "private os detail", "/private/path")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", failing)
    error = expect_error(code)
    assert "private" not in str(error)


def test_read_failure_is_unreadable(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_settings(home, VALID_FILE)

    def failing(fd: int, size: int) -> bytes:
        raise OSError(errno.EIO, "private os detail")

    monkeypatch.setattr(os, "read", failing)
    expect_error("unreadable")


def test_lstat_failure_is_unreadable(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_settings(home, VALID_FILE)

    def failing(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        raise PermissionError(errno.EACCES, "private os detail")

    monkeypatch.setattr(os, "lstat", failing)
    expect_error("unreadable")


def test_descriptors_are_closed(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_settings(home, "memory = 1\n")
    opened: list[int] = []
    closed: list[int] = []
    real_open, real_close = os.open, os.close

    def spy_open(*args: Any, **kwargs: Any) -> int:
        fd = real_open(*args, **kwargs)
        opened.append(fd)
        return fd

    def spy_close(fd: int) -> None:
        closed.append(fd)
        real_close(fd)

    monkeypatch.setattr(os, "open", spy_open)
    monkeypatch.setattr(os, "close", spy_close)
    expect_error("invalid_schema")
    assert len(opened) == 2
    assert sorted(closed) == sorted(opened)


# --- the settings file: decoding, TOML and schema -----------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"\xef\xbb\xbf" + VALID_FILE,  # UTF-8 byte order mark
        b"[memory]\n# \xff\xfe\n",  # invalid UTF-8 inside a comment
        b"\xed\xa0\x80 = 1\n",  # encoded surrogate
        b"[memory\n",
        b"memory = \n",
        b"[memory]\nremember_enabled = true\nremember_enabled = false\n",
        b"a = " + b"[" * 10000,  # deep enough to exhaust the parser's recursion
    ],
    ids=[
        "bom",
        "invalid-utf8",
        "surrogate",
        "unclosed-table",
        "missing-value",
        "duplicate",
        "deep",
    ],
)
def test_undecodable_or_invalid_toml(home: Path, data: bytes) -> None:
    write_settings(home, data)
    expect_error("invalid_toml")


def test_error_messages_are_fixed_per_code() -> None:
    for code, message in MESSAGES.items():
        error = SettingsError(code)
        assert (error.code, str(error), error.message) == (code, message, message)
