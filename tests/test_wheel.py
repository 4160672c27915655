"""The built wheel ships its data files byte for byte and declares the three console scripts."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds a wheel

REPO = Path(__file__).resolve().parent.parent
MANIFEST = "mymcp/plugins/mnemosyne/manifest.json"
WORD_LIST = "mymcp/plugins/mnemosyne/memory/policy/bip39-english.txt"
POLICY_DATA = ["mymcp/plugins/mnemosyne/memory/policy/rules.toml"]


def test_the_wheel_carries_the_manifest_and_the_entry_points(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            # The test extra holds the build backend: no index is needed, so this runs offline.
            "--no-build-isolation",
            "--quiet",
            "-w",
            str(tmp_path),
            str(REPO),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("mymcp-0.2.0-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read(MANIFEST) == (REPO / MANIFEST).read_bytes()
        assert archive.read(WORD_LIST) == (REPO / WORD_LIST).read_bytes()
        for data in POLICY_DATA:
            assert archive.read(data) == (REPO / data).read_bytes()
        (entry_points,) = [name for name in archive.namelist() if name.endswith("entry_points.txt")]
        scripts = archive.read(entry_points).decode()
    assert "mymcp = mymcp.cli:main" in scripts
    assert "mymcp-dev = mymcp.cli:dev" in scripts
    assert "mymcp-test = mymcp.cli:test" in scripts
