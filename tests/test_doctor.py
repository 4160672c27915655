"""``mymcp doctor``: one line per finding, the exit code, the wording, and no writes at all."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from mymcp import doctor
from tests.clients.scenario import LEGACY_ID, LEGACY_RECORD, seed_memory_root
from tests.doctoring import found, private_root, run_unchanged
from tests.helpers import CANONICAL_ID, McpClient, canonical_record, write_record
from tests.processes import child_environment, finished, free_port, mymcp_command
from tests.surface import GATE_OF, GATE_VARIABLES, LIMIT_VARIABLE

LEVELS = ("ok", "warn", "fail")
LEGACY_PATH = f"preference/drinks/{LEGACY_ID}.json"
CANONICAL_PATH = f"project/mnemosyne/decisions/{CANONICAL_ID}.json"


@pytest.fixture
def root(memory_root: Path) -> Path:
    return private_root(memory_root)


@pytest.fixture
def diagnose(hermetic_home: Path, tmp_path: Path) -> Callable[[], tuple[int, list[str]]]:
    """Run the doctor in process; check that every line has a level and nothing changed."""

    def run() -> tuple[int, list[str]]:
        code, lines = run_unchanged(tmp_path)
        assert all(line.split()[0] in LEVELS for line in lines[:-1]), lines
        assert re.fullmatch(r"doctor: \d+ failed, \d+ warnings?", lines[-1])
        return code, lines[:-1]

    return run


def _settings(home: Path, content: bytes, mode: int = 0o600) -> Path:
    directory = home / ".mnemosyne"
    directory.mkdir(mode=0o700, exist_ok=True)
    path = directory / "config.toml"
    path.write_bytes(content)
    os.chmod(path, mode)
    return path


# --- a healthy setup ---------------------------------------------------------------------------


def test_a_healthy_setup_passes_with_every_finding_ok(
    diagnose: Callable[[], tuple[int, list[str]]], root: Path, hermetic_home: Path
) -> None:
    code, lines = diagnose()

    assert code == 0
    assert found(lines, "fail") == [] and found(lines, "warn") == []
    assert found(lines, "ok", "Python 3.")
    assert found(lines, "ok", "mymcp 0.2.0")
    assert found(lines, "ok", "no settings file", str(hermetic_home / ".mnemosyne"))
    assert found(lines, "ok", "memory_remember: off")
    assert found(lines, "ok", "memory_archive and memory_restore: off")
    assert found(lines, "ok", f"memory root {root} (from MNEMOSYNE_MEMORY_ROOT): a directory")
    assert found(lines, "ok", "scope project: 1 valid record")
    assert found(lines, "ok", "scope preference: 1 valid record (1 of version 1)")
    assert found(lines, "ok", "scope self: no folder yet")
    assert found(lines, "ok", "is free for mymcp serve")


def test_each_gate_says_where_its_state_comes_from(
    diagnose: Callable[[], tuple[int, list[str]]],
    root: Path,
    hermetic_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = _settings(hermetic_home, b"[memory]\nforget_enabled = true\nrevise_enabled = false\n")
    monkeypatch.setenv(GATE_OF["remember"], "true")

    code, lines = diagnose()

    assert code == 0
    assert found(lines, "ok", f"settings file {path}: mode 0600, owner ")
    assert found(lines, "ok", f"memory_remember: on ({GATE_OF['remember']}=true in")
    assert found(lines, "ok", f"memory_forget: on (forget_enabled = true in {path})")
    assert found(lines, "ok", f"memory_revise: off (revise_enabled = false in {path})")
    assert found(lines, "ok", "memory_archive and memory_restore: off (neither")


def test_a_missing_memory_root_is_fine(
    diagnose: Callable[[], tuple[int, list[str]]], memory_root: Path
) -> None:
    code, lines = diagnose()

    assert code == 0
    assert found(lines, "ok", str(memory_root), "does not exist yet")
    assert not memory_root.exists()


# --- settings mistakes -------------------------------------------------------------------------


def test_a_bad_gate_value_fails_and_names_the_variable(
    diagnose: Callable[[], tuple[int, list[str]]], root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(GATE_OF["revise"], "maybe")

    code, lines = diagnose()

    assert code == 1
    assert found(lines, "fail", f"{GATE_OF['revise']} must be 'true' or 'false'")
    assert not any("maybe" in line for line in lines)


def test_malformed_toml_fails_with_path_line_and_column(
    diagnose: Callable[[], tuple[int, list[str]]], root: Path, hermetic_home: Path
) -> None:
    path = _settings(hermetic_home, b"[memory]\nremember_enabled = tru\n")

    code, lines = diagnose()

    assert code == 1
    assert found(lines, "fail", "not valid TOML", f"{path}, line 2, column 20")


def test_every_mistyped_key_is_named_with_a_suggestion(
    diagnose: Callable[[], tuple[int, list[str]]], root: Path, hermetic_home: Path
) -> None:
    content = b'[memory]\nremeber_enabled = true\nforget_enabled = "yes"\nrevize_enabled = true\n'
    path = _settings(hermetic_home, content)

    code, lines = diagnose()

    assert code == 1
    failures = found(lines, "fail", "invalid schema", str(path))
    assert len(failures) == 3
    assert "line 2, column 1: unknown key 'remeber_enabled'" in failures[0]
    assert "did you mean 'remember_enabled'?" in failures[0]
    assert "line 3, column 1: 'forget_enabled' must be true or false" in failures[1]
    assert "did you mean 'revise_enabled'?" in failures[2]
    assert "yes" not in "".join(failures)


def test_unsafe_permissions_fail_with_the_mode_and_the_fix(
    diagnose: Callable[[], tuple[int, list[str]]], root: Path, hermetic_home: Path
) -> None:
    path = _settings(hermetic_home, b"[memory]\n", mode=0o666)

    code, lines = diagnose()

    assert code == 1
    assert found(lines, "fail", str(path), "mode 0666", f"chmod go-w {path}")


def test_a_symlinked_settings_file_fails(
    diagnose: Callable[[], tuple[int, list[str]]], root: Path, hermetic_home: Path
) -> None:
    real = hermetic_home / "real.toml"
    real.write_text("[memory]\n")
    os.chmod(real, 0o600)
    (hermetic_home / ".mnemosyne").mkdir(mode=0o700)
    (hermetic_home / ".mnemosyne" / "config.toml").symlink_to(real)

    code, lines = diagnose()

    assert code == 1
    assert found(lines, "fail", "path is unsafe", "symbolic link")


@pytest.mark.parametrize(
    ("limit", "code", "level", "said"),
    [
        ("1000", 0, "warn", ("not valid TOML", "not read while all five variables")),
        (None, 1, "fail", ("not valid TOML",)),
    ],
    ids=["every variable set", "the limit variable unset"],
)
def test_a_broken_file_only_warns_while_every_variable_is_set(
    diagnose: Callable[[], tuple[int, list[str]]],
    root: Path,
    hermetic_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    limit: str | None,
    code: int,
    level: str,
    said: tuple[str, ...],
) -> None:
    _settings(hermetic_home, b"[memory\n")
    for variable in GATE_VARIABLES:
        monkeypatch.setenv(variable, "false")
    if limit is not None:
        monkeypatch.setenv(LIMIT_VARIABLE, limit)

    diagnosed, lines = diagnose()

    assert diagnosed == code
    assert found(lines, level, *said)


# --- the memory root ---------------------------------------------------------------------------


def test_a_memory_root_that_is_a_file_fails(
    diagnose: Callable[[], tuple[int, list[str]]], memory_root: Path
) -> None:
    memory_root.write_text("oops")

    code, lines = diagnose()

    assert code == 1
    assert found(lines, "fail", str(memory_root), "is a regular file")


def test_a_dangling_symlinked_root_fails(
    diagnose: Callable[[], tuple[int, list[str]]], memory_root: Path
) -> None:
    memory_root.symlink_to(memory_root.parent / "gone")

    code, lines = diagnose()

    assert code == 1
    assert found(lines, "fail", str(memory_root), "symbolic link to nothing")


def test_a_symlinked_root_warns_that_list_and_remember_refuse_it(
    diagnose: Callable[[], tuple[int, list[str]]], memory_root: Path
) -> None:
    real = memory_root.parent / "real-memory"
    seed_memory_root(real)
    memory_root.symlink_to(real)

    code, lines = diagnose()

    assert code == 0
    assert found(lines, "warn", "symbolic link to", "memory_list and memory_remember refuse it")
    assert found(lines, "ok", "scope project: 1 valid record")


def test_a_root_others_can_read_gets_a_warning(
    diagnose: Callable[[], tuple[int, list[str]]], root: Path
) -> None:
    os.chmod(root, 0o755)

    code, lines = diagnose()

    assert code == 0
    assert found(lines, "warn", "can be read by other users (mode 0755)", f"chmod 700 {root}")


# --- the records -------------------------------------------------------------------------------


def test_a_broken_hand_edit_is_named_by_its_path_with_line_and_column(
    diagnose: Callable[[], tuple[int, list[str]]], root: Path
) -> None:
    text = json.dumps(LEGACY_RECORD, indent=2)
    broken = text[: text.rindex("]") + 1] + ",\n}\n"  # a trailing comma after the last value
    (root / LEGACY_PATH).write_text(broken)
    line = broken.count("\n", 0, broken.rindex("}")) + 1

    code, lines = diagnose()

    assert code == 1
    assert found(lines, "warn", "scope preference: 0 valid records; 1 skipped")
    [failure] = found(
        lines, "fail", f"{LEGACY_PATH}: skipped (invalid_json): line {line}, column 1"
    )
    assert "Morning tea" not in failure  # never the memory's text


def _link(path: Path, target: Path) -> None:
    path.parent.mkdir(exist_ok=True)
    path.symlink_to(target)


def _place(root: Path, *parts: str, data: bytes) -> None:
    path = root.joinpath(*parts)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


SKIPS: list[tuple[str, Callable[[Path], object], str, str]] = [
    (
        "path_mismatch",
        lambda root: write_record(root, canonical_record(), "project", "other", "x.json"),
        "project/other/x.json: skipped (path_mismatch)",
        f"place it at {CANONICAL_PATH}",
    ),
    (
        "oversized",
        lambda root: _place(root, "self", "big.json", data=b" " * 70_000),
        "self/big.json: skipped (oversized)",
        "70000 bytes; a record holds at most 65536",
    ),
    (
        "invalid_encoding",
        lambda root: _place(root, "self", "latin.json", data=b'{"x": "caf\xe9"}'),
        "self/latin.json: skipped (invalid_encoding)",
        "not UTF-8 at line 1",
    ),
    (
        "invalid_record",
        lambda root: _place(root, "self", "odd.json", data=b'{"schema_version": 3}'),
        "self/odd.json: skipped (invalid_record)",
        "not a valid record",
    ),
    (
        "duplicate key",
        lambda root: _place(root, "self", "twice.json", data=b'{"id": "a", "id": "b"}'),
        "self/twice.json: skipped (invalid_json)",
        "duplicate key",
    ),
    (
        "symlink",
        lambda root: _link(root / "self" / "link.json", root),
        "self/link.json: skipped (symlink)",
        "never followed",
    ),
    (
        "too_deep",
        lambda root: _place(root, "self", "a", "b", "c", "d", "e", "x.json", data=b"{}"),
        "self/a/b/c/d/e/: skipped (too_deep)",
        "never entered",
    ),
]


@pytest.mark.parametrize(
    ("arrange", "where", "why"), [case[1:] for case in SKIPS], ids=[c[0] for c in SKIPS]
)
def test_every_skipped_file_is_named_with_its_reason(
    diagnose: Callable[[], tuple[int, list[str]]],
    root: Path,
    arrange: Callable[[Path], None],
    where: str,
    why: str,
) -> None:
    arrange(root)

    code, lines = diagnose()

    assert code == 1
    assert found(lines, "fail", where, why), lines


def test_a_folder_that_is_no_scope_gets_a_warning(
    diagnose: Callable[[], tuple[int, list[str]]], root: Path
) -> None:
    (root / "preferences").mkdir()

    code, lines = diagnose()

    assert code == 0
    assert found(lines, "warn", "preferences (in the memory root) is not a scope folder")


def test_a_scope_that_is_a_file_fails(
    diagnose: Callable[[], tuple[int, list[str]]], root: Path
) -> None:
    (root / "knowledge").write_text("x")

    code, lines = diagnose()

    assert code == 1
    assert found(lines, "fail", "scope knowledge: knowledge is not a folder")


def test_a_scope_over_the_candidate_bound_fails_and_names_the_setting(
    diagnose: Callable[[], tuple[int, list[str]]], root: Path
) -> None:
    for number in range(1001):
        _place(root, "knowledge", f"n{number:04}.json", data=b"{}")

    code, lines = diagnose()

    assert code == 1
    assert found(
        lines,
        "fail",
        "scope knowledge: holds 1001 .json files, more than the candidate limit of 1000",
        "candidate_limit_exceeded",
        f"raise {LIMIT_VARIABLE} (or candidate_limit in config.toml) to at least 1001",
    )


def _nearly_full(root: Path, count: int) -> None:
    for number in range(count):
        _place(root, "knowledge", f"n{number:04}.json", data=b"{}")


def test_a_scope_above_80_percent_of_the_bound_warns_and_names_the_setting(
    diagnose: Callable[[], tuple[int, list[str]]], root: Path
) -> None:
    _nearly_full(root, 801)

    code, lines = diagnose()

    assert code == 1  # the junk files themselves are skipped, which fails
    assert found(
        lines,
        "warn",
        "scope knowledge: holds 801 .json files, 80% of the candidate limit of 1000",
        f"raise {LIMIT_VARIABLE} (or candidate_limit in config.toml)",
        "memory_list of one namespace counts only that namespace's files",
    )
    assert found(lines, "ok", f"candidate limit: 1000 (neither {LIMIT_VARIABLE} nor")


def test_a_scope_at_80_percent_of_the_bound_does_not_warn(
    diagnose: Callable[[], tuple[int, list[str]]], root: Path
) -> None:
    _nearly_full(root, 800)

    _, lines = diagnose()

    assert not found(lines, "warn", "of the candidate limit")


def test_the_warning_follows_the_limit_the_server_would_use(
    diagnose: Callable[[], tuple[int, list[str]]],
    root: Path,
    hermetic_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _nearly_full(root, 900)
    path = _settings(hermetic_home, b"[memory]\ncandidate_limit = 1200\n")

    _, from_file = diagnose()
    monkeypatch.setenv(LIMIT_VARIABLE, "1100")
    _, from_environment = diagnose()

    assert found(from_file, "ok", f"candidate limit: 1200 (candidate_limit = 1200 in {path})")
    assert not found(from_file, "warn", "of the candidate limit")
    assert found(from_environment, "ok", f"candidate limit: 1100 ({LIMIT_VARIABLE} in the")
    assert found(from_environment, "warn", "holds 900 .json files, 81% of the candidate limit")


def test_an_invalid_limit_variable_fails_without_its_value(
    diagnose: Callable[[], tuple[int, list[str]]], root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LIMIT_VARIABLE, "lots-7f3a")

    code, lines = diagnose()

    assert code == 1
    assert found(lines, "fail", f"{LIMIT_VARIABLE} must be a whole number", "will not start")
    assert not any("lots-7f3a" in line for line in lines)


def test_the_counts_and_skips_are_those_the_server_sees(
    diagnose: Callable[[], tuple[int, list[str]]],
    root: Path,
    mcp: Callable[..., McpClient],
    caplog: pytest.LogCaptureFixture,
) -> None:
    for _, arrange, _, _ in SKIPS:
        arrange(root)
    (root / LEGACY_PATH).write_text("{")

    _, lines = diagnose()
    client = mcp()
    caplog.set_level(logging.WARNING, logger="mymcp.memory.store")
    for scope in ("self", "preference", "project"):
        caplog.clear()
        listed = client.call("memory_list", {"scope": scope}).payload
        summary = next(line for line in lines if f" scope {scope}: " in line)
        assert f": {listed['page']['total_count']} valid record" in summary
        served = sorted(re.findall(r"reason='(\w+)'", caplog.text))
        doctored = sorted(re.findall(rf" {scope}/\S*: skipped \((\w+)\)", "\n".join(lines)))
        assert served == doctored, scope


# --- the port and the command ------------------------------------------------------------------


def test_a_port_taken_by_another_program_is_a_warning() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        out = io.StringIO()
        doctor.run(host="127.0.0.1", port=port, out=out)

    assert f"warn  port {port} on 127.0.0.1 is in use by another program" in out.getvalue()


def test_the_command_prints_the_findings_and_exits_1_on_a_failure(
    tmp_path: Path, hermetic_home: Path, root: Path
) -> None:
    (root / LEGACY_PATH).write_text("{,}")
    env = child_environment(hermetic_home, root)

    done = finished(mymcp_command("doctor", "--port", str(free_port())), env, timeout=60)

    assert done.returncode == 1
    assert f"fail  {LEGACY_PATH}: skipped (invalid_json): line 1, column 2" in done.stdout
    assert done.stdout.splitlines()[-1] == "doctor: 1 failed, 1 warning"
    assert done.stderr == ""
