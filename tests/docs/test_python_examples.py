"""Every Python block marked ``<!-- run python -->`` in the documentation runs as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.markdown import DOCUMENTS, Block, blocks

PYTHON_EXAMPLES = [
    block for document in DOCUMENTS for block in blocks(document) if block.marker == "run python"
]


def test_the_integration_guide_has_a_runnable_example() -> None:
    assert any(block.document.name == "INTEGRATING.md" for block in PYTHON_EXAMPLES)


@pytest.mark.parametrize("block", PYTHON_EXAMPLES, ids=[block.where for block in PYTHON_EXAMPLES])
def test_a_documented_python_example_runs(block: Block, memory_root: Path) -> None:
    assert block.lang == "python", f"{block.where}: a runnable block must be Python"
    code = compile(block.text, block.where, "exec")
    exec(code, {"__name__": "__doc_example__"})  # noqa: S102 - our own documentation
    assert not memory_root.exists(), "reading must not create the memory root"
