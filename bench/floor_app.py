"""The protocol floor: a bare Starlette app that answers every ``POST /mcp`` with constant JSON.

It does nothing a server could skip: no body is decoded, nothing is logged, no middleware
runs, and the answer is a bytes constant. Served by the same uvicorn, with the same options
and the same load as MyMCP, it is the least any request can cost on this machine, and the
protocol section divides by it (``uvicorn --factory floor_app:create_floor_app``).
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

ANSWER = b'{"jsonrpc":"2.0","id":1,"result":{}}'


async def _answer(request: Request) -> Response:
    return Response(ANSWER, media_type="application/json")


def create_floor_app() -> Starlette:
    return Starlette(routes=[Route("/mcp", _answer, methods=["POST"])])
