"""The built wheel holds every file of the package and declares the three console scripts."""

from __future__ import annotations

import email.parser
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from mymcp import settings
from tests.processes import REPO_ROOT

pytestmark = pytest.mark.slow  # builds a wheel


def tracked_package_files() -> list[str]:
    """Every file under mymcp/ that git tracks (every file there, outside a git checkout)."""
    if (REPO_ROOT / ".git").exists() and shutil.which("git"):
        listed = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "ls-files", "mymcp"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        return [name for name in listed if (REPO_ROOT / name).is_file()]
    return [
        path.relative_to(REPO_ROOT).as_posix()
        for path in (REPO_ROOT / "mymcp").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    ]


def test_every_data_file_under_mymcp_is_in_the_wheel_byte_for_byte(wheel: Path) -> None:
    data = [name for name in tracked_package_files() if not name.endswith(".py")]
    with zipfile.ZipFile(wheel) as archive:
        missing = sorted(set(data) - set(archive.namelist()))
        changed = [
            name
            for name in data
            if name not in missing and archive.read(name) != (REPO_ROOT / name).read_bytes()
        ]

    assert "mymcp/plugins/mnemosyne/manifest.json" in data
    assert (missing, changed) == ([], [])


def test_every_module_is_in_the_wheel_and_nothing_else_is(wheel: Path) -> None:
    modules = {name for name in tracked_package_files() if name.endswith(".py")}
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()

    assert modules <= set(names)
    assert {name.split("/")[0] for name in names} == {
        "mymcp",
        f"mymcp-{settings.SERVER_VERSION}.dist-info",
    }
    assert not [name for name in names if name.endswith(".pyc") or "__pycache__" in name]


def test_the_wheel_names_the_settings_version_and_the_entry_points(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        [metadata] = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
        headers = email.parser.BytesParser().parsebytes(archive.read(metadata))
        [entry_points] = [name for name in archive.namelist() if name.endswith("entry_points.txt")]
        scripts = archive.read(entry_points).decode()

    assert wheel.name == f"mymcp-{settings.SERVER_VERSION}-py3-none-any.whl"
    assert (headers["Name"], headers["Version"]) == ("mymcp", settings.SERVER_VERSION)
    assert "mymcp = mymcp.cli:main" in scripts
    assert "mymcp-dev = mymcp.cli:dev" in scripts
    assert "mymcp-test = mymcp.cli:test" in scripts
