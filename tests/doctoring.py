"""What the ``mymcp doctor`` tests share: a private seeded root, and runs that change nothing."""

from __future__ import annotations

import io
import os
from pathlib import Path

from mymcp import doctor
from tests.clients.scenario import seed_memory_root
from tests.processes import free_port

TreeState = dict[str, tuple[int, int, int, bytes | None]]


def private_root(memory_root: Path) -> Path:
    """The seeded sample notebook, private to its owner as MyMCP creates a root."""
    seed_memory_root(memory_root)
    os.chmod(memory_root, 0o700)
    return memory_root


def tree_state(*paths: Path) -> TreeState:
    """Every entry below ``paths``: mode, size, mtime and (for files) content."""
    state: TreeState = {}
    for base in paths:
        if not os.path.lexists(base):
            continue
        for current, dirs, files in os.walk(base):
            for name in ["", *dirs, *files]:
                entry = Path(current, name)
                info = entry.lstat()
                content = entry.read_bytes() if entry.is_file() and not entry.is_symlink() else None
                state[str(entry)] = (info.st_mode, info.st_size, info.st_mtime_ns, content)
    return state


def run_unchanged(watched: Path) -> tuple[int, list[str]]:
    """Run the doctor in process on a free port; check nothing below ``watched`` changed.

    Returns its exit code and every line it printed, the summary line last.
    """
    before = tree_state(watched)
    out = io.StringIO()
    code = doctor.run(host="127.0.0.1", port=free_port(), out=out)
    assert tree_state(watched) == before
    return code, out.getvalue().splitlines()


def found(lines: list[str], level: str, *fragments: str) -> list[str]:
    """The lines of ``level`` that hold every fragment."""
    return [
        line for line in lines if line.startswith(f"{level} ") and all(f in line for f in fragments)
    ]
