"""Production logging: the same lines in the same order, written off the request path.

``startup.configure_logging`` hands every record to the writer thread it starts; what reaches
standard error must be exactly what the plain ``logging.basicConfig`` setup wrote, with
nothing lost when the process ends.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap

import pytest

from mymcp.mcp import jsonrpc
from mymcp.mcp.session import Session
from mymcp.startup import LOG_FORMAT
from tests.synthetic_host import synthetic_runtime

# Lines of every kind, from our loggers and Uvicorn's, as a production process makes them.
_SCRIPT = """
import logging, logging.config, sys
from uvicorn.config import LOGGING_CONFIG
logging.config.dictConfig(LOGGING_CONFIG)
{setup}
mcp = logging.getLogger("mcp")
mutable = ["before"]
mcp.info("request id=%s method=%s", "1", "ping")
logging.getLogger("uvicorn.error").info("Started server process [%d]", 42)
mcp.debug("notification method=%s duration_ms=%d", "x", 0)
mcp.warning("shown %s", mutable)
mutable[0] = "after"
logging.getLogger("mymcp.memory.store").warning("skipped scope=%r reason=%r", "p", "r")
logging.getLogger("uvicorn.access").info('%s - "%s %s HTTP/%s" %d', "c", "GET", "/", "1.1", 200)
logging.getLogger("mcp.memory_recall").info("%(a)s and %(b)s", {{"a": 1, "b": 2}})
try:
    raise ValueError("boom")
except ValueError:
    logging.getLogger("mcp").exception("handler failed method=%s", "tools/call")
mcp.info("line %d", 1, stack_info=False)
for n in range(300):
    logging.getLogger("mcp").info("response id=%s method=%s outcome=ok duration_ms=%d", n, "p", 0)
{end}
"""
_OURS = "from mymcp.startup import configure_logging; configure_logging()"
# What configure_logging did before its lines left the request path (on one line, like
# _OURS, so that both tracebacks name the same line numbers).
_PLAIN_SETUP = f"""
logging.basicConfig(level=logging.INFO, format={LOG_FORMAT!r})
for name in ("mcp", "mymcp"):
    logging.getLogger(name).setLevel(logging.INFO)
for handler in logging.getLogger("uvicorn.access").handlers:
    handler.setStream(sys.stderr)
"""
_PLAIN = f"exec({_PLAIN_SETUP!r})"


def _stderr(setup: str, end: str = "") -> str:
    script = textwrap.dedent(_SCRIPT.format(setup=setup, end=end))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout == ""
    return done.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    "end", ["", "sys.exit(0)", "from mymcp import startup; startup.flush_logging()"]
)
def test_a_production_process_writes_exactly_the_lines_of_the_plain_setup(end: str) -> None:
    ours = _stderr(_OURS, end)

    assert ours == _stderr(_PLAIN, end)
    assert ours.count("\n") > 300
    assert "WARNING:mcp:shown ['before']" in ours


def _run(script: str) -> str:
    """Standard error of a process that sets logging up as production does, then runs
    ``script`` and ends with ``os._exit`` (no exit hook: only what was written counts)."""
    setup = (
        "import logging, logging.config, os, sys, threading\n"
        "from uvicorn.config import LOGGING_CONFIG\n"
        "logging.config.dictConfig(LOGGING_CONFIG)\n" + _OURS + "\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", setup + textwrap.dedent(script) + "\nos._exit(0)\n"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stderr


def test_flush_returns_once_every_line_so_far_is_written_in_order() -> None:
    err = _run(
        """
        from mymcp import startup
        def log(thread):
            for n in range(200):
                logging.getLogger("mcp").warning("thread=%d n=%d", thread, n)
        threads = [threading.Thread(target=log, args=(number,)) for number in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        startup.flush_logging()
        print("FLUSHED", file=sys.stderr, flush=True)
        """
    )

    lines = err.splitlines()
    assert lines[-1] == "FLUSHED"
    assert len(lines) == 801
    for number in range(4):
        mine = [line for line in lines if line.startswith(f"WARNING:mcp:thread={number} ")]
        assert mine == [f"WARNING:mcp:thread={number} n={n}" for n in range(200)]


def test_a_line_made_after_the_writer_stopped_or_in_a_forked_child_is_written() -> None:
    err = _run(
        """
        import atexit
        pid = os.fork()
        if pid == 0:
            logging.getLogger("mcp").warning("in the child")
            sys.stderr.flush()
            os._exit(0)
        os.waitpid(pid, 0)
        from mymcp import startup
        atexit._run_exitfuncs()  # the writer stops, as at the interpreter's exit
        logging.getLogger("mcp").warning("after stop")
        sys.stderr.flush()
        """
    )

    assert err.splitlines() == ["WARNING:mcp:in the child", "WARNING:mcp:after stop"]


def test_a_record_that_cannot_be_formatted_is_reported_not_raised() -> None:
    err = _run(
        """
        from mymcp import startup
        logging.getLogger("mcp").warning("two %s %s", "only-one")
        logging.getLogger("mcp").warning("still writing")
        startup.flush_logging()
        """
    )

    assert "Logging error" in err
    assert err.endswith("WARNING:mcp:still writing\n")


def test_an_at_once_line_is_written_with_everything_before_it_when_logging_returns() -> None:
    err = _run(
        """
        logging.getLogger("mcp").warning("queued first")
        logging.getLogger("uvicorn.error").warning("Finished server process [%d]", 7)
        """
    )

    assert err.splitlines()[-2:] == [
        "WARNING:mcp:queued first",
        "WARNING:  Finished server process [7]",
    ]


def test_lines_below_the_level_cost_no_rendering(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def rendered(value: object) -> str:
        raise AssertionError("a line below the level was rendered")

    caplog.set_level(logging.ERROR, logger="mcp")
    monkeypatch.setattr(jsonrpc, "log_value", rendered)
    session = Session(synthetic_runtime())

    body = session.handle({"jsonrpc": "2.0", "id": "a", "method": "ping"})
    note = session.handle({"jsonrpc": "2.0", "method": "notifications/x"})

    assert body == (b'{"jsonrpc":"2.0","id":"a","result":{}}', 200)
    assert note == (b"", 202)
    assert caplog.records == []
