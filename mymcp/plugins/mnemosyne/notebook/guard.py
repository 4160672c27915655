"""What every request of the notebook page passes, and what every answer of it carries.

- Every answer carries :data:`HEADERS`: a Content-Security-Policy that lets the page load
  and fetch only from its own origin (no inline script or style, no frame around it, no
  form sent elsewhere), no referrer, no sniffing, no caching, and no use by other origins.
  No answer ever carries a CORS header.
- A request that a browser marks as sent from another origin (``Origin`` not the page's own
  scheme, host and port, or ``Sec-Fetch-Site`` other than ``same-origin`` or ``none``) is
  refused with 403 before anything else: the Host and Origin checks that ``/mcp`` makes
  (``transports/http.py``) admit every loopback origin, and a page on another port of this
  machine must not read or change the notebook.
- A body is read up to a bound and must be a JSON object sent as ``application/json``
  (which a cross-origin form cannot send without asking first).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from mymcp import jsonvalue

__all__ = [
    "cookie_name",
    "CSRF_HEADER",
    "HEADERS",
    "Refused",
    "from_other_origin",
    "json_body",
    "json_response",
    "refusal",
]

_COOKIE = "mymcp_notebook"  # the session cookie's name, before the port (see cookie_name)
CSRF_HEADER = "x-mymcp-csrf"
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; object-src 'none'; frame-ancestors 'none'; form-action 'self'; "
    "base-uri 'none'"
)
HEADERS: Mapping[str, str] = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
    "cross-origin-resource-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
}
_SAME_ORIGIN_FETCHES = frozenset({"same-origin", "none"})


class Refused(Exception):
    """A request the page does not serve: the status and a short, fixed error name."""

    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(error)
        self.status = status
        self.error = error
        self.message = message


def cookie_name(request: Request) -> str:
    """The session cookie's name on the server ``request`` reached.

    A browser sends a cookie of ``127.0.0.1`` to every port of that host, so each port's
    server names its own: logging into a notebook on one port leaves a session open on
    another port alone.
    """
    port = request.url.port
    return _COOKIE if port is None else f"{_COOKIE}_{port}"


def from_other_origin(request: Request) -> bool:
    """Whether the browser says the request was made by a page of another origin."""
    headers = request.headers
    origin = headers.get("origin")
    if origin is not None and origin.lower() != _own_origin(request):
        return True
    site = headers.get("sec-fetch-site")
    return site is not None and site.lower() not in _SAME_ORIGIN_FETCHES


def _own_origin(request: Request) -> str:
    return f"{request.url.scheme}://{request.headers.get('host', '')}".lower()


async def json_body(request: Request, limit: int) -> dict[str, Any]:
    """The request's body as a JSON object of at most ``limit`` bytes; raises :class:`Refused`."""
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media != "application/json":
        raise Refused(415, "json_required", "the body must be JSON (application/json)")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise _too_large(limit)
            chunks.append(chunk)
    except ClientDisconnect:
        raise Refused(400, "incomplete_body", "the body was cut off") from None
    try:
        value = jsonvalue.decode(b"".join(chunks).decode("utf-8"), unique_keys=True)
    except (UnicodeDecodeError, jsonvalue.JsonError):
        raise Refused(400, "invalid_json", "the body is not a JSON object") from None
    if not isinstance(value, dict):
        raise Refused(400, "invalid_json", "the body is not a JSON object")
    return value


def _too_large(limit: int) -> Refused:
    return Refused(413, "body_too_large", f"the body is larger than {limit} bytes")


def json_response(payload: object, status: int = 200) -> Response:
    """A JSON answer with the page's headers."""
    body = jsonvalue.encode(payload, ensure_ascii=False).encode("utf-8")
    return Response(body, status, headers=dict(HEADERS), media_type="application/json")


def refusal(refused: Refused) -> Response:
    """The answer to a refused request: its error name and a fixed message, nothing it sent."""
    return json_response({"error": refused.error, "message": refused.message}, refused.status)
