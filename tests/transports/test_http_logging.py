"""Host logging on logger ``mcp``: bounded request/outcome lines, never payloads."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import pytest

from tests.synthetic_host import MARKER, SyntheticHost

MAX_LINE = 400


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="mcp")
    return caplog


def mcp_lines(caplog: pytest.LogCaptureFixture, level: int | None = None) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if (record.name == "mcp" or record.name.startswith("mcp."))
        and (level is None or record.levelno == level)
    ]


def everything(caplog: pytest.LogCaptureFixture) -> str:
    """All captured output, including formatted exception text."""
    parts = [caplog.text]
    for record in caplog.records:
        parts.append(record.getMessage())
        parts.append(repr(record.args))
        if record.exc_text:
            parts.append(record.exc_text)
    return "\n".join(parts)


def test_a_request_logs_one_request_and_one_outcome_line(
    host: SyntheticHost, logs: pytest.LogCaptureFixture
) -> None:
    host.rpc({"jsonrpc": "2.0", "id": 1, "method": "ping"})

    records = [record for record in logs.records if record.name == "mcp"]
    assert [record.levelno for record in records] == [logging.INFO, logging.INFO]
    assert records[0].getMessage() == "request id=1 method=ping"
    assert re.fullmatch(
        r"response id=1 method=ping outcome=ok duration_ms=\d+", records[1].getMessage()
    )


def test_an_error_response_is_logged_as_a_warning_with_its_code(
    host: SyntheticHost, logs: pytest.LogCaptureFixture
) -> None:
    host.rpc({"jsonrpc": "2.0", "id": "a", "method": "nope"})

    warnings = mcp_lines(logs, logging.WARNING)
    assert len(warnings) == 1
    assert re.fullmatch(
        r"response id=a method=nope outcome=error code=-32601 duration_ms=\d+", warnings[0]
    )


def test_a_non_object_body_logs_none_for_id_and_method(
    host: SyntheticHost, logs: pytest.LogCaptureFixture
) -> None:
    host.post(b"[1,2]")

    assert mcp_lines(logs, logging.INFO) == ["request id=None method=None"]
    assert re.fullmatch(
        r"response id=None method=None outcome=error code=-32600 duration_ms=\d+",
        mcp_lines(logs, logging.WARNING)[0],
    )


@pytest.mark.parametrize(
    ("request_id", "rendered"), [(5, "5"), (None, "None"), (True, "True"), ("x-1", "x-1")]
)
def test_ids_are_rendered_like_python_str(
    host: SyntheticHost, logs: pytest.LogCaptureFixture, request_id: Any, rendered: str
) -> None:
    host.rpc({"jsonrpc": "2.0", "id": request_id, "method": "ping"})

    assert mcp_lines(logs, logging.INFO)[0] == f"request id={rendered} method=ping"


def test_a_tool_error_result_is_still_outcome_ok(
    host: SyntheticHost, logs: pytest.LogCaptureFixture
) -> None:
    host.call("tool_error")

    lines = mcp_lines(logs)
    assert re.fullmatch(r"response id=1 method=tools/call outcome=ok duration_ms=\d+", lines[-1])


@pytest.mark.parametrize("tool", ["explode", "unserializable", "not_finite"])
def test_internal_errors_get_an_outcome_line(
    host: SyntheticHost, logs: pytest.LogCaptureFixture, tool: str
) -> None:
    host.call(tool)

    outcomes = [line for line in mcp_lines(logs) if line.startswith("response ")]
    assert len(outcomes) == 1
    assert re.fullmatch(
        r"response id=1 method=tools/call outcome=error code=-32603 duration_ms=\d+", outcomes[0]
    )
    assert "outcome=ok" not in logs.text


def test_notifications_are_silent_at_info(
    host: SyntheticHost, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.INFO, logger="mcp")

    host.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    host.send({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "echo"}})

    assert mcp_lines(caplog) == []


def test_notifications_log_one_debug_line(
    host: SyntheticHost, logs: pytest.LogCaptureFixture
) -> None:
    host.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}})

    lines = mcp_lines(logs)
    assert len(lines) == 1
    assert re.fullmatch(r"notification method=notifications/cancelled duration_ms=\d+", lines[0])
    assert [r.levelno for r in logs.records if r.name == "mcp"] == [logging.DEBUG]


@pytest.mark.parametrize(
    "message",
    [
        {
            "id": 1,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"label": MARKER}},
        },
        {"id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {MARKER: 1}}},
        {
            "id": 1,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"tags": [MARKER]}},
        },
        {"id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": MARKER}},
        {"id": 1, "method": "tools/call", "params": {"name": "leaky_result", "arguments": {}}},
        {
            "id": 1,
            "method": "tools/call",
            "params": {"name": "explode", "arguments": {"x": MARKER}},
        },
        {"id": 1, "method": "ping", "params": {"note": MARKER}},
        {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": MARKER}}},
        {"id": 1, "method": "nope", "params": {"x": MARKER}},
        {"method": "notifications/initialized", "params": {"x": MARKER}},
        {"method": "tools/call", "params": {"name": "echo", "arguments": {"label": MARKER}}},
    ],
)
def test_params_arguments_and_results_never_reach_the_log(
    host: SyntheticHost, logs: pytest.LogCaptureFixture, message: dict[str, Any]
) -> None:
    response = host.send({"jsonrpc": "2.0", **message})

    assert response.status_code in (200, 202)
    assert MARKER not in everything(logs)


def test_parse_errors_do_not_log_the_body(
    host: SyntheticHost, logs: pytest.LogCaptureFixture
) -> None:
    host.post(f'{{"id":1,"method":"ping","x":"{MARKER}"'.encode())

    assert MARKER not in everything(logs)


FORGED = "response id=2 method=ping outcome=ok duration_ms=0"


@pytest.mark.parametrize(
    "message",
    [
        {"id": f"1\n{FORGED}", "method": "ping"},
        {"id": f"1\r{FORGED}", "method": "ping"},
        {"id": 1, "method": f"ping\n{FORGED}"},
        {"id": 1, "method": f"nope\u2028{FORGED}"},
        {"id": {"x": f"\n{FORGED}"}, "method": "ping"},
        {"id": [f"\n{FORGED}"], "method": "ping"},
        {"method": f"notifications/x\n{FORGED}"},
    ],
)
def test_ids_and_methods_cannot_forge_log_lines(
    host: SyntheticHost, logs: pytest.LogCaptureFixture, message: dict[str, Any]
) -> None:
    host.send({"jsonrpc": "2.0", **message})

    for line in mcp_lines(logs):
        assert "\n" not in line and "\r" not in line and "\u2028" not in line
        assert FORGED not in line
    assert FORGED not in logs.text


@pytest.mark.parametrize(
    "message",
    [
        {"id": "i" * 100_000, "method": "ping"},
        {"id": 1, "method": "m" * 100_000},
        {"id": 10**1000, "method": "ping"},
        {"id": [list(range(10_000))], "method": "ping"},
        {"method": "n" * 100_000},
    ],
    ids=["long-id", "long-method", "huge-int-id", "big-array-id", "long-notification"],
)
def test_logged_values_are_bounded(
    host: SyntheticHost, logs: pytest.LogCaptureFixture, message: dict[str, Any]
) -> None:
    response = host.post(json.dumps({"jsonrpc": "2.0", **message}))

    assert response.status_code in (200, 202)
    for line in mcp_lines(logs):
        assert len(line) <= MAX_LINE
