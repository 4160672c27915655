"""A small HTTP/1.1 load generator: a few keep-alive connections, one request in flight on each.

It is written for this benchmark and nothing else: the requests are ``POST`` with a JSON
body built from a template whose ``{id}`` is replaced by a fresh integer per request, the
responses are read by their ``content-length`` (which both uvicorn apps under test send),
and every response is checked: status 200 and a body that starts the way the caller says a
good answer starts, with that request's id in it. One thread drives every connection with
``selectors``, so the client costs a few microseconds of Python per request; run it on a
different core than the server (the protocol section pins itself), and it is not the
bottleneck of a server that answers in tens of microseconds.

The standard library only: no external load tool needs to be installed.
"""

from __future__ import annotations

import selectors
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass

from common import percentile


@dataclass(frozen=True)
class Load:
    """What one scenario sends: the path, extra headers and the body template."""

    # Bodies with ``{id}`` where the request id goes; request ``n`` sends ``n % len``.
    bodies: tuple[str, ...]
    headers: tuple[tuple[str, str], ...] = ()
    path: str = "/mcp"
    # The start of a good answer to request ``n``; None: any 200 answer will do.
    expect: Callable[[int], bytes] | None = None
    # Bytes a good answer never holds (a Tool's ``"isError":true``).
    reject: bytes | None = None


@dataclass(frozen=True)
class LoadResult:
    requests: int
    seconds: float
    latencies_ms: tuple[float, ...]

    @property
    def throughput(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def p50(self) -> float:
        return percentile(self.latencies_ms, 0.5)

    @property
    def p99(self) -> float:
        return percentile(self.latencies_ms, 0.99)


class _Connection:
    """One keep-alive connection and the request it waits for."""

    def __init__(self, port: int, load: Load) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.setblocking(False)
        head = [f"POST {load.path} HTTP/1.1", f"Host: 127.0.0.1:{port}"]
        head += ["Content-Type: application/json", "Accept: application/json"]
        head += [f"{name}: {value}" for name, value in load.headers]
        self._head = "\r\n".join(head) + "\r\nContent-Length: "
        self._load = load
        self.buffer = b""
        self.request_id = 0
        self.sent_at = 0

    def send(self, request_id: int) -> None:
        bodies = self._load.bodies
        body = bodies[request_id % len(bodies)].replace("{id}", str(request_id)).encode()
        request = f"{self._head}{len(body)}\r\n\r\n".encode() + body
        self.request_id = request_id
        self.sent_at = time.perf_counter_ns()
        self.sock.sendall(request)

    def response(self) -> bytes | None:
        """The body of the complete response in the buffer, or None while it is incomplete."""
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = self.buffer[:end].decode("latin-1")
        lines = head.split("\r\n")
        if lines[0].split(" ", 2)[1] != "200":
            raise RuntimeError(f"the server answered {lines[0]!r}")
        length = next(
            int(line.split(":", 1)[1])
            for line in lines[1:]
            if line.lower().startswith("content-length:")
        )
        if len(self.buffer) < end + 4 + length:
            return None
        body = self.buffer[end + 4 : end + 4 + length]
        self.buffer = self.buffer[end + 4 + length :]
        return body


def run_load(port: int, load: Load, *, connections: int = 4, seconds: float = 1.0) -> LoadResult:
    """Keep ``connections`` requests in flight for ``seconds``; every answer is checked."""
    selector = selectors.DefaultSelector()
    opened = [_Connection(port, load) for _ in range(connections)]
    next_id = 0
    latencies: list[float] = []
    try:
        for connection in opened:
            next_id += 1
            connection.send(next_id)
            selector.register(connection.sock, selectors.EVENT_READ, connection)
        started = time.perf_counter()
        deadline = started + seconds
        done = 0
        while True:
            for key, _ in selector.select(timeout=5.0):
                connection = key.data
                chunk = connection.sock.recv(1 << 20)
                if not chunk:
                    raise RuntimeError("the server closed a connection")
                connection.buffer += chunk
                body = connection.response()
                if body is None:
                    continue
                latencies.append((time.perf_counter_ns() - connection.sent_at) / 1e6)
                _check(load, connection.request_id, body)
                done += 1
                if time.perf_counter() < deadline:
                    next_id += 1
                    connection.send(next_id)
                else:
                    selector.unregister(connection.sock)
            if not selector.get_map():
                break
        elapsed = time.perf_counter() - started
    finally:
        selector.close()
        for connection in opened:
            connection.sock.close()
    return LoadResult(done, elapsed, tuple(latencies))


def _check(load: Load, request_id: int, body: bytes) -> None:
    if (load.expect is not None and not body.startswith(load.expect(request_id))) or (
        load.reject is not None and load.reject in body
    ):
        raise RuntimeError(f"unexpected answer to request {request_id}: {body[:120]!r}")
