"""The notebook page's routes, all below ``/notebook``.

=================================  ===============================  =========================
Route                              Needs                            Answers
=================================  ===============================  =========================
``GET /notebook/``                 a session (else 303 to login)    the page
``GET /notebook/login``            nothing                          the login page (no data)
``GET /notebook/assets/NAME``      a session, but for the login     the page's script and
                                   page's own script and the style  style
``POST /notebook/login``           the page's own origin, and the   the session cookie
                                   printed link's secret or the
                                   access token
``POST /notebook/logout``          a session and its CSRF header    the cookie cleared
``GET /notebook/api/session``      a session                        its CSRF token, the Tools
                                                                    and their gates, scopes
``GET /notebook/api/overview``     a session                        every record's row, the
                                                                    skipped files
``POST /notebook/api/search``      a session and its CSRF header    ``memory_recall`` per scope
``POST /notebook/api/inspect``     a session and its CSRF header    ``memory_inspect``
``GET /notebook/api/export``       a session                        the export, as a download
``POST /notebook/api/change``      a session and its CSRF header    the change Tool's answer,
                                                                    or 403 when its gate is off
=================================  ===============================  =========================

Every route but the page and the login page first refuses a request from another origin
(403, ``guard.from_other_origin``); then one without a live session (401); then a POST
without the session's CSRF header (403). Refusals carry a fixed error name and message and
nothing of the request. Searches, lookups and changes are calls of the runtime's own Tool
handlers, so they answer, refuse and log exactly as the Tools do (the content policy, the
revision check, the duplicate rule, atomic writes); a change whose Tool the operator has not
switched on is not served, and the refusal names the setting that switches it on. The rows
and the export come from ``data.py``. Work that reads or writes
files runs on a worker thread.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from mymcp.jsonvalue import JsonObject
from mymcp.plugin_api import PageHost
from mymcp.plugins.mnemosyne.notebook.access import Session, access_of
from mymcp.plugins.mnemosyne.notebook.guard import (
    CSRF_HEADER,
    HEADERS,
    Refused,
    cookie_name,
    from_other_origin,
    json_body,
    json_response,
    refusal,
)

__all__ = ["PATH", "page_router"]

PATH = "/notebook"
# Bounds of request bodies: a login, a search or lookup, a change.
LOGIN_BODY_LIMIT = 4096
QUERY_BODY_LIMIT = 16384
CHANGE_BODY_LIMIT = 65536
# The roles of the Tools that change the notebook (see data.tools).
CHANGES = ("remember", "revise", "archive", "restore", "forget")
_MAX_SECRET = 256

_STATIC = Path(__file__).parent / "static"
# name: (media type, whether it may be fetched without a session)
_ASSETS: Mapping[str, tuple[str, bool]] = {
    "login.js": ("text/javascript", True),
    "style.css": ("text/css", True),
    "app.js": ("text/javascript", False),
}
_HTML = "text/html; charset=utf-8"

_logger = logging.getLogger("mymcp.notebook")

Handler = Callable[[Request, Session | None], Awaitable[Response]]


def page_router(host: PageHost) -> APIRouter:
    """The page's routes: the Tools ``host`` serves answer its searches, lookups and changes."""
    page = _Page(host)
    router = APIRouter()
    router.add_route(PATH, _to_page, methods=["GET"])
    router.add_route(f"{PATH}/", page.entry, methods=["GET"])
    router.add_route(f"{PATH}/login", _login_page, methods=["GET"])
    router.add_route(f"{PATH}/assets/{{name}}", page.asset, methods=["GET"])
    router.add_route(f"{PATH}/login", _guarded(page.login, session=False), methods=["POST"])
    router.add_route(f"{PATH}/logout", _guarded(_logout, csrf=True), methods=["POST"])
    router.add_route(f"{PATH}/api/session", _guarded(page.session), methods=["GET"])
    router.add_route(f"{PATH}/api/overview", _guarded(page.overview), methods=["GET"])
    router.add_route(f"{PATH}/api/search", _guarded(page.search, csrf=True), methods=["POST"])
    router.add_route(f"{PATH}/api/inspect", _guarded(page.inspect, csrf=True), methods=["POST"])
    router.add_route(f"{PATH}/api/export", _guarded(page.export), methods=["GET"])
    router.add_route(f"{PATH}/api/change", _guarded(page.change, csrf=True), methods=["POST"])
    router.add_route(f"{PATH}/{{rest:path}}", _not_found, methods=["GET", "POST"])
    _logger.info(
        "the notebook page is served at %s/ on this server's address; log in with the link "
        "'mymcp notebook' prints or the token 'mymcp token' prints",
        PATH,
    )
    return router


def _guarded(handler: Handler, *, session: bool = True, csrf: bool = False) -> Any:
    """``handler`` behind the origin check, and the session and CSRF checks it needs."""

    async def endpoint(request: Request) -> Response:
        try:
            if from_other_origin(request):
                raise Refused(403, "cross_origin", "only the notebook page itself may ask this")
            live = _session_of(request) if session else None
            if session and live is None:
                raise Refused(401, "login_required", "log in to the notebook page first")
            if csrf and (live is None or not live.csrf_matches(request.headers.get(CSRF_HEADER))):
                raise Refused(403, "csrf_required", "the request lacks the page's CSRF header")
            return await handler(request, live)
        except Refused as refused:
            return refusal(refused)

    return endpoint


def _session_of(request: Request) -> Session | None:
    return access_of(request.app).session(request.cookies.get(cookie_name(request)))


# --- the page and its files ----------------------------------------------------------------


@functools.cache
def _static(name: str) -> bytes:
    return (_STATIC / name).read_bytes()


def _file(name: str, media_type: str) -> Response:
    return Response(_static(name), headers=dict(HEADERS), media_type=media_type)


async def _to_page(request: Request) -> Response:
    return _redirect(f"{PATH}/")


async def _login_page(request: Request) -> Response:
    return _file("login.html", _HTML)


async def _not_found(request: Request) -> Response:
    return refusal(Refused(404, "not_found", "the notebook page has no such address"))


def _redirect(location: str) -> Response:
    return Response(status_code=303, headers={**HEADERS, "location": location})


# --- logging in and out ----------------------------------------------------------------------


async def _logout(request: Request, _: Session | None) -> Response:
    access_of(request.app).close(request.cookies.get(cookie_name(request)))
    _logger.info("event=notebook_logout outcome=ok")
    response = Response(status_code=204, headers=dict(HEADERS))
    response.delete_cookie(cookie_name(request), path=PATH, httponly=True, samesite="strict")
    return response


# --- what the page shows -----------------------------------------------------------------------


class _Page:
    """The routes that need the runtime: its Tools, by the role the page gives each."""

    def __init__(self, host: PageHost) -> None:
        self._host = host

    async def login(self, request: Request, _: Session | None) -> Response:
        """A login with the printed link's secret (``secret``) or the access token (``token``)."""
        body = await json_body(request, LOGIN_BODY_LIMIT)
        access = access_of(request.app)
        opened: tuple[str, Session] | None = None
        if "token" in body:
            method, refusal_message = "token", "this is not the access token 'mymcp token' prints"
            presented = body["token"]
            if (
                isinstance(presented, str)
                and 0 < len(presented) <= _MAX_SECRET
                and await run_in_threadpool(self._host.is_access_token, presented)
            ):
                opened = access.open_session()
        else:
            method, refusal_message = "link", "this login link was used already or has expired"
            secret = body.get("secret")
            if isinstance(secret, str) and 0 < len(secret) <= _MAX_SECRET:
                opened = access.redeem(secret)
        if opened is None:
            _logger.warning("event=notebook_login outcome=refused method=%s", method)
            raise Refused(401, "login_refused", refusal_message)
        _logger.info("event=notebook_login outcome=ok method=%s", method)
        response = Response(status_code=204, headers=dict(HEADERS))
        response.set_cookie(
            cookie_name(request), opened[0], path=PATH, httponly=True, samesite="strict"
        )
        return response

    async def entry(self, request: Request) -> Response:
        if _session_of(request) is None:
            return _redirect(f"{PATH}/login")
        return _file("app.html", _HTML)

    async def asset(self, request: Request) -> Response:
        name = request.path_params["name"]
        known = _ASSETS.get(name)
        if known is None:
            return await _not_found(request)
        media_type, public = known
        if not public:
            if from_other_origin(request):
                return refusal(Refused(403, "cross_origin", "only the notebook page may load this"))
            if _session_of(request) is None:
                return refusal(Refused(401, "login_required", "log in to the notebook page first"))
        return _file(name, media_type)

    async def session(self, request: Request, session: Session | None) -> Response:
        assert session is not None
        tools = [
            {**tool, "enabled": self._host.serves(str(tool["tool"]))}
            for tool in await run_in_threadpool(_tools)
        ]
        return json_response(
            {
                "csrf": session.csrf,
                "tools": tools,
                "settings_file": "~/.mnemosyne/config.toml",
                **_vocabulary(),
            }
        )

    async def overview(self, request: Request, _: Session | None) -> Response:
        from mymcp.plugins.mnemosyne.notebook import data

        answer = await run_in_threadpool(data.overview)
        return json_response(answer, 200 if answer.get("status") == "ok" else 503)

    async def search(self, request: Request, _: Session | None) -> Response:
        body = await json_body(request, QUERY_BODY_LIMIT)
        scope = body.get("scope")
        scopes = [scope] if scope is not None else [item["scope"] for item in _scopes()]
        arguments = {key: body[key] for key in ("query",) if key in body}

        def recall_each() -> list[JsonObject]:
            return [
                {"scope": each, **self._call("recall", {**arguments, "scope": each})}
                for each in scopes
            ]

        return json_response({"results": await run_in_threadpool(recall_each)})

    async def inspect(self, request: Request, _: Session | None) -> Response:
        body = await json_body(request, QUERY_BODY_LIMIT)
        arguments = {key: body[key] for key in ("reference",) if key in body}
        return json_response(await run_in_threadpool(self._call, "inspect", arguments))

    async def export(self, request: Request, _: Session | None) -> Response:
        from mymcp.plugins.mnemosyne.notebook import data

        exported = await run_in_threadpool(data.export)
        if exported is None:
            _logger.warning("event=notebook_export outcome=storage_error")
            raise Refused(503, "memory_source_unavailable", "the memory root could not be read")
        name, text = exported
        _logger.info("event=notebook_export outcome=ok")
        disposition = f'attachment; filename="{name}"'
        headers = {**HEADERS, "content-disposition": disposition}
        return Response(text.encode("utf-8"), headers=headers, media_type="application/json")

    async def change(self, request: Request, _: Session | None) -> Response:
        body = await json_body(request, CHANGE_BODY_LIMIT)
        role, arguments = body.get("change"), body.get("arguments")
        if role not in CHANGES or not isinstance(arguments, dict):
            raise Refused(400, "invalid_change", "name a change and give its arguments")
        [tool] = [tool for tool in _tools() if tool["role"] == role]
        if not self._host.serves(str(tool["tool"])):
            return json_response(
                {
                    "error": "change_disabled",
                    "message": f"{tool['tool']} is switched off",
                    "variable": tool["variable"],
                    "setting": tool["setting"],
                },
                403,
            )
        return json_response(await run_in_threadpool(self._call, str(role), arguments))

    def _call(self, role: str, arguments: JsonObject) -> JsonObject:
        """The Tool's answer: ``{"is_error", "answer"}``; ``{"unavailable": true}`` if it is off."""
        name = _tool_names()[role]
        result = self._host.call_tool(name, arguments)
        if result is None:
            return {"unavailable": True}
        return {"is_error": bool(result.get("isError")), "answer": result["structuredContent"]}


@functools.cache
def _tools() -> list[dict[str, object]]:
    from mymcp.plugins.mnemosyne.notebook import data

    return data.tools()


@functools.cache
def _tool_names() -> Mapping[str, str]:
    return {str(tool["role"]): str(tool["tool"]) for tool in _tools()}


@functools.cache
def _vocabulary() -> dict[str, object]:
    from mymcp.plugins.mnemosyne.notebook import data

    return data.vocabulary()


def _scopes() -> list[dict[str, Any]]:
    scopes: list[dict[str, Any]] = _vocabulary()["scopes"]  # type: ignore[assignment]
    return scopes
