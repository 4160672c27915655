"""The built wheel and the wheelhouse, once per session, for the install and bundle tests."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.packaging.installs import (
    BASE_PYTHON,
    WHEELHOUSE,
    installer_environment,
    run,
    tool,
    unavailable,
)
from tests.processes import REPO_ROOT


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """MyMCP's wheel, built by ``scripts/build-wheel`` from the repository's files, offline."""
    output = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "build-wheel"), "--output", str(output)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return Path(done.stdout.strip())


@pytest.fixture(scope="session")
def wheelhouse() -> Path:
    """``.venv/wheelhouse``, holding the wheels of today's runtime dependencies."""
    with (REPO_ROOT / "pyproject.toml").open("rb") as handle:
        wanted = tomllib.load(handle)["project"]["dependencies"]
    stamp = WHEELHOUSE / ".requirements"
    if not stamp.is_file() or stamp.read_text().split("\n")[:-1] != wanted:
        unavailable(f"the dependency wheels are not set up in {WHEELHOUSE.name}")
    return WHEELHOUSE


@pytest.fixture(scope="session")
def uv_tool(
    tmp_path_factory: pytest.TempPathFactory, wheel: Path, wheelhouse: Path
) -> dict[str, Path]:
    """``uv tool install <wheel>``: where its commands and its environment are."""
    scratch = tmp_path_factory.mktemp("uv-tool")
    env = installer_environment(scratch)
    run([tool("uv"), "tool", "install", "--python", BASE_PYTHON, wheel], env, scratch)
    return {"bin": scratch / "uv-bin", "venv": scratch / "uv-tools" / "mymcp", "scratch": scratch}
