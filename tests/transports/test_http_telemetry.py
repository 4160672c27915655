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
pytest.importorskip("opentelemetry._logs")
if "telemetry" not in inspect.signature(FastAPI.__init__).parameters:
    pytest.skip("this FastAPI has no built-in telemetry", allow_module_level=True)

# Runs in a child process: OpenTelemetry providers can be installed only once per process.
# Every provider records what it is asked for; the app runs with its lifespan, as served.
PROBE = textwrap.dedent(
    """
    import json, sys
    from opentelemetry import _logs, metrics, trace
    from starlette.testclient import TestClient

    events = []

    class Tracer(trace.NoOpTracer):
        def start_span(self, name, *args, **kwargs):
            events.append("span")
            return super().start_span(name, *args, **kwargs)

        def start_as_current_span(self, name, *args, **kwargs):
            events.append("span")
            return super().start_as_current_span(name, *args, **kwargs)

    class TracerProvider(trace.TracerProvider):
        def get_tracer(self, *args, **kwargs):
            return Tracer()

    class MeterProvider(metrics.MeterProvider):
        def get_meter(self, name, *args, **kwargs):
            events.append("meter")
            return metrics.NoOpMeter(name)

    class Logger(_logs.NoOpLogger):
        def emit(self, *args, **kwargs):
            events.append("log")

    class LoggerProvider(_logs.LoggerProvider):
        def get_logger(self, name, *args, **kwargs):
            events.append("logger")
            return Logger(name)

    trace.set_tracer_provider(TracerProvider())
    metrics.set_meter_provider(MeterProvider())
    _logs.set_logger_provider(LoggerProvider())
    if sys.argv[1] == "plain":
        from fastapi import FastAPI

        app = FastAPI()
        app.get("/health")(lambda: {})
    else:
        from mymcp.app import create_production_app

        app = create_production_app()
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        client.get("/health")
        client.get("/nowhere")
        client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    print(json.dumps(sorted(set(events))))
    """
)


def _telemetry_asked_for(kind: str, home: Path) -> list[str]:
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
    events: list[str] = json.loads(completed.stdout.strip().splitlines()[-1])
    return events


def test_a_plain_fastapi_app_would_report_spans_metrics_and_logs(hermetic_home: Path) -> None:
    assert {"span", "meter", "logger"} <= set(_telemetry_asked_for("plain", hermetic_home))


def test_mymcp_asks_no_telemetry_provider_for_anything(hermetic_home: Path) -> None:
    assert _telemetry_asked_for("mymcp", hermetic_home) == []
