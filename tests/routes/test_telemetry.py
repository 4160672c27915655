"""The app sends nothing about its requests to OpenTelemetry, even when a provider is set."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from fastapi import FastAPI

ROOT = Path(__file__).resolve().parent.parent.parent

pytest.importorskip("opentelemetry.trace")
if "telemetry" not in inspect.signature(FastAPI.__init__).parameters:
    pytest.skip("this FastAPI has no built-in telemetry", allow_module_level=True)

# Runs in a child process: a tracer provider can be installed only once per process.
PROBE = textwrap.dedent(
    """
    import json, sys
    from opentelemetry import trace
    from starlette.testclient import TestClient

    started = []

    class Tracer(trace.NoOpTracer):
        def start_span(self, name, *args, **kwargs):
            started.append(name)
            return super().start_span(name, *args, **kwargs)

        def start_as_current_span(self, name, *args, **kwargs):
            started.append(name)
            return super().start_as_current_span(name, *args, **kwargs)

    class Provider(trace.TracerProvider):
        def get_tracer(self, *args, **kwargs):
            return Tracer()

    trace.set_tracer_provider(Provider())
    if sys.argv[1] == "plain":
        from fastapi import FastAPI

        app = FastAPI()
        app.get("/health")(lambda: {})
    else:
        from mymcp.app import create_production_app

        app = create_production_app()
    client = TestClient(app, base_url="http://127.0.0.1:8000")
    client.get("/health")
    client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    print(json.dumps(started))
    """
)


def _spans_started(kind: str, home: Path) -> list[str]:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, kind],
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(ROOT),
            "HOME": str(home),
            "MNEMOSYNE_MEMORY_ROOT": str(home / "memory"),
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    spans: list[str] = json.loads(completed.stdout.strip().splitlines()[-1])
    return spans


def test_a_plain_fastapi_app_would_report_its_requests(hermetic_home: Path) -> None:
    assert "GET" in _spans_started("plain", hermetic_home)


def test_mymcp_starts_no_span_for_any_request(hermetic_home: Path) -> None:
    assert _spans_started("mymcp", hermetic_home) == []
