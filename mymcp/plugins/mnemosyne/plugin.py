"""The trusted Mnemosyne adapter: its plugin definition and its gate-selected contribution.

The Tools are declared once each (``tools/``); this module lists them in declaration order,
derives the plugin definition that the packaged ``manifest.json`` must equal, and activates
the Tools whose operator gates are on.

Declaring a Tool needs only its schema's vocabulary and limits. The services a Tool runs on,
the store and the content policy among them, are imported by its handler on its first call;
the production contribution imports them at once on a thread of its own
(:func:`warm_up`), so a client's handshake never waits for them and the first call finds
them ready. An import still running when a call needs it is waited for, never run twice.
"""

from __future__ import annotations

import importlib
import threading
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mymcp.plugin_api import (
    ActivatedTool,
    AuthorityDeclaration,
    CapabilityDeclaration,
    CapabilityKind,
    CapabilityLocalId,
    ConfigurationDeclaration,
    FilesystemAuthority,
    HostApiRange,
    HostApiVersion,
    ObjectSchemaNode,
    PageRoutes,
    PluginContribution,
    PluginDefinition,
    PluginId,
    PluginVersion,
    QualifiedCapabilityId,
    ToolRegistration,
)
from mymcp.plugin_api.setup import CommandHost, Finding
from mymcp.plugins.mnemosyne.configuration import gates, memory_root
from mymcp.plugins.mnemosyne.configuration.gates import MutationSettings
from mymcp.plugins.mnemosyne.tools import inspect, lifecycle, listing, recall, remember, revise
from mymcp.plugins.mnemosyne.tools.framework import MemoryTool

if TYPE_CHECKING:
    from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore

PLUGIN_ID = "mnemosyne"
PLUGIN_VERSION = "0.1.0"
CAPABILITY_VERSION = "1.0.0"

# What the Tool handlers import on their first call; warm_up imports the same.
SERVICE_MODULES: tuple[str, ...] = tuple(
    f"mymcp.plugins.mnemosyne.memory.{name}"
    for name in (
        "storage.store",
        "recall.ranking",
        "services.listing",
        "services.inspect",
        "services.lifecycle",
        "services.remember",
        "services.revise",
    )
)

# Data a service reads on its first use, loaded by warm_up after the imports: (module,
# function of no arguments).
SERVICE_DATA: tuple[tuple[str, str], ...] = (
    ("mymcp.plugins.mnemosyne.memory.recall.meaning", "load"),
)

# The usage note agents get (``instructions`` of ``initialize`` and ``server/discover``): how
# to use the notebook well. At most 1,000 characters.
INSTRUCTIONS = (
    "MyMCP keeps the user's Mnemosyne notebook: memories the user chose to keep, in local "
    "files. Before proposing a memory, look for it with memory_recall or memory_list, and "
    "read one in full with memory_inspect. Every change (memory_remember, memory_revise, "
    "memory_archive, memory_restore, memory_forget) is a proposal: ask the user and send "
    "exactly the call they approved; never treat your own judgement as approval. Store only "
    "what the user wants kept, and never secrets, passwords, credentials or keys, "
    "payment-card or government ID numbers, or file paths. Results name a memory by a "
    "reference object: pass it unchanged to memory_inspect and the change Tools, with the "
    "lifecycle revision the user last saw as expected_revision. If a change reports an "
    "uncertain outcome, inspect the same reference before any retry."
)

# Declaration order: the manifest's order, and so the order of tools/list.
DECLARED_TOOLS: tuple[MemoryTool, ...] = (
    recall.TOOL,
    listing.TOOL,
    inspect.TOOL,
    lifecycle.ARCHIVE,
    lifecycle.RESTORE,
    remember.TOOL,
    revise.TOOL,
    lifecycle.FORGET,
)


class MnemosyneContext:
    """What every Mnemosyne Tool call shares: one store (and its cache) for the process.

    Without a store given, the first call that needs one makes it, exactly once, with the
    operator's candidate limit.
    """

    def __init__(
        self,
        store: MemoryStore | None = None,
        *,
        candidate_limit: int = gates.DEFAULT_CANDIDATE_LIMIT,
    ) -> None:
        self._store = store
        self.candidate_limit = candidate_limit
        self._lock = threading.Lock()
        # Set once reading ahead no longer needs the interpreter to itself: its scans have
        # handed their files to worker processes, or it has nothing (more) to do.
        self.read_ahead_under_way = threading.Event()

    @property
    def store(self) -> MemoryStore:
        if self._store is None:
            with self._lock:
                if self._store is None:
                    from mymcp.plugins.mnemosyne.memory.storage.store import MemoryStore

                    self._store = MemoryStore(
                        candidate_limit=self.candidate_limit,
                        on_shared_out=self.read_ahead_under_way.set,
                    )
        return self._store

    def memory_root(self) -> Path:
        return memory_root.resolve_memory_root()


def mnemosyne_plugin_definition() -> PluginDefinition:
    """The definition the packaged manifest must match exactly."""
    capabilities = tuple(
        CapabilityDeclaration(
            CapabilityKind.TOOL,
            CapabilityLocalId(tool.name),
            PluginVersion(CAPABILITY_VERSION),
            tool.effects,
            tool.consent,
        )
        for tool in DECLARED_TOOLS
    )
    return PluginDefinition(
        manifest_version=1,
        plugin_id=PluginId(PLUGIN_ID),
        title="Mnemosyne",
        description="User-governed local memory for MyMCP.",
        version=PluginVersion(PLUGIN_VERSION),
        requires=HostApiRange(HostApiVersion(1), HostApiVersion(1)),
        capabilities=capabilities,
        configuration=ConfigurationDeclaration(1, ObjectSchemaNode()),
        secret_references=(),
        data_schema_version=1,
        authority=AuthorityDeclaration(
            (FilesystemAuthority.DATA_READ, FilesystemAuthority.DATA_WRITE), False
        ),
    )


def mnemosyne_contribution() -> PluginContribution:
    """The contribution for this process: operator settings are resolved here, once.

    Once it is built, the Tools' services are imported in the background (:func:`warm_up`),
    and the large scopes of the memory root are read ahead.
    """
    settings = gates.load_settings()
    context = MnemosyneContext(candidate_limit=settings.candidate_limit)
    contribution = _contribution(settings.gates, context)
    if _start_warm_up(context):
        _give_way(context)
    return contribution


# How long the process's other work waits for reading ahead to hand its files out, at most.
READ_AHEAD_HEAD_START_S = 2.0


def _give_way(context: MnemosyneContext) -> None:
    """Wait until reading ahead has handed its files to the worker processes (or has nothing
    to read): until then the worker processes wait for it, and it shares the interpreter
    with the server's own start (importing the web framework, the services). Only a raised
    candidate limit lets a scope hold enough memories to be read ahead."""
    if context.candidate_limit > gates.DEFAULT_CANDIDATE_LIMIT:
        context.read_ahead_under_way.wait(READ_AHEAD_HEAD_START_S)


def warm_up(context: MnemosyneContext | None = None) -> None:
    """Import every module of :data:`SERVICE_MODULES` that is not imported yet, then load
    the data of :data:`SERVICE_DATA` (recall's meaning table) and, given the ``context``,
    read its large scopes ahead (:func:`read_ahead`, started first), each on a daemon
    thread of its own.

    A module or data that fails to load is left to the call that needs it, which answers
    ``internal_error``.
    """
    # On daemon threads: a process told to stop never waits for work it will not use.
    if context is not None:  # first: it imports only what it needs, and starts processes
        threading.Thread(
            target=read_ahead, args=(context,), name="mnemosyne-read-ahead", daemon=True
        ).start()
        _give_way(context)
    for name in SERVICE_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the Tool call that needs it reports it, bounded
            continue
    threading.Thread(target=_load_data, name="mnemosyne-warm-up-data", daemon=True).start()


def read_ahead(context: MnemosyneContext) -> None:
    """Read each large scope of the memory root into recall's index now, as its first
    recall would, so that this work overlaps the server's start and the client's handshake.

    Only scopes whose first scan shares their files out among worker processes (thousands
    of memories, with a raised candidate limit) are read; a notebook of a usual size has
    none, so nothing is read but its directory listings. A call for a scope being read
    waits for that read and takes its outcome; a call for another scope does not wait.
    Reads never create or change a file. Whatever fails is left to the calls, which meet
    it again and report it, bounded.
    """
    try:
        _read_ahead(context)
    finally:
        context.read_ahead_under_way.set()


def _read_ahead(context: MnemosyneContext) -> None:
    try:
        root = context.memory_root()
        store = context.store
        scopes = store.large_scopes(root)
        if not scopes:
            return
        from mymcp.plugins.mnemosyne.memory.recall import ranking
    except Exception:  # noqa: BLE001 - the calls meet it again and report it
        return
    for scope in scopes:
        try:
            ranking.prepare(store, root, scope)
        except Exception:  # noqa: BLE001 - (one over the candidate limit, say)
            continue


def _load_data() -> None:
    try:
        for name, function in SERVICE_DATA:
            try:
                getattr(importlib.import_module(name), function)()
            except Exception:  # noqa: BLE001 - the Tool call that needs it reports it, bounded
                continue
    finally:
        _warm.set()


def wait_until_warm(timeout: float) -> bool:
    """Wait at most ``timeout`` seconds until the warm-up has imported the services and
    loaded their data; whether it has."""
    return _warm.wait(timeout)


_warm = threading.Event()  # set once the warm-up has done all it does


_warm_up_lock = threading.Lock()
_warm_up_thread: threading.Thread | None = None


def _start_warm_up(context: MnemosyneContext) -> bool:
    """Start :func:`warm_up` on a thread of its own, once per process; whether this call
    started it."""
    global _warm_up_thread
    with _warm_up_lock:
        if _warm_up_thread is not None:
            return False
        _warm_up_thread = threading.Thread(
            target=warm_up, args=(context,), name="mnemosyne-warm-up"
        )
        _warm_up_thread.start()
        return True


def build_mnemosyne_contribution(
    settings: MutationSettings,
    *,
    store: MemoryStore | None = None,
    candidate_limit: int = gates.DEFAULT_CANDIDATE_LIMIT,
) -> PluginContribution:
    """The always-on read Tools plus each mutation Tool whose gate is enabled."""
    return _contribution(settings, MnemosyneContext(store, candidate_limit=candidate_limit))


def _contribution(settings: MutationSettings, context: MnemosyneContext) -> PluginContribution:
    tools = [
        ActivatedTool(
            QualifiedCapabilityId(
                PluginId(PLUGIN_ID), CapabilityKind.TOOL, CapabilityLocalId(tool.name)
            ),
            tool.definition(),
            partial(tool.invoke, context=context),
            tool.effects,
            tool.consent,
        )
        for tool in DECLARED_TOOLS
        if tool.gate is None or settings.enabled(tool.gate)
    ]
    return PluginContribution(
        PluginId(PLUGIN_ID), PluginVersion(PLUGIN_VERSION), tools, instructions=INSTRUCTIONS
    )


def build_mnemosyne_registrations(
    settings: MutationSettings, *, store: MemoryStore | None = None
) -> tuple[ToolRegistration, ...]:
    """The gate-selected Tools as plain registrations, named by their capability ids."""
    contribution = build_mnemosyne_contribution(settings, store=store)
    return tuple(ToolRegistration(tool.tool, tool.handler) for tool in contribution.tools)


# --- what the host's entry points use besides the Tools (mymcp.host.bootstrap names them) ---


def check_setup() -> None:
    """Refuse a setup the server could not start with: a mistake in the operator's settings
    (``config.toml`` or a variable) or a memory root that exists but is not a usable
    directory. It reads only, and composes nothing: nothing is read ahead."""
    gates.load_settings()
    memory_root.check_memory_root()


def add_commands(commands: Any, host: CommandHost) -> None:
    """The plugin's own commands of ``mymcp`` (``notebook``, ``export``, ``import``,
    ``explain``), with what the host lends them."""
    from mymcp.plugins.mnemosyne import commands as own

    own.add_commands(commands, host)


def pages() -> list[PageRoutes]:
    """The plugin's own pages the production app serves beside ``/mcp`` (the notebook)."""
    from mymcp.plugins.mnemosyne.notebook import page_router

    return [page_router]


def findings() -> list[Finding]:
    """The plugin's findings about the operator's setup, ``(level, text)`` each; reads only."""
    from mymcp.plugins.mnemosyne import doctor

    return doctor.findings()
