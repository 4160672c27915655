"""MCP over stdio: framing, ordering, cancellation and the revision rule, in process.

``mymcp.stdio`` serves a synthetic runtime over a pair of pipes here, so the tests can hold
a Tool call open and watch the reader carry on. ``tests/transports/test_stdio_command.py`` runs the
real ``mymcp stdio`` command.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from mymcp.mcp import encoding
from mymcp.mcp.session import MAX_MESSAGE_BYTES
from mymcp.transports.base import DISPATCH_WORKERS
from tests import modern
from tests.synthetic_host import MARKER
from tests.transports.stdio_session import TIMEOUT, Session


@pytest.fixture
def session() -> Iterator[Session]:
    with Session.opened() as opened:
        yield opened


def ping(request_id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "ping"}


# --- framing -----------------------------------------------------------------------------


def test_each_answer_is_one_line_of_compact_json(session: Session) -> None:
    session.request("tools/list")

    answer = session.receive()
    assert answer["id"] == 1 and "tools" in answer["result"]
    line = session.raw[0]
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert line == encoding.encode(answer) + b"\n"


def test_a_line_that_is_not_json_gets_a_parse_error_with_a_null_id(session: Session) -> None:
    session.write(b"{not json\n")
    session.send(ping(2))

    assert session.receive() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error"},
    }
    assert session.receive() == {"jsonrpc": "2.0", "id": 2, "result": {}}


@pytest.mark.parametrize(
    "line", [b"\xff\xfe{}", b'{"id":1,"method":"ping"} trailing', b'{"id":NaN}', b"[" * 100_000]
)
def test_every_kind_of_unparsable_line_is_a_parse_error(session: Session, line: bytes) -> None:
    session.write(line + b"\n")

    assert session.receive()["error"]["code"] == -32700


def test_blank_lines_are_ignored(session: Session) -> None:
    session.write(b"\n   \n\r\n")
    session.send(ping(3))

    assert session.receive()["id"] == 3


def test_a_line_over_the_size_limit_is_refused_and_skipped(session: Session) -> None:
    session.write(b'{"pad":"' + b"x" * MAX_MESSAGE_BYTES + b'"}\n')
    session.send(ping(4))

    assert session.receive() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "Message too large"},
    }
    assert session.receive()["id"] == 4


def test_crlf_line_endings_are_accepted(session: Session) -> None:
    session.write(json.dumps(ping(5)).encode() + b"\r\n")

    assert session.receive()["id"] == 5


def test_line_separators_inside_strings_are_written_as_escapes(session: Session) -> None:
    label = "a\u2028b\u2029c\u00e9"
    session.call("echo", {"label": label})

    answer = session.receive()
    assert answer["result"]["received"] == {"label": label}
    assert "\u2028".encode() not in session.raw[0] and "\u2029".encode() not in session.raw[0]
    assert "\u00e9".encode() in session.raw[0]  # other text stays raw UTF-8


def test_a_batch_array_is_an_invalid_request(session: Session) -> None:
    session.write(b"[" + json.dumps(ping(1)).encode() + b"]\n")

    assert session.receive()["error"] == {"code": -32600, "message": "Invalid Request"}


def test_an_unencodable_result_is_an_internal_error_with_its_id(session: Session) -> None:
    session.call("unserializable", request_id="u")

    assert session.receive() == {
        "jsonrpc": "2.0",
        "id": "u",
        "error": {"code": -32603, "message": "Internal error"},
    }


# --- notifications, ordering, cancellation ------------------------------------------------


def test_notifications_get_no_answer(session: Session) -> None:
    session.send(
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}},
        {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "echo"}},
        ping(6),
    )

    assert session.receive()["id"] == 6
    assert session.finish() == []
    assert session.calls.names() == []


def test_pipelined_requests_are_each_answered_with_their_own_id(session: Session) -> None:
    ids: list[Any] = [*range(20), *(f"s{number}" for number in range(20))]
    session.send(*(ping(request_id) for request_id in ids))

    answers = [session.receive() for _ in ids]
    assert sorted(map(str, (answer["id"] for answer in answers))) == sorted(map(str, ids))
    assert all(answer["result"] == {} for answer in answers)


def test_a_slow_tool_call_does_not_hold_up_the_reader(session: Session) -> None:
    session.call("slow", request_id="slow")
    assert session.gate.started.wait(TIMEOUT)
    session.send(ping("fast"))

    assert session.receive()["id"] == "fast"  # answered while the slow call still runs
    session.gate.release.set()
    assert session.receive()["id"] == "slow"


def test_a_cancelled_call_in_progress_gets_no_answer(session: Session) -> None:
    session.call("slow", request_id=7)
    assert session.gate.started.wait(TIMEOUT)
    session.send(
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}},
        ping(8),
    )

    assert session.receive()["id"] == 8
    session.gate.release.set()
    assert session.finish() == []


def test_a_cancelled_call_that_has_not_started_never_runs(session: Session) -> None:
    busy = list(range(DISPATCH_WORKERS))
    for request_id in busy:
        session.call("slow", request_id=request_id)
    session.call("echo", request_id="queued")
    session.send(
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "queued"}}
    )
    # initialize is answered by the reader itself: once it is, the cancellation was seen.
    assert _initialize(session, None)["id"] == "init"

    session.gate.release.set()
    answers = session.finish()
    assert sorted(answer["id"] for answer in answers) == busy
    assert "echo" not in session.calls.names()


def test_cancelling_an_unknown_or_odd_id_changes_nothing(session: Session) -> None:
    for request_id in (123, "nope", None, True, [1], {"a": 1}):
        session.send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": request_id},
            }
        )
    session.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "x"})
    session.send(ping(9))

    assert session.receive()["id"] == 9


# --- the revision decides structuredContent ------------------------------------------------


def _initialize(session: Session, revision: str | None) -> dict[str, Any]:
    params: dict[str, Any] = {"capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    if revision is not None:
        params["protocolVersion"] = revision
    session.request("initialize", params, request_id="init")
    return session.receive()


def test_before_initialize_results_have_no_structured_content(session: Session) -> None:
    session.call("verbatim")

    assert "structuredContent" not in session.receive()["result"]


@pytest.mark.parametrize(
    ("revision", "structured"),
    [
        (None, False),
        ("2024-11-05", False),
        ("2025-03-26", False),
        ("2025-06-18", True),
        ("2025-11-25", True),
        ("2099-01-01", True),  # unknown: the newest supported revision is negotiated
    ],
)
def test_the_revision_negotiated_by_initialize_decides_structured_content(
    session: Session, revision: str | None, structured: bool
) -> None:
    _initialize(session, revision)
    session.call("verbatim", request_id=2)  # pipelined right behind initialize

    assert ("structuredContent" in session.receive()["result"]) is structured


def test_a_later_initialize_replaces_the_revision(session: Session) -> None:
    _initialize(session, "2025-11-25")
    assert _initialize(session, "2025-03-26")["result"]["protocolVersion"] == "2025-03-26"
    session.call("verbatim")

    assert "structuredContent" not in session.receive()["result"]


# --- logging -------------------------------------------------------------------------------


def test_the_log_lines_are_those_of_http_and_carry_no_payload(
    session: Session, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="mcp")
    session.call("echo", {"label": MARKER}, request_id=11)
    session.receive()
    session.send({"jsonrpc": "2.0", "method": "notifications/initialized", "params": MARKER})
    session.send({"jsonrpc": "2.0", "id": 12, "method": "nope", "params": {"x": MARKER}})
    session.receive()
    session.finish()

    lines = [record.getMessage() for record in caplog.records if record.name == "mcp"]
    assert lines[0] == "request id=11 method=tools/call"
    assert lines[1].startswith("response id=11 method=tools/call outcome=ok duration_ms=")
    assert lines[2].startswith("notification method=notifications/initialized duration_ms=")
    assert lines[3] == "request id=12 method=nope"
    assert lines[4].startswith("response id=12 method=nope outcome=error code=-32601 ")
    assert MARKER not in caplog.text


# --- what never waits -----------------------------------------------------------------


def test_stdio_answers_what_never_waits_while_every_worker_is_busy(session: Session) -> None:
    busy = list(range(DISPATCH_WORKERS))
    for request_id in busy:
        session.call("slow", request_id=request_id)
    assert session.gate.started.wait(TIMEOUT)
    session.send(
        {"jsonrpc": "2.0", "id": "ping", "method": "ping"},
        {"jsonrpc": "2.0", "id": "list", "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "tool", "method": "tools/call", "params": {"name": "nope"}},
        {"jsonrpc": "2.0", "id": "method", "method": "nope"},
        modern.request("server/discover", request_id="discover"),
    )

    answered = [session.receive() for _ in range(5)]

    assert [answer["id"] for answer in answered] == ["ping", "list", "tool", "method", "discover"]
    assert session.calls.names().count("slow") <= DISPATCH_WORKERS
    session.gate.release.set()
    assert sorted(answer["id"] for answer in session.finish()) == busy
