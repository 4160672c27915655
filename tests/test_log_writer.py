"""Production logging: the same lines in the same order, written off the request path.

``startup.configure_logging`` hands every record to the writer thread of
``mymcp.log_writer``; what reaches standard error must be exactly what the plain
``logging.basicConfig`` setup wrote, with nothing lost when the process ends.
"""

from __future__ import annotations

import io
import logging
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mymcp import startup as log_writer
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


class _Stream(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


@pytest.fixture
def writer() -> Iterator[log_writer.LogWriter]:
    started = log_writer.LogWriter()
    started.start()
    yield started
    started.stop()


def _deferred(writer: log_writer.LogWriter) -> tuple[logging.Logger, _Stream]:
    stream = _Stream()
    target = logging.StreamHandler(stream)
    target.setFormatter(log_writer.LineFormatter())
    logger = logging.Logger("mcp")  # not in the global hierarchy: nothing else sees it
    logger.addHandler(log_writer.DeferredHandler(target, writer))
    return logger, stream


def test_flush_returns_once_every_line_so_far_is_written_in_order(
    writer: log_writer.LogWriter,
) -> None:
    logger, stream = _deferred(writer)

    def log(thread: int) -> None:
        for n in range(200):
            logger.warning("thread=%d n=%d", thread, n)

    threads = [threading.Thread(target=log, args=(number,)) for number in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    writer.flush()

    lines = stream.getvalue().splitlines()
    assert len(lines) == 800
    for number in range(4):
        mine = [line for line in lines if line.startswith(f"WARNING:mcp:thread={number} ")]
        assert mine == [f"WARNING:mcp:thread={number} n={n}" for n in range(200)]
    assert stream.writes < 800  # lines that were waiting together went out in one write


def test_a_stopped_or_forked_writer_writes_directly(writer: log_writer.LogWriter) -> None:
    logger, stream = _deferred(writer)
    writer.stop()
    logger.warning("after stop")
    assert stream.getvalue() == "WARNING:mcp:after stop\n"

    writer.start()
    writer.forget_thread()  # what a forked child does: the thread did not come along
    logger.warning("in the child")
    assert stream.getvalue().endswith("WARNING:mcp:in the child\n")


def test_a_record_whose_arguments_may_change_is_fixed_when_made(
    writer: log_writer.LogWriter,
) -> None:
    logger, stream = _deferred(writer)
    values = ["then"]

    logger.warning("value=%s", values)
    values[0] = "now"
    writer.flush()

    assert stream.getvalue() == "WARNING:mcp:value=['then']\n"


def test_a_record_that_cannot_be_formatted_is_reported_not_raised(
    writer: log_writer.LogWriter, capsys: pytest.CaptureFixture[str]
) -> None:
    logger, stream = _deferred(writer)

    logger.warning("two %s %s", "only-one")
    logger.warning("still writing")
    writer.flush()

    assert stream.getvalue() == "WARNING:mcp:still writing\n"
    assert "Logging error" in capsys.readouterr().err


MESSAGES = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)


@given(message=MESSAGES, argument=st.integers() | MESSAGES, level=st.sampled_from([10, 20, 30]))
def test_the_line_formatter_writes_what_the_standard_formatter_writes(
    message: str, argument: int | str, level: int
) -> None:
    text = message.replace("%", "%%") + " %s"
    made = [
        logging.LogRecord("mcp.x", level, "f.py", 1, text, (argument,), None),
        logging.LogRecord("mcp", level, "f.py", 1, text, (argument,), None, sinfo="Stack"),
    ]
    try:
        raise RuntimeError(message)
    except RuntimeError:
        made.append(logging.LogRecord("m", level, "f.py", 1, text, (1,), sys.exc_info()))

    for record in made:
        expected = logging.Formatter(LOG_FORMAT).format(logging.makeLogRecord(record.__dict__))
        assert log_writer.LineFormatter().format(record) == expected


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


def test_an_at_once_line_is_written_with_everything_before_it_when_logging_returns(
    writer: log_writer.LogWriter,
) -> None:
    logger, stream = _deferred(writer)
    target = logging.StreamHandler(stream)
    target.setFormatter(log_writer.LineFormatter())
    server = logging.Logger("uvicorn.error")
    server.addHandler(log_writer.DeferredHandler(target, writer, at_once=True))

    logger.warning("queued first")
    server.warning("Finished server process [%d]", 7)

    assert stream.getvalue() == (
        "WARNING:mcp:queued first\nWARNING:uvicorn.error:Finished server process [7]\n"
    )
