"""A real, small tmpfs for tests of full and read-only filesystems (root and ``mount`` only).

:func:`small_tmpfs` mounts one at a directory and always unmounts it again, also when the
test fails; it skips the test, with the reason, where mounting is not allowed.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

_CHUNKS = (1 << 20, 1 << 12, 1)


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)


@contextmanager
def small_tmpfs(where: Path, *, size: str = "2m", inodes: int = 400) -> Iterator[Path]:
    """Mount a tmpfs of ``size`` bytes and ``inodes`` inodes at ``where`` for the block."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root and the mount command")
    where.mkdir(parents=True, exist_ok=True)
    options = f"size={size},nr_inodes={inodes},mode=0700"
    done = _run("mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where))
    if done.returncode != 0:
        pytest.skip(f"mount is not allowed here: {done.stderr.strip() or done.returncode}")
    try:
        yield where
    finally:
        if _run("umount", str(where)).returncode != 0:
            _run("umount", "-l", str(where))


def remount(where: Path, mode: str) -> None:
    """Remount the tmpfs at ``where`` ``ro`` or ``rw``."""
    done = _run("mount", "-o", f"remount,{mode}", str(where))
    assert done.returncode == 0, done.stderr


def fill_bytes(where: Path) -> Path:
    """Write one file at ``where`` until not a single byte more fits; return it."""
    filler = where / "filler"
    with open(filler, "wb", buffering=0) as out:
        for chunk in _CHUNKS:
            block = b"\0" * chunk
            while True:
                try:
                    out.write(block)
                except OSError as error:
                    assert error.errno == errno.ENOSPC, error
                    break
    return filler


def fill_inodes(where: Path) -> Path:
    """Create empty files in a new folder at ``where`` until no inode is left; return it."""
    folder = where / "inodes"
    folder.mkdir()
    for number in range(1 << 20):
        try:
            (folder / str(number)).touch()
        except OSError as error:
            assert error.errno == errno.ENOSPC, error
            return folder
    raise AssertionError("the tmpfs never ran out of inodes")
