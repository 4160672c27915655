"""The commands ``mymcp`` (``serve``, ``notebook``, ``stdio``, ``doctor``, ``export``,
``import``, ``explain``, ``token``), ``mymcp-dev`` and ``mymcp-test``.

Exit codes: 0 when the command did its work, 1 when the operator's setup stops it (the
message says where and what to do, without a traceback), 2 for a usage error (an unknown
option, a port out of range, a host that is not a loopback address). ``mymcp explain``
exits 0 when the text would be stored and 1 when it would be refused.
"""

from __future__ import annotations

import argparse
import importlib.util
import ipaddress
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

from mymcp import settings

TARGET = "mymcp.app:create_production_app"
HOST = "127.0.0.1"
PORT = 8000
COMMANDS = ("serve", "notebook", "stdio", "doctor", "export", "import", "explain", "token")
_HELP_OPTIONS = {"-h", "--help", "--version"}
_DESCRIPTION = (
    "MyMCP: a local MCP server for one person, serving the Mnemosyne memory notebook. "
    "It never listens beyond this machine."
)
_EPILOG = (
    "Without a command, mymcp serves HTTP: 'mymcp --port 9000' is 'mymcp serve --port 9000'. "
    "The change Tools are off until switched on with MNEMOSYNE_MEMORY_*_ENABLED=true or in "
    "~/.mnemosyne/config.toml; see the README."
)


def main(argv: Sequence[str] | None = None) -> int | None:
    """``mymcp``: serve HTTP (also without a command), serve stdio, or check the setup."""
    options = parse_arguments(sys.argv[1:] if argv is None else argv)
    if options.command == "stdio":
        return _stdio()
    if options.command == "doctor":
        from mymcp import doctor

        return doctor.run(host=options.host, port=options.port)
    if options.command in ("export", "import"):
        return _notebook_command(options)
    if options.command == "explain":
        return _explain(options.notebook)
    if options.command == "token":
        return _token()
    if getattr(options, "require_token", False) and (failed := _require_token()):
        return failed
    if options.command == "notebook":
        return _notebook_page(options)
    return _serve(options.host, options.port)


def dev(argv: Sequence[str] | None = None) -> int | None:
    """``mymcp-dev``: serve HTTP like ``mymcp serve``, reloading when the code changes."""
    options = parse_dev_arguments(sys.argv[1:] if argv is None else argv)
    from mymcp import startup

    try:  # the server runs in a child process: find setup mistakes here first
        startup.checked_runtime()
    except Exception as error:  # noqa: BLE001 - anything else is re-raised
        return _setup_failure(error)
    return _serve(options.host, options.port, reload=True)


def test(argv: Sequence[str] | None = None) -> int:
    """``mymcp-test``: run pytest from the current directory; return its exit code.

    Without arguments it runs ``pytest tests``; arguments go to pytest as they are.
    """
    if importlib.util.find_spec("pytest") is None:
        print('Test support is not installed. Run: pip install -e ".[test]"')
        return 1
    import subprocess  # here, not above: only this command needs it, and stdio starts sooner

    arguments = list(sys.argv[1:] if argv is None else argv) or ["tests"]
    return subprocess.call([sys.executable, "-m", "pytest", *arguments])


# --- the command line ------------------------------------------------------------------------


def parse_arguments(arguments: Sequence[str]) -> argparse.Namespace:
    """The ``mymcp`` command line; ``serve`` when it names no command. Exits 2 if unusable."""
    return _parser().parse_args(_with_default_command(list(arguments)))


def parse_dev_arguments(arguments: Sequence[str]) -> argparse.Namespace:
    """The ``mymcp-dev`` command line (``--host``, ``--port``). Exits 2 if unusable."""
    parser = argparse.ArgumentParser(
        prog="mymcp-dev", description="Serve MCP over HTTP and restart when the code changes."
    )
    _add_address_options(parser, "serve on")
    return parser.parse_args(list(arguments))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mymcp", description=_DESCRIPTION, epilog=_EPILOG)
    parser.add_argument(
        "--version", action="version", version=f"{settings.SERVER_NAME} {settings.SERVER_VERSION}"
    )
    commands = parser.add_subparsers(dest="command", title="commands", metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        help="serve MCP over HTTP at http://HOST:PORT/mcp (the default)",
        description="Serve MCP over HTTP at http://HOST:PORT/mcp until stopped with Ctrl-C.",
    )
    _add_address_options(serve, "serve on")
    add_token_option(serve)
    _add_page_command(commands)
    commands.add_parser(
        "stdio",
        help="serve MCP over standard input and output, for clients that start the server",
        description=(
            "Serve MCP over standard input and output: one JSON-RPC message per line. "
            "Clients such as Claude Desktop, Cursor, VS Code and Codex start this command "
            "themselves. Logs go to standard error."
        ),
    )
    doctor = commands.add_parser(
        "doctor",
        help="check the setup and report what it finds; changes nothing",
        description=(
            "Check Python, the package, the gates and where each comes from, config.toml, the "
            "memory root and every record file, the access token file, and whether the HTTP "
            "port is free. Prints one "
            "line per finding (ok, warn or fail) and exits 1 if anything fails. Reads only."
        ),
    )
    _add_address_options(doctor, "check")
    _add_notebook_commands(commands)
    explain = commands.add_parser(
        "explain",
        help="say whether the content policy would refuse the text on standard input, and why",
        description=(
            "Read a text from standard input and say whether Mnemosyne would refuse it as a "
            "memory: 'stored', or 'refused' with the reason a Tool reports and the id of the "
            "rule that decided. Never repeats the text; exits 0 when stored, 1 when refused."
        ),
    )
    explain.add_argument(
        "--notebook",
        action="store_true",
        help="instead, list the stored records the policy would refuse today (path, field, "
        "rule; never the value); exits 1 when there are any. Changes nothing",
    )
    commands.add_parser(
        "token",
        help="print the local access token, making it on first use",
        description=(
            "Print the access token that 'mymcp serve --require-token' asks HTTP clients for "
            "(Authorization: Bearer TOKEN), and nothing else. The first use makes it, in "
            "~/.mnemosyne/token, readable by you alone."
        ),
    )
    return parser


def _add_page_command(commands: Any) -> None:
    page = commands.add_parser(
        "notebook",
        help="serve as 'serve' does, and open your notebook's page in the browser",
        description=(
            "Serve MCP over HTTP exactly as 'mymcp serve' does, and the notebook page beside "
            "it. Once the server listens, the first line on standard output is the page's "
            "address with a login link that works once, for five minutes; the default "
            "browser opens it unless --no-browser is given."
        ),
    )
    _add_address_options(page, "serve on")
    add_token_option(page)
    page.add_argument(
        "--no-browser",
        action="store_true",
        help="only print the address; open it in a browser of this machine yourself",
    )


def _add_notebook_commands(commands: Any) -> None:
    export = commands.add_parser(
        "export",
        help="write the whole notebook (or some scopes) to one file; changes nothing",
        description=(
            "Write every valid record of the memory root (version 1 and 2, archived ones "
            "too) with its place, and every file recall and list skip, to one document: "
            "standard output, or FILE (mode 0600). Works while a server runs."
        ),
    )
    export.add_argument("--output", metavar="FILE", help="write to FILE instead of standard output")
    export.add_argument(
        "--scope", action="extend", nargs="+", metavar="SCOPE", help="export only these scopes"
    )
    export.add_argument(
        "--format",
        choices=("json", "markdown"),
        default="json",
        help="json (the default) can be imported again; markdown is for reading",
    )
    imports = commands.add_parser(
        "import",
        help="say what importing FILE would do; with --apply, import it",
        description=(
            "Read a MyMCP export (--format mymcp, the default) or the official memory "
            "server's memory.jsonl (--format server-memory) and say, record by record, what "
            "would be created, what is already there, what the content policy refuses and "
            "what is invalid. Nothing is written without --apply. Safe while a server runs."
        ),
    )
    imports.add_argument("file", metavar="FILE", help="the file to import; - for standard input")
    imports.add_argument(
        "--format", choices=("mymcp", "server-memory"), default="mymcp", help="what FILE holds"
    )
    imports.add_argument("--apply", action="store_true", help="write the records")


def _with_default_command(arguments: list[str]) -> list[str]:
    """``serve`` in front when no command is named (``mymcp``, ``mymcp --port 9000``)."""
    if not arguments or (arguments[0].startswith("-") and arguments[0] not in _HELP_OPTIONS):
        return ["serve", *arguments]
    return arguments


def _add_address_options(parser: argparse.ArgumentParser, verb: str) -> None:
    parser.add_argument(
        "--host",
        type=_loopback_host,
        default=HOST,
        help=f"loopback address to {verb}: 127.0.0.1 (default), another 127.x.y.z, ::1 or "
        "localhost",
    )
    parser.add_argument(
        "--port", type=_port, default=PORT, help=f"TCP port to {verb} (default {PORT})"
    )


def add_token_option(parser: argparse.ArgumentParser) -> None:
    """``--require-token``, for every command that serves HTTP."""
    parser.add_argument(
        "--require-token",
        action="store_true",
        help="require the access token that 'mymcp token' prints on every request to /mcp "
        "(Authorization: Bearer TOKEN); the same as MYMCP_REQUIRE_TOKEN=true",
    )


def _require_token() -> int | None:
    """``--require-token``: the server reads the setting from its environment, so the option
    sets it there (over ``false``); a bad value already there still stops the start."""
    from mymcp import access_token

    try:
        access_token.require_token()
    except access_token.RequireTokenError as error:
        return _setup_failure(error)
    os.environ[access_token.REQUIRE_TOKEN_VARIABLE] = "true"
    return None


def _loopback_host(value: str) -> str:
    if value.lower() == "localhost":
        return value
    try:
        address = ipaddress.ip_address(value.removeprefix("[").removesuffix("]"))
    except ValueError:
        address = None
    if address is None or not address.is_loopback:
        raise argparse.ArgumentTypeError(
            "must be a loopback address (127.0.0.1, another 127.x.y.z, ::1 or localhost): "
            "MyMCP serves only the person at this machine"
        )
    return str(address)


def _port(value: str) -> int:
    if value.isdigit() and 1 <= int(value) <= 65535:
        return int(value)
    raise argparse.ArgumentTypeError("must be a whole number from 1 to 65535")


# --- the commands ----------------------------------------------------------------------------


def _serve(host: str, port: int, **options: Any) -> int | None:
    import uvicorn

    return _hosted(
        host, port, lambda: uvicorn.run(TARGET, host=host, port=port, factory=True, **options)
    )


def _notebook_page(options: argparse.Namespace) -> int | None:
    from mymcp.app import create_production_app
    from mymcp.host.bootstrap import serve_notebook

    host, port, open_browser = options.host, options.port, not options.no_browser
    return _hosted(
        host,
        port,
        lambda: serve_notebook(create_production_app, host, port, open_browser=open_browser),
    )


def _hosted(host: str, port: int, run: Callable[[], None]) -> int | None:
    """Run the HTTP server; a port in use or a setup mistake is told in plain lines."""
    try:
        run()
    except SystemExit as stopped:  # Uvicorn exits by itself when it cannot bind
        if stopped.code in (0, None) or not _port_taken(host, port):
            raise
        _flush_logging()
        print(
            f"mymcp: port {port} on {host} is already in use, often by another MyMCP; "
            "stop it or choose another port with --port",
            file=sys.stderr,
        )
        return 1
    except Exception as error:  # noqa: BLE001 - anything but a setup mistake is re-raised
        return _setup_failure(error)
    return None


def _notebook_command(options: argparse.Namespace) -> int:
    from mymcp.host import bootstrap

    if options.command == "export":
        return bootstrap.export_notebook(
            output=options.output, scopes=options.scope, format=options.format
        )
    return bootstrap.import_notebook(
        source=options.file, format=options.format, apply=options.apply
    )


def _explain(notebook: bool) -> int:
    from mymcp.host.bootstrap import explain_content, explain_notebook

    if notebook:
        code, lines, stopped = explain_notebook()
        if stopped:
            print(stopped, file=sys.stderr)
        else:
            print(*lines, sep="\n")
        return code
    try:
        text = sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError:
        print("mymcp: standard input is not UTF-8 text", file=sys.stderr)
        return 2
    code, lines = explain_content(text)
    print(*lines, sep="\n")
    return code


def _token() -> int:
    from mymcp import access_token

    try:
        token = access_token.ensure_token()
    except access_token.TokenFileError as error:
        return _setup_failure(error)
    print(token)
    return 0


def _stdio() -> int:
    from mymcp import startup
    from mymcp.transports import stdio

    output = _protocol_output()
    try:
        runtime = startup.production_runtime()
    except Exception as error:  # noqa: BLE001 - anything but a setup mistake is re-raised
        return _setup_failure(error)
    stdio.serve(runtime, sys.stdin.buffer, output)
    startup.flush_logging()
    return 0


def _protocol_output() -> BinaryIO:
    """Standard output, kept for protocol lines alone: from now on fd 1 is standard error.

    Whatever else writes to standard output (a stray ``print``, a library, a C extension)
    lands in the log instead of corrupting the protocol stream.
    """
    sys.stdout.flush()
    protocol = os.dup(1)
    os.dup2(2, 1)
    return os.fdopen(protocol, "wb")


def _setup_failure(error: BaseException) -> int:
    """Tell the operator what to fix and return 1; re-raise anything that is not theirs."""
    from mymcp import startup
    from mymcp.plugin_api.setup import setup_lines

    lines = setup_lines(error)
    if lines is None:
        raise error
    startup.flush_logging()  # the log lines made so far come before the explanation
    print(f"mymcp: {lines[0]}", *lines[1:], sep="\n", file=sys.stderr)
    return 1


def _flush_logging() -> None:
    from mymcp import startup

    startup.flush_logging()


def _port_taken(host: str, port: int) -> bool:
    from mymcp import doctor

    return not doctor.port_is_free(host, port)
