"""``mymcp.mcp.session``: one message in, its answer out, with its two log lines."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from mymcp.mcp import errors
from mymcp.mcp.era import HttpHeaders
from mymcp.mcp.session import Session, Work
from tests.synthetic_host import runtime_for, synthetic_runtime, tool_definition


def test_the_request_and_response_lines(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="mcp")
    session = Session(synthetic_runtime())

    assert session.handle({"jsonrpc": "2.0", "id": "a", "method": "ping"}) == (
        b'{"jsonrpc":"2.0","id":"a","result":{}}',
        200,
    )
    assert session.handle({"jsonrpc": "2.0", "method": "notifications/initialized"}) == (b"", 202)

    lines = [record.getMessage() for record in caplog.records]
    assert lines[0] == "request id=a method=ping"
    assert lines[1].startswith("response id=a method=ping outcome=ok duration_ms=")
    assert lines[2].startswith("notification method=notifications/initialized duration_ms=")
    assert len(lines) == 3


def test_a_tool_call_is_work_whose_run_gives_the_answer() -> None:
    session = Session(synthetic_runtime())
    message = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo"}}

    work = session.handle(message)

    assert isinstance(work, Work)
    body, status = work.run()
    assert status == 200
    assert json.loads(body)["result"] == {"content": [], "received": {}}


@pytest.mark.parametrize("request_id", [7, "seven", None])
def test_a_failing_tool_is_answered_with_its_request_id(request_id: Any) -> None:
    def explode(arguments: dict[str, Any]) -> Any:
        raise RuntimeError("boom")

    session = Session(runtime_for([(tool_definition("explode"), explode)]))
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call"}
    work = session.handle({**message, "params": {"name": "explode"}})

    assert isinstance(work, Work)
    assert json.loads(work.run()[0]) == {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": -32603, "message": "Internal error"},
    }


def test_a_refused_header_is_answered_before_the_request_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="mcp")
    session = Session(synthetic_runtime())

    answer = session.handle(
        {"jsonrpc": "2.0", "id": 1, "method": "ping"}, HttpHeaders(protocol_version="1999-01-01")
    )

    assert isinstance(answer, tuple) and answer[1] == 400
    refused = {"code": -32600, "message": "Unsupported protocol version"}
    assert json.loads(answer[0])["error"] == refused
    assert caplog.records == []


@pytest.mark.parametrize(
    ("row", "headers", "status", "code"),
    [
        (errors.PARSE, None, 400, -32700),
        (errors.TOO_LARGE, HttpHeaders(protocol_version="2025-06-18"), 413, -32600),
        (errors.PARSE, HttpHeaders(protocol_version="x"), 400, -32600),
        (errors.LINE_TOO_LARGE, None, 413, -32600),
    ],
)
def test_a_message_that_cannot_be_read_gets_a_null_id(
    row: errors.ProtocolError, headers: HttpHeaders | None, status: int, code: int
) -> None:
    body, sent = Session(synthetic_runtime()).unreadable(row, headers)

    assert sent == status
    answered = json.loads(body)
    assert answered["id"] is None and answered["error"]["code"] == code
