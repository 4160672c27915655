"""The commands ``mymcp`` (``serve``, ``notebook``, ``stdio``, ``doctor``, ``token``, and the
plugin's own: ``export``, ``import``, ``explain``), ``mymcp-dev`` and ``mymcp-test``.

Exit codes: 0 when the command did its work, 1 when the operator's setup stops it (the
message says where and what to do, without a traceback), 2 for a usage error (an unknown
option, a port out of range, a host that is not a loopback address). The plugin's commands
say their own (``mymcp explain`` exits 0 when the text would be stored, 1 when refused).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import inspect
import ipaddress
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

from mymcp import settings

TARGET = "mymcp.app:create_production_app"
HOST = "127.0.0.1"
PORT = 8000
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
    """``mymcp``: serve HTTP (also without a command), serve stdio, or another command."""
    options = parse_arguments(sys.argv[1:] if argv is None else argv)
    if getattr(options, "require_token", False) and (failed := _require_token()):
        return failed
    run: Callable[[argparse.Namespace], int | None] = options.run
    return run(options)


def dev(argv: Sequence[str] | None = None) -> int | None:
    """``mymcp-dev``: serve HTTP like ``mymcp serve``, reloading when the code changes."""
    options = parse_dev_arguments(sys.argv[1:] if argv is None else argv)
    from mymcp.host.bootstrap import check_production_setup

    # The server runs in a child process: find setup mistakes here first, without composing
    # the plugin (this process, the reloader, never serves, so it reads nothing ahead).
    try:
        check_production_setup()
    except Exception as error:  # noqa: BLE001 - anything else is re-raised
        return _setup_failure(error)
    return _serve(options, reload=True)


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
    arguments = list(arguments)
    if not arguments or (arguments[0].startswith("-") and arguments[0] not in _HELP_OPTIONS):
        arguments = ["serve", *arguments]
    return _parser().parse_args(arguments)


def parse_dev_arguments(arguments: Sequence[str]) -> argparse.Namespace:
    """The ``mymcp-dev`` command line (``--host``, ``--port``). Exits 2 if unusable."""
    parser = argparse.ArgumentParser(
        prog="mymcp-dev", description="Serve MCP over HTTP and restart when the code changes."
    )
    _add_address_options(parser, "serve on")
    return parser.parse_args(list(arguments))


def _parser() -> argparse.ArgumentParser:
    from mymcp.host.bootstrap import add_plugin_commands

    parser = argparse.ArgumentParser(prog="mymcp", description=_DESCRIPTION, epilog=_EPILOG)
    version = f"{settings.SERVER_NAME} {settings.SERVER_VERSION}"
    parser.add_argument("--version", action="version", version=version)
    commands = parser.add_subparsers(
        dest="command", title="commands", metavar="COMMAND", required=True
    )
    _add_address_options(_command(commands, "serve", _serve), "serve on", token=True)
    _command(commands, "stdio", _stdio)
    _add_address_options(_command(commands, "doctor", _doctor), "check")
    add_plugin_commands(commands, _CommandHost())
    _command(commands, "token", _token)
    return parser


def _command(commands: Any, name: str, run: Callable[..., int | None]) -> argparse.ArgumentParser:
    """The command ``name``, which ``run`` does: its docstring is the help, whose first sentence
    the list of commands shows."""
    text = inspect.cleandoc(run.__doc__ or "")
    summary = text.split(". ", 1)[0].removesuffix(".")
    summary = summary[:1].lower() + summary[1:]
    parser: argparse.ArgumentParser = commands.add_parser(name, help=summary, description=text)
    parser.set_defaults(run=run)
    return parser


_HOST_HELP = "loopback address to {}: 127.0.0.1 (default), another 127.x.y.z, ::1 or localhost"
_PORT_HELP = f"TCP port to {{}} (default {PORT})"
_TOKEN_HELP = (
    "require the access token that 'mymcp token' prints on every request to /mcp "
    "(Authorization: Bearer TOKEN); the same as MYMCP_REQUIRE_TOKEN=true"
)


def _add_address_options(parser: argparse.ArgumentParser, to: str, *, token: bool = False) -> None:
    """``--host`` and ``--port`` (and ``--require-token``) for a command that will ``to`` them."""
    parser.add_argument("--host", type=_loopback_host, default=HOST, help=_HOST_HELP.format(to))
    parser.add_argument("--port", type=_port, default=PORT, help=_PORT_HELP.format(to))
    if token:
        parser.add_argument("--require-token", action="store_true", help=_TOKEN_HELP)


def _loopback_host(value: str) -> str:
    if value.lower() == "localhost":
        return value
    with contextlib.suppress(ValueError):
        address = ipaddress.ip_address(value.removeprefix("[").removesuffix("]"))
        if address.is_loopback:
            return str(address)
    raise argparse.ArgumentTypeError(
        "must be a loopback address (127.0.0.1, another 127.x.y.z, ::1 or localhost): "
        "MyMCP serves only the person at this machine"
    )


def _port(value: str) -> int:
    if value.isdigit() and 1 <= int(value) <= 65535:
        return int(value)
    raise argparse.ArgumentTypeError("must be a whole number from 1 to 65535")


# --- the commands ----------------------------------------------------------------------------


def _serve(options: argparse.Namespace, **uvicorn_options: Any) -> int | None:
    """Serve MCP over HTTP at http://HOST:PORT/mcp until stopped with Ctrl-C; the default
    command."""
    import uvicorn

    run = functools.partial(uvicorn.run, TARGET, host=options.host, port=options.port)
    return _hosted(options, lambda: run(factory=True, **uvicorn_options))


class _CommandHost:
    """What the host lends the plugin's commands (``plugin_api.setup.CommandHost``)."""

    def add_serve_options(self, parser: argparse.ArgumentParser) -> None:
        _add_address_options(parser, "serve on", token=True)

    def serve(self, options: argparse.Namespace, run: Callable[[Any], None]) -> int | None:
        from mymcp.app import create_production_app

        return _hosted(options, lambda: run(create_production_app))


def _hosted(options: argparse.Namespace, run: Callable[[], None]) -> int | None:
    """Run the HTTP server; a port in use or a setup mistake is told in plain lines."""
    from mymcp import doctor

    try:
        run()
    except SystemExit as stopped:  # Uvicorn exits by itself when it cannot bind
        if stopped.code in (0, None) or doctor.port_is_free(options.host, options.port):
            raise
        return _tell(
            f"port {options.port} on {options.host} is already in use, often by another "
            "MyMCP; stop it or choose another port with --port"
        )
    except Exception as error:  # noqa: BLE001 - anything but a setup mistake is re-raised
        return _setup_failure(error)
    return None


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


def _doctor(options: argparse.Namespace) -> int:
    """Check the setup and report what it finds; changes nothing. Python, the package, the
    gates and where each comes from, config.toml, the memory root and every record file, the
    access token file, and whether the HTTP port is free: one line per finding (ok, warn or
    fail); exits 1 if anything fails."""
    from mymcp import doctor

    return doctor.run(host=options.host, port=options.port)


def _token(options: argparse.Namespace) -> int:
    """Print the local access token, making it on first use. It is what 'mymcp serve --require-
    token' asks HTTP clients for (Authorization: Bearer TOKEN); the first use makes it, in
    ~/.mnemosyne/token, readable by you alone."""
    from mymcp import access_token

    try:
        token = access_token.ensure_token()
    except access_token.TokenFileError as error:
        return _setup_failure(error)
    print(token)
    return 0


def _stdio(options: argparse.Namespace) -> int:
    """Serve MCP over standard input and output, for clients that start the server. One JSON-
    RPC message per line; clients such as Claude Desktop, Cursor, VS Code and Codex start
    this command themselves. Logs go to standard error."""
    from mymcp import startup
    from mymcp.transports import stdio

    # Standard output is kept for protocol lines alone: from now on fd 1 is standard error,
    # so whatever else writes there (a stray print, a library) lands in the log instead.
    sys.stdout.flush()
    output: BinaryIO = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    try:
        runtime = startup.production_runtime()
    except Exception as error:  # noqa: BLE001 - anything but a setup mistake is re-raised
        return _setup_failure(error)
    stdio.serve(runtime, sys.stdin.buffer, output)
    startup.flush_logging()
    return 0


def _setup_failure(error: BaseException) -> int:
    """Tell the operator what to fix and return 1; re-raise anything that is not theirs."""
    from mymcp.plugin_api.setup import setup_lines

    lines = setup_lines(error)
    if lines is None:
        raise error
    return _tell(*lines)


def _tell(first: str, *more: str) -> int:
    """Tell the operator, after the log lines made so far, in plain lines; return 1."""
    from mymcp import startup

    startup.flush_logging()
    print(f"mymcp: {first}", *more, sep="\n", file=sys.stderr)
    return 1
