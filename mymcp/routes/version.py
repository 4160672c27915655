"""``GET /version``: who is answering and which MCP revisions it speaks.

``supportedProtocolVersions`` lists the handshake revisions (reached through
``initialize``), ``modernProtocolVersions`` the stateless ones (every request names its
revision in ``_meta``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from mymcp import settings

router = APIRouter()


@router.api_route("/version", methods=["GET", "HEAD"])
async def version() -> dict[str, Any]:
    return {
        "name": settings.SERVER_NAME,
        "version": settings.SERVER_VERSION,
        "protocolVersion": settings.PROTOCOL_VERSION,
        "supportedProtocolVersions": list(settings.SUPPORTED_PROTOCOL_VERSIONS),
        "modernProtocolVersions": list(settings.MODERN_PROTOCOL_VERSIONS),
    }
