"""Everything the documentation names exists: variables, Tools, codes, commands, links."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import shlex
import tomllib
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from mymcp import cli, settings
from mymcp.plugins.mnemosyne.memory.model import errors
from mymcp.plugins.mnemosyne.memory.model.vocabulary import SCOPE_RULES
from mymcp.plugins.mnemosyne.memory.services import lifecycle, remember, revise
from mymcp.plugins.mnemosyne.plugin import DECLARED_TOOLS
from mymcp.transports import http
from tests.docs.markdown import DOCUMENTS, ROOT, anchors, blocks, prose
from tests.helpers import McpClient

DOCS_IDS = [str(document.relative_to(ROOT)) for document in DOCUMENTS]
SHELL = {"sh", "bash", "console", "shell"}
ENDPOINTS = {"/mcp", "/health", "/version"}
# The methods of the handshake revisions and, since issue 14, server/discover of 2026-07-28.
JSON_RPC_METHODS = {"initialize", "ping", "tools/list", "tools/call", "server/discover"}
# Words of the form memory_<word> that are log fields, not Tools.
NOT_TOOLS = {"memory_id", "memory_kind", "memory_root"}

_VARIABLE = re.compile(r"\b(?:MNEMOSYNE|MYMCP)_[A-Z0-9_]*[A-Z0-9]\b(?!\.md)")
_TOOL = re.compile(r"\b(?:list_tools|memory_[a-z]+)\b")
_OPENCODE_TOOL = re.compile(r"\bmymcp_([a-z_]+)\b")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=")


def _text(document: Path) -> str:
    return document.read_text(encoding="utf-8")


def _source_text(*folders: str) -> str:
    return "\n".join(
        path.read_text(encoding="utf-8", errors="replace")
        for folder in folders
        for path in sorted((ROOT / folder).rglob("*"))
        if path.is_file() and path.suffix in {".py", ""}
    )


PACKAGE_SOURCE = _source_text("mymcp")
SCRIPTS_SOURCE = _source_text("scripts")


# --- environment variables --------------------------------------------------------------


@pytest.mark.parametrize("document", DOCUMENTS, ids=DOCS_IDS)
def test_every_documented_variable_exists_in_the_code(document: Path) -> None:
    named = set(_VARIABLE.findall(_text(document)))
    known = set(_VARIABLE.findall(PACKAGE_SOURCE))

    assert named <= known, sorted(named - known)


def test_every_variable_the_code_reads_is_documented_in_the_readme() -> None:
    from mymcp.plugins.mnemosyne.configuration.gates import GATE_VARIABLES, LIMIT_VARIABLE
    from mymcp.plugins.mnemosyne.configuration.memory_root import ROOT_VARIABLE

    variables = {variable for variable, _ in GATE_VARIABLES}
    variables |= {
        ROOT_VARIABLE,
        LIMIT_VARIABLE,
        http.ALLOWED_HOSTS_VARIABLE,
        http.ALLOWED_ORIGINS_VARIABLE,
    }
    readme = _text(ROOT / "README.md")

    assert {variable for variable in variables if f"`{variable}`" not in readme} == set()


# --- Tool names, statuses and codes ------------------------------------------------------


@pytest.fixture
def served_tools(mcp: Callable[..., McpClient]) -> set[str]:
    return set(mcp(remember=True, revise=True, archive_restore=True, forget=True).tool_names())


@pytest.mark.parametrize("document", DOCUMENTS, ids=DOCS_IDS)
def test_every_tool_name_mentioned_is_served(document: Path, served_tools: set[str]) -> None:
    text = _text(document)
    named = set(_TOOL.findall(text)) - NOT_TOOLS
    named |= set(_OPENCODE_TOOL.findall(text))

    assert named <= served_tools, sorted(named - served_tools)


def _error_codes() -> set[str]:
    codes = {"internal_error", "disallowed_content"}
    for tool in DECLARED_TOOLS:
        codes.update(tool.messages)
    return codes


def _statuses() -> set[str]:
    classes: list[type[errors.MnemosyneError]] = [
        errors.MnemosyneError,
        *_subclasses(errors.MnemosyneError),
    ]
    statuses = {cls.status for cls in classes} | {"retrieval_error", "ok", "no_matches"}
    statuses |= {remember.REMEMBERED, remember.ALREADY_EXISTS, remember.EXISTING_ARCHIVED}
    statuses |= {revise.REVISED, revise.ALREADY_CURRENT, "forgotten"}
    statuses |= {lifecycle.ARCHIVED, lifecycle.ALREADY_ARCHIVED}
    statuses |= {lifecycle.RESTORED, lifecycle.ALREADY_ACTIVE}
    return statuses


def _subclasses(cls: type[errors.MnemosyneError]) -> list[type[errors.MnemosyneError]]:
    found: list[type[errors.MnemosyneError]] = []
    for subclass in cls.__subclasses__():
        found += [subclass, *_subclasses(subclass)]
    return found


def test_the_manual_explains_every_status_and_code() -> None:
    manual = _text(ROOT / "docs" / "MANUAL.md")
    missing = {word for word in _error_codes() | _statuses() if f"`{word}`" not in manual}

    assert missing == set()


def test_the_manual_names_the_five_refusal_reasons() -> None:
    from mymcp.plugins.mnemosyne.memory.policy import REASONS

    manual = _text(ROOT / "docs" / "MANUAL.md")

    assert [reason for reason in REASONS if f"`{reason}`" not in manual] == []


def test_the_glossary_scope_table_matches_the_vocabulary() -> None:
    glossary = _text(ROOT / "docs" / "GLOSSARY.md").split("## Scopes", 1)[1]
    for scope, rule in SCOPE_RULES.items():
        line = next(line for line in glossary.splitlines() if line.startswith(f"- **`{scope}`**"))
        segments = [segment.strip() for segment in line.split(";")]
        namespace = next(segment for segment in segments if segment.startswith("namespace kind"))
        kinds = next(segment for segment in segments if segment.startswith("kind"))

        assert re.findall(r"`([a-z_]+)`", namespace) == list(map(str, rule.namespace_kinds))
        assert re.findall(r"`([a-z_]+)`", kinds) == list(map(str, rule.memory_kinds))


# --- commands ----------------------------------------------------------------------------


def _console_scripts() -> set[str]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return set(pyproject["project"]["scripts"])


CONSOLE_SCRIPTS = _console_scripts()


def _commands() -> list[tuple[str, list[str]]]:
    """Every command of every shell block: (where, words), with continuation lines joined."""
    found: list[tuple[str, list[str]]] = []
    for document in DOCUMENTS:
        for block in blocks(document):
            if block.lang not in SHELL:
                continue
            logical = block.text.replace("\\\n", " ")
            for line in logical.splitlines():
                words = shlex.split(line.lstrip("$ "), comments=True)
                current: list[str] = []
                for word in [*words, ";"]:
                    if word in {"&&", "||", "|", ";"}:
                        if current:
                            found.append((block.where, current))
                        current = []
                    else:
                        current.append(word)
    return found


COMMANDS = _commands()


def _check_assignment(name: str) -> None:
    known = PACKAGE_SOURCE + SCRIPTS_SOURCE
    assert re.search(rf"\b{re.escape(name)}\b", known), f"unknown variable {name}"


def _check_python(arguments: list[str]) -> None:
    if arguments[0] == "-c":
        compile(arguments[1], "<documented>", "exec")
    elif arguments[0] == "-m":
        module = arguments[1]
        assert importlib.util.find_spec(module) is not None, module
        if module == "uvicorn":
            assert "--factory" in arguments
            target = next(word for word in arguments[2:] if ":" in word and word[0] != "-")
            module_name, attribute = target.split(":")
            assert callable(getattr(importlib.import_module(module_name), attribute))
    else:
        assert (ROOT / arguments[0]).is_file(), arguments[0]


def _check_url(url: str) -> None:
    parts = urlsplit(url)
    assert (parts.hostname, parts.port) == ("127.0.0.1", 8000), url
    assert parts.path in ENDPOINTS, url


def _check_curl(arguments: list[str], tools: set[str]) -> None:
    urls = [word for word in arguments if word.startswith("http")]
    assert len(urls) == 1
    _check_url(urls[0])
    if "-d" in arguments:
        message = json.loads(arguments[arguments.index("-d") + 1])
        assert message["method"] in JSON_RPC_METHODS
        if message["method"] == "tools/call":
            assert message["params"]["name"] in tools


# The only npm packages the documentation may install or run.
NPM_PACKAGES = {"opencode-ai", "@modelcontextprotocol/inspector"}


def _check_npx(arguments: list[str]) -> None:
    if arguments[0] == "-y":
        arguments = arguments[1:]
    package = arguments[0]
    assert package in NPM_PACKAGES, package
    if package == "opencode-ai":
        assert arguments[1] in {"mcp", "run"}
        assert (ROOT / "opencode.json").is_file()
        return
    assert "--cli" in arguments
    rest = arguments[arguments.index("--cli") + 1 :]
    while rest[0] == "-e":
        _check_gate_assignment(rest[1])
        rest = rest[2:]
    if rest[0].startswith("http"):
        _check_url(rest[0])
        if "--header" in rest:
            at = rest.index("--header")
            _check_token_header(rest[at : at + 2])
    else:
        end = rest.index("--method") if "--method" in rest else len(rest)
        _check_mymcp_command(rest[:end])


def _check_npm(arguments: list[str]) -> None:
    assert arguments[0] in {"i", "install"}, arguments
    assert set(arguments[1:]) <= NPM_PACKAGES, arguments


def _check_gate_assignment(assignment: str) -> None:
    name, _, value = assignment.partition("=")
    assert value in {"true", "false"}, assignment
    _check_assignment(name)
    assert name.startswith("MNEMOSYNE_MEMORY_") and name.endswith("_ENABLED"), name


def _check_mymcp_command(words: list[str]) -> None:
    """``mymcp`` of a ``.venv`` (or ``uvx mymcp``) and arguments its command line accepts."""
    program, arguments = words[0], words[1:]
    if program == "uvx":
        _check_uvx(arguments)
        return
    assert program.endswith(".venv/bin/mymcp"), program
    _parses(cli.parse_arguments, arguments)


# The wheel that scripts/build-wheel writes, as the documentation names it.
WHEEL = f"./dist/mymcp-{settings.SERVER_VERSION}-py3-none-any.whl"


def _check_uvx(arguments: list[str]) -> None:
    """``uvx [--from WHEEL] mymcp[@latest] ARGS``: the package or the built wheel."""
    if arguments[0] == "--from":
        assert arguments[1] == WHEEL, arguments
        arguments = arguments[2:]
    assert arguments[0] in {"mymcp", "mymcp@latest"}, arguments
    _parses(cli.parse_arguments, arguments[1:])


def _check_installer(arguments: list[str]) -> None:
    """``install``, ``upgrade`` or ``uninstall`` of the package or of the built wheel."""
    verb, target = arguments[0], arguments[-1]
    assert verb in {"install", "upgrade", "uninstall"}, arguments
    assert target == "mymcp" or (verb == "install" and target == WHEEL), arguments


def _check_uv(arguments: list[str]) -> None:
    assert arguments[0] == "tool", arguments
    _check_installer(arguments[1:])


def _parses(parse: Callable[[list[str]], object], arguments: list[str]) -> None:
    """The command line is accepted (``--help`` and ``--version`` exit 0; a usage error, 2)."""
    try:
        parse(arguments)
    except SystemExit as stopped:
        assert stopped.code == 0, arguments


def _check_token_header(options: list[str]) -> None:
    """Nothing, or one header option whose value is the token ``mymcp token`` prints."""
    if not options:
        return
    assert len(options) == 2 and options[0] in {"--header", "-H"}, options
    name, _, value = options[1].partition(": ")
    assert name == "Authorization", options
    scheme, _, substituted = value.partition(" ")
    assert scheme == "Bearer", options
    assert substituted.startswith("$(") and substituted.endswith(" token)"), options
    _check_mymcp_command(substituted[2:-1].split())


def _check_claude(arguments: list[str]) -> None:
    """``claude mcp add [--transport T] [--env K=V] NAME (URL [--header H] | -- COMMAND ...)``."""
    assert arguments[:2] == ["mcp", "add"], arguments
    rest = arguments[2:]
    transport = "stdio"
    while rest[0].startswith("--") and rest[0] != "--":
        option, value, rest = rest[0], rest[1], rest[2:]
        if option == "--transport":
            transport = value
        else:
            assert option == "--env", option
            _check_gate_assignment(value)
    assert rest[0] == "mymcp", rest
    if transport == "http":
        assert rest[1] == "http://127.0.0.1:8000/mcp", rest
        _check_token_header(rest[2:])
    else:
        assert transport == "stdio" and rest[1] == "--", rest
        _check_mymcp_command(rest[2:])


def _check_gemini(arguments: list[str]) -> None:
    """``gemini mcp add [-s S] [-t T] [-e K=V] NAME (URL [-H H] | COMMAND ARGS...)``."""
    assert arguments[:2] == ["mcp", "add"], arguments
    rest = arguments[2:]
    transport = "stdio"
    while rest[0] in {"-s", "-t", "-e"}:
        option, value, rest = rest[0], rest[1], rest[2:]
        if option == "-t":
            transport = value
        elif option == "-e":
            _check_gate_assignment(value)
        else:
            assert value == "user", value
    assert rest[0] == "mymcp", rest
    if transport == "http":
        assert rest[1] == "http://127.0.0.1:8000/mcp", rest
        _check_token_header(rest[2:])
    else:
        assert transport == "stdio", rest
        _check_mymcp_command(rest[1:])


def _check_codex(arguments: list[str]) -> None:
    assert arguments in (["app-server"], ["mcp", "list"]), arguments


def _check_printf(arguments: list[str]) -> None:
    """``printf '%s\\n' LINE... > FILE``: each line one JSON-RPC message."""
    assert arguments[0] == "%s\\n" and arguments[-2] == ">", arguments
    for line in arguments[1:-2]:
        assert json.loads(line)["method"], line


def _check_console_script(program: str, arguments: list[str]) -> None:
    if program == "mymcp":
        _parses(cli.parse_arguments, arguments)
    elif program == "mymcp-dev":
        _parses(cli.parse_dev_arguments, arguments)
    else:
        assert program == "mymcp-test"  # any arguments go to pytest


def _check_pip(arguments: list[str]) -> None:
    assert arguments[0] == "install" and arguments[1] in {"mcp>=2", "mcp<2"}, arguments


def _check_command(words: list[str], tools: set[str]) -> None:
    while words and _ASSIGNMENT.match(words[0]):
        _check_assignment(_ASSIGNMENT.match(words[0])[1])  # type: ignore[index]
        words = words[1:]
    program, arguments = words[0], words[1:]
    if program.startswith(".venv/bin/"):
        program = program.removeprefix(".venv/bin/")
        assert program == "python" or program in CONSOLE_SCRIPTS, program
    checks: dict[str, Callable[[list[str]], None]] = {
        "python": _check_python,
        "python3": _check_python,
        "npx": _check_npx,
        "npm": _check_npm,
        "claude": _check_claude,
        "gemini": _check_gemini,
        "codex": _check_codex,
        "printf": _check_printf,
        "pip": _check_pip,
        "uvx": _check_uvx,
        "uv": _check_uv,
        "pipx": _check_installer,
        "curl": lambda words: _check_curl(words, tools),
    }
    if program in checks:
        checks[program](arguments)
    elif program in CONSOLE_SCRIPTS:
        _check_console_script(program, arguments)
    elif program.endswith("/.venv/bin/mymcp"):
        _check_mymcp_command([program, *arguments])
    elif "/" in program:
        path = ROOT / program
        assert path.is_file() and os.access(path, os.X_OK), program
    else:
        assert program in {"ss", "cat", "grep"}, f"unknown program {program}"


@pytest.mark.parametrize(
    "command", COMMANDS, ids=[f"{where}:{words[0]}" for where, words in COMMANDS]
)
def test_every_documented_command_refers_to_something_real(
    command: tuple[str, list[str]], served_tools: set[str]
) -> None:
    _check_command(list(command[1]), served_tools)


def test_the_two_setup_commands_are_documented_and_run_by_ci() -> None:
    readme_commands = [words for where, words in COMMANDS if where.startswith("README.md")]

    assert readme_commands[:2] == [["./scripts/serve"], ["./scripts/test"]]
    assert "scripts/test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


# --- links -------------------------------------------------------------------------------


def _links(document: Path) -> list[str]:
    text = re.sub(r"`[^`\n]*`", "", prose(document))
    return _LINK.findall(text)


@pytest.mark.parametrize("document", DOCUMENTS, ids=DOCS_IDS)
def test_every_relative_link_resolves(document: Path) -> None:
    for target in _links(document):
        if re.match(r"^[a-z]+:", target):
            continue
        path_part, _, anchor = target.partition("#")
        path = (document.parent / path_part).resolve() if path_part else document
        assert path.exists(), f"{document.name}: {target}"
        assert ROOT in path.parents or path == ROOT, target
        if anchor:
            assert path.suffix == ".md", target
            assert anchor in anchors(path), f"{document.name}: {target}"


def test_the_documents_link_to_each_other() -> None:
    readme_links = {link.partition("#")[0] for link in _links(ROOT / "README.md")}
    expected = {str(document.relative_to(ROOT)) for document in DOCUMENTS} - {"README.md"}

    assert expected <= readme_links
