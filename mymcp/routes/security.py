"""DNS-rebinding protection: only loopback ``Host`` names and browser ``Origin`` values.

A browser page can be made to talk to 127.0.0.1 under a foreign host name (DNS rebinding)
or from a foreign origin. Requests whose ``Host`` is not a loopback name get 421; requests
carrying an ``Origin`` that is not a loopback origin get 403. Ordinary MCP clients send no
``Origin`` and a loopback ``Host``, so they are unaffected. The operator can allow more with
``MYMCP_ALLOWED_HOSTS`` and ``MYMCP_ALLOWED_ORIGINS`` (comma-separated).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from mymcp import jsonvalue

ALLOWED_HOSTS_VARIABLE = "MYMCP_ALLOWED_HOSTS"
ALLOWED_ORIGINS_VARIABLE = "MYMCP_ALLOWED_ORIGINS"

_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


@dataclass(frozen=True)
class HttpSecurity:
    """Extra host names and origins the operator allows beside loopback."""

    allowed_hosts: frozenset[str] = frozenset()
    allowed_origins: frozenset[str] = frozenset()

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> HttpSecurity:
        env = os.environ if environ is None else environ
        return cls(
            allowed_hosts=_split(env.get(ALLOWED_HOSTS_VARIABLE, "")),
            allowed_origins=_split(env.get(ALLOWED_ORIGINS_VARIABLE, "")),
        )

    def host_allowed(self, host: str) -> bool:
        name = _host_name(host)
        return (
            name in _LOOPBACK_NAMES
            or name in self.allowed_hosts
            or host.lower() in self.allowed_hosts
        )

    def origin_allowed(self, origin: str) -> bool:
        if origin.lower() in self.allowed_origins:
            return True
        try:
            parts = urlsplit(origin)
            hostname = parts.hostname
            parts.port  # noqa: B018 - raises on a malformed port
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or parts.path or parts.query or parts.fragment:
            return False
        return hostname in _LOOPBACK_NAMES


class SecurityMiddleware:
    """Rejects non-loopback ``Host`` (421) and ``Origin`` (403) before any route runs."""

    def __init__(self, app: ASGIApp, security: HttpSecurity) -> None:
        self._app = app
        self._security = security

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and await refused(self._security, scope, send):
            return
        await self._app(scope, receive, send)


async def refused(security: HttpSecurity, scope: Scope, send: Send) -> bool:
    """Answer an HTTP request whose ``Host`` or ``Origin`` is not allowed; True if it was."""
    refusal = _refusal(security, scope)
    if refusal is None:
        return False
    await _send_json(send, *refusal)
    return True


def _refusal(security: HttpSecurity, scope: Scope) -> tuple[int, dict[str, Any]] | None:
    host, origin = _host_and_origin(scope)
    if host is not None and not _host_allowed(security, host):
        return 421, _HOST_REFUSED
    if origin is not None and not security.origin_allowed(origin):
        return 403, _ORIGIN_REFUSED
    return None


@functools.lru_cache(maxsize=64)  # a client sends the same Host on every request
def _host_allowed(security: HttpSecurity, host: str) -> bool:
    return security.host_allowed(host)


# Each refusal names the header and the setting that would allow it, never the value sent.
_HOST_REFUSED = {
    "detail": "Misdirected Request",
    "header": "Host",
    "hint": f"only loopback host names are served; allow another with {ALLOWED_HOSTS_VARIABLE}",
}
_ORIGIN_REFUSED = {
    "detail": "Forbidden",
    "header": "Origin",
    "hint": f"only loopback origins are served; allow another with {ALLOWED_ORIGINS_VARIABLE}",
}


def _host_and_origin(scope: Scope) -> tuple[str | None, str | None]:
    """The ``Host`` and ``Origin`` values; of a repeated header, the last one counts."""
    host = origin = None
    for key, value in scope["headers"]:
        name = key.lower()
        if name == b"host":
            host = value
        elif name == b"origin":
            origin = value
    return (
        None if host is None else host.decode("latin-1"),
        None if origin is None else origin.decode("latin-1"),
    )


def _host_name(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _split(value: str) -> frozenset[str]:
    return frozenset(item.strip().lower() for item in value.split(",") if item.strip())


async def _send_json(send: Send, status: int, payload: dict[str, Any]) -> None:
    body = jsonvalue.encode(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
