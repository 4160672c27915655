"""The documented examples are real: every call answers its documented result.

Each example runs against a fresh production app with every gate on, over a memory root
seeded with the documented sample notebook (the ``<!-- record ... -->`` blocks).
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mymcp.plugins.mnemosyne.configuration.gates import (
    LIMIT_VARIABLE,
    load_mutation_settings,
    load_settings,
)
from mymcp.plugins.mnemosyne.configuration.settings_file import SETTINGS_ERROR_MESSAGES
from mymcp.plugins.mnemosyne.memory.model.records import (
    CanonicalRecord,
    canonical_relative_parts,
    parse_record_bytes,
)
from tests.docs.markdown import DOCUMENTS, ROOT, Block, blocks, matches
from tests.helpers import McpClient
from tests.surface import GATE_OF

README = ROOT / "README.md"
ALL_GATES = {"remember": True, "revise": True, "archive_restore": True, "forget": True}


@dataclass(frozen=True)
class Example:
    tool: str
    call: Block
    result: Block

    @property
    def id(self) -> str:
        return f"{self.call.where}:{self.tool}"


def _examples() -> list[Example]:
    found: list[Example] = []
    for document in DOCUMENTS:
        pending: Block | None = None
        for block in blocks(document):
            marker = block.marker or ""
            if marker.startswith("call "):
                assert pending is None, f"{pending.where}: call without a result"
                pending = block
            elif marker == "result":
                assert pending is not None, f"{block.where}: result without a call"
                found.append(Example(pending.marker.split()[1], pending, block))  # type: ignore[union-attr]
                pending = None
        assert pending is None, f"{pending.where}: call without a result"
    return found


def _records() -> dict[str, Block]:
    found: dict[str, Block] = {}
    for document in DOCUMENTS:
        for block in blocks(document):
            if block.marker and block.marker.startswith("record "):
                path = block.marker.split(maxsplit=1)[1]
                assert found.get(path, block).text == block.text, f"{block.where}: differs"
                found[path] = block
    return found


EXAMPLES = _examples()
RECORDS = _records()


def _seed(root: Path) -> None:
    for path, block in RECORDS.items():
        target = root.joinpath(*path.split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.text, encoding="utf-8")


def _ordered(text: str) -> Any:
    return json.loads(text)  # dicts keep the document's key order


@pytest.fixture
def documented_app(mcp: Callable[..., McpClient], memory_root: Path) -> McpClient:
    _seed(memory_root)
    return mcp(**ALL_GATES)


def test_the_readme_shows_one_call_of_every_tool(documented_app: McpClient) -> None:
    shown = [example.tool for example in EXAMPLES if example.call.document == README]

    assert sorted(shown) == sorted(documented_app.tool_names())


def test_the_readme_tool_table_is_in_tools_list_order(documented_app: McpClient) -> None:
    section = README.read_text(encoding="utf-8").split("## Tools", 1)[1].split("\n\n")[1]
    rows = re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE)

    assert rows == documented_app.tool_names()


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda example: example.id)
def test_documented_call_gives_documented_result(
    example: Example, documented_app: McpClient
) -> None:
    arguments = _ordered(example.call.text)
    expected = _ordered(example.result.text)

    response = documented_app.rpc("tools/call", {"name": example.tool, "arguments": arguments})

    result = response["result"]
    if "content" in expected:  # the whole MCP result (list_tools answers plain text)
        assert matches(expected, result), result
        return
    structured = result["structuredContent"]
    assert json.loads(result["content"][0]["text"]) == structured
    assert result.get("isError", False) is ("code" in expected)
    assert matches(expected, structured), structured


@pytest.mark.parametrize("path", sorted(RECORDS))
def test_documented_record_is_valid_where_it_is_placed(path: str) -> None:
    record = parse_record_bytes(RECORDS[path].text.encode("utf-8"))

    if isinstance(record, CanonicalRecord):
        collection = None if record.collection is None else record.collection.id
        parts = canonical_relative_parts(record.scope, record.namespace.id, collection, record.id)
        assert "/".join(parts) == path
    else:
        assert path.split("/")[0] in {"self", "relationship", "preference", "practice"} | {
            "project",
            "knowledge",
        }


def test_the_sample_notebook_tree_lists_the_documented_records() -> None:
    text = README.read_text(encoding="utf-8")
    for path in RECORDS:
        assert Path(path).name in text


def _documented_permissions() -> list[tuple[str, str]]:
    section = README.read_text(encoding="utf-8").split("### OpenCode", 1)[1]
    rules: list[tuple[str, str]] = []
    for row in re.findall(r"^\| \d+ \| (.+?) \| `(\w+)` \|", section, flags=re.MULTILINE):
        rules += [(name, row[1]) for name in re.findall(r"`([^`]+)`", row[0])]
    return rules


def test_the_documented_opencode_rules_are_the_repository_rules() -> None:
    config = json.loads((ROOT / "opencode.json").read_text(encoding="utf-8"))
    documented = _documented_permissions()

    assert documented == list(config["permission"].items())
    assert documented == list(config["agent"]["mymcp"]["permission"].items())
    assert config["mcp"]["mymcp"]["url"] == "http://127.0.0.1:8000/mcp"
    assert f"`{config['mcp']['mymcp']['url']}`" in README.read_text(encoding="utf-8")


def test_documented_settings_files_are_accepted(tmp_path: Path) -> None:
    examples = [block for block in blocks(README) if block.lang == "toml"]
    assert examples
    for block in examples:
        directory = tmp_path / block.where.replace("/", "_") / ".mnemosyne"
        directory.mkdir(parents=True, mode=0o700)
        settings = directory / "config.toml"
        settings.write_text(block.text, encoding="utf-8")
        os.chmod(settings, 0o600)

        loaded = load_settings(environ={}, home=directory.parent)

        written = re.findall(r"^(\w+) = (true|false)$", block.text, flags=re.MULTILINE)
        assert {key: loaded.gates.enabled(key) for key, _ in written} == {
            key: value == "true" for key, value in written
        }
        limit = re.findall(r"^candidate_limit = ([\d_]+)$", block.text, flags=re.MULTILINE)
        assert loaded.candidate_limit == int(limit[0] if limit else "1000")


def test_the_settings_failure_table_quotes_every_message_exactly() -> None:
    quoted = set(re.findall(r"`(Mnemosyne settings [^`]*)`", README.read_text(encoding="utf-8")))

    assert quoted == set(SETTINGS_ERROR_MESSAGES.values())


def test_the_gate_failure_message_is_quoted_exactly() -> None:
    with pytest.raises(ValueError) as raised:
        load_mutation_settings(environ={GATE_OF["forget"]: "1"})
    documented = str(raised.value).replace(GATE_OF["forget"], "<VARIABLE>")

    assert f"`{documented}`" in README.read_text(encoding="utf-8")


def test_the_limit_failure_message_is_quoted_exactly() -> None:
    with pytest.raises(ValueError) as raised:
        load_settings(environ={LIMIT_VARIABLE: "lots"})

    assert f"`{raised.value}`" in README.read_text(encoding="utf-8")


def _shell_blocks() -> Iterator[Block]:
    """Every shell block of the documents."""
    for document in DOCUMENTS:
        yield from (block for block in blocks(document) if block.lang in {"sh", "bash", "console"})


def test_documented_endpoint_answers_are_real(mcp: Callable[..., McpClient]) -> None:
    """A ``# {...}`` comment after a ``curl`` of an endpoint shows that endpoint's answer."""
    client = mcp()
    checked = 0
    for block in _shell_blocks():
        last_get: str | None = None
        for line in block.text.splitlines():
            stripped = line.strip()
            if stripped.startswith("curl "):
                words = shlex.split(stripped.rstrip("\\"))
                urls = [word for word in words if word.startswith("http")]
                plain_get = not stripped.endswith("\\") and "-d" not in words
                last_get = urls[0] if urls and plain_get else None
            elif stripped.startswith("# {") and last_get is not None:
                path = "/" + last_get.split("/", 3)[3]
                assert client.http.get(path).json() == json.loads(stripped[2:]), block.where
                checked += 1
    assert checked


def _curl_posts(block: Block) -> list[tuple[dict[str, str], str, str]]:
    """(headers, body, shown answer) of each ``curl … -d`` followed by a ``# {…}`` line."""
    found: list[tuple[dict[str, str], str, str]] = []
    command = ""
    for line in block.text.splitlines():
        stripped = line.strip()
        if stripped.startswith("curl ") or command.endswith("\\"):
            command = command.rstrip("\\") + " " + stripped if command else stripped
            continue
        if stripped.startswith("# {") and "-d" in (words := shlex.split(command.rstrip("\\"))):
            pairs = [words[i + 1].split(":", 1) for i, word in enumerate(words) if word == "-H"]
            headers = {name.strip(): value.strip() for name, value in pairs}
            found.append((headers, words[words.index("-d") + 1], stripped[2:]))
        command = ""
    return found


def test_documented_mcp_requests_answer_as_shown(mcp: Callable[..., McpClient]) -> None:
    """A ``# {...}`` line after a ``curl … -d`` to ``/mcp`` shows that request's answer."""
    client = mcp()
    checked = 0
    for block in _shell_blocks():
        for headers, body, shown in _curl_posts(block):
            response = client.http.post("/mcp", content=body, headers=headers)
            assert matches(_ordered(shown), response.json()), block.where
            checked += 1
    assert checked
