"""MCP 2026-07-28 over stdio, in process: the same checks as HTTP without the header layer.

Every request that names its protocol version in ``_meta`` is served as 2026-07-28, any
other as the handshake era, request by request: both eras work in one process.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests import modern
from tests.synthetic_host import INSTRUCTIONS, MARKER
from tests.transports.stdio_session import TIMEOUT, Session


@pytest.fixture
def session() -> Iterator[Session]:
    with Session.opened() as opened:
        yield opened


def ask(session: Session, message: Any) -> dict[str, Any]:
    session.send(message)
    answer = session.receive()
    assert answer["id"] == (
        message.get("id") if isinstance(message.get("id"), (str, int)) else None
    )
    return answer


def result_of(answer: dict[str, Any]) -> dict[str, Any]:
    assert "error" not in answer, answer
    result: dict[str, Any] = answer["result"]
    assert result["resultType"] == "complete"
    assert result["_meta"][modern.SERVER_INFO_KEY] == modern.SERVER_INFO
    return result


def code_of(answer: dict[str, Any]) -> int:
    assert "result" not in answer, answer
    code: int = answer["error"]["code"]
    return code


def test_an_opening_discover_gets_a_discover_result(session: Session) -> None:
    result = result_of(ask(session, modern.request("server/discover", request_id="probe")))

    assert result["supportedVersions"] == modern.SUPPORTED
    assert result["capabilities"] == {"tools": {}}
    assert result["instructions"] == INSTRUCTIONS
    assert result["cacheScope"] == "public" and result["ttlMs"] == modern.DISCOVER_TTL_MS


def test_tools_list_and_call_carry_the_result_fields(session: Session) -> None:
    listed = result_of(ask(session, modern.request("tools/list")))
    called = result_of(ask(session, modern.call("verbatim", request_id=2)))

    assert [tool["name"] for tool in listed["tools"]][:2] == ["list_tools", "echo"]
    assert listed["ttlMs"] == modern.TOOLS_LIST_TTL_MS and listed["cacheScope"] == "public"
    assert called["structuredContent"] == {"n": [1, 2.5, None, True, "x"], "deep": {"a": {"b": []}}}


def test_the_envelope_is_all_it_takes_no_header_is_asked_for(session: Session) -> None:
    result_of(ask(session, modern.call("echo", {"count": 1})))

    assert session.calls.received == [("echo", {"count": 1})]


@pytest.mark.parametrize(
    ("message", "code"),
    [
        (
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/list",
                "params": {"_meta": {modern.VERSION_KEY: "2026-07-28"}},
            },
            -32602,
        ),
        (modern.request("tools/list", version="1900-01-01"), -32022),
        (modern.request("tools/list", version="2025-11-25"), -32022),
        (modern.request("initialize", {"protocolVersion": "2025-11-25"}), -32601),
        (modern.request("ping"), -32601),
        (modern.request("foo/bar"), -32601),
        ({**modern.request("tools/list"), "id": None}, -32600),
        ({**modern.request("tools/list"), "method": 5}, -32600),
        (modern.call("nothing_here"), -32602),
        (modern.call("explode"), -32603),
    ],
    ids=repr,
)
def test_each_error_row_has_its_code(session: Session, message: Any, code: int) -> None:
    assert code_of(ask(session, message)) == code


@pytest.mark.parametrize("version", ["1900-01-01", "caf\u00e9", "2026-07-28\n", "", MARKER * 3])
def test_unsupported_names_every_revision_and_shows_only_a_plain_request(
    session: Session, version: str
) -> None:
    answer = ask(session, modern.request("tools/list", version=version))

    data = answer["error"]["data"]
    assert data["supported"] == modern.SUPPORTED
    plain = len(version) <= 32 and version.replace("-", "").isalnum() and version.isascii()
    assert data["requested"] == (version if plain else "")


def test_both_eras_are_served_in_one_process(session: Session) -> None:
    result_of(ask(session, modern.request("server/discover")))
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {}}
    handshake = ask(session, {"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": params})
    legacy = ask(session, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
    again = ask(session, modern.request("tools/list", request_id=4))

    assert handshake["result"]["protocolVersion"] == "2025-11-25"
    assert list(legacy["result"]) == ["tools"]
    assert result_of(again)["tools"] == legacy["result"]["tools"]


def test_a_2026_initialize_leaves_the_handshake_revision_alone(session: Session) -> None:
    params = {"protocolVersion": "2025-11-25"}
    assert code_of(ask(session, modern.request("initialize", params, request_id="i"))) == -32601
    answer = ask(
        session, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "verbatim"}}
    )

    assert "structuredContent" not in answer["result"]  # still no handshake in this process


def test_a_2026_notification_gets_no_answer(session: Session) -> None:
    message = modern.call("echo")
    del message["id"]
    session.send(message)

    assert session.finish() == []
    assert session.calls.received == []


def test_a_cancelled_2026_call_gets_no_answer(session: Session) -> None:
    session.send(modern.call("slow", request_id=7))
    assert session.gate.started.wait(TIMEOUT)
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}
    session.send(cancel, modern.request("tools/list", request_id=8))

    assert session.receive()["id"] == 8
    session.gate.release.set()
    assert session.finish() == []
