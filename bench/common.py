"""Building blocks shared by the benchmark sections.

- :func:`seed_root` writes N valid version 2 records of realistic size into a memory root.
- :class:`Server` runs the production app (or another factory, such as the protocol floor)
  under a real uvicorn process on a free loopback port, with a temporary HOME and memory
  root, optionally pinned to chosen CPUs with ``taskset``; it reports the process's CPU time
  and resident memory. :class:`McpHttp` talks to it over HTTP.
- :func:`measure` times repeated calls (after a warm-up) and :func:`read_parse_floor` times
  the plain "read every file and json.loads it" loop that a recall is compared with.
- :func:`print_table` prints a compact fixed-width table.

Nothing here is a unit test: numbers depend on the machine, so nothing asserts on them.
"""

from __future__ import annotations

import contextlib
import functools
import http.client
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from mymcp.plugins.mnemosyne.memory.model.records import (  # noqa: E402
    CanonicalRecord,
    Collection,
    Namespace,
    canonical_relative_parts,
    serialize_canonical,
)
from mymcp.plugins.mnemosyne.memory.model.vocabulary import (  # noqa: E402
    LifecycleState,
    MemoryKind,
    NamespaceKind,
    Origin,
    RecordedVia,
    Scope,
)
from tests.processes import (  # noqa: E402
    FACTORY,
    ServerStartError,
    child_environment,
    free_port,
    stop,
    uvicorn_command,
    wait_until_healthy,
)
from tests.surface import GATE_OF  # noqa: E402
from tests.surface import gates as gate_environment  # noqa: E402

DEFAULT_SIZES = (10, 100, 1000)
SEED_SCOPE = Scope.PROJECT
# The store trusts a cached read only once the file is older than its racy window (2 s);
# real memories are older than that, so the benchmark waits it out after seeding.
SETTLE_SECONDS = 2.2

# Plain words for titles, content and queries: frequent enough that queries hit a few
# percent of the records, as a real query would.
WORDS = tuple(
    """
    account agenda algorithm analysis answer api approach archive audit backlog backup
    balance baseline batch benchmark billing board branch budget bug build cache calendar
    campaign candidate capacity checklist client cluster code coffee comment commit
    component config contract cost coverage customer dashboard data database deadline
    decision default demo deploy design detail device diagram document domain draft
    estimate event expense export feature feedback field file filter forecast format
    garden goal guide handbook health history holiday hosting idea import incident index
    insight interview invoice issue kitchen label latency launch layout lesson library
    license limit locale log logo login meeting memory mentor metric migration milestone
    mobile model module monitor network note notebook offline onboarding option order
    outline owner package page partner password payment performance pipeline plan plugin
    policy portal pricing priority process product profile progress prototype query queue
    quota recipe record refactor release report request research review risk roadmap
    routine runbook sample schedule schema search security server service session sketch
    snapshot source spec sprint staging standard storage strategy style summary support
    survey sync table target task team template test theme ticket timeline token tool
    training travel trial upgrade usage vendor version video vision website weekly
    widget workflow workshop
    """.split()
)
CONNECTORS = tuple("and the with for from into over after before about because while".split())
TAG_WORDS = tuple(WORDS[::7])
NAMESPACES = ("atlas", "beacon", "cobalt", "delta-app", "ember", "fjord", "garnet", "harbor")
COLLECTIONS = (None, "decisions", "notes", "research", "ops")
KINDS = (
    MemoryKind.DECISION,
    MemoryKind.CONSTRAINT,
    MemoryKind.STATE,
    MemoryKind.QUESTION,
    MemoryKind.REFERENCE,
    MemoryKind.SUMMARY,
)


# --- seeding -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Seeded:
    """A seeded memory root: the file paths and a reference for each record."""

    root: Path
    paths: tuple[Path, ...]
    references: tuple[dict[str, Any], ...]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 14))]
    for _ in range(rng.randint(1, 3)):
        words.insert(rng.randrange(1, len(words)), rng.choice(CONNECTORS))
    return " ".join(words).capitalize() + "."


def _content(rng: random.Random) -> str:
    target = rng.randint(200, 2000)
    text = _sentence(rng)
    while len(text) < target:
        text += " " + _sentence(rng)
    return text[:target].rstrip() + "."


def _record(rng: random.Random, index: int) -> CanonicalRecord:
    collection_id = rng.choice(COLLECTIONS)
    namespace_id = rng.choice(NAMESPACES)
    stamp = f"2025-{1 + index % 12:02d}-{1 + index % 28:02d}T{index % 24:02d}:00:00Z"
    return CanonicalRecord(
        id=f"mem_{rng.getrandbits(128):032x}",
        scope=SEED_SCOPE,
        namespace=Namespace(NamespaceKind.PROJECT, namespace_id, namespace_id.title()),
        collection=None if collection_id is None else Collection(collection_id, None),
        kind=rng.choice(KINDS),
        language="en",
        title=" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 8))).capitalize(),
        content=_content(rng),
        tags=tuple(rng.sample(TAG_WORDS, rng.randint(0, 10))),
        origin=Origin.EXPLICIT_USER_STATEMENT,
        recorded_via=RecordedVia.MEMORY_REMEMBER,
        state=LifecycleState.ARCHIVED if index % 20 == 19 else LifecycleState.ACTIVE,
        revision=1 + index % 3,
        created_at=stamp,
        updated_at=stamp,
        occurred_at=None,
    )


def _reference(record: CanonicalRecord) -> dict[str, Any]:
    return {
        "schema_version": 2,
        "scope": record.scope.value,
        "namespace_id": record.namespace.id,
        "collection_id": None if record.collection is None else record.collection.id,
        "id": record.id,
    }


def seed_root(root: Path, count: int, *, seed: int = 0) -> Seeded:
    """Write ``count`` valid v2 records (one scope, several namespaces and collections)."""
    rng = random.Random(seed)
    paths: list[Path] = []
    references: list[dict[str, Any]] = []
    for index in range(count):
        record = _record(rng, index)
        collection_id = None if record.collection is None else record.collection.id
        parts = canonical_relative_parts(
            record.scope, record.namespace.id, collection_id, record.id
        )
        path = root.joinpath(*parts)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.write_bytes(serialize_canonical(record))
        paths.append(path)
        references.append(_reference(record))
    return Seeded(root, tuple(paths), tuple(references))


def queries(count: int, *, seed: int = 1) -> list[str]:
    """Short realistic queries (two or three vocabulary words, sometimes a stop word)."""
    rng = random.Random(seed)
    made = []
    for _ in range(count):
        words = rng.sample(WORDS, rng.randint(2, 3))
        if rng.random() < 0.5:
            words.insert(0, rng.choice(("what", "how", "the", "which")))
        made.append(" ".join(words))
    return made


def plural(word: str) -> str:
    """An English plural of a vocabulary word (no record holds it: they use the singular)."""
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def wider_queries(count: int, *, seed: int = 2) -> list[str]:
    """Queries of plural vocabulary words: the exact tier finds nothing, the wider tier all."""
    return [" ".join(plural(word) for word in query.split()) for query in queries(count, seed=seed)]


# Other words for vocabulary words (``bill`` for invoice, ``glitch`` for bug), none in WORDS:
# only the meaning tier answers them.
MEANING_WORDS = tuple(
    """
    agreement appointment arrangement assessment bill blueprint chart chronicle consumer
    edition examination gizmo glitch manual paradigm patron photograph recording timetable
    """.split()
)
# Words for nothing the notebook holds: every tier looks, none finds.
ABSENT_WORDS = tuple("giraffe saxophone volcano tulip glacier harpoon walrus velvet".split())


def _word_queries(words: Sequence[str], count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.sample(words, rng.randint(1, 2))) for _ in range(count)]


def meaning_queries(count: int, *, seed: int = 3) -> list[str]:
    """Queries of one or two words of :data:`MEANING_WORDS`."""
    return _word_queries(MEANING_WORDS, count, seed)


def absent_queries(count: int, *, seed: int = 4) -> list[str]:
    """Queries of one or two words of :data:`ABSENT_WORDS`."""
    return _word_queries(ABSENT_WORDS, count, seed)


# --- the server --------------------------------------------------------------------------


@dataclass
class Server:
    """A real ``uvicorn --factory mymcp.app:create_production_app`` process.

    Use as a context manager; it gets a temporary HOME, the given memory root and the
    given gate variables, and is stopped (only this process) on exit.
    """

    memory_root: Path
    gates: Mapping[str, bool] = field(default_factory=dict)
    startup_timeout: float = 30.0
    port: int = 0
    # Another app to serve instead (the protocol floor), found in ``app_dir``.
    factory: str = FACTORY
    app_dir: Path | None = None
    # The CPUs the server may run on (``taskset -c``), where taskset exists.
    cpus: str | None = None
    health_path: str = "/health"
    # Another checkout of MyMCP to serve from (say, a ``git worktree`` of main), instead of
    # this one; the interpreter and its packages stay the same.
    checkout: Path | None = None
    # More variables for the server's environment (MYMCP_REQUIRE_TOKEN, say).
    environment: Mapping[str, str] = field(default_factory=dict)
    # Standard error to a pipe this process drains (as a client that starts the server
    # reads it), instead of /dev/null; ``log_bytes`` counts what came through it.
    log_pipe: bool = False
    log_bytes: int = 0
    _process: subprocess.Popen[bytes] | None = None
    _home: tempfile.TemporaryDirectory[str] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Server:
        self._home = tempfile.TemporaryDirectory(prefix="mymcp-bench-home-")
        chosen = gate_environment(**{gate: self.gates.get(gate, False) for gate in GATE_OF})
        env = child_environment(
            Path(self._home.name), self.memory_root, {**chosen, **self.environment}
        )
        if self.checkout is not None:
            env["PYTHONPATH"] = str(self.checkout)
        self.port = free_port()
        app_dir = ["--app-dir", str(self.app_dir)] if self.app_dir is not None else []
        options = [*app_dir, "--no-access-log", "--log-level", "warning"]
        command = [*pinned(self.cpus), *uvicorn_command(self.port, *options, factory=self.factory)]
        self._process = subprocess.Popen(
            command,
            cwd=self.checkout or REPO_ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE if self.log_pipe else subprocess.DEVNULL,
        )
        if self.log_pipe:
            threading.Thread(target=self._drain, daemon=True).start()
        try:
            wait_until_healthy(
                self._process, self.port, timeout=self.startup_timeout, path=self.health_path
            )
        except ServerStartError:
            self.__exit__()
            raise
        return self

    def _drain(self) -> None:
        process = self._process
        assert process is not None and process.stderr is not None
        while chunk := process.stderr.read1(65536):
            self.log_bytes += len(chunk)

    @property
    def home(self) -> Path:
        """The server's temporary HOME (where its access token is made)."""
        assert self._home is not None
        return Path(self._home.name)

    def cpu_seconds(self) -> float:
        """User and system CPU time the server process has used so far (Linux only)."""
        assert self._process is not None
        fields = Path(f"/proc/{self._process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mib(self) -> float:
        """The server process's resident set size now, in MiB (Linux only)."""
        assert self._process is not None
        status = Path(f"/proc/{self._process.pid}/status").read_text()
        line = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
        return int(line.split()[1]) / 1024

    def __exit__(self, *exc_info: object) -> None:
        if self._process is not None:
            stop(self._process, timeout=10)
            self._process = None
        if self._home is not None:
            self._home.cleanup()
            self._home = None


def pinned(cpus: str | None) -> list[str]:
    """The ``taskset`` prefix that keeps a command on ``cpus``, if asked and available."""
    if cpus is None or shutil.which("taskset") is None:
        return []
    return ["taskset", "-c", cpus]


class McpHttp:
    """Tool calls over one reused keep-alive HTTP connection.

    The client is the standard library's ``http.client``: the benchmarks time the server,
    and a full-featured client such as httpx adds roughly half a millisecond of its own work
    to every request on a small machine, which would swamp sub-millisecond server figures.
    Every response is still read completely and decoded, envelope and Tool text alike.

    Without ``protocol_version`` the client sends no ``MCP-Protocol-Version`` header, as an
    original 0.2.0 client did, and reads the payload from the text item. With one (2025-06-18
    or newer) it gets ``structuredContent`` as well and reads the payload from there, as a
    current SDK client does. With ``2026-07-28`` every request also carries the ``_meta``
    envelope and the ``Mcp-Method`` (and ``Mcp-Name``) headers of that revision.
    """

    def __init__(
        self, server: Server, protocol_version: str | None = None, *, timeout: float = 30.0
    ) -> None:
        self._connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
        self._headers = dict(_JSON_HEADERS)
        if protocol_version is not None:
            self._headers["MCP-Protocol-Version"] = protocol_version
        self._envelope = (
            {
                "io.modelcontextprotocol/protocolVersion": protocol_version,
                "io.modelcontextprotocol/clientCapabilities": {},
            }
            if protocol_version == MODERN_REVISION
            else None
        )
        self._next_id = 0

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> McpHttp:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _post(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = dict(params)
        headers = self._headers
        if self._envelope is not None:
            message["params"] = {**message.get("params", {}), "_meta": self._envelope}
            headers = {**headers, "Mcp-Method": method}
            if method == "tools/call":
                headers["Mcp-Name"] = message["params"]["name"]
        self._connection.request("POST", "/mcp", body=json.dumps(message).encode(), headers=headers)
        response = self._connection.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError(f"{method} got HTTP {response.status}")
        return json.loads(body)

    def post(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        """The decoded answer to one request (any status but 200 raises)."""
        return self._post(method, params)

    def list_tools(self) -> int:
        """How many Tools ``tools/list`` names."""
        body = self._post("tools/list")
        return len(body["result"]["tools"])

    def ping(self) -> None:
        """One JSON-RPC ``ping``: the round trip every call pays before any Tool work."""
        if self._post("ping").get("result") != {}:
            raise RuntimeError("ping failed")

    def call(self, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The Tool result's structured payload; raises when the call did not succeed."""
        body = self._post("tools/call", {"name": tool, "arguments": dict(arguments)})
        if "result" not in body:
            raise RuntimeError(f"{tool} failed: {body.get('error')}")
        result = body["result"]
        payload: dict[str, Any] = result.get("structuredContent") or json.loads(
            result["content"][0]["text"]
        )
        if result.get("isError"):
            raise RuntimeError(f"{tool} returned {payload.get('status')}/{payload.get('code')}")
        return payload


_JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}
MODERN_REVISION = "2026-07-28"
HANDSHAKE_REVISION = "2025-11-25"


# --- timing ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Timing:
    """Milliseconds per call."""

    p50: float
    p99: float
    samples: int


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def timed(action: Callable[[], object]) -> float:
    """Milliseconds taken by one call of ``action``."""
    started = time.perf_counter_ns()
    action()
    return (time.perf_counter_ns() - started) / 1e6


def summarize(samples: Sequence[float]) -> Timing:
    return Timing(percentile(samples, 0.5), percentile(samples, 0.99), len(samples))


def measure(action: Callable[[int], object], calls: int = 200, warmup: int = 200) -> Timing:
    """Time ``action(i)`` for ``calls`` calls after ``warmup`` untimed ones."""
    for index in range(warmup):
        action(index)
    return summarize([timed(functools.partial(action, warmup + n)) for n in range(calls)])


def read_parse(paths: Sequence[Path]) -> None:
    """The floor's unit of work: read and ``json.loads`` every file once, in a plain loop."""
    for path in paths:
        with open(path, "rb") as handle:
            json.loads(handle.read())


def walk_read_parse(root: Path) -> None:
    """Find every record file below ``root`` with ``os.walk``, then open and ``json.load`` it:
    the plain program a person would write to read and parse a notebook's files."""
    for folder, _, names in os.walk(root):
        for name in names:
            if name.endswith(".json"):
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    json.load(handle)


def read_parse_floor(paths: Sequence[Path], repetitions: int = 15) -> float:
    """p50 milliseconds of :func:`read_parse` over the given files."""
    return statistics.median(timed(lambda: read_parse(paths)) for _ in range(repetitions))


def interleaved(
    actions: Mapping[str, Callable[[int], object]],
    *,
    rounds: int = 20,
    per_round: int = 10,
    warmup: int = 200,
    floor_paths: Sequence[Path] = (),
) -> dict[str, Timing]:
    """Time several actions (and the read-and-parse floor) in alternating rounds.

    Interleaving exposes every measurement to the same background load, so ratios taken
    from one run stay meaningful on a busy machine. Each action gets ``warmup`` untimed
    calls first; the floor, if ``floor_paths`` is given, runs once per round under the
    name ``"floor"``.
    """
    for action in actions.values():
        for index in range(warmup):
            action(index)
    samples: dict[str, list[float]] = {name: [] for name in actions}
    floor: list[float] = []
    for round_number in range(rounds):
        if floor_paths:
            floor.append(timed(lambda: read_parse(floor_paths)))
        for name, action in actions.items():
            for step in range(per_round):
                index = warmup + round_number * per_round + step
                samples[name].append(timed(functools.partial(action, index)))
    timings = {name: summarize(values) for name, values in samples.items()}
    if floor:
        timings["floor"] = summarize(floor)
    return timings


@contextlib.contextmanager
def temporary_root(prefix: str = "mymcp-bench-") -> Iterator[Path]:
    """A fresh directory holding a (not yet created) memory root ``memory``."""
    with tempfile.TemporaryDirectory(prefix=prefix) as directory:
        yield Path(directory) / "memory"


def settle() -> None:
    """Let freshly written files age past the store's racy window."""
    time.sleep(SETTLE_SECONDS)


# --- output ------------------------------------------------------------------------------


def print_table(title: str, header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """Print ``rows`` under ``header`` as a compact right-aligned table."""
    cells = [[str(cell) for cell in row] for row in [header, *rows]]
    widths = [max(len(row[column]) for row in cells) for column in range(len(header))]
    print(title)
    for number, row in enumerate(cells):
        print("  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=True)))
        if number == 0:
            print("  ".join("-" * width for width in widths))
    print()


def ms(value: float) -> str:
    return f"{value:.2f}"
