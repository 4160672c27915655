"""The local access token: where it lives, how it is made and read, what is refused, and
how a presented token is compared."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from mymcp import access_token
from mymcp.access_token import TokenFileError
from mymcp.plugin_api.setup import setup_lines

TOKEN = "tK4n-" + "a" * 40


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def _folder(home: Path, mode: int = 0o700) -> Path:
    folder = home / ".mnemosyne"
    folder.mkdir(mode=mode)
    os.chmod(folder, mode)
    return folder


def _token_file(home: Path, content: bytes = TOKEN.encode() + b"\n", mode: int = 0o600) -> Path:
    folder = home / ".mnemosyne"
    if not folder.exists():
        _folder(home)
    path = folder / "token"
    path.write_bytes(content)
    os.chmod(path, mode)
    return path


def _refused(home: Path) -> TokenFileError:
    """The refusal of read_token and of ensure_token, which must be the same; nothing made."""
    before = sorted(os.listdir(home / ".mnemosyne")) if (home / ".mnemosyne").is_dir() else None
    with pytest.raises(TokenFileError) as read:
        access_token.read_token(home)
    with pytest.raises(TokenFileError) as ensured:
        access_token.ensure_token(home)
    after = sorted(os.listdir(home / ".mnemosyne")) if (home / ".mnemosyne").is_dir() else None
    assert after == before
    assert setup_lines(read.value) == setup_lines(ensured.value)
    return read.value


# --- where it lives ------------------------------------------------------------------------------


def test_the_token_lives_beside_the_settings_file(hermetic_home: Path) -> None:
    assert access_token.token_path(hermetic_home) == hermetic_home / ".mnemosyne" / "token"
    assert access_token.token_path() == hermetic_home / ".mnemosyne" / "token"


# --- making it --------------------------------------------------------------------------------


def test_first_use_makes_a_private_file_in_a_private_folder(hermetic_home: Path) -> None:
    token = access_token.ensure_token(hermetic_home)

    path = hermetic_home / ".mnemosyne" / "token"
    assert _mode(path.parent) == 0o700
    assert _mode(path) == 0o600
    assert stat.S_ISREG(os.lstat(path).st_mode)
    assert path.read_text() == f"{token}\n"
    assert os.listdir(path.parent) == ["token"]  # no temporary file left behind


def test_the_token_is_a_long_url_safe_secret(hermetic_home: Path) -> None:
    token = access_token.ensure_token(hermetic_home)

    assert len(token) >= 43
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_each_home_gets_its_own_token(tmp_path: Path) -> None:
    homes = [tmp_path / "one", tmp_path / "two"]
    for home in homes:
        home.mkdir()

    assert len({access_token.ensure_token(home) for home in homes}) == 2


def test_the_token_is_made_private_whatever_the_umask(hermetic_home: Path) -> None:
    previous = os.umask(0)
    try:
        access_token.ensure_token(hermetic_home)
    finally:
        os.umask(previous)

    assert _mode(hermetic_home / ".mnemosyne") == 0o700
    assert _mode(hermetic_home / ".mnemosyne" / "token") == 0o600


def test_an_existing_folder_keeps_its_mode_and_gets_the_file(hermetic_home: Path) -> None:
    folder = _folder(hermetic_home, 0o755)

    access_token.ensure_token(hermetic_home)

    assert _mode(folder) == 0o755
    assert _mode(folder / "token") == 0o600


def test_later_uses_return_the_same_token_and_change_nothing(hermetic_home: Path) -> None:
    first = access_token.ensure_token(hermetic_home)
    path = access_token.token_path(hermetic_home)
    before = os.stat(path)

    assert access_token.ensure_token(hermetic_home) == first
    assert access_token.read_token(hermetic_home) == first
    assert os.stat(path).st_mtime_ns == before.st_mtime_ns
    assert os.stat(path).st_ino == before.st_ino


def test_processes_making_it_at_once_agree_on_one_token(hermetic_home: Path) -> None:
    tokens: list[str] = []
    start = threading.Barrier(8)

    def make() -> None:
        start.wait()
        tokens.append(access_token.ensure_token(hermetic_home))

    threads = [threading.Thread(target=make) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(tokens) == 8 and len(set(tokens)) == 1
    assert os.listdir(hermetic_home / ".mnemosyne") == ["token"]


def test_a_missing_home_is_a_setup_error_naming_the_folder(tmp_path: Path) -> None:
    home = tmp_path / "nowhere"

    with pytest.raises(TokenFileError) as raised:
        access_token.ensure_token(home)

    assert setup_lines(raised.value) == [
        access_token.TOKEN_FILE_MESSAGE,
        f"{home / '.mnemosyne'} cannot be used (No such file or directory)",
    ]


# --- reading it -------------------------------------------------------------------------------


def test_reading_never_creates_anything(hermetic_home: Path) -> None:
    assert access_token.read_token(hermetic_home) is None
    assert access_token.token_file(hermetic_home) is None
    assert os.listdir(hermetic_home) == []

    _folder(hermetic_home)
    assert access_token.read_token(hermetic_home) is None
    assert os.listdir(hermetic_home / ".mnemosyne") == []


@pytest.mark.parametrize(
    "content",
    [TOKEN.encode(), TOKEN.encode() + b"\n", b"  " + TOKEN.encode() + b"\r\n\n", b"x" * 32],
)
def test_a_token_of_the_users_own_is_read_without_surrounding_space(
    hermetic_home: Path, content: bytes
) -> None:
    _token_file(hermetic_home, content)

    assert access_token.read_token(hermetic_home) == content.strip().decode()
    assert access_token.ensure_token(hermetic_home) == content.strip().decode()


def test_inspecting_reports_the_token_mode_and_owner(hermetic_home: Path) -> None:
    path = _token_file(hermetic_home)

    found = access_token.token_file(access_token.token_path(hermetic_home))

    assert found is not None and found[0] == TOKEN
    assert (stat.S_IMODE(found[1].st_mode), found[1].st_uid) == (0o600, os.geteuid())
    assert path == access_token.token_path(hermetic_home)


# --- what is refused --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o620, 0o602, 0o644, 0o666])
def test_a_file_others_can_read_or_write_is_refused_not_repaired(
    hermetic_home: Path, mode: int
) -> None:
    path = _token_file(hermetic_home, mode=mode)

    error = _refused(hermetic_home)

    assert _mode(path) == mode
    message, note = setup_lines(error) or []
    assert message == access_token.TOKEN_FILE_MESSAGE
    assert note.startswith(f"{path} can be read or changed by group or others (mode {mode:04o})")
    assert f"chmod 600 {path}" in note
    assert TOKEN not in note


def test_a_symbolic_link_is_refused_even_to_a_private_file(hermetic_home: Path) -> None:
    target = hermetic_home / "elsewhere"
    target.write_text(TOKEN)
    os.chmod(target, 0o600)
    _folder(hermetic_home)
    (hermetic_home / ".mnemosyne" / "token").symlink_to(target)

    error = _refused(hermetic_home)

    assert "is a symbolic link" in error.problem


def test_a_symbolic_link_as_the_folder_is_refused(hermetic_home: Path) -> None:
    real = hermetic_home / "real"
    real.mkdir(mode=0o700)
    _token_file(hermetic_home)
    os.rename(hermetic_home / ".mnemosyne", real / "inner")
    (hermetic_home / ".mnemosyne").symlink_to(real / "inner")

    error = _refused(hermetic_home)

    assert error.path == hermetic_home / ".mnemosyne"
    assert "is a symbolic link" in error.problem


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_something_other_than_a_regular_file_is_refused(hermetic_home: Path, kind: str) -> None:
    path = _folder(hermetic_home) / "token"
    if kind == "directory":
        path.mkdir(mode=0o700)
    else:
        os.mkfifo(path, 0o600)

    error = _refused(hermetic_home)

    assert "is not a regular file" in error.problem


def test_a_folder_that_is_a_file_is_refused(hermetic_home: Path) -> None:
    (hermetic_home / ".mnemosyne").write_text("")

    error = _refused(hermetic_home)

    assert "is not a folder" in error.problem


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file away needs root")
def test_a_file_owned_by_someone_else_is_refused(hermetic_home: Path) -> None:
    path = _token_file(hermetic_home)
    os.chown(path, 65534, 65534)

    error = _refused(hermetic_home)

    assert "not to you" in error.problem


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder away needs root")
def test_a_folder_owned_by_someone_else_is_refused(hermetic_home: Path) -> None:
    _token_file(hermetic_home)
    os.chown(hermetic_home / ".mnemosyne", 65534, 65534)

    error = _refused(hermetic_home)

    assert error.path == hermetic_home / ".mnemosyne"
    assert "not to you" in error.problem


def test_a_folder_others_can_write_is_refused(hermetic_home: Path) -> None:
    _token_file(hermetic_home)
    os.chmod(hermetic_home / ".mnemosyne", 0o777)

    error = _refused(hermetic_home)

    assert "can be written by group or others (mode 0777)" in error.problem


@pytest.mark.parametrize(
    "content",
    [b"", b"\n", b"short", b"x" * 31, b"has space inside it but is long enough", b"\xff" * 40],
    ids=["empty", "blank", "short", "31", "space", "binary"],
)
def test_a_file_without_a_token_is_refused_without_echoing_it(
    hermetic_home: Path, content: bytes
) -> None:
    _token_file(hermetic_home, content)

    error = _refused(hermetic_home)

    assert "holds no token" in error.problem
    if content.strip():
        assert content.strip().decode("latin-1") not in "\n".join(setup_lines(error) or [])


def test_an_oversized_file_is_refused_without_reading_it(hermetic_home: Path) -> None:
    _token_file(hermetic_home, b"A" * 5000)

    error = _refused(hermetic_home)

    assert "is larger than 1024 bytes" in error.problem


# --- comparing ----------------------------------------------------------------------------------


def test_only_the_token_itself_matches() -> None:
    assert access_token.token_matches(TOKEN, TOKEN)
    assert access_token.token_matches(TOKEN.encode(), TOKEN)
    assert not access_token.token_matches(None, TOKEN)
    assert not access_token.token_matches("", TOKEN)
    assert not access_token.token_matches(TOKEN[:-1], TOKEN)
    assert not access_token.token_matches(TOKEN + "a", TOKEN)
    assert not access_token.token_matches(TOKEN.upper(), TOKEN)
    assert not access_token.token_matches("\udcff" + TOKEN, TOKEN)


@given(st.one_of(st.text(), st.binary()))
def test_nothing_else_matches(presented: str | bytes) -> None:
    assume(presented not in (TOKEN, TOKEN.encode()))

    assert not access_token.token_matches(presented, TOKEN)


# --- the setting -------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "required"), [(None, False), ("false", False), ("true", True)])
def test_the_setting_is_off_unless_true(value: str | None, required: bool) -> None:
    env = {} if value is None else {access_token.REQUIRE_TOKEN_VARIABLE: value}

    assert access_token.require_token(env) is required


@pytest.mark.parametrize("value", ["", "1", "yes", "TRUE", "True", " true", "on"])
def test_any_other_value_is_a_setup_error_that_does_not_echo_it(value: str) -> None:
    with pytest.raises(access_token.RequireTokenError) as raised:
        access_token.require_token({access_token.REQUIRE_TOKEN_VARIABLE: value})

    message, note = setup_lines(raised.value) or []
    assert message == "MYMCP_REQUIRE_TOKEN must be 'true' or 'false'"
    assert "MYMCP_REQUIRE_TOKEN" in note
    assert repr(value) not in message + note
