"""The MCP bundle: ``scripts/build-bundle`` packs it, the packer validates it, and, unpacked
into a temporary folder, it starts as a client would start it and serves the Tools.

A client substitutes ``${__dirname}`` (the unpacked folder), ``${HOME}`` and each
``${user_config.KEY}`` (a boolean as ``true`` or ``false``) in the manifest's ``mcp_config``
and runs its ``python`` command; here that ``python`` is a new virtual environment with no
packages at all, so the server can only work from what the bundle carries.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
import zipfile
from pathlib import Path
from typing import Any

import anyio
import pytest

from mymcp import settings
from mymcp.plugins.mnemosyne.configuration.gates import GATE_VARIABLES
from mymcp.plugins.mnemosyne.configuration.memory_root import ROOT_VARIABLE
from tests.helpers import remember_arguments
from tests.packaging.installs import PACKER, handshake, run, stdio_server, unavailable
from tests.processes import REPO_ROOT
from tests.surface import ALL_LISTED, READ_LISTED

pytestmark = pytest.mark.slow  # builds a wheel and a bundle, starts the bundled server

PLACEHOLDER = re.compile(r"\$\{([^}]+)\}")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory, wheel: Path, wheelhouse: Path) -> Path:
    """``scripts/build-bundle`` over the session's wheel, offline, with the local packer."""
    if not PACKER.is_file():
        unavailable(f"the MCP bundle packer is not set up in {PACKER.parents[2].name} (needs npm)")
    output = tmp_path_factory.mktemp("bundle")
    command: list[str | Path] = [sys.executable, REPO_ROOT / "scripts" / "build-bundle"]
    command += ["--wheel", wheel]
    command += ["--find-links", wheelhouse, "--no-index", "--output", output]
    printed = run(command, {"PATH": os.environ.get("PATH", os.defpath)}, output)
    return Path(printed.strip())


@pytest.fixture(scope="module")
def unpacked(bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("installed-bundle")
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(folder)
    return folder


@pytest.fixture(scope="module")
def manifest(unpacked: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((unpacked / "manifest.json").read_text())
    return document


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``python`` a client finds: a virtual environment with nothing installed."""
    folder = tmp_path_factory.mktemp("bare-python")
    venv.create(folder, with_pip=False)
    return folder / "bin" / "python"


def test_the_bundle_is_named_by_the_settings_version(
    bundle: Path, manifest: dict[str, Any]
) -> None:
    assert bundle.name == f"mymcp-{settings.SERVER_VERSION}.mcpb"
    assert (manifest["name"], manifest["version"]) == ("mymcp", settings.SERVER_VERSION)


def test_the_packer_validates_the_bundled_manifest(unpacked: Path) -> None:
    path = {"PATH": os.environ.get("PATH", os.defpath)}  # the packer is a Node.js script
    printed = run([PACKER, "validate", unpacked / "manifest.json"], path, unpacked)

    assert "passes" in printed


def test_the_manifest_starts_the_bundled_server_over_stdio(manifest: dict[str, Any]) -> None:
    server = manifest["server"]

    assert (server["type"], server["entry_point"]) == ("python", "server/main.py")
    assert server["mcp_config"]["command"] == "python"
    assert server["mcp_config"]["args"] == ["${__dirname}/server/main.py", "stdio"]
    assert server["mcp_config"]["env"]["PYTHONPATH"] == "${__dirname}/server/lib"


def test_each_user_setting_becomes_its_mnemosyne_variable(manifest: dict[str, Any]) -> None:
    env = manifest["server"]["mcp_config"]["env"]
    settings_of = {
        variable: PLACEHOLDER.fullmatch(value)[1]  # type: ignore[index]
        for variable, value in env.items()
        if variable.startswith("MNEMOSYNE_")
    }
    user_config = manifest["user_config"]
    gate_variables = {variable for variable, _ in GATE_VARIABLES}

    assert set(settings_of) == {ROOT_VARIABLE, *gate_variables}
    assert {f"user_config.{key}" for key in user_config} == set(settings_of.values())
    root = user_config[settings_of[ROOT_VARIABLE].split(".")[1]]
    assert (root["type"], root["default"]) == ("directory", "${HOME}/.mnemosyne/memory")
    for variable in gate_variables:
        gate = user_config[settings_of[variable].split(".")[1]]
        assert (gate["type"], gate["default"]) == ("boolean", False)


def test_the_manifest_lists_every_tool_and_the_python_it_was_built_for(
    manifest: dict[str, Any],
) -> None:
    python = f"{sys.version_info.major}.{sys.version_info.minor}"

    assert [entry["name"] for entry in manifest["tools"]] == list(ALL_LISTED)
    assert all(entry["description"] for entry in manifest["tools"])
    assert manifest["compatibility"]["platforms"] == [sys.platform]
    assert manifest["compatibility"]["runtimes"]["python"].startswith(f">={python},")


def test_the_bundle_carries_plain_uvicorn_and_stdnum_with_its_licence(unpacked: Path) -> None:
    lib = unpacked / "server" / "lib"
    names = {path.name for path in lib.iterdir()}

    assert {"mymcp", "fastapi", "uvicorn", "stdnum", "snowballstemmer"} <= names
    assert not {"uvloop", "httptools", "watchfiles", "websockets", "yaml"} & names
    assert list(lib.glob("python_stdnum-*.dist-info/licenses/COPYING"))
    assert not (lib / "bin").exists()


def _client_command(
    manifest: dict[str, Any], folder: Path, home: Path, python: Path, chosen: dict[str, Any]
) -> tuple[list[str], dict[str, str]]:
    """The command line and environment a client makes of ``mcp_config`` and the settings."""
    values = {"__dirname": str(folder), "HOME": str(home)}
    for key, entry in manifest["user_config"].items():
        value = chosen.get(key, entry.get("default", ""))
        value = json.dumps(value) if isinstance(value, bool) else str(value)
        values[f"user_config.{key}"] = PLACEHOLDER.sub(lambda found: values[found[1]], value)

    def substitute(text: str) -> str:
        return PLACEHOLDER.sub(lambda found: values[found[1]], text)

    config = manifest["server"]["mcp_config"]
    command = [str(python) if config["command"] == "python" else config["command"]]
    command += [substitute(argument) for argument in config["args"]]
    env = {key: substitute(value) for key, value in config["env"].items()}
    return command, {**env, "HOME": str(home), "PATH": os.defpath}


def test_the_unpacked_bundle_serves_the_read_tools_with_the_default_settings(
    manifest: dict[str, Any], unpacked: Path, bare_python: Path, tmp_path: Path
) -> None:
    command, env = _client_command(manifest, unpacked, tmp_path / "home", bare_python, {})

    report = anyio.run(handshake, stdio_server(command, env, tmp_path))

    assert report["serverInfo"] == {"name": "mymcp", "version": settings.SERVER_VERSION}
    assert report["tools"] == list(READ_LISTED)
    assert env[ROOT_VARIABLE] == str(tmp_path / "home" / ".mnemosyne" / "memory")


def test_the_unpacked_bundle_remembers_in_the_chosen_folder_and_recalls(
    manifest: dict[str, Any], unpacked: Path, bare_python: Path, tmp_path: Path
) -> None:
    chosen = {"memory_root": str(tmp_path / "notebook"), "remember": True}
    command, env = _client_command(manifest, unpacked, tmp_path / "home", bare_python, chosen)
    calls = [
        ("memory_remember", remember_arguments()),
        ("memory_recall", {"query": "memory ownership", "scope": "project"}),
    ]

    report = anyio.run(handshake, stdio_server(command, env, tmp_path), calls)

    remembered, recalled = report["results"]
    assert report["tools"] == [*READ_LISTED, "memory_remember"]
    assert remembered["structured"]["status"] == "remembered"
    assert recalled["structured"]["memories"][0]["content"] == remember_arguments()["content"]
    assert list((tmp_path / "notebook").rglob("*.json"))
    assert not (tmp_path / "home" / ".mnemosyne").exists()


def test_build_bundle_says_in_one_line_when_a_step_fails(tmp_path: Path) -> None:
    missing = tmp_path / "no-such.whl"
    done = subprocess.run(
        [
            sys.executable,
            REPO_ROOT / "scripts" / "build-bundle",
            "--wheel",
            missing,
            "--find-links",
            tmp_path,
            "--no-index",
            "--output",
            tmp_path,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 1
    assert done.stderr.startswith("scripts/build-bundle: installing MyMCP into server/lib failed")
    assert "Traceback" not in done.stderr
    assert not list(tmp_path.glob("*.mcpb"))
