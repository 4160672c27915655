"""``scripts/ensure-venv``: install only when needed, say what happens, rebuild an old .venv.

The script runs in a scratch copy of the repository with a stand-in interpreter that
records every ``pip`` call instead of installing anything, and can pretend to be too old.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import REPO_ROOT

pytestmark = pytest.mark.slow  # runs the shell scripts

STAND_IN = """#!/usr/bin/env bash
here=$(cd "$(dirname "$0")" && pwd)
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then
    echo "pip ${*:3}" >> "$PIP_LOG"
    exit 0
fi
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
    mkdir -p "$3/bin" && cp "$0" "$3/bin/python"
    exit 0
fi
if [ -e "$here/too-old" ] && [ "$1" = "-c" ]; then
    case "$2" in
        *version_info*) exit 1 ;;
        *python_version*) echo 3.9.18; exit 0 ;;
    esac
fi
exec REAL_PYTHON "$@"
"""


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A scratch repository: the script, pyproject.toml and a stand-in python3 on PATH."""
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy2(REPO_ROOT / "scripts" / "ensure-venv", repo / "scripts" / "ensure-venv")
    shutil.copy2(REPO_ROOT / "pyproject.toml", repo / "pyproject.toml")
    tools = tmp_path / "bin"
    tools.mkdir()
    stand_in = tools / "python3"
    stand_in.write_text(STAND_IN.replace("REAL_PYTHON", sys.executable))
    stand_in.chmod(0o755)
    return repo


def ensure(repo: Path, *arguments: str, **env: str) -> tuple[int, str, list[str]]:
    """Run the script; its exit code, what it printed and the pip calls it made."""
    log = repo.parent / "pip.log"
    log.unlink(missing_ok=True)
    environment = {
        "PATH": f"{repo.parent / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "PIP_LOG": str(log),
        "HOME": str(repo.parent),
        # pip must not be needed: an index that cannot be reached.
        "PIP_INDEX_URL": "http://127.0.0.1:9/",
        "PIP_NO_INDEX": "1",
        **env,
    }
    done = subprocess.run(
        ["bash", "scripts/ensure-venv", *arguments],
        cwd=repo,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    calls = log.read_text().splitlines() if log.exists() else []
    return done.returncode, done.stdout + done.stderr, calls


def test_a_first_run_creates_the_venv_installs_and_says_so(checkout: Path) -> None:
    code, said, calls = ensure(checkout, "test")

    assert code == 0, said
    assert "Creating .venv with Python" in said
    assert "Installing MyMCP with its test tools" in said
    assert len(calls) == 1 and calls[0].endswith("-e .[test]")
    assert (checkout / ".venv" / ".mymcp-install").is_file()


def test_a_ready_venv_installs_nothing_and_prints_nothing(checkout: Path) -> None:
    ensure(checkout, "test")

    assert ensure(checkout, "test") == (0, "", [])
    assert ensure(checkout) == (0, "", [])  # serve needs less than test installed


def test_a_changed_pyproject_installs_again_keeping_the_test_extra(checkout: Path) -> None:
    ensure(checkout, "test")
    pyproject = checkout / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n# changed\n")

    code, said, calls = ensure(checkout)

    assert code == 0
    assert "Installing" in said
    assert len(calls) == 1 and calls[0].endswith("-e .[test]")
    assert ensure(checkout, "test") == (0, "", [])


def test_serve_first_then_test_adds_the_test_extra(checkout: Path) -> None:
    ensure(checkout)
    code, said, calls = ensure(checkout, "test")

    assert code == 0
    assert len(calls) == 1 and calls[0].endswith("-e .[test]")


def test_a_venv_made_by_an_old_python_is_rebuilt_with_a_message(checkout: Path) -> None:
    ensure(checkout, "test")
    (checkout / ".venv" / "bin" / "too-old").touch()

    code, said, calls = ensure(checkout, "test")

    assert code == 0, said
    assert ".venv was made by Python 3.9.18, which is too old for MyMCP" in said
    assert "Creating .venv" in said
    assert len(calls) == 1
    assert not (checkout / ".venv" / "bin" / "too-old").exists()


def test_a_too_old_interpreter_is_refused_with_what_to_do(checkout: Path) -> None:
    (checkout.parent / "bin" / "too-old").touch()

    code, said, calls = ensure(checkout)

    assert code == 1
    assert "python3 is Python 3.9.18; MyMCP needs 3.11 or newer" in said
    assert "PYTHON=python3.12" in said
    assert calls == [] and not (checkout / ".venv").exists()


def test_the_scripts_use_it() -> None:
    serve = (REPO_ROOT / "scripts" / "serve").read_text()
    test = (REPO_ROOT / "scripts" / "test").read_text()

    assert "scripts/ensure-venv\n" in serve and "pip install" not in serve
    assert "scripts/ensure-venv test\n" in test and "pip install" not in test
    for step in ("ruff check mymcp tests bench scripts", "mypy mymcp", "mymcp-test"):
        assert step in test
