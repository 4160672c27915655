"""``mymcp doctor``: check the operator's setup and say, one line per finding, what it found.

Each line starts with ``ok``, ``warn`` or ``fail``; the command exits 1 when anything fails.
It looks and never changes anything: no file is created, changed or moved, and the only
socket it opens is a test bind (and, when the port is taken, a ``GET /version``) on the
loopback address it was given. Paths appear in its output, which only the operator reads;
the server's logs never carry them.
"""

from __future__ import annotations

import http.client
import os
import platform
import socket
import stat
import sys
from importlib import metadata
from pathlib import Path
from typing import TextIO

from mymcp import access_token, jsonvalue, settings
from mymcp.plugin_api.setup import FAIL, OK, WARN, Finding, print_findings

_MINIMUM_PYTHON = (3, 11)


def run(*, host: str, port: int, out: TextIO | None = None) -> int:
    """Print every finding and a summary; 0 when nothing failed, 1 otherwise."""
    from mymcp.host.bootstrap import diagnose_production_setup

    found = [*_runtime_findings(), *diagnose_production_setup(), *_token_findings()]
    return print_findings([*found, _port_finding(host, port)], out or sys.stdout)


def _runtime_findings() -> list[Finding]:
    version = platform.python_version()
    level = OK if sys.version_info[:2] >= _MINIMUM_PYTHON else FAIL
    found: list[Finding] = [(level, f"Python {version} ({sys.executable})")]
    location = Path(__file__).resolve().parent
    try:
        installed = metadata.version(settings.SERVER_NAME)
    except metadata.PackageNotFoundError:
        text = f"{settings.SERVER_NAME} {settings.SERVER_VERSION} runs from {location} but is "
        found.append((WARN, text + "not installed; run ./scripts/serve or pip install -e ."))
        return found
    if installed != settings.SERVER_VERSION:
        text = f"the installed {settings.SERVER_NAME} says {installed} but its code is "
        found.append((WARN, text + f"{settings.SERVER_VERSION}; install it again"))
    else:
        found.append((OK, f"{settings.SERVER_NAME} {installed} ({location})"))
    return found


def _token_findings() -> list[Finding]:
    """One line: the token file (where, mode, owner) and whether the server requires it."""
    variable = access_token.REQUIRE_TOKEN_VARIABLE
    try:
        required = access_token.require_token()
    except access_token.RequireTokenError:
        wrong = (FAIL, f"{variable} must be 'true' or 'false'; the server will not start")
        return [_token_file_finding(None, ""), wrong]
    value = os.environ.get(variable)
    if value is None:
        said = f"does not require it unless started with --require-token ({variable} is not set)"
    else:  # true or false: require_token refuses anything else
        verb = "requires it on /mcp" if required else "does not require it"
        said = f"{verb} ({variable}={value} in the environment)"
    return [_token_file_finding(required, f"the server {said}")]


def _token_file_finding(required: bool | None, said: str) -> Finding:
    path = access_token.token_path()
    where = f"access token file {path}"
    tail = f"; {said}" if said else ""
    try:
        found = access_token.token_file(path)
    except access_token.TokenFileError as error:
        level = WARN if required is False else FAIL
        place = "" if error.path == path else f": its folder {error.path}"
        return (level, f"{where}{place} {error.problem}{tail}")
    if found is None:
        made = "the server makes it at start" if required else "mymcp token makes it"
        return (OK, f"{where} does not exist yet ({made}){tail}")
    mode, owner = stat.S_IMODE(found[1].st_mode), access_token.owner_name(found[1].st_uid)
    return (OK, f"{where}: mode {mode:04o}, owner {owner}{tail}")


def port_is_free(host: str, port: int) -> bool:
    """Whether ``mymcp serve`` could bind ``host:port`` now (a bind and nothing else)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError:
        return False
    return True


def _port_finding(host: str, port: int) -> Finding:
    where = f"port {port} on {host}"
    if port_is_free(host, port):
        return (OK, f"{where} is free for mymcp serve")
    if (running := _mymcp_version_at(host, port)) is not None:
        return (OK, f"{where} is in use by a running MyMCP {running}")
    return (WARN, f"{where} is in use by another program: choose another with --port")


def _mymcp_version_at(host: str, port: int) -> str | None:
    """The version a MyMCP serving at ``host:port`` reports, or None for anything else."""
    connection = http.client.HTTPConnection(host, port, timeout=1.0)
    try:
        connection.request("GET", "/version")
        answer = jsonvalue.decode(connection.getresponse().read(4096).decode("utf-8"))
    except (OSError, ValueError, http.client.HTTPException):
        return None
    finally:
        connection.close()
    if isinstance(answer, dict) and answer.get("name") == settings.SERVER_NAME:
        return str(answer.get("version"))
    return None
