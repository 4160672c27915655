"""An in-process stdio server over a pair of pipes, for the stdio tests of both eras.

``mymcp.stdio`` serves a synthetic runtime (``tests/synthetic_host.py``) on a thread, so a
test can hold a Tool call open and watch the reader carry on.
"""

from __future__ import annotations

import json
import os
import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from mymcp.transports import stdio
from tests.synthetic_host import Calls, SlowGate, runtime_for, synthetic_tools

TIMEOUT = 10.0


class Session:
    """A stdio server on a thread, fed and read through pipes."""

    def __init__(self) -> None:
        self.calls, self.gate = Calls(), SlowGate()
        runtime = runtime_for(synthetic_tools(self.calls, self.gate))
        to_server, from_server = os.pipe(), os.pipe()
        self._input: IO[bytes] = os.fdopen(to_server[1], "wb")
        self._output: IO[bytes] = os.fdopen(from_server[0], "rb")
        source, sink = os.fdopen(to_server[0], "rb"), os.fdopen(from_server[1], "wb")
        self.raw: list[bytes] = []
        self._lines: queue.Queue[bytes | None] = queue.Queue()

        def serve() -> None:
            try:
                stdio.serve(runtime, source, sink)
            finally:
                source.close()
                sink.close()

        self.server = threading.Thread(target=serve, daemon=True)
        self.server.start()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        with self._output:
            for line in self._output:
                self.raw.append(line)
                self._lines.put(line)
        self._lines.put(None)

    def write(self, data: bytes) -> None:
        self._input.write(data)
        self._input.flush()

    def send(self, *messages: Any) -> None:
        self.write(b"".join(json.dumps(message).encode() + b"\n" for message in messages))

    def request(self, method: str, params: Any = None, request_id: Any = 1) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def call(self, tool: str, arguments: Any = None, request_id: Any = 1) -> None:
        self.request("tools/call", {"name": tool, "arguments": arguments or {}}, request_id)

    def receive(self) -> dict[str, Any]:
        line = self._lines.get(timeout=TIMEOUT)
        assert line is not None, "the server closed its output"
        message: dict[str, Any] = json.loads(line)
        return message

    def finish(self) -> list[dict[str, Any]]:
        """Close the input, wait for the server to return; every answer not yet received."""
        self._input.close()
        self.server.join(TIMEOUT)
        assert not self.server.is_alive()
        rest: list[dict[str, Any]] = []
        while (line := self._lines.get(timeout=TIMEOUT)) is not None:
            rest.append(json.loads(line))
        return rest

    @classmethod
    @contextmanager
    def opened(cls) -> Iterator[Session]:
        """A session for one test; its slow calls are released and its input closed after."""
        session = cls()
        try:
            yield session
        finally:
            session.gate.release.set()
            if not session._input.closed:
                session.finish()
