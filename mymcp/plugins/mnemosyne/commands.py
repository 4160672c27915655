"""Mnemosyne's own commands of ``mymcp``: ``notebook``, ``export``, ``import`` and ``explain``.

The host's command line asks for them (``plugin_api.setup.AddCommands``) and runs the one
named: each sets ``run``, which takes the parsed options and returns the exit status. The
work itself lives in ``transfer/command.py`` and ``explain.py``; this module only names the
commands and their options (``notebook`` takes the host's serving options and is served by
the host), and imports nothing heavy until one of them runs.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from typing import Any

from mymcp.plugin_api.setup import CommandHost

__all__ = ["add_commands"]


def add_commands(commands: Any, host: CommandHost) -> None:
    """Add ``notebook``, ``export``, ``import`` and ``explain`` to ``commands`` (argparse's
    sub-parsers); ``notebook`` serves HTTP as ``host`` does."""
    page = _command(
        commands,
        "notebook",
        functools.partial(_notebook, host),
        "serve as 'serve' does, and open your notebook's page in the browser",
        "Serve MCP over HTTP exactly as 'mymcp serve' does, and the notebook page beside it. "
        "Once the server listens, the first line on standard output is the page's address "
        "with a login link that works once, for five minutes; the default browser opens it "
        "unless --no-browser is given.",
    )
    host.add_serve_options(page)
    page.add_argument(
        "--no-browser",
        action="store_true",
        help="only print the address; open it in a browser of this machine yourself",
    )
    export = _command(
        commands,
        "export",
        _export,
        "write the whole notebook (or some scopes) to one file; changes nothing",
        "Write every valid record of the memory root (version 1 and 2, archived ones too) with "
        "its place, and every file recall and list skip, to one document: standard output, or "
        "FILE (mode 0600). Works while a server runs.",
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
    imports = _command(
        commands,
        "import",
        _import,
        "say what importing FILE would do; with --apply, import it",
        "Read a MyMCP export (--format mymcp, the default) or the official memory server's "
        "memory.jsonl (--format server-memory) and say, record by record, what would be "
        "created, what is already there, what the content policy refuses and what is invalid. "
        "Nothing is written without --apply. Safe while a server runs.",
    )
    imports.add_argument("file", metavar="FILE", help="the file to import; - for standard input")
    imports.add_argument(
        "--format", choices=("mymcp", "server-memory"), default="mymcp", help="what FILE holds"
    )
    imports.add_argument("--apply", action="store_true", help="write the records")
    explain = _command(
        commands,
        "explain",
        _explain,
        "say whether the content policy would refuse the text on standard input, and why",
        "Read a text from standard input and say whether Mnemosyne would refuse it as a "
        "memory: 'stored', or 'refused' with the reason a Tool reports and the id of the rule "
        "that decided. Never repeats the text; exits 0 when stored, 1 when refused.",
    )
    explain.add_argument(
        "--notebook",
        action="store_true",
        help="instead, list the stored records the policy would refuse today (path, field, "
        "rule; never the value); exits 1 when there are any. Changes nothing",
    )


def _command(
    commands: Any,
    name: str,
    run: Callable[[argparse.Namespace], int | None],
    summary: str,
    text: str,
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(name, help=summary, description=text)
    parser.set_defaults(run=run)
    return parser


def _notebook(host: CommandHost, options: argparse.Namespace) -> int | None:
    from mymcp.plugins.mnemosyne.notebook.launch import serve_with_login

    def serve(factory: Callable[[], Any]) -> None:
        open_browser = not options.no_browser
        serve_with_login(factory, options.host, options.port, open_browser=open_browser)

    return host.serve(options, serve)


def _export(options: argparse.Namespace) -> int:
    from mymcp.plugins.mnemosyne.transfer import command

    chosen = {"output": options.output, "scopes": options.scope, "format": options.format}
    return command.export_notebook(**chosen, out=sys.stdout, err=sys.stderr)


def _import(options: argparse.Namespace) -> int:
    from mymcp.plugins.mnemosyne.transfer import command

    chosen = {"source": options.file, "format": options.format, "apply": options.apply}
    return command.import_notebook(**chosen, out=sys.stdout, err=sys.stderr)


def _explain(options: argparse.Namespace) -> int:
    """Exit 0 when the text would be stored and 1 when it would be refused; 2 for input that
    is not UTF-8."""
    from mymcp.plugins.mnemosyne import explain

    if options.notebook:
        code, lines, stopped = explain.explain_notebook()
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
    code, lines = explain.explain(text)
    print(*lines, sep="\n")
    return code
