"""``mymcp doctor``'s line about the access token: the file's place, mode and owner, and
whether the server requires it; never the token, never a file made."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from mymcp import access_token
from tests.doctoring import found, private_root, run_unchanged

VARIABLE = "MYMCP_REQUIRE_TOKEN"
UNSET = (
    f"the server does not require it unless started with --require-token ({VARIABLE} is not set)"
)


@pytest.fixture(autouse=True)
def root(memory_root: Path) -> Path:
    return private_root(memory_root)


def _token_lines(tmp_path: Path) -> tuple[int, list[str]]:
    code, lines = run_unchanged(tmp_path)
    return code, [line for line in lines if "access token" in line or VARIABLE in line]


def test_no_token_file_yet_is_fine_and_says_who_makes_it(
    tmp_path: Path, hermetic_home: Path
) -> None:
    code, lines = _token_lines(tmp_path)

    path = hermetic_home / ".mnemosyne" / "token"
    assert code == 0
    assert lines == [
        f"ok    access token file {path} does not exist yet (mymcp token makes it); {UNSET}"
    ]


def test_an_existing_file_shows_its_mode_and_owner_never_the_token(
    tmp_path: Path, hermetic_home: Path
) -> None:
    token = access_token.ensure_token(hermetic_home)

    code, lines = _token_lines(tmp_path)

    path = access_token.token_path(hermetic_home)
    owner = pwd.getpwuid(os.geteuid()).pw_name
    assert code == 0
    assert lines == [f"ok    access token file {path}: mode 0600, owner {owner}; {UNSET}"]
    assert token not in "\n".join(run_unchanged(tmp_path)[1])


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("true", f"the server requires it on /mcp ({VARIABLE}=true in the environment)"),
        ("false", f"the server does not require it ({VARIABLE}=false in the environment)"),
    ],
)
def test_the_line_says_whether_the_server_requires_it_and_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, said: str
) -> None:
    monkeypatch.setenv(VARIABLE, value)

    code, lines = _token_lines(tmp_path)

    assert code == 0
    [line] = lines
    assert line.startswith("ok    access token file ")
    assert line.endswith(f"; {said}")
    if value == "true":
        assert "does not exist yet (the server makes it at start)" in line


@pytest.mark.parametrize(("value", "level", "code"), [("true", "fail", 1), (None, "warn", 0)])
def test_a_file_others_can_read_fails_when_required_and_warns_otherwise(
    tmp_path: Path,
    hermetic_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    value: str | None,
    level: str,
    code: int,
) -> None:
    if value is not None:
        monkeypatch.setenv(VARIABLE, value)
    token = access_token.ensure_token(hermetic_home)
    path = access_token.token_path(hermetic_home)
    os.chmod(path, 0o644)

    exit_code, lines = _token_lines(tmp_path)

    assert exit_code == code
    [line] = lines
    assert found([line], level, f"access token file {path} can be read or changed", "mode 0644")
    assert token not in line


def test_a_folder_others_can_write_is_named(tmp_path: Path, hermetic_home: Path) -> None:
    access_token.ensure_token(hermetic_home)
    folder = hermetic_home / ".mnemosyne"
    os.chmod(folder, 0o777)

    _, lines = _token_lines(tmp_path)

    [line] = lines
    assert found([line], "warn", f"its folder {folder} can be written by group or others")


@pytest.mark.parametrize("value", ["yes", "1", ""])
def test_a_bad_setting_fails_and_is_never_echoed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(VARIABLE, value)

    code, lines = _token_lines(tmp_path)

    assert code == 1
    assert found(lines, "ok", "access token file", "does not exist yet")
    assert found(lines, "fail", f"{VARIABLE} must be 'true' or 'false'; the server will not start")
    assert value == "" or not any(f"'{value}'" in line or f"={value}" in line for line in lines)
