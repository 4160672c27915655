"""``bench/storage_faults.py``: five real storage faults against ``mymcp serve`` (root only)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.processes import REPO_ROOT

pytestmark = pytest.mark.slow  # mounts a tmpfs, starts a server and attaches strace


def test_five_real_faults_lose_nothing_and_every_error_line_names_its_cause() -> None:
    if os.geteuid() != 0:
        pytest.skip("the fault script mounts a tmpfs and attaches strace: it needs root")
    missing = [tool for tool in ("mount", "umount", "strace") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the fault script needs {', '.join(missing)}")

    done = subprocess.run(
        [sys.executable, "bench/storage_faults.py", "--rounds", "1"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )

    if done.returncode == 2:  # the script could not set up: it says why
        pytest.skip(done.stderr.strip())
    assert done.returncode == 0, done.stdout + done.stderr
    rows = done.stdout.splitlines()[1:6]
    assert [row.split("  ")[0].strip() for row in rows] == [
        "full", "no inodes", "read-only", "fsync EIO", "link/rename EIO",
    ]  # fmt: skip
    assert "mymcp doctor while full:\n  fail  " in done.stdout
    assert "is mounted read-only" in done.stdout
