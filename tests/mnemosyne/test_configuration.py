"""Tests for mymcp/plugins/mnemosyne/configuration.py (gates, settings file, memory root)."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mymcp.plugins.mnemosyne import configuration
from mymcp.plugins.mnemosyne.configuration import (
    GATE_VARIABLES,
    ROOT_VARIABLE,
    MutationSettings,
    Settings,
    SettingsError,
    load_mutation_settings,
    load_settings,
    resolve_memory_root,
)

REMEMBER = "MNEMOSYNE_MEMORY_REMEMBER_ENABLED"
ARCHIVE_RESTORE = "MNEMOSYNE_MEMORY_ARCHIVE_RESTORE_ENABLED"
FORGET = "MNEMOSYNE_MEMORY_FORGET_ENABLED"
REVISE = "MNEMOSYNE_MEMORY_REVISE_ENABLED"
ALL_VARIABLES = (REMEMBER, ARCHIVE_RESTORE, FORGET, REVISE)
LIMIT = "MNEMOSYNE_MEMORY_CANDIDATE_LIMIT"
LIMIT_MESSAGE = f"{LIMIT} must be a whole number from 1000 through 1000000"

# Pinned independently of the module so a wording drift fails here.
MESSAGES = {
    "invalid_toml": "Mnemosyne settings file is not valid TOML",
    "invalid_schema": "Mnemosyne settings file has an invalid schema",
    "unreadable": "Mnemosyne settings file could not be read",
    "not_regular": "Mnemosyne settings source is not a regular file",
    "unsafe_path": "Mnemosyne settings file path is unsafe",
    "too_large": "Mnemosyne settings file exceeds 16384 bytes",
    "unsafe_permissions": "Mnemosyne settings source permissions are unsafe",
}

ALL_ON = MutationSettings(True, True, True, True)
ALL_OFF = MutationSettings()
VALID_FILE = b"[memory]\nremember_enabled = true\n"


# --- helpers -----------------------------------------------------------------------------


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary HOME with no gate variables and no memory root variable set."""
    directory = tmp_path / "user-home"
    directory.mkdir()
    monkeypatch.setenv("HOME", str(directory))
    for variable in (*ALL_VARIABLES, LIMIT, ROOT_VARIABLE):
        monkeypatch.delenv(variable, raising=False)
    return directory


def app_dir(home: Path, mode: int = 0o700) -> Path:
    directory = home / ".mnemosyne"
    directory.mkdir(exist_ok=True)
    directory.chmod(mode)
    return directory


def write_settings(home: Path, data: bytes | str, mode: int = 0o600) -> Path:
    path = app_dir(home) / "config.toml"
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    path.chmod(mode)
    return path


def snapshot(root: Path) -> dict[str, tuple[int, int, int, bytes | None]]:
    entries: dict[str, tuple[int, int, int, bytes | None]] = {}
    for current, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(current) / name
            info = path.lstat()
            content = path.read_bytes() if stat.S_ISREG(info.st_mode) else None
            key = str(path.relative_to(root))
            entries[key] = (info.st_mode, info.st_size, info.st_mtime_ns, content)
    return entries


def expect_error(code: str, **kwargs: Any) -> SettingsError:
    with pytest.raises(SettingsError) as caught:
        load_mutation_settings(**kwargs)
    error = caught.value
    assert error.code == code
    assert str(error) == MESSAGES[code]
    assert error.message == MESSAGES[code]
    assert error.__cause__ is None
    assert error.__suppress_context__ is True
    assert error.__context__ is None
    return error


def before_directory_open(monkeypatch: pytest.MonkeyPatch, action: Callable[[], object]) -> None:
    """Run `action` once, after the lstat checks and just before the no-follow opens."""
    real_open = os.open
    done = False

    def patched(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        nonlocal done
        if not done and str(path).endswith(".mnemosyne"):
            done = True
            action()
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", patched)


# --- environment gates -------------------------------------------------------------------


def test_gate_variables_are_listed_in_parse_order() -> None:
    assert GATE_VARIABLES == (
        (REMEMBER, "remember_enabled"),
        (ARCHIVE_RESTORE, "archive_restore_enabled"),
        (FORGET, "forget_enabled"),
        (REVISE, "revise_enabled"),
    )
    assert ROOT_VARIABLE == "MNEMOSYNE_MEMORY_ROOT"


def test_everything_is_disabled_without_environment_or_file(home: Path) -> None:
    assert load_mutation_settings() == ALL_OFF


@pytest.mark.parametrize(("variable", "key"), GATE_VARIABLES)
def test_each_variable_enables_only_its_own_gate(
    home: Path, monkeypatch: pytest.MonkeyPatch, variable: str, key: str
) -> None:
    monkeypatch.setenv(variable, "true")
    result = load_mutation_settings()
    assert {k: result.enabled(k) for _, k in GATE_VARIABLES} == {
        k: k == key for _, k in GATE_VARIABLES
    }


def test_explicit_false_overrides_file_true(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_settings(home, VALID_FILE)
    monkeypatch.setenv(REMEMBER, "false")
    assert load_mutation_settings().remember_enabled is False


@pytest.mark.parametrize("value", ["", "True", "TRUE", "1", "0", "yes", " true", "false\n", "on"])
def test_invalid_value_names_the_variable_only(
    home: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(FORGET, value)
    with pytest.raises(ValueError) as caught:
        load_mutation_settings()
    assert type(caught.value) is ValueError
    assert str(caught.value) == f"{FORGET} must be 'true' or 'false'"


def test_invalid_value_is_not_echoed(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REVISE, "secret-value-7f3a")
    with pytest.raises(ValueError) as caught:
        load_mutation_settings()
    assert "secret-value-7f3a" not in str(caught.value)


def test_first_invalid_variable_in_row_order_wins(home: Path) -> None:
    # Mapping order is deliberately the reverse of the row order.
    environ = {REVISE: "nope", FORGET: "nope", ARCHIVE_RESTORE: "nope", "HOME": str(home)}
    with pytest.raises(ValueError, match=f"^{ARCHIVE_RESTORE} must be 'true' or 'false'$"):
        load_mutation_settings(environ)


def test_environment_is_parsed_before_any_file_access(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_settings(home, "not toml at all [", mode=0o666)
    monkeypatch.setenv(REVISE, "maybe")
    with pytest.raises(ValueError, match=REVISE):
        load_mutation_settings()


def test_all_four_set_never_touches_the_filesystem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    for name in ("lstat", "stat", "open", "fstat", "read", "scandir", "listdir"):
        real = getattr(os, name)

        def spy(*args: Any, _name: str = name, _real: Any = real, **kwargs: Any) -> Any:
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(os, name, spy)
    environ = dict.fromkeys(ALL_VARIABLES, "true")
    environ["HOME"] = str(tmp_path / "does-not-exist")
    assert load_mutation_settings(environ) == ALL_ON
    assert calls == []


def test_all_four_set_ignores_an_invalid_file(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_settings(home, b"\xff\xfe garbage", mode=0o666)
    home.chmod(0o000)
    try:
        for variable in ALL_VARIABLES:
            monkeypatch.setenv(variable, "false")
        assert load_mutation_settings() == ALL_OFF
    finally:
        home.chmod(0o700)


def test_invalid_file_fails_even_when_environment_covers_its_keys(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_settings(home, "[memory]\nremember_enabled = 'true'\n")
    for variable in ALL_VARIABLES[:3]:
        monkeypatch.setenv(variable, "true")
    expect_error("invalid_schema")


def test_environment_wins_per_key_then_file_then_false(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_settings(home, "[memory]\nremember_enabled = true\nforget_enabled = true\n")
    monkeypatch.setenv(REMEMBER, "false")
    monkeypatch.setenv(REVISE, "true")
    assert load_mutation_settings() == MutationSettings(
        remember_enabled=False,
        archive_restore_enabled=False,
        forget_enabled=True,
        revise_enabled=True,
    )


def test_explicit_mapping_and_home_are_used_instead_of_process_state(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(REMEMBER, "garbage")  # ignored: an explicit mapping is given
    other_home = tmp_path / "other"
    other_home.mkdir()
    write_settings(other_home, "[memory]\nforget_enabled = true\n")
    result = load_mutation_settings({}, home=other_home)
    assert result == MutationSettings(forget_enabled=True)


def test_enabled_rejects_unknown_keys() -> None:
    with pytest.raises(KeyError):
        MutationSettings().enabled("enabled")


@settings(max_examples=150, deadline=None)
@given(variable=st.sampled_from(ALL_VARIABLES), value=st.text(max_size=40))
def test_any_other_string_is_refused_without_echo(variable: str, value: str) -> None:
    if value in ("true", "false"):
        return
    with pytest.raises(ValueError) as caught:
        load_mutation_settings({variable: value}, home=Path("/nonexistent-home"))
    assert str(caught.value) == f"{variable} must be 'true' or 'false'"


# --- the settings file: presence and accepted shapes ------------------------------------


def test_missing_application_directory_means_all_false(home: Path) -> None:
    assert load_mutation_settings() == ALL_OFF


def test_missing_settings_file_means_all_false(home: Path) -> None:
    app_dir(home)
    assert load_mutation_settings() == ALL_OFF


def test_missing_home_means_all_false(tmp_path: Path) -> None:
    assert load_mutation_settings({}, home=tmp_path / "absent") == ALL_OFF


def test_full_table_enables_every_gate(home: Path) -> None:
    write_settings(
        home,
        "[memory]\nremember_enabled = true\narchive_restore_enabled = true\n"
        "forget_enabled = true\nrevise_enabled = true\n",
    )
    assert load_mutation_settings() == ALL_ON


def test_inline_table_is_accepted(home: Path) -> None:
    write_settings(home, "memory = { revise_enabled = true, forget_enabled = false }\n")
    assert load_mutation_settings() == MutationSettings(revise_enabled=True)


@pytest.mark.parametrize("text", ["", "# nothing here\n", "[memory]\n", "memory = {}\n"])
def test_empty_documents_mean_all_false(home: Path, text: str) -> None:
    write_settings(home, text)
    assert load_mutation_settings() == ALL_OFF


@pytest.mark.parametrize(("dir_mode", "file_mode"), [(0o700, 0o600), (0o755, 0o644)])
def test_usual_modes_are_accepted(home: Path, dir_mode: int, file_mode: int) -> None:
    write_settings(home, VALID_FILE, mode=file_mode)
    app_dir(home, dir_mode)
    assert load_mutation_settings().remember_enabled is True


def test_file_of_exactly_the_limit_is_accepted(home: Path) -> None:
    padding = 16384 - len(VALID_FILE) - 1
    write_settings(home, VALID_FILE + b"#" * padding + b"\n")
    assert (home / ".mnemosyne" / "config.toml").stat().st_size == 16384
    assert load_mutation_settings().remember_enabled is True


def test_settings_file_is_opened_and_read_once(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_settings(home, VALID_FILE)
    opened: list[str] = []
    real_open = os.open

    def spy(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        opened.append(os.fsdecode(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    load_mutation_settings()
    assert opened.count("config.toml") == 1
    assert [name for name in opened if name.endswith(".mnemosyne")] == [str(home / ".mnemosyne")]


@pytest.mark.parametrize("with_file", [False, True])
def test_loading_creates_and_changes_nothing(home: Path, with_file: bool) -> None:
    if with_file:
        write_settings(home, VALID_FILE)
    before = snapshot(home)
    load_mutation_settings()
    assert snapshot(home) == before


def test_failed_loading_creates_and_changes_nothing(home: Path) -> None:
    write_settings(home, VALID_FILE, mode=0o666)
    before = snapshot(home)
    expect_error("unsafe_permissions")
    assert snapshot(home) == before


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


@pytest.mark.parametrize(
    "text",
    [
        "[[memory]]\nremember_enabled = true\n",
        "memory = 1\n",
        "memory = true\n",
        "memory = 'remember_enabled'\n",
        "memory = []\n",
        "[memory]\nremember_enabled = true\nunknown = true\n",
        "[memory]\nREMEMBER_ENABLED = true\n",
        "[memory.remember_enabled]\n",
        "other = 1\n",
        "[other]\n[memory]\n",
        '[memory]\nremember_enabled = "true"\n',
        "[memory]\nforget_enabled = 1\n",
        "[memory]\nrevise_enabled = [true]\n",
    ],
    ids=[
        "array-of-tables",
        "integer",
        "boolean",
        "string",
        "array",
        "unknown-key",
        "wrong-case-key",
        "nested-table",
        "unknown-top-level",
        "extra-table",
        "string-true",
        "integer-flag",
        "array-flag",
    ],
)
def test_invalid_schema(home: Path, text: str) -> None:
    write_settings(home, text)
    expect_error("invalid_schema")


def test_error_messages_are_fixed_per_code() -> None:
    for code, message in MESSAGES.items():
        error = SettingsError(code)
        assert (error.code, str(error), error.message) == (code, message, message)


# --- the candidate limit ---------------------------------------------------------------------


def test_the_limit_is_named_and_defaults_to_the_contracts_bound(home: Path) -> None:
    assert (configuration.LIMIT_VARIABLE, configuration.LIMIT_KEY) == (LIMIT, "candidate_limit")
    assert load_settings() == Settings(ALL_OFF, 1000)


@pytest.mark.parametrize("value", ["1000", "1001", "100000", "1000000"])
def test_the_limit_variable_sets_the_limit(
    home: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(LIMIT, value)
    assert load_settings().candidate_limit == int(value)


@pytest.mark.parametrize(
    "value", ["", "999", "0", "1000001", "1e5", "5_000", " 5000", "5000 ", "+5000", "-1", "٥٠٠٠"]
)
def test_an_invalid_limit_variable_is_refused_with_a_hint(
    home: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(LIMIT, value)
    with pytest.raises(ValueError) as caught:
        load_settings()
    assert type(caught.value) is ValueError
    assert str(caught.value) == LIMIT_MESSAGE
    hint = caught.value.setup_hint  # type: ignore[attr-defined]
    assert LIMIT in hint and "unset it" in hint


@settings(max_examples=150, deadline=None)
@given(value=st.text(max_size=12))
def test_any_other_limit_text_is_refused_without_echo(value: str) -> None:
    if value.isascii() and value.isdigit() and 1000 <= int(value) <= 1_000_000:
        return
    with pytest.raises(ValueError) as caught:
        load_settings({LIMIT: value}, home=Path("/nonexistent-home"))
    assert str(caught.value) == LIMIT_MESSAGE


def test_the_limit_variable_is_parsed_before_any_file_access(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_settings(home, "not toml at all [", mode=0o666)
    monkeypatch.setenv(LIMIT, "many")
    with pytest.raises(ValueError, match=LIMIT):
        load_settings()


def test_the_settings_file_sets_the_limit_and_the_variable_wins(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_settings(home, "[memory]\ncandidate_limit = 100_000\nforget_enabled = true\n")
    assert load_settings() == Settings(MutationSettings(forget_enabled=True), 100_000)
    monkeypatch.setenv(LIMIT, "5000")
    assert load_settings().candidate_limit == 5000
    assert load_mutation_settings() == MutationSettings(forget_enabled=True)


def test_all_five_variables_set_never_read_the_file(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_settings(home, b"\xff\xfe garbage", mode=0o666)
    for variable in ALL_VARIABLES:
        monkeypatch.setenv(variable, "true")
    monkeypatch.setenv(LIMIT, "2000")
    assert load_settings() == Settings(ALL_ON, 2000)


def test_the_file_is_read_when_only_the_limit_variable_is_unset(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_settings(home, "[memory]\ncandidate_limit = 3000\n")
    for variable in ALL_VARIABLES:
        monkeypatch.setenv(variable, "false")
    assert load_settings() == Settings(ALL_OFF, 3000)


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("999", "a number outside that range"),
        ("1_000_001", "a number outside that range"),
        ('"5000"', "a string (remove the quotes)"),
        ("5000.0", "a number with a fraction"),
        ("true", "a boolean"),
        ("[5000]", "an array"),
    ],
)
def test_an_unusable_limit_in_the_file_is_an_invalid_schema(
    home: Path, value: str, kind: str
) -> None:
    write_settings(home, f"[memory]\ncandidate_limit = {value}\n")
    error = expect_error("invalid_schema", home=home)
    (problem,) = error.problems
    rule = "'candidate_limit' must be a whole number from 1000 through 1000000"
    assert problem == configuration.SettingsProblem(f"{rule}, not {kind}", 2, 1)
    assert value.strip('"') not in problem.text


# --- memory root -----------------------------------------------------------------------------


def test_root_defaults_under_home(home: Path) -> None:
    assert resolve_memory_root() == home / ".mnemosyne" / "memory"


def test_empty_root_variable_falls_back_to_default(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ROOT_VARIABLE, "")
    assert resolve_memory_root() == home / ".mnemosyne" / "memory"


def test_absolute_root_is_used_verbatim(home: Path, tmp_path: Path) -> None:
    target = tmp_path / "a" / ".." / "b"
    assert resolve_memory_root({ROOT_VARIABLE: str(target)}) == target


def test_relative_root_stays_relative(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ROOT_VARIABLE, "memories/here")
    root = resolve_memory_root()
    assert root == Path("memories/here")
    assert not root.is_absolute()


@pytest.mark.parametrize(("value", "suffix"), [("~", ()), ("~/mem", ("mem",))])
def test_tilde_root_is_expanded(
    home: Path, monkeypatch: pytest.MonkeyPatch, value: str, suffix: tuple[str, ...]
) -> None:
    monkeypatch.setenv(ROOT_VARIABLE, value)
    assert resolve_memory_root() == home.joinpath(*suffix)


def test_symlinked_root_is_not_resolved(home: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(home)
    assert resolve_memory_root({ROOT_VARIABLE: str(link)}) == link


def test_mapping_without_home_falls_back_to_the_process_home(home: Path) -> None:
    assert (
        resolve_memory_root({})
        == Path.home() / ".mnemosyne" / "memory"
        == (home / ".mnemosyne" / "memory")
    )


def test_resolving_the_root_creates_nothing(home: Path, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    resolve_memory_root()
    resolve_memory_root({ROOT_VARIABLE: str(tmp_path / "custom" / "root")})
    assert snapshot(tmp_path) == before
    assert not (home / ".mnemosyne").exists()


def test_module_has_no_host_or_web_imports() -> None:
    source = Path(configuration.__file__).read_text()
    for forbidden in ("fastapi", "starlette", "mymcp.host", "mymcp.mcp", "mymcp.transports"):
        assert forbidden not in source
