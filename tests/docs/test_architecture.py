"""The storage table of docs/ARCHITECTURE.md names exactly the imports between those modules."""

from __future__ import annotations

import ast
import re

import pytest

from tests.docs.markdown import ROOT

STORAGE_ROOM = ROOT / "mymcp" / "plugins" / "mnemosyne" / "memory" / "storage"
STORAGE = tuple(sorted(path.stem for path in STORAGE_ROOM.glob("*.py") if path.stem != "__init__"))
PACKAGE = "mymcp.plugins.mnemosyne.memory.storage"
_ROW = re.compile(r"^\| `(\w+)\.py` \| .* \| (.*) \|$")


def _documented() -> dict[str, set[str]]:
    rows: dict[str, set[str]] = {}
    for line in (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8").splitlines():
        match = _ROW.match(line)
        if match and match.group(1) in STORAGE:
            rows[match.group(1)] = set(re.findall(r"`(\w+)\.py`", match.group(2)))
    return rows


def _imported(module: str) -> set[str]:
    tree = ast.parse((STORAGE_ROOM / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == PACKAGE:
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE + "."):
            found.add((node.module or "").rsplit(".", 1)[1])
    return found & set(STORAGE)


def test_the_storage_table_has_one_row_per_storage_module() -> None:
    assert sorted(_documented()) == sorted(STORAGE)


@pytest.mark.parametrize("module", STORAGE)
def test_each_storage_row_lists_exactly_what_the_module_imports(module: str) -> None:
    assert _documented()[module] == _imported(module)
